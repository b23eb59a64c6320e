#!/bin/sh
# tune.sh -- the spacetune searches behind bench/README.md's GPU table, on
# the device machine.  Each problem gets a genetic search, then a local
# search from the best points on the same database (resuming skips every
# configuration already measured), then `spacetune best` writes the header
# and the JSON record that bench/gpu/run.sh times next to cuBLAS/CLBlast.
#
#   sh bench/gpu/tune.sh OUTDIR PROBLEM...     PROBLEM: sgemm dgemm conv3 conv7 conv11
#
# Environment: SPACETUNE (default: spacetune on PATH), BUDGET_GEMM and
# BUDGET_CONV (genetic search budgets, default 150s and 80s), BUDGET_LOCAL
# (default 40s).  The NVIDIA OpenCL driver must be registered first (see
# run.sh).
set -u
out=${1:?usage: tune.sh OUTDIR PROBLEM...}
shift
T=${SPACETUNE:-spacetune}
bg=${BUDGET_GEMM:-150s}
bc=${BUDGET_CONV:-80s}
bl=${BUDGET_LOCAL:-40s}
mkdir -p "$out"
common="--device NVIDIA --jobs 16"

search() { # NAME SPACE SETTINGS REPEAT BUDGET
	name=$1 space=$2 sets=$3 rep=$4 budget=$5
	echo "== $name: genetic $budget, then local $bl"
	$T run "$space" $sets $common --repeat "$rep" --strategy genetic --budget "$budget" \
		--seed 1 --db "$out/$name.jsonl" || echo "tune.sh: $name genetic search failed" >&2
	$T run "$space" $sets $common --repeat "$rep" --strategy local --budget "$bl" \
		--seed 2 --db "$out/$name.jsonl" || echo "tune.sh: $name local search failed" >&2
	$T best --db "$out/$name.jsonl" --header "$out/${name}_best.h" --json "$out/${name}_best.json"
}

for p in "$@"; do
	case $p in
	sgemm) search sgemm spaces/gemm.space "" 5 "$bg" ;;
	dgemm) search dgemm spaces/gemm.space "--set precision=double" 5 "$bg" ;;
	conv3|conv7|conv11)
		search "$p" spaces/conv2d.space "--set filter_size=${p#conv}" 10 "$bc" ;;
	*) echo "tune.sh: unknown problem '$p'" >&2; exit 2 ;;
	esac
done
