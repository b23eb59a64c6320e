#!/bin/sh
# spacetune batch: the batch file's expansion and located errors (no
# device needed), then on PoCL a tiny batch of vadd.space at three sizes:
# every evaluation is a point of `spacec list` at that size, a rerun
# times nothing again, and a run killed with -9 midway (the whole batch,
# or one of its workers) and rerun ends with exactly the records of an
# uninterrupted run (the oracle), none twice; the missing-work report in
# between counts what the files hold.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
cp "$TD/vadd.space" "$TD/vadd.cl" "$TD/vadd_ref.c" "$T/"

# ---- the format: defaults, overrides, cross products (hand-expanded oracle)
cat >"$T/list.batch" <<'EOF'
# defaults for every problem
strategy random
budget 4
set UNUSED = 7
problem vadd.space
    set N = 1024, 2048
    set precision = "single", "dou, ble"   # a comma inside quotes
    seed 3
problem "vadd.space"   # the same space again, other sizes
    set N = 4096
    set UNUSED = 8
    objective max:GBS
    budget 50%
    strategy exhaustive
EOF
cat >"$T/list.want" <<'EOF'
vadd.space UNUSED=7 N=1024 precision="single"	strategy=random budget=4 seed=3 objective=time
vadd.space UNUSED=7 N=1024 precision="dou, ble"	strategy=random budget=4 seed=3 objective=time
vadd.space UNUSED=7 N=2048 precision="single"	strategy=random budget=4 seed=3 objective=time
vadd.space UNUSED=7 N=2048 precision="dou, ble"	strategy=random budget=4 seed=3 objective=time
vadd.space N=4096 UNUSED=8	strategy=exhaustive budget=50% seed=1 objective=max:GBS
EOF
expect_status "--list expands the batch" 0 "$SPACETUNE" batch "$T/list.batch" --list
cmp -s "$T/list.want" "$T/out" && ok "cross products, defaults and overrides as documented" ||
	{ bad "expansion differs"; diff "$T/list.want" "$T/out"; }

# ---- errors: located, with the line and a caret, exit 1
printf 'problme vadd.space\nset N = 1, "abc\nbudget 3x\nstrategy foo\nproblem vadd.space\n  set N 3\ndevice 0\n  seed -1\n  objective max:\n' >"$T/bad.batch"
expect_status "a bad batch file is an error" 1 "$SPACETUNE" batch "$T/bad.batch" --list
for want in "bad.batch:1:1: error: unknown line 'problme'; did you mean 'problem'?" \
	"bad.batch:2:12: error: unterminated string" \
	"bad.batch:3:8: error: bad budget '3x'" \
	"bad.batch:4:10: error: unknown strategy 'foo'" \
	"bad.batch:6:9: error: expected '=' after the setting's name" \
	"bad.batch:7:1: error: 'device' lines go before the first problem" \
	"bad.batch:8:8: error: bad seed '-1'" \
	"bad.batch:9:13: error: bad objective 'max:'"; do
	check "located: $want" grep -qF "$want" "$T/err"
done
check "the source line is quoted with a caret" grep -q '^ *| *\^~~~~~~$' "$T/err"
printf 'problem vadd.space\n  set N = 1, 2\n  set N = 3\nproblem nope.space\nproblem vadd.space\n  set N = 2\n' >"$T/bad2.batch"
expect_status "a second bad batch file" 1 "$SPACETUNE" batch "$T/bad2.batch" --list
check "a setting given twice" grep -qF "bad2.batch:3:7: error: 'N' is set twice in this problem" "$T/err"
printf 'problem vadd.space\nproblem nope.space\nproblem vadd.space\n  set N = 2\nproblem vadd.space\n  set N=2\n' >"$T/bad3.batch"
expect_status "a third bad batch file" 1 "$SPACETUNE" batch "$T/bad3.batch" --list
check "an unreadable space" grep -qF "bad3.batch:2:9: error: cannot read" "$T/err"
check "a problem given twice" grep -qF "bad3.batch:5:1: error: the problem 'vadd.space N=2' is already in the batch (line 3)" "$T/err"
printf '# nothing\n' >"$T/empty.batch"
expect_status "a batch without problems" 1 "$SPACETUNE" batch "$T/empty.batch" --list
check "says so" grep -q "the batch has no 'problem' line" "$T/err"
expect_status "batch without --db" 2 "$SPACETUNE" batch "$T/list.batch"
check "no sanitizer report" no_sanitizer_reports "$T/err"

