#!/bin/sh
# The CUDA backend where no GPU is: NVRTC builds a sample of every point of
# the shipped CUDA spaces (spacetune compile, the device queries at their
# defaults), the tune section's defines reach NVRTC as written, a variant
# that does not build is reported with its point and log, and a CUDA run
# without a driver fails cleanly.  The option and grid mapping itself is
# tests/unit/test_cuda_map.  Skipped where spacetune was built without the
# CUDA toolkit (configure found no cuda.h and nvrtc.h) or NVRTC cannot be
# loaded.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
S=$top_srcdir/spaces

# With or without CUDA: an unknown backend is a usage error.
expect_status "unknown backend" 2 "$SPACETUNE" run "$TD/vadd.space" --backend vulkan
check "names the backends" grep -q "this spacetune has the backends opencl" "$T/err"

# Without CUDA too: gemm_cuda.space at the default async_stages holds
# gemm.space's points (the two are compared like for like; the order may
# differ).  With async_stages = S its points are, by an independent rule
# (awk over the default listing), those with pre_a, pre_b and dbuf 0 whose
# S shared buffers of blk_k x (blk_m + pad_a + blk_n + pad_b) floats fit
# the 48 KiB.
"$SPACEC" list "$S/gemm.space" | sort >"$T/ocl.csv"
"$SPACEC" list "$S/gemm_cuda.space" >"$T/cu_list.csv"
sort "$T/cu_list.csv" >"$T/cu.csv"
check "gemm_cuda.space has gemm.space's points" cmp -s "$T/ocl.csv" "$T/cu.csv"
for stages in 2 3 4; do
	awk -F, -v S="$stages" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["pre_a"] == 0 && $c["pre_b"] == 0 && $c["dbuf"] == 0 &&
		S * $c["blk_k"] * ($c["blk_m"] + $c["pad_a"] + $c["blk_n"] + $c["pad_b"]) * 4 <= 49152' \
		"$T/cu_list.csv" | sort >"$T/want.csv"
	"$SPACEC" list "$S/gemm_cuda.space" --set async_stages="$stages" | sed 1d | sort >"$T/got.csv"
	check "async_stages=$stages: the fitting points without registers staged" cmp -s "$T/want.csv" "$T/got.csv"
	check "async_stages=$stages: not none" test -s "$T/got.csv"
done

"$SPACETUNE" compile "$TD/cuda_check.space" >"$T/out" 2>"$T/err"
if grep -q "is not built into this spacetune" "$T/err"; then
	echo "spacetune has no CUDA backend (configure found no CUDA toolkit: cuda.h, nvrtc.h): skipped"
	[ "$fail" -eq 0 ] || exit 1
	exit 77
fi
if grep -q "NVRTC (libnvrtc.so) cannot be loaded" "$T/err"; then
	echo "the CUDA backend is built but NVRTC cannot be loaded (LD_LIBRARY_PATH?): skipped"
	[ "$fail" -eq 0 ] || exit 1
	exit 77
fi

# Every point of the small space: 6 variants, each define checked by #error.
expect_status "defines reach NVRTC" 0 "$SPACETUNE" compile "$TD/cuda_check.space"
check "all 6 built" grep -q "6 of 6 sampled variants built for sm_90 with cuda" "$T/out"
expect_status "--target" 0 "$SPACETUNE" compile "$TD/cuda_check.space" --target sm_80 --sample 2
check "2 built for sm_80" grep -q "2 of 2 sampled variants built for sm_80" "$T/out"

# A planted build error: one point fails, named with its defines and log.
expect_status "a failing variant" 1 "$SPACETUNE" compile "$TD/cuda_check.space" --set bad_point=1
check "5 of 6 built" grep -q "5 of 6 sampled variants built" "$T/out"
check "the point is named" grep -q "does not build" "$T/err"
check "with its defines" grep -q -- "-DA=2 -DB=5 -DBAD=1" "$T/err"
check "with NVRTC's log" grep -q "planted build error" "$T/err"
expect_status "an unknown target" 1 "$SPACETUNE" compile "$TD/cuda_check.space" --target sm_1 --sample 1

# The OpenCL backend cannot build without a device: said, not attempted.
expect_status "opencl has no offline build" 1 "$SPACETUNE" compile "$TD/cuda_check.space" --backend opencl
check "says so" grep -q "cannot build without a device" "$T/err"

