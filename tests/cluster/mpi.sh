#!/bin/sh
# spacetune batch --mpi under a real Open MPI: mpirun -np 4 on PoCL over a
# small batch (vadd.space at three sizes, exhaustive, cut into chunks of
# 10 evaluations so rank 0 hands out chunks of a problem too).  Then the
# same without --chunk, replayed from the first run's records: the default
# cut into many chunks, handed out several consecutive ones at a time.  The
# oracle is `spacec list`: the merged database must hold every point of
# each problem's space exactly once, all verified, and no evaluation may
# be in two ranks' databases.  Then the faults: rank 2 killed with -9
# midway (Open MPI then ends the whole job), `--report` from the files
# names what is missing with the counts found here, and the same command
# again completes exactly that: every record there was is kept, the
# merged database is the oracle again, nothing timed twice.
# Skipped (77) only where mpirun is absent (./bootstrap installs Open MPI);
# where it is present and spacetune was built without MPI, it fails.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
if ! command -v mpirun >/dev/null 2>&1; then
	echo "mpirun not found (Debian: openmpi-bin libopenmpi-dev; ./bootstrap installs them): skipped"
	exit 77
fi
if ! grep -q '^#define HAVE_MPI 1' "$top_builddir/config.h"; then
	# mpirun is here, so this test must run: built without MPI it fails,
	# after checking that --mpi at least says why
	cp "$TD/vadd.space" "$TD/vadd.cl" "$TD/vadd_ref.c" "$T/"
	printf 'problem vadd.space\n' >"$T/one.batch"
	"$SPACETUNE" batch "$T/one.batch" --mpi --db "$T/x" >"$T/out" 2>"$T/err"
	grep -q 'built without MPI' "$T/err" || echo "FAIL --mpi does not say why it is missing"
	echo "FAIL mpirun is here but spacetune was configured without MPI (configure again)"
	exit 1
fi
need_opencl
cp "$TD/vadd.space" "$TD/vadd.cl" "$TD/vadd_ref.c" "$T/"
# Under ASan, no leak check in the ranks: Open MPI dlopens its plugins and
# dlcloses them in MPI_Finalize, so what they keep to the end shows as
# frames of "<unknown module>" that no suppression can name (thousands of
# allocations).  Our code's leaks are checked by tests/tuner/batch.sh,
# which runs the same hand-out and workers without MPI.
MPI_ASAN="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
cat >"$T/mpi.batch" <<'EOF'
strategy exhaustive
problem vadd.space
    set N = 1024, 2048, 4096
EOF
mpi_batch() { # dir
	ASAN_OPTIONS=$MPI_ASAN mpirun --allow-run-as-root --oversubscribe -np 4 \
		"$SPACETUNE" batch "$T/mpi.batch" --mpi --chunk 10 --db "$1" --jobs 1 --warmup 0 --repeat 1 --no-progress
}
records() { # db...: (N, params) of each record
	cat "$@" | jq -S -c '{N: (.global[0] * .params.WPT), params}' | sort
}
for n in 1024 2048 4096; do
	"$SPACEC" list --format jsonl --set N=$n "$T/vadd.space" | jq -S -c "{N: $n, params: .}"
done | sort >"$T/space"
npoints=$(wc -l <"$T/space")

# ---- a whole run
expect_status "mpirun -np 4 spacetune batch --mpi" 0 mpi_batch "$T/A"
check "no sanitizer report" no_sanitizer_reports "$T/err"
check "rank 0 names the ranks and the units (3 problems, 4 chunks each)" \
	grep -qF 'batch: 4 MPI ranks, 12 units of work' "$T/err"
check "the merged database" test -s "$T/A/merged.jsonl"
records "$T/A/merged.jsonl" >"$T/A.got"
cmp -s "$T/space" "$T/A.got" && ok "merged: every point of spacec list, each once ($npoints)" ||
	{ bad "merged differs from spacec list"; diff "$T/space" "$T/A.got" | head; }
records "$T/A"/rank-*.jsonl >"$T/A.ranks"
check "the ranks' databases: each evaluation in one only" cmp -s "$T/space" "$T/A.ranks"
check "every record verified" test "$(jq -r .status "$T/A/merged.jsonl" | sort -u)" = ok
busy=$(for f in "$T/A"/rank-*.jsonl; do [ -s "$f" ] && echo "$f"; done | wc -l)
check "the work was spread: $busy ranks recorded evaluations" test "$busy" -ge 2
check "each rank's finished chunks in its own .done file, all 12 in all" \
	test "$(cat "$T/A"/rank-*.done | sort -u | wc -l)" -eq 12
check "the summary: complete" grep -qF 'batch: complete: all 3 problems finished' "$T/err"
check "and each rank's kernel time" grep -q '^spacetune: batch: rank-[0-3]: [0-9]* units, kernels timed ' "$T/err"
expect_status "again: nothing to do" 0 mpi_batch "$T/A"
check "it times nothing" test "$(cat "$T/A"/rank-*.jsonl | wc -l)" -eq "$npoints"

# ---- no --chunk: a batch of fewer problems than 4 per rank is cut by
# default into about 32 units per rank (docs/TUNING.md): chunks of
# ceil(total / (32 x 4)) evaluations.  Replayed from run A's records (no
# kernel runs), so the chunks of each rank are many and short.
chunk=$(( (npoints + 127) / 128 ))
units=0
for n in 1024 2048 4096; do
	size=$(grep -c "^{\"N\":$n," "$T/space")
	units=$((units + (size + chunk - 1) / chunk))