# ---- shards: a partition, balanced by cost = the budget's share of the space
cat >"$T/shard.batch" <<'EOF2'
strategy random
problem vadd.space
    set N = 1024, 64, 2048, 32, 128, 16
    budget 40%
problem vadd.space
    set N = 8192, 512, 256
    budget 7
problem vadd.space
    set N = 8
    budget 30s
EOF2
"$SPACETUNE" batch "$T/shard.batch" --list | cut -f1 | sort >"$T/all"
: >"$T/shards"
for n in 1 2 3 4; do
	i=0
	while [ $i -lt $n ]; do
		if ! "$SPACETUNE" batch "$T/shard.batch" --list --shard $i/$n >"$T/shard.$n.$i" 2>"$T/err"; then
			bad "--shard $i/$n"
			sed 's/^/    | /' "$T/err"
		fi
		sed "s|^|$n $i |" "$T/shard.$n.$i" >>"$T/shards"
		i=$((i + 1))
	done
done
"$SPACETUNE" batch "$T/shard.batch" --list --shard 2/4 >"$T/again"
check "a shard is deterministic" cmp -s "$T/again" "$T/shard.4.2"
# the oracle's costs: spacec count at each size, then the budget by hand
for n in 1024 64 2048 32 128 16 8192 512 256 8; do
	echo "$n $("$SPACEC" count --set N=$n "$T/vadd.space")"
done >"$T/sizes"
cat >"$T/check.py" <<'EOF2'
import math, sys
sizes = dict(tuple(map(int, l.split())) for l in open(sys.argv[1]))
want = sorted(l.strip() for l in open(sys.argv[2]))
def cost(n):  # P% of n points: ceil, at least 1; N evaluations: at most n; a time: its seconds
    if n in (1024, 64, 2048, 32, 128, 16):
        return max(1, math.ceil(0.4 * sizes[n]))
    return min(7, sizes[n]) if n in (8192, 512, 256) else 30
shards = {}
for l in open(sys.argv[3]):
    nsh, i, rest = l.split(' ', 2)
    key, info = rest.rstrip('\n').split('\t')
    got = float(info.split('cost=')[1])
    n = int(key.split('N=')[1])
    c = cost(n)
    if got != c:
        print('cost of %s: %s, want %s' % (key, got, c)); sys.exit(1)
    shards.setdefault(int(nsh), {}).setdefault(int(i), []).append((key, got))
for nsh, parts in shards.items():
    keys = sorted(k for p in parts.values() for k, _ in p)
    if keys != want:
        print('%d shards do not partition the batch' % nsh); sys.exit(1)
    loads = [sum(c for _, c in parts.get(i, [])) for i in range(nsh)]
    biggest = max(c for p in parts.values() for _, c in p)
    if max(loads) - min(loads) > biggest:
        print('%d shards unbalanced: %s' % (nsh, loads)); sys.exit(1)
print('ok')
EOF2
check "shards partition the batch, costs as the oracle's, loads within one problem" \
	python3 "$T/check.py" "$T/sizes" "$T/all" "$T/shards"
expect_status "a bad --shard" 2 "$SPACETUNE" batch "$T/shard.batch" --list --shard 4/4

# ---- running on PoCL
need_opencl
cat >"$T/run.batch" <<'EOF'
strategy random
budget 5
problem vadd.space
    set N = 1024, 2048, 4096
EOF
run_batch() { # dir [options]
	dir=$1
	shift
	"$SPACETUNE" batch "$T/run.batch" --db "$dir" --jobs 2 --repeat 2 "$@"
}
# (N, params) of each record: N from the launch, global = N / WPT.
records() { # db
	jq -S -c '{N: (.global[0] * .params.WPT), params}' "$1" | sort
}
expect_status "a batch runs" 0 run_batch "$T/A"
check "no sanitizer report" no_sanitizer_reports "$T/err"
# not a terminal: a plain line per problem as it finishes, with its best
check "a plain progress line per problem" \
	test "$(grep -c '^spacetune: batch \[[1-3]/3\] vadd.space N=[0-9]*: best [0-9.e-]* ms | ETA ' "$T/err")" -eq 3
