#!/bin/sh
# run.sh -- the GPU comparison of issue 5, in one call on the device machine:
# cuBLAS SGEMM/DGEMM, CLBlast SGEMM/DGEMM (+ Convgemm), the measured
# roofline (peak FP32, copy bandwidth), and our kernels/gemm.cl and
# kernels/conv2d.cl with hand-picked and/or tuned configurations.
#
# From the repository root (or a copy holding bench/gpu, kernels and
# tests/kernels/run_kernels.c):
#
#   sh bench/gpu/run.sh [--out DIR] [--clblast DIR] [--reps R]
#                       [--no-handpicked] [--gemm-best FILE]... [--conv-best FILE]...
#                       [--verify FILE] [--only LIST]
#
#   --out DIR        raw outputs and summary.md go there (default $OUT if
#                    set, else ./gpu-bench-out)
#   --clblast DIR    the root of `dpkg -x libclblast1 libclblast-dev`
#                    (default .carry/gpu/clblast); without it CLBlast is skipped
#   --reps R         timed runs per measurement (default 21; median reported)
#   --gemm-best F, --conv-best F
#                    a tuned configuration: a C header of #defines
#                    (spacetune best --header) or a JSON record holding a
#                    "defines" string such as "-DDIM_M=16 -DDIM_N=16 ..."
#                    (spacetune best --json, or one line of the results
#                    database).  Timed like the hand-picked ones, labelled
#                    with the file's name.  Repeatable.
#   --verify F       lines "gemm|conv2d NAME=VALUE..." run once each with full
#                    verification (run_kernels, not --bench): a sample of a
#                    space's points checked on the GPU
#   --only LIST      comma-separated subset of: cublas,clblast,roofline,ours,verify
#   --small          small problems everywhere (a smoke test on a CPU device)
#
# The NVIDIA OpenCL driver must be registered first (the lent machines
# need: mkdir -p /etc/OpenCL/vendors &&
#        echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd).
# Parts whose tools are missing (nvcc, CLBlast) are reported and skipped.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-./gpu-bench-out}
clblast=$top/.carry/gpu/clblast
reps=21
handpicked=1
only=cublas,clblast,roofline,ours,verify
verify=
best_gemm=
best_conv=
gemm_size="M=4096 N=4096 K=4096"
conv_size="W=8192 H=4096"
base_args=
roof_args=
nl='
'
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--clblast) clblast=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--no-handpicked) handpicked=0; shift ;;
	--gemm-best) best_gemm="$best_gemm$2$nl"; shift 2 ;;
	--conv-best) best_conv="$best_conv$2$nl"; shift 2 ;;
	--verify) verify=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--small)
		gemm_size="M=256 N=256 K=256" conv_size="W=512 H=256"
		base_args=256 roof_args="--mib 64 --iters 64"; shift ;;
	*) echo "run.sh: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
	esac
done
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
build=$(mktemp -d "${TMPDIR:-/tmp}/spacec-gpu-bench.XXXXXX") || exit 1
trap 'rm -rf "$build"' EXIT
cw=${conv_size#W=} cw=${cw%% *} ch=${conv_size##*H=}
wants() { case ",$only," in *",$1,"*) return 0 ;; esac; return 1; }
log() { printf '%s\n' "$*" | tee -a "$out/run.log"; }

# ---- the machine ------------------------------------------------------------
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	uname -srm
	nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit \
		--format=csv 2>&1 || true
	nvcc --version 2>&1 | tail -1 || true
	gcc --version | head -1
} > "$out/machine.txt" 2>&1
log "# $(sed -n 3,4p "$out/machine.txt" | tr '\n' ' ')"

# ---- build ------------------------------------------------------------------
CFLAGS="-O2 -std=c11 -Wall -Wextra -DCL_TARGET_OPENCL_VERSION=120"
gcc $CFLAGS "$here/roofline.c" "$here/clbench.c" -lOpenCL -lm -o "$build/roofline" ||
	log "build of roofline failed"
gcc $CFLAGS "$top/tests/kernels/run_kernels.c" "$top/kernels/gemm_ref.c" \
	"$top/kernels/conv2d_ref.c" -lOpenCL -lm -o "$build/run_kernels" ||
	log "build of run_kernels failed"
if command -v nvcc >/dev/null 2>&1; then
	nvcc -O2 -o "$build/cublas_gemm" "$here/cublas_gemm.cu" -lcublas || log "build of cublas_gemm failed"
