#!/bin/sh
# A batch worker's --jobs by default: the cores spacetune may run on (its
# affinity, here set by taskset) shared among the batch's local devices
# (tune_batch_default_jobs), so that two devices do not run twice the
# processes of one on the same cores.  The oracle is nproc under the same
# taskset; each worker's log says the count it took.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
need_opencl
command -v taskset >/dev/null || { echo "SKIP: taskset is missing"; exit 77; }
cp "$TD/vadd.space" "$TD/vadd.cl" "$TD/vadd_ref.c" "$T/"
cat >"$T/vadd.batch" <<'B'
strategy random
budget 2
problem vadd.space
    set N = 1024, 2048
B
name=$("$SPACETUNE" devices | sed -n 's/^  device 0: \([^ ]*\).*/\1/p' | head -n 1)
dev2=$name  # (expect_status sets $name)
cpus=$(nproc --all)
last=$((cpus - 1))
[ "$last" -gt 3 ] && last=3
jobs_of() { # log: the count the worker's log gives
	sed -n 's/^spacetune: batch worker .*: \([0-9]*\) worker process.*/\1/p' "$1" | tail -n 1
}
taskset -c "0-$last" true 2>/dev/null || { echo "SKIP: cannot run on CPUs 0-$last (taskset)"; exit 77; }
cores=$(taskset -c "0-$last" nproc)
expect_status "one device on $cores cores" 0 taskset -c "0-$last" \
	"$SPACETUNE" batch "$T/vadd.batch" --db "$T/one" --devices 0 --repeat 1 --no-progress
check "its worker takes all $cores ($(jobs_of "$T/one/device-0.log"))" \
	test "$(jobs_of "$T/one/device-0.log")" = "$cores"
expect_status "two devices on $cores cores" 0 taskset -c "0-$last" \
	"$SPACETUNE" batch "$T/vadd.batch" --db "$T/two" --devices "0,$dev2" --repeat 1 --no-progress
want=$((cores / 2))
[ "$want" -lt 1 ] && want=1
for log in "$T/two"/*.log; do
	check "$(basename "$log" .log) takes $want of them ($(jobs_of "$log"))" test "$(jobs_of "$log")" = "$want"
done
check "two workers' logs" test "$(ls "$T/two"/*.log | wc -l)" -eq 2
expect_status "--jobs 3 given" 0 taskset -c "0-$last" \
	"$SPACETUNE" batch "$T/vadd.batch" --db "$T/given" --devices "0,$dev2" --jobs 3 --repeat 1 --no-progress
for log in "$T/given"/*.log; do
	check "$(basename "$log" .log) takes 3, as given ($(jobs_of "$log"))" test "$(jobs_of "$log")" = 3
done
check "no sanitizer report" no_sanitizer_reports "$T/err"
finish