check "one database for the default device" test -s "$T/A/default.jsonl"
records "$T/A/default.jsonl" >"$T/A.got"
for n in 1024 2048 4096; do
	"$SPACEC" list --format jsonl --set N=$n "$T/vadd.space" | jq -S -c "{N: $n, params: .}" >>"$T/space"
	check "N=$n: the budget's 5 evaluations" test "$(grep -c "^{\"N\":$n," "$T/A.got")" -eq 5
done
sort -o "$T/space" "$T/space"
check "every record is a point of its problem's space" test -z "$(comm -23 "$T/A.got" "$T/space")"
check "each record names its problem as 'spacetune run --set' does" \
	test "$(jq -r .problem "$T/A/default.jsonl" | sort -u | tr '\n' ' ')" = "N=1024 N=2048 N=4096 "
if [ "$(jq -r .status "$T/A/default.jsonl" | sort -u)" = ok ]; then ok "every record verified"; else
	bad "every record verified: $(jq -r .status "$T/A/default.jsonl" | sort | uniq -c | tr -s ' \n' ' ')"
	jq -c 'select(.status != "ok") | {params, status, error}' "$T/A/default.jsonl" | head -3
fi
check "no configuration twice" test "$(sort -u "$T/A.got" | wc -l)" -eq 15

cp "$T/A/default.jsonl" "$T/A.before"
expect_status "the same batch again" 0 run_batch "$T/A" --no-progress
check "the rerun times nothing" cmp -s "$T/A.before" "$T/A/default.jsonl"
check "finished problems are not reopened" test "$(grep -c '^== ' "$T/A/default.log")" -eq 3
check "the summary counts them" grep -q 'batch: 3 of 3 problems done (3 finished before, 0 failed)' "$T/err"
check "and says the batch is complete" grep -qF 'batch: complete: all 3 problems finished' "$T/err"

# ---- two workers (two selections of PoCL's one device): each, when free,
# takes the next problem; each problem goes to one worker only
name=$("$SPACETUNE" devices | sed -n 's/^  device 0: \([^ ]*\).*/\1/p' | head -n 1)
dev2=$name  # (check and expect_status set $name)
expect_status "two workers" 0 run_batch "$T/W" --devices "0,$name" --no-progress
w2=$(ls "$T/W" | grep -v '^device-0\.' | grep '\.jsonl$')
check "one database per worker" test -s "$T/W/device-0.jsonl" -a -n "$w2"
p0=$(jq -r .problem "$T/W/device-0.jsonl" | sort -u)
p1=$(jq -r .problem "$T/W/$w2" | sort -u)
check "both workers took problems (both ask at once)" test -n "$p0" -a -n "$p1"
check "no problem went to both" test -z "$(printf '%s\n%s\n' "$p0" "$p1" | sort | uniq -d)"
cat "$T/W/device-0.jsonl" "$T/W/$w2" >"$T/W.all"
records "$T/W.all" >"$T/W.got"
check "two workers evaluate what one does" cmp -s "$T/A.got" "$T/W.got"
expect_status "two selections with one file name" 1 run_batch "$T/W" --devices "a/b,a_b" --no-progress
check "are refused" grep -q "would share the database" "$T/err"

