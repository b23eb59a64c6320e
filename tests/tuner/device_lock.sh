#!/bin/sh
# The host's lock on a device's timings (tuner/device.c, dev_lock_open):
# evaluators of two processes on one device never time at once, whether
# two runs, a batch's slots (--slots) or MPI ranks sharing the device.  SPACETUNE_DEVICE_LOCK=1 puts
# PoCL's CPU device under the lock (GPUs only by default) and
# SPACETUNE_LOCK_DIR keeps the lock files in this test's directory.  The
# oracle is the workers' own trace of the intervals they held the device
# (SPACETUNE_TRACE_LOCK), merged over the processes; the same two runs
# without the lock must show overlaps, or the check could not fail.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
need_opencl
cp "$TD/vadd.space" "$TD/vadd.cl" "$TD/vadd_ref.c" "$T/"
export SPACETUNE_LOCK_DIR="$T/locks" SPACETUNE_TRACE_LOCK=1
mkdir "$SPACETUNE_LOCK_DIR"

# overlaps FILE...: how many times a process took the device while
# another held it, from the traces' "spacetune-lock PID acquired|released T"
overlaps() {
	grep -h '^spacetune-lock ' "$@" | sort -k4,4g | awk '
		$3 == "acquired" { if (held > 0) over++; held++ }
		$3 == "released" { held-- }
		END { print over + 0 }'
}
intervals() { grep -h -c '^spacetune-lock [0-9]* acquired' "$@" | awk '{ n += $1 } END { print n + 0 }'; }

# N = 2^20 and 300 runs: each evaluation holds the device for a good part
# of a second, so that two unguarded runs overlap even under sanitizers.
two_runs() { # label: two runs at once, each with its own database and trace
	for k in a b; do
		"$SPACETUNE" run "$T/vadd.space" --set N=1048576 --strategy random --budget 8 --seed 4 --jobs 2 --repeat 300 \
			--db "$T/$1-$k.jsonl" --no-progress >"$T/$1-$k.out" 2>"$T/$1-$k.err" &
	done
	wait
	for k in a b; do
		check "$1: run $k recorded 8 evaluations ok" \
			test "$(jq -r 'select(.status == "ok") | .point' "$T/$1-$k.jsonl" | sort -u | wc -l)" -eq 8
		check "$1: run $k: no sanitizer report" no_sanitizer_reports "$T/$1-$k.err"
	done
}

SPACETUNE_DEVICE_LOCK=0 two_runs unlocked
n=$(overlaps "$T/unlocked-a.err" "$T/unlocked-b.err")
check "without the lock the two runs' timings overlap ($n times): the check can fail" test "$n" -gt 0
check "without the lock no lock file" test -z "$(ls "$SPACETUNE_LOCK_DIR")"

SPACETUNE_DEVICE_LOCK=1 two_runs locked
n=$(overlaps "$T/locked-a.err" "$T/locked-b.err")
check "with the lock they never overlap ($n times, of $(intervals "$T/locked-a.err" "$T/locked-b.err") intervals)" \
	test "$n" -eq 0
check "both runs timed (intervals in each)" \
	test "$(intervals "$T/locked-a.err")" -gt 0 -a "$(intervals "$T/locked-b.err")" -gt 0
check "one lock file for the device" test "$(ls "$SPACETUNE_LOCK_DIR" | grep -c '^spacetune-device-.*\.lock$')" -eq 1

# ---- a batch's slots: two workers on one device, each its own database
cat >"$T/vadd.batch" <<'B'
strategy random
budget 4
problem vadd.space
    set N = 1024, 2048, 4096, 8192
B
SPACETUNE_DEVICE_LOCK=1 expect_status "a batch with --slots 2" 0 \
	"$SPACETUNE" batch "$T/vadd.batch" --db "$T/S" --slots 2 --jobs 1 --repeat 200 --no-progress
check "two workers' databases (default, default-slot2)" \
	test -s "$T/S/default.jsonl" -a -s "$T/S/default-slot2.jsonl"