# The shipped spaces: a spread sample of points (first and last included)
# and the reference kernel, for the H100's sm_90.  Few points: each
# unrolled variant takes NVRTC seconds.
expect_status "gemm_cuda.space" 0 "$SPACETUNE" compile "$S/gemm_cuda.space" --sample 4
check "gemm: 4 of 4" grep -q "4 of 4 sampled variants built" "$T/out"
expect_status "gemm_cuda.space, double, NT" 0 "$SPACETUNE" compile "$S/gemm_cuda.space" --sample 2 \
	--set precision=double --set trans_b=1 --set ldg=1 --set lb_min=2
# The cp.async pipeline (async_stages): every stage count, precision and
# transposition, the first and last points of each (which between them
# copy pieces of 4, 8 and 16 bytes), for sm_90 and, one point each, sm_80.
for stages in 2 3 4; do
	for prec in single double; do
		for ta in 0 1; do
			for tb in 0 1; do
				what="async_stages=$stages $prec trans_a=$ta trans_b=$tb"
				expect_status "$what, sm_90" 0 "$SPACETUNE" compile "$S/gemm_cuda.space" --sample 2 \
					--set async_stages=$stages --set precision=$prec --set trans_a=$ta --set trans_b=$tb
				check "$what: 2 of 2" grep -q "2 of 2 sampled variants built for sm_90" "$T/out"
				expect_status "$what, sm_80" 0 "$SPACETUNE" compile "$S/gemm_cuda.space" --sample 1 \
					--target sm_80 --set async_stages=$stages --set precision=$prec \
					--set trans_a=$ta --set trans_b=$tb
			done
		done
	done
done
expect_status "async_stages, 8-byte float pieces" 0 "$SPACETUNE" compile "$S/gemm_cuda.space" --sample 2 \
	--set async_stages=3 --set only_dim_vec=2
# Below sm_80 there is no cp.async, and one stage is no pipeline: the
# kernel's #errors, named.
expect_status "async_stages for sm_75" 1 "$SPACETUNE" compile "$S/gemm_cuda.space" --sample 1 \
	--target sm_75 --set async_stages=2
check "says it needs sm_80" grep -q "ASYNC_STAGES needs cp.async: sm_80 or later" "$T/err"
expect_status "async_stages=1" 1 "$SPACETUNE" compile "$S/gemm_cuda.space" --sample 1 --set async_stages=1
check "says 0 or at least 2" grep -q "ASYNC_STAGES must be 0 (no asynchronous copies) or at least 2" "$T/err"
expect_status "conv2d_cuda.space, 3x3" 0 "$SPACETUNE" compile "$S/conv2d_cuda.space" --sample 3 \
	--set filter_size=3
check "conv: 3 of 3" grep -q "3 of 3 sampled variants built" "$T/out"

# Without a driver (this machine), a CUDA run fails at the device, cleanly.
if ! "$SPACETUNE" devices 2>/dev/null | grep -q "^CUDA (driver"; then
	expect_status "run without a driver" 1 "$SPACETUNE" run "$TD/cuda_check.space" --db "$T/db.jsonl"
	check "says why" grep -q "CUDA: no NVIDIA driver" "$T/err"
	check "no database" test ! -e "$T/db.jsonl"
fi

# Each library is refused by its own name when it lacks a function the
# backend needs: stand-ins with none, or with cuInit alone, found first
# on LD_LIBRARY_PATH (the backend dlopens both libraries by soname).
mkdir -p "$T/none" "$T/init"
printf 'int spacec_stand_in;\n' > "$T/none.c"
printf 'int cuInit(unsigned flags) { (void)flags; return 0; }\n' > "$T/init.c"
if ${CC:-cc} -shared -fPIC -o "$T/none/libcuda.so.1" "$T/none.c" &&
	cp "$T/none/libcuda.so.1" "$T/none/libnvrtc.so" &&
	${CC:-cc} -shared -fPIC -o "$T/init/libcuda.so.1" "$T/init.c"; then
	LD_LIBRARY_PATH="$T/none${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$SPACETUNE" devices >"$T/out" 2>&1
	check "a driver without cuInit" grep -qx "CUDA: libcuda.so lacks cuInit" "$T/out"
	LD_LIBRARY_PATH="$T/init${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$SPACETUNE" devices >"$T/out" 2>&1
	check "a driver with cuInit alone" grep -q "^CUDA: libcuda.so lacks cu[A-Za-z0-9_]*$" "$T/out"
	check "cuInit is not what it lacks" sh -c '! grep -q "lacks cuInit" "$1"' sh "$T/out"
	LD_LIBRARY_PATH="$T/none${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$SPACETUNE" compile \
		"$TD/cuda_check.space" --sample 1 >"$T/out" 2>&1
	check "an NVRTC without its functions" grep -q "^ *libnvrtc.so lacks nvrtc[A-Za-z]*$" "$T/out"
else
	bad "building the stand-in libraries"
fi
finish
