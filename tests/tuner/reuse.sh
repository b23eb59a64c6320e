#!/bin/sh
# A batch worker keeps its device workers from problem to problem
# (tuner/worker.c: SETUP): the processes that time problem 1 time
# problems 2 and 3 (seen by their pids in the device lock's trace), and
# every evaluation is what one `spacetune run` per problem gives (the
# oracle: the same points with the same statuses).  A worker killed with
# -9 in problem 2 costs at most its evaluation, and problem 3 runs whole
# on its replacement.  Then faults.space at
# three sizes: every problem's worker crashes (FAULT=4), hangs (3) and
# retires after a launch error (5), and yet each later problem, on the
# replacements, gets each fault's outcome fixed by faults.cl, the wrong
# results included, which only a worker holding its problem's reference
# outputs can see.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
need_opencl
cp "$TD/vadd.space" "$TD/vadd.cl" "$TD/vadd_ref.c" "$TD/faults.space" "$TD/faults.cl" "$T/"

# (N, params, status) of each record
records() { # db...
	cat "$@" | jq -S -c '{problem, params, status}' | sort
}

# ---- three sizes of vadd on one device, two workers
cat >"$T/vadd.batch" <<'EOF'
strategy random
budget 6
seed 4
problem vadd.space
    set N = 1024, 2048, 4096
EOF
SPACETUNE_TRACE_LOCK=1 expect_status "a batch of three problems" 0 \
	"$SPACETUNE" batch "$T/vadd.batch" --db "$T/B" --jobs 2 --repeat 2 --no-progress
check "no sanitizer report" no_sanitizer_reports "$T/err"
# One lock acquisition per evaluation, and the problems run one after
# the other: acquisitions 1-6 are problem 1's, 7-12 problem 2's, ...
grep -o '^spacetune-lock [0-9]* acquired' "$T/err" | cut -d' ' -f2 >"$T/pids"
check "18 timed evaluations in the trace" test "$(wc -l <"$T/pids")" -eq 18
sed -n 1,6p "$T/pids" | sort -u >"$T/p1"
for k in 2 3; do
	sed -n "$((k * 6 - 5)),$((k * 6))p" "$T/pids" | sort -u >"$T/p$k"
	check "problem $k is timed by problem 1's worker processes ($(tr '\n' ' ' <"$T/p$k")in $(tr '\n' ' ' <"$T/p1"))" \
		test -z "$(comm -23 "$T/p$k" "$T/p1")"
done
check "no more processes than --jobs" test "$(sort -u "$T/pids" | wc -l)" -le 2
check "the log says so for problems 2 and 3" \
	test "$(grep -c "^spacetune: the evaluator's workers kept from the last problem$" "$T/B/default.log")" -eq 2
check "every evaluation ok" test "$(jq -r .status "$T/B/default.jsonl" | sort -u)" = ok
# the oracle: each problem alone
for n in 1024 2048 4096; do
	expect_status "spacetune run N=$n alone" 0 "$SPACETUNE" run "$T/vadd.space" --set N=$n \
		--strategy random --budget 6 --seed 4 --jobs 2 --repeat 2 --db "$T/alone.jsonl"
done
records "$T/B/default.jsonl" >"$T/batch.got"
records "$T/alone.jsonl" >"$T/alone.got"
check "18 records" test "$(wc -l <"$T/batch.got")" -eq 18
cmp -s "$T/alone.got" "$T/batch.got" && ok "the batch evaluates what one run per problem does" ||
	{ bad "the batch differs from one run per problem"; diff "$T/alone.got" "$T/batch.got" | head; }

# ---- a worker killed with -9 in problem 2 is replaced; problem 3 is whole.
# The 7th lock acquisition is problem 2's first evaluation: its process
# is the victim.  1000 timed runs an evaluation keep problem 2 going for
# a good while after it (the poll takes 0.02 s).
SPACETUNE_TRACE_LOCK=1 "$SPACETUNE" batch "$T/vadd.batch" --db "$T/K" --jobs 2 --repeat 1000 \
	--no-progress >"$T/k.out" 2>"$T/k.err" &
pid=$!
i=0 victim=
while [ "$i" -lt 3000 ] && [ -z "$victim" ] && kill -0 $pid 2>/dev/null; do
	victim=$(grep -o '^spacetune-lock [0-9]* acquired' "$T/k.err" | sed -n 7p | cut -d' ' -f2)
	[ -n "$victim" ] || sleep 0.02
	i=$((i + 1))
done
[ -n "$victim" ] && kill -9 "$victim"
at_kill=$(grep -c '^spacetune-lock [0-9]* acquired' "$T/k.err")
wait $pid
check "the batch with a killed worker ends well" test $? -eq 0
check "a worker was killed in problem 2 (pid '$victim', $at_kill acquisitions then)" \
	test -n "$victim" -a "$at_kill" -ge 7 -a "$at_kill" -lt 12
check "the killed worker times nothing after" test -z "$(grep -o '^spacetune-lock [0-9]* acquired' "$T/k.err" |
	sed -n "$((at_kill + 1)),\$p" | grep -x "spacetune-lock $victim acquired")"
check "no sanitizer report" no_sanitizer_reports "$T/k.err"
jq -r 'select(.status != "ok") | "\(.problem) \(.status) \(.error)"' "$T/K/default.jsonl" >"$T/k.notok"
check "at most its evaluation lost, as crashed by SIGKILL ($(cat "$T/k.notok"))" \
	test "$(grep -vc '^N=2048 crashed SIGKILL$' "$T/k.notok")" -eq 0 -a "$(wc -l <"$T/k.notok")" -le 1
check "problem 3 all ok, on a replacement and the survivor" \
	test "$(jq -r 'select(.problem == "N=4096") | .status' "$T/K/default.jsonl" | grep -cx ok)" -eq 6
jq -S -c '{problem, params}' "$T/K/default.jsonl" | sort >"$T/k.got"
jq -S -c '{problem, params}' "$T/alone.jsonl" | sort >"$T/k.want"
check "the same points as one run per problem" cmp -s "$T/k.want" "$T/k.got"

# ---- faults in every problem: crashes, hangs and retirements between problems
cat >"$T/faults.batch" <<'EOF'
strategy exhaustive
problem faults.space
    set N = 1024, 2048, 4096
EOF
SPACETUNE_TRACE_LOCK=1 expect_status "a batch of three problems with every fault" 0 \
	"$SPACETUNE" batch "$T/faults.batch" --db "$T/F" --jobs 2 --repeat 2 --warmup 0 --no-progress
check "no sanitizer report" no_sanitizer_reports "$T/err"
check "workers were replaced (more pids than --jobs)" \
	test "$(grep -o '^spacetune-lock [0-9]* acquired' "$T/err" | sort -u | wc -l)" -gt 2
for n in 1024 2048 4096; do
	fault_outcomes "$T/F/default.jsonl" ".problem == \"N=$n\"" "N=$n: "
done
check "the wrong results are off by one" \
	test "$(jq -s '[.[] | select(.params.FAULT == 2 and .max_abs_err >= 0.99 and .max_abs_err <= 1.01)] | length' "$T/F/default.jsonl")" -eq 3

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