else
	log "no nvcc: cuBLAS skipped"
fi
cl_lib=$(dirname "$(find "$clblast" -name 'libclblast.so*' 2>/dev/null | head -1)" 2>/dev/null)
if [ -n "$cl_lib" ] && [ -f "$clblast/usr/include/clblast_c.h" ]; then
	gcc $CFLAGS -I"$clblast/usr/include" "$here/clblast_gemm.c" "$here/clbench.c" \
		-L"$cl_lib" -Wl,-rpath,"$cl_lib" -lclblast -lOpenCL -lm -o "$build/clblast_gemm" ||
		log "build of clblast_gemm failed"
else
	log "no CLBlast under '$clblast': CLBlast skipped"
fi

# ---- baselines ---------------------------------------------------------------
if wants cublas && [ -x "$build/cublas_gemm" ]; then
	log "== cuBLAS"
	"$build/cublas_gemm" --reps "$reps" $base_args 2>&1 | tee "$out/cublas.txt" | tee -a "$out/run.log"
fi
if wants clblast && [ -x "$build/clblast_gemm" ]; then
	log "== CLBlast"
	"$build/clblast_gemm" --reps "$reps" --conv "$cw" "$ch" 1 --conv "$cw" "$ch" 3 \
		--conv "$cw" "$ch" 5 $base_args 2>&1 | tee "$out/clblast.txt" | tee -a "$out/run.log"
fi
if wants roofline && [ -x "$build/roofline" ]; then
	log "== measured roofline"
	"$build/roofline" --reps "$reps" $roof_args \
		--conv "$cw" "$ch" 1 --conv "$cw" "$ch" 3 --conv "$cw" "$ch" 5 2>&1 | tee "$out/roofline.txt" | tee -a "$out/run.log"
fi

# ---- our kernels ---------------------------------------------------------------
# NAME=VALUE pairs of a tuned configuration, from a header or a JSON record.
defines_of() {
	case $1 in
	*.json | *.jsonl)
		# the first "defines" string: -DNAME=VALUE tokens -> NAME=VALUE
		grep -o '"defines" *: *"[^"]*"' "$1" | head -1 | sed 's/^[^:]*: *"//; s/"$//' |
			tr ' ' '\n' | sed -n 's/^-D\([A-Za-z_][A-Za-z0-9_]*=.*\)$/\1/p' | tr '\n' ' ' ;;
	*)
		sed -n 's/^[[:space:]]*#[[:space:]]*define[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]\{1,\}\([^[:space:]/]\{1,\}\).*$/\1=\2/p' "$1" |
			tr '\n' ' ' ;;
	esac
}

# The other build options of a tuned configuration (-cl-mad-enable, ...).
options_of() {
	case $1 in
	*.json | *.jsonl)
		grep -o '"defines" *: *"[^"]*"' "$1" | head -1 | sed 's/^[^:]*: *"//; s/"$//' |
			tr ' ' '\n' | grep -v '^-D' | tr '\n' ' ' ;;
	*)
		sed -n 's|^/\* Other build options: \(.*\) \*/$|\1|p' "$1" | head -1 ;;
	esac
}

# bench KERNEL LABEL DEFINES [OPTIONS]: one timed run_kernels line -> a
# record in ours.txt
bench() {
	kernel=$1 label=$2 defs=$3 opts=${4:-}
	case $kernel in
	gemm) sizes="$gemm_size BETA=0" ;;
	*) sizes=$conv_size ; case " $defs " in *" HFS="*) ;; *) defs="HFS=3 $defs" ;; esac ;;
	esac
	line=$(RUN_KERNELS_OPTIONS=$opts timeout 120 "$build/run_kernels" --bench "$kernel" $sizes \
		REPS=$((reps + 1)) $defs 2>&1 |
		grep -v '^#\|passed')
	printf '%s %s: %s\n' "$kernel" "$label" "$line" >> "$out/ours.txt"
	printf '%s %s: %s\n' "$kernel" "$label" "$line" | cut -c1-200 | tee -a "$out/run.log" >/dev/null
	gf=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9.]*\) GFLOP\/s.*/\1/p')
	status=$(printf '%s\n' "$line" | cut -d' ' -f1)
	case $kernel in
	gemm) case " $defs " in *" PRECISION=2 "*) group=dgemm ;; *) group=sgemm ;; esac ;;
	*) h=$(printf ' %s ' "$defs" | sed -n 's/.* HFS=\([0-9]*\) .*/\1/p'); group=conv$((2 * h + 1)) ;;
	esac
	echo "rec $group ours:$label ${gf:-0} $status" >> "$out/records.txt"
}

