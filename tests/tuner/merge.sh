#!/bin/sh
# spacetune merge: three databases written by Python with overlapping
# evaluations (other statuses, other times, parameters in another order)
# and a torn last line; the oracle is the documented rule applied in
# Python.  Then idempotence and independence of the inputs' order, byte
# for byte.  Needs no device.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
cat >"$T/gen.py" <<'EOF2'
import json, random, sys
rng = random.Random(int(sys.argv[2]))
out = sys.argv[1]
statuses = ["ok", "wrong_result", "launch_error", "build_error", "timeout", "crashed", "skipped", "mystery"]
order = {s: i for i, s in enumerate(statuses)}
keys = [(dev, h, prob, wpt, ls) for dev in ("gpu A", "cpu/B") for h in ("h1", "h2")
        for prob in (None, "N=1") for wpt in (1, 2, 4) for ls in (8, 16)]
seconds = list(range(100000))
rng.shuffle(seconds)
dbs = {name: [] for name in "abc"}
best = {}
for name in "abc":
    for k in rng.sample(keys, 30):
        dev, h, prob, wpt, ls = k
        s = seconds.pop()
        t = "2026-01-%02dT%02d:%02d:%02dZ" % (1 + s // 86400, s // 3600 % 24, s // 60 % 60, s % 60)
        params = {"WPT": wpt, "LS": ls}
        if rng.random() < 0.5:
            params = {"LS": ls, "WPT": wpt}
        st = rng.choice(statuses)
        rec = {"v": 1, "time": t, "space": "s", "kernel": "k", "device": dev, "platform": "P",
               "driver": "1.0", "source_hash": h, "params": params, "problem": prob,
               "status": st, "time_ms": {"median": rng.random()} if st == "ok" else None}
        dbs[name].append(rec)
        rank = (order[st], t)
        if k not in best or rank < best[k][0]:
            best[k] = (rank, rec)
for name, recs in dbs.items():
    with open("%s/%s.jsonl" % (out, name), "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")
with open("%s/want" % out, "w") as f:
    for _, r in best.values():
        f.write(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n")
EOF2
python3 "$T/gen.py" "$T" 7 || bad "the generator"
printf '{"v":1,"time":"2026-01-' >>"$T/c.jsonl"
sort -o "$T/want" "$T/want"

expect_status "merge a b c" 0 "$SPACETUNE" merge --out "$T/abc.jsonl" "$T/a.jsonl" "$T/b.jsonl" "$T/c.jsonl"
to_fifo "merge --out" "$T/abc.jsonl" "$SPACETUNE" merge --out "$T/fifo" "$T/a.jsonl" "$T/b.jsonl" "$T/c.jsonl"
check "the torn last line is reported" grep -q "c.jsonl:.*torn last line" "$T/err"
check "the summary counts the records" grep -q "merged 90 records from 3 files into $(wc -l <"$T/want") in" "$T/out"
jq -S -c . "$T/abc.jsonl" | sort >"$T/got"
cmp -s "$T/want" "$T/got" && ok "each evaluation once: the better status, then the earlier time" ||
	{ bad "the merge differs from the oracle"; diff "$T/want" "$T/got" | head; }

"$SPACETUNE" merge --out "$T/cab.jsonl" "$T/c.jsonl" "$T/a.jsonl" "$T/b.jsonl" >/dev/null 2>&1
"$SPACETUNE" merge --out "$T/bca.jsonl" "$T/b.jsonl" "$T/c.jsonl" "$T/a.jsonl" >/dev/null 2>&1
check "independent of the inputs' order (c a b)" cmp -s "$T/abc.jsonl" "$T/cab.jsonl"
check "independent of the inputs' order (b c a)" cmp -s "$T/abc.jsonl" "$T/bca.jsonl"
"$SPACETUNE" merge --out "$T/again.jsonl" "$T/abc.jsonl" >/dev/null 2>&1
check "idempotent: a merged file merged alone is unchanged" cmp -s "$T/abc.jsonl" "$T/again.jsonl"
"$SPACETUNE" merge --out "$T/again2.jsonl" "$T/abc.jsonl" "$T/b.jsonl" "$T/abc.jsonl" >/dev/null 2>&1
check "idempotent: merging its inputs again changes nothing" cmp -s "$T/abc.jsonl" "$T/again2.jsonl"
cp "$T/a.jsonl" "$T/inplace.jsonl"
expect_status "the output may be an input" 0 "$SPACETUNE" merge --out "$T/inplace.jsonl" "$T/inplace.jsonl" \
	"$T/b.jsonl" "$T/c.jsonl"
check "and gives the same file" cmp -s "$T/abc.jsonl" "$T/inplace.jsonl"
check "no sanitizer report" no_sanitizer_reports "$T/err"

expect_status "a missing database" 1 "$SPACETUNE" merge --out "$T/x.jsonl" "$T/a.jsonl" "$T/nope.jsonl"
check "is named" grep -q "nope.jsonl" "$T/err"
check "with the system's reason once" test "$(grep -o 'No such file or directory' "$T/err" | wc -l)" -eq 1
check "and nothing is written" test ! -e "$T/x.jsonl"
expect_status "merge without --out" 2 "$SPACETUNE" merge "$T/a.jsonl"
finish