# ---- shards sharing one directory: their own files, together the whole batch
expect_status "shard 0 of 2" 0 run_batch "$T/S" --shard 0/2 --no-progress
expect_status "shard 1 of 2" 0 run_batch "$T/S" --shard 1/2 --no-progress
check "each shard its own database" test -s "$T/S/shard0-of-2-default.jsonl" -a -s "$T/S/shard1-of-2-default.jsonl"
cat "$T/S"/*.jsonl >"$T/S.all"
records "$T/S.all" >"$T/S.got"
check "the shards evaluate what one run does" cmp -s "$T/A.got" "$T/S.got"

# ---- a problem that fails is reported with what a rerun would do
printf 'budget 2\nproblem vadd.space\n  set N = 1024, "abc"\n' >"$T/fail.batch"
expect_status "a batch with a failing problem" 1 "$SPACETUNE" batch "$T/fail.batch" --db "$T/F" --no-progress
check "the summary counts it" grep -q 'batch: 1 of 2 problems done (0 finished before, 1 failed)' "$T/err"
check "and names it" grep -q '^spacetune: batch: vadd.space N="abc": failed$' "$T/err"
check "the worker's log says why" grep -q 'vadd.space:[0-9]*:[0-9]*: error: ' "$T/F/default.log"
check "and blames no memory" test -z "$(grep 'out of memory' "$T/F/default.log")"

# ---- kill -9 midway, rerun: exactly the missing work
# (not through run_batch: $! must be spacetune itself, not a subshell).
# 1000 timed runs an evaluation, so the batch still runs a good second
# after the 4th record: its workers, kept from problem to problem, do
# the rest of a small batch in less than the poll's 0.1 s otherwise.
"$SPACETUNE" batch "$T/run.batch" --db "$T/K" --jobs 2 --repeat 1000 --no-progress >"$T/k.out" 2>"$T/k.err" &
pid=$!
i=0
while [ "$i" -lt 1200 ] && [ "$(cat "$T/K/default.jsonl" 2>/dev/null | wc -l)" -lt 4 ] && kill -0 $pid 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
before=$(cat "$T/K/default.jsonl" 2>/dev/null | wc -l)
if [ "$before" -ge 4 ] && [ "$before" -lt 15 ]; then ok "killed midway ($before of 15 recorded)"; else
	bad "kill -9 did not land midway ($before of 15)"; fi
check "no worker outlives the killed batch" none_left "$T/K"
# the missing-work report, from the files alone: the oracle is the
# records counted here and the budget (5 per problem)
expect_status "--report after the kill: something is missing" 1 \
	"$SPACETUNE" batch "$T/run.batch" --db "$T/K" --report
open=0 recorded=0
for n in 1024 2048 4096; do
	c=$(jq -r .problem "$T/K/default.jsonl" | grep -c "^N=$n\$")
	! grep -qx "vadd.space N=$n	done" "$T/K/default.done" 2>/dev/null || continue
	open=$((open + 1)) recorded=$((recorded + c))
	check "N=$n: reported unfinished with its $c of 5 evaluations" \
		grep -qF "unfinished: vadd.space N=$n: $c of 5 evaluations recorded, $((5 - c)) missing" "$T/out"
done
check "the total: $open problems open, $recorded recorded, $((open * 5 - recorded)) missing" \
	grep -qF "incomplete: $open of 3 problems unfinished, $recorded of their evaluations recorded, $((open * 5 - recorded)) missing" "$T/out"
expect_status "the rerun completes the batch" 0 run_batch "$T/K" --progress
check "no sanitizer report" no_sanitizer_reports "$T/err"
records "$T/K/default.jsonl" >"$T/K.got"
cmp -s "$T/A.got" "$T/K.got" && ok "killed and rerun = uninterrupted, every evaluation once" ||
	{ bad "records differ from the uninterrupted run"; diff "$T/A.got" "$T/K.got" | head; }
expect_status "--report after the rerun: complete" 0 "$SPACETUNE" batch "$T/run.batch" --db "$T/K" --report
check "says so" grep -qF 'complete: all 3 problems finished' "$T/out"

# ---- one of two workers killed with -9: its problem goes to the other
# worker, which times nothing the dead one recorded; a rerun completes
# whatever is still missing.  Six problems, so the kill lands while both
# work.  The oracle: each problem's budget of points of `spacec list`,
# each once.
cat >"$T/six.batch" <<'EOF'
strategy random
budget 5
problem vadd.space
    set N = 1024, 2048, 4096, 8192, 16384, 32768
EOF
# On a loaded machine the kill can land after the last record (the
# workers are done) or while the victim waits between units: then there is
# nothing to hand on, and the scenario is run again on a fresh database.
# --repeat 200: without sanitizers the whole batch took under 1.5 s from
# its second record, and every attempt came too late.
attempt=0
while :; do
	attempt=$((attempt + 1))
	rm -rf "$T/V"
	"$SPACETUNE" batch "$T/six.batch" --db "$T/V" --jobs 2 --repeat 200 --devices "0,$dev2" --no-progress \
		>"$T/v.out" 2>"$T/v.err" &
	pid=$!
	i=0
	while [ "$i" -lt 1200 ] && [ "$(cat "$T/V"/*.jsonl 2>/dev/null | wc -l)" -lt 2 ] && kill -0 $pid 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	# (-x spacetune: the batch worker, not the GPU keeper, spacetune-gpus)
	victim=$(pgrep -x -P $pid spacetune | head -n 1)
	echo "attempt $attempt: killing worker $victim of $pid: $(ps -o pid,ppid,stat,args -p "$victim" | tail -n 1)"
	[ -n "$victim" ] && kill -9 "$victim"
	wait $pid
	st=$?
	grep -q "ended (signal 9); its unit" "$T/v.err" && break
	[ "$attempt" -lt 3 ] || break
	echo "attempt $attempt: the kill found no unit in progress ($(cat "$T/V"/*.jsonl | wc -l) of 30 recorded); again"
done
cat "$T/V"/*.jsonl >"$T/V.before"
before=$(wc -l <"$T/V.before")
check "a worker was killed ($before of 30 recorded at the end)" test -n "$victim"
check "the batch says which worker ended and where its unit went" \
	grep -q "^spacetune: batch: worker device-[^ ]* ended (signal 9); its unit 'vadd.space N=[0-9]*' goes to the next worker free" "$T/v.err"
check "and fails (exit $st)" test "$st" -eq 1 || sed 's/^/    | /' "$T/v.err"
expect_status "the rerun" 0 "$SPACETUNE" batch "$T/six.batch" --db "$T/V" --jobs 2 --repeat 200 --devices "0,$dev2" --no-progress
cat "$T/V"/*.jsonl >"$T/V.all"
sort "$T/V.before" >"$T/V.sb"
sort "$T/V.all" >"$T/V.sa"
check "the rerun keeps every record there was" test -z "$(comm -23 "$T/V.sb" "$T/V.sa")"
records "$T/V.all" >"$T/V.got"
for n in 1024 2048 4096 8192 16384 32768; do
	"$SPACEC" list --format jsonl --set N=$n "$T/vadd.space" | jq -S -c "{N: $n, params: .}"
done | sort >"$T/space6"
check "every record a point of its problem's space" test -z "$(comm -23 "$T/V.got" "$T/space6")"
check "each problem its 5 evaluations, none twice" \
	test "$(sort -u "$T/V.got" | cut -d, -f1 | uniq -c | awk '$1 == 5' | wc -l)" -eq 6 -a "$(wc -l <"$T/V.got")" -eq 30
check "no (device, hash, problem, params) timed twice" \
	test "$(jq -c '[.device, .source_hash, .problem, .params]' "$T/V.all" | sort | uniq -d | wc -l)" -eq 0
# ---- --chunk: a random search cut into chunks handed out apart; together
# they are the budget's evaluations, each a point of the space, none twice
expect_status "a random search in chunks of 2" 0 run_batch "$T/C" --chunk 2 --devices "0,$dev2" --no-progress
check "3 chunks per problem, 9 units" grep -qF 'batch: 9 of 9 units (problems and chunks) done' "$T/err"
check "each chunk finished once" test "$(cat "$T/C"/*.done | sort -u | grep -c ' \[chunk [1-3]/3\]	done$')" -eq 9
cat "$T/C"/*.jsonl >"$T/C.all"
records "$T/C.all" >"$T/C.got"
check "every record a point of its problem's space" test -z "$(comm -23 "$T/C.got" "$T/space")"
for n in 1024 2048 4096; do
	check "N=$n: the budget's 5 evaluations, none twice" \
		test "$(grep "^{\"N\":$n," "$T/C.got" | sort -u | wc -l)" -eq 5 -a "$(grep -c "^{\"N\":$n," "$T/C.got")" -eq 5
done
finish