if wants ours && [ -x "$build/run_kernels" ]; then
	log "== our kernels"
	: > "$out/ours.txt"
	if [ $handpicked = 1 ]; then
		grep -v '^#' "$here/handpicked.conf" | while read -r kernel label defs; do
			[ -n "$kernel" ] && (cd "$top" && bench "$kernel" "$label" "$defs")
		done
	fi
	printf '%s' "$best_gemm" | while IFS= read -r f; do
		[ -n "$f" ] && (cd "$top" && bench gemm "best:$(basename "$f")" "$(defines_of "$f")" "$(options_of "$f")")
	done
	printf '%s' "$best_conv" | while IFS= read -r f; do
		[ -n "$f" ] && (cd "$top" && bench conv2d "best:$(basename "$f")" "$(defines_of "$f")" "$(options_of "$f")")
	done
	cat "$out/ours.txt" | cut -c1-240
fi
# ---- summary -----------------------------------------------------------------
{
	[ -f "$out/cublas.txt" ] && awk '$1 == "cublas" { g = $2 == "sgemm" ? "sgemm" : "dgemm";
		print "rec", g, "cuBLAS-" $3, $9, "ok" }' "$out/cublas.txt"
	[ -f "$out/clblast.txt" ] && awk '$1 == "clblast" { g = $2; sub(/x.*/, "", g); sub(/conv/, "conv", g);
		print "rec", g, "CLBlast", $(NF - 1), "ok" }' "$out/clblast.txt"
	[ -f "$out/roofline.txt" ] && awk '$1 == "conv2d_roof" { print "rec", "conv" $4, "roofline", $NF, "bound" }' \
		"$out/roofline.txt"
	[ -f "$out/records.txt" ] && cat "$out/records.txt"
} > "$out/all_records.txt"
awk '
	$1 != "rec" { next }
	$3 == "cuBLAS-default" { cublas[$2] = $4 }
	$3 == "CLBlast" { clblast[$2] = $4 }
	$3 == "roofline" { roof[$2] = $4 }
	{ n++; g[n] = $2; who[n] = $3; gf[n] = $4; st[n] = $5 }
	END {
		print "| problem | implementation | GFLOP/s | of cuBLAS | vs CLBlast | of roofline |"
		print "|---|---|---|---|---|---|"
		for (i = 1; i <= n; i++) {
			if (who[i] == "roofline") continue
			c = (g[i] in cublas && cublas[g[i]] > 0) ? sprintf("%.1f%%", 100 * gf[i] / cublas[g[i]]) : "-"
			b = (g[i] in clblast && clblast[g[i]] > 0) ? sprintf("%.2fx", gf[i] / clblast[g[i]]) : "-"
			r = (g[i] in roof && roof[g[i]] > 0) ? sprintf("%.1f%%", 100 * gf[i] / roof[g[i]]) : "-"
			s = st[i] == "ok" || st[i] == "PASS" ? "" : " (" st[i] ")"
			printf "| %s | %s%s | %.1f | %s | %s | %s |\n", g[i], who[i], s, gf[i], c, b, r
		}
		for (k in roof) printf "| %s | measured roofline bound | %.1f | - | - | 100%% |\n", k, roof[k]
	}' "$out/all_records.txt" > "$out/summary.md"
log "== summary"
cat "$out/summary.md" | tee -a "$out/run.log"

# ---- verification last: the timings and the summary are already saved ----
if wants verify && [ -n "$verify" ] && [ -x "$build/run_kernels" ]; then
	log "== verification of $(grep -c . "$verify") space points"
	grep -v '^#' "$verify" | while read -r kernel defs; do
		[ -n "$kernel" ] && (cd "$top" && timeout 120 "$build/run_kernels" "$kernel" $defs 2>&1 |
			grep -v '^#\|passed')
	done > "$out/verify.txt"
	log "verify: $(grep -c '^PASS' "$out/verify.txt") PASS, $(grep -c '^FAIL' "$out/verify.txt") FAIL, $(grep -c '^SKIP' "$out/verify.txt") SKIP"
	grep '^FAIL' "$out/verify.txt" | cut -c1-300 | tee -a "$out/run.log"
fi