check "every problem finished once, 16 records" \
	test "$(cat "$T/S/default.jsonl" "$T/S/default-slot2.jsonl" | jq -r '[.problem, .point] | tostring' |
		sort -u | wc -l)" -eq 16 -a "$(cat "$T/S"/*.jsonl | wc -l)" -eq 16
# The workers' traces reach the batch's stderr or their logs: all of them.
cp "$T/err" "$T/S.err"
set -- "$T/S.err" "$T/S/default.log" "$T/S/default-slot2.log"
n=$(overlaps "$@")
pids=$(grep -h -o '^spacetune-lock [0-9]* acquired' "$@" | cut -d' ' -f2 | sort -u | wc -l)
check "the slots' timings never overlap ($n times, of $(intervals "$@") intervals of $pids processes)" \
	test "$n" -eq 0 -a "$pids" -ge 2
check "no sanitizer report in the slots' logs" no_sanitizer_reports "$T/S/default-slot2.log"

# ---- the same batch replayed from its records, slots sharing the replayed device
expect_status "the batch replayed with --slots 2 --replay-sleep" 0 \
	"$SPACETUNE" batch "$T/vadd.batch" --db "$T/R" --slots 2 --jobs 1 --replay "$T/S" --replay-sleep --no-progress
check "the replay's records: 16" test "$(cat "$T/R"/*.jsonl | wc -l)" -eq 16
check "its slots shared one replayed device (its lock file)" test -e "$T/R/.replay-lock-default"

# ---- MPI ranks on a node's one device (local rank modulo the devices):
# before the lock they timed at once
if command -v mpirun >/dev/null 2>&1 && grep -q '^#define HAVE_MPI 1' "$top_builddir/config.h"; then
	# (no leak check in the ranks: tests/cluster/mpi.sh says why)
	SPACETUNE_DEVICE_LOCK=1 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		expect_status "mpirun -np 2 on the one device" 0 \
		mpirun --allow-run-as-root --oversubscribe -np 2 -x SPACETUNE_DEVICE_LOCK -x SPACETUNE_LOCK_DIR \
		-x SPACETUNE_TRACE_LOCK "$SPACETUNE" batch "$T/vadd.batch" --mpi --db "$T/M" --jobs 1 --repeat 200 \
		--no-progress
	cp "$T/err" "$T/M.err"
	set -- "$T/M.err" "$T/M"/rank-*.log
	n=$(overlaps "$@")
	pids=$(grep -h -o '^spacetune-lock [0-9]* acquired' "$@" | cut -d' ' -f2 | sort -u | wc -l)
	check "the ranks' timings never overlap ($n times, of $(intervals "$@") intervals of $pids processes)" \
		test "$n" -eq 0 -a "$pids" -ge 2
	check "the ranks' merged records: 16" test "$(wc -l <"$T/M/merged.jsonl")" -eq 16
else
	echo "(spacetune without MPI here: the ranks are left to tests/cluster/mpi.sh)"
fi

SPACETUNE_DEVICE_LOCK=1 SPACETUNE_LOCK_DIR="$T/no-such-dir" expect_status "a lock directory that is missing" 0 \
	"$SPACETUNE" run "$T/vadd.space" --strategy random --budget 1 --jobs 1 --db "$T/nodir.jsonl" --no-progress
check "the run goes on and says its timings are unguarded" \
	grep -q "warning: cannot open the device's lock '$T/no-such-dir/spacetune-device-.*: No such file" "$T/err"

expect_status "--slots 0 is refused" 2 "$SPACETUNE" batch "$T/vadd.batch" --db "$T/X" --slots 0
check "saying what it wants" grep -q "bad --slots '0'" "$T/err"
expect_status "--slots with --mpi is refused" 2 "$SPACETUNE" batch "$T/vadd.batch" --db "$T/X" --slots 2 --mpi
check "saying to start more ranks" grep -q "start more ranks" "$T/err"
finish