done
replay_batch() { # dir
	ASAN_OPTIONS=$MPI_ASAN mpirun --allow-run-as-root --oversubscribe -np 4 \
		"$SPACETUNE" batch "$T/mpi.batch" --mpi --db "$1" --replay "$T/A/merged.jsonl" --jobs 1 --no-progress
}
expect_status "mpirun -np 4 --replay, no --chunk" 0 replay_batch "$T/R"
check "no sanitizer report" no_sanitizer_reports "$T/err"
check "cut into $units units (chunks of $chunk)" grep -qF "batch: 4 MPI ranks, $units units of work" "$T/err"
records "$T/R/merged.jsonl" >"$T/R.got"
check "merged: every point of spacec list, each once" cmp -s "$T/space" "$T/R.got"
records "$T/R"/rank-*.jsonl >"$T/R.ranks"
check "the ranks' databases: each evaluation in one only" cmp -s "$T/space" "$T/R.ranks"
check "each chunk's .done line once: $units" test "$(cat "$T/R"/rank-*.done | wc -l)" -eq "$units"
# the hand-out: runs of consecutive chunks (96 units over 4 ranks: the
# first hand-outs 6 chunks long), each rank loading a problem once for them
check "a rank ran consecutive chunks of a problem in one hand-out" \
	grep -q '^== vadd.space N=[0-9]* \[chunk [0-9]*/[0-9]*\] and [1-9][0-9]* chunks after it' "$T/R"/rank-*.log
check "the last hand-outs single chunks (guided self-scheduling)" \
	grep -q '^== vadd.space N=[0-9]* \[chunk [0-9]*/[0-9]*\] (' "$T/R"/rank-*.log
check "a rank kept its problem's set-up from one hand-out to the next" \
	grep -q '^spacetune: the problem.s job and replay kept from the last run' "$T/R"/rank-*.log

# ---- rank 2 killed with -9 midway
# Fresh kernel caches for this run and its rerun: with run A's, the 96
# evaluations take about 2 s after the ranks' start, too short a window
export XDG_CACHE_HOME="$T/cache-k" POCL_CACHE_DIR="$T/pocl-cache-k"
ASAN_OPTIONS=$MPI_ASAN mpirun --allow-run-as-root --oversubscribe -np 4 \
	"$SPACETUNE" batch "$T/mpi.batch" --mpi --chunk 10 --db "$T/K" --jobs 1 --warmup 0 --repeat 1 --no-progress \
	>"$T/k.out" 2>"$T/k.err" &
mpid=$!
victim=
i=0
while [ "$i" -lt 6000 ] && kill -0 $mpid 2>/dev/null; do
	if [ -z "$victim" ]; then
		for p in $(pgrep -P $mpid); do
			tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=2' && victim=$p
		done
	fi
	# once some unit is finished and rank 2 has recorded something
	[ -n "$victim" ] && [ -s "$T/K/rank-2.jsonl" ] && [ -n "$(cat "$T/K"/*.done 2>/dev/null)" ] && break
	sleep 0.02
	i=$((i + 1))
done
[ -n "$victim" ] && kill -9 "$victim"
wait $mpid
st=$?
check "rank 2 (pid ${victim:-none}) killed; Open MPI ends the job (exit $st)" test -n "$victim" -a "$st" -ne 0
check "no rank or worker outlives the job" none_left "$T/K"
cat "$T/K"/rank-*.jsonl | sort >"$T/K.before"
before=$(wc -l <"$T/K.before")
check "killed midway ($before of $npoints recorded)" test "$before" -ge 1 -a "$before" -lt "$npoints"
# the report's oracle: the records counted here, per problem, against 32 per problem
expect_status "--report: something is missing" 1 "$SPACETUNE" batch "$T/mpi.batch" --chunk 10 --db "$T/K" --report
open=0 rec=0 want=0
for n in 1024 2048 4096; do
	c=$(records "$T/K"/rank-*.jsonl | grep -c "^{\"N\":$n,")
	size=$(grep -c "^{\"N\":$n," "$T/space")
	done_chunks=$(cat "$T/K"/rank-*.done | grep -c "^vadd.space N=$n \[chunk [1-4]/4\]	done$")
	[ "$done_chunks" -lt 4 ] || continue
	open=$((open + 1)) rec=$((rec + c)) want=$((want + size))
	check "N=$n: unfinished, $c of $size recorded, $done_chunks of 4 chunks finished" \
		grep -qF "unfinished: vadd.space N=$n: $c of $size evaluations recorded, $((size - c)) missing, $done_chunks of 4 chunks finished" "$T/out"
done
check "the total: $open problems open, $rec recorded, $((want - rec)) missing" \
	grep -qF "incomplete: $open of 3 problems unfinished, $rec of their evaluations recorded, $((want - rec)) missing" "$T/out"
expect_status "the same command again" 0 mpi_batch "$T/K"
check "no sanitizer report" no_sanitizer_reports "$T/err"
check "it starts from what was finished" grep -q 'batch: [0-9]* of 12 finished before' "$T/err"
cat "$T/K"/rank-*.jsonl | sort >"$T/K.after"
check "every record there was is kept" test -z "$(comm -23 "$T/K.before" "$T/K.after")"
records "$T/K/merged.jsonl" >"$T/K.got"
cmp -s "$T/space" "$T/K.got" && ok "merged after the rerun: every point of spacec list, each once" ||
	{ bad "merged after the rerun differs from spacec list"; diff "$T/space" "$T/K.got" | head; }
check "no (device, hash, problem, params) timed twice in the ranks' databases" \
	test "$(cat "$T/K"/rank-*.jsonl | jq -c '[.device, .source_hash, .problem, .params]' | sort | uniq -d | wc -l)" -eq 0
check "the rerun timed exactly the missing evaluations" test "$(wc -l <"$T/K.after")" -eq "$npoints"
finish
