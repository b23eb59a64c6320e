#!/bin/sh
# listing.sh -- issue 15's listing throughput and issue 12's list target,
# as one table: CPU seconds (user+sys, /usr/bin/time) and wall seconds of
# each run, with the load average before it.  The cc build is cached by a
# run before the timed ones.
#
#   sh bench/listing.sh [GAUSSIAN.space]   (default spaces/gaussian.space)
#
# SPACEC (default build/spacec) is the binary; REPEAT (default 2) runs of
# each row are printed, one line each; PARTS (default "gaussian gemm tiny")
# picks the rows.
set -u
S=${SPACEC:-build/spacec}
repeat=${REPEAT:-2}
parts=${PARTS:-gaussian gemm tiny}
gauss=${1:-spaces/gaussian.space}
tf=$(mktemp) || exit 1
trap 'rm -f "$tf"' EXIT
want() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }

# row LABEL ARGS...: REPEAT timed runs of spacec ARGS
row() {
	label=$1
	shift
	"$S" "$@" >/dev/null 2>&1 # the cc build, cached
	for _ in $(seq "$repeat"); do
		load=$(cut -d' ' -f1 /proc/loadavg)
		/usr/bin/time -o "$tf" -f '%U %S %e' "$S" "$@" >/dev/null 2>&1
		tail -1 "$tf" | awk -v l="$label" -v load="$load" '{ printf "| %s | %.2f | %.2f | %s |\n", l, $1 + $2, $3, load }'
	done
}

echo "| run | CPU s | wall s | load |"
echo "|---|---:|---:|---:|"
if want gaussian; then
	for n in 1 2; do
		row "gaussian, binary, $n thr" list -w --jit=cc --threads "$n" --format binary -o /dev/null "$gauss"
		row "gaussian, CSV, $n thr" list -w --jit=cc --threads "$n" --format csv -o /dev/null "$gauss"
	done
fi
if want gemm; then
	row "gemm_beast H100, binary, 1 thr" list -w --jit=cc --threads 1 --format binary -o /dev/null \
		--device-profile spaces/gemm_beast_h100_sp.json spaces/gemm_beast.space
fi
if want tiny; then
	# spacec's own "enumerated in" (the run, not the tcc build): the
	# median of 9, in ms
	for n in 1 2; do
		load=$(cut -d' ' -f1 /proc/loadavg)
		ms=$(for _ in 1 2 3 4 5 6 7 8 9; do
			"$S" count -v --jit=tcc --threads "$n" spaces/conv2d_cltune.space 2>&1 >/dev/null |
				sed -n 's/.*enumerated in \([0-9.]*\) s.*/\1/p'
		done | sort -g | sed -n 5p)
		echo "| conv2d_cltune count (3,424 points), $n thr | enumerated in $(awk -v s="$ms" 'BEGIN { printf "%.3f", s * 1000 }') ms | | $load |"
	done
fi
