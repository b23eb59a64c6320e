#!/bin/sh
# spacetune export: a database written by Python (two devices, one with
# quotes, backslashes, '??=', '*/', a newline and UTF-8 in its name; 12
# problems; failed and older-kernel records that must not win).  The
# oracle is Python: the best verified record of the newest source hash
# per device and problem, and the documented nearness rule for 300
# queries answered by a C program linked against the generated header,
# which must compile with -Wall -Wextra -Werror.  Needs no device.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
CC=${CC:-cc}
cat >"$T/gen.py" <<'EOF2'
import json, math, random, sys
rng = random.Random(11)
T = sys.argv[1]
devices = ['GPU "A" \\ ??= */\n\u00e9', "GPU B"]
problems = [(p, m, t) for p in ("single", "double") for m in (256, 1024, 4096) for t in (0, 1)]
lines, best = [], {}
sec = iter(rng.sample(range(10**6), 10**4))
def stamp(year):
    s = next(sec)
    return "%d-01-%02dT%02d:%02d:%02dZ" % (year, 1 + s // 86400 % 28, s // 3600 % 24, s // 60 % 60, s % 60)
for dev in devices:
    for (p, m, t) in problems:
        prob = 'M=%d precision="%s" trans_a=%d' % (m, p, t)
        recs = []
        for k in range(4):
            wg = rng.choice([16, 32, 64])
            recs.append({"v": 1, "time": stamp(2026), "space": "gemm", "kernel": "gemm", "device": dev,
                         "platform": "P", "driver": "1", "source_hash": "new", "problem": prob,
                         "objective": "min:time", "params": {"WG": wg, "K": k},
                         "defines": "-DWG=%d -DK=%d" % (wg, k), "global": [m, m], "local": [wg, 1],
                         "status": "ok", "time_ms": {"median": rng.uniform(1, 2)}})
        # a failure that looks faster, and an older kernel that was faster: neither wins
        recs.append(dict(recs[0], status="wrong_result", time_ms={"median": 0.1}, params={"WG": 0}))
        recs.append(dict(recs[1], source_hash="old", time=stamp(2025), time_ms={"median": 0.2}, params={"WG": 1}))
        lines += recs
        b = min((r for r in recs if r["status"] == "ok" and r["source_hash"] == "new"),
                key=lambda r: r["time_ms"]["median"])
        best[(dev, prob)] = (b, {"precision": p, "M": m, "trans_a": t})
rng.shuffle(lines)
with open(T + "/db.jsonl", "w") as f:
    for r in lines:
        f.write(json.dumps(r) + "\n")
table = sorted(best.items(), key=lambda kv: (kv[0][0].encode(), kv[0][1].encode()))
with open(T + "/want.json", "w") as f:
    json.dump(sorted([{"device": d, "problem": p, "defines": b["defines"], "time_ms": b["time_ms"]["median"]}
                      for (d, p), (b, s) in best.items()], key=lambda e: (e["device"], e["problem"])), f)
def lookup(dev, prec, m, t):
    def key(item):
        (d, p), (b, s) = item
        dist = sum(abs(math.log2(abs(a) + 1) - math.log2(abs(q) + 1)) for a, q in ((s["M"], m), (s["trans_a"], t)))
        return (d != dev, s["precision"] != prec, dist)
    return min(table, key=key)
hexs = lambda s: s.encode().hex()
with open(T + "/queries", "w") as q, open(T + "/want", "w") as w:
    for i in range(300):
        dev = rng.choice(devices + ["unknown"])
        prec = rng.choice(["single", "double", "half"])
        m = rng.choice([256, 1024, 4096, 200, 300, 700, 3000, 9000, 1])
        t = rng.choice([0, 1])
        q.write("%s %s %d %d\n" % (hexs(dev), prec, m, t))
        (d, p), (b, s) = lookup(dev, prec, m, t)
        w.write("%s %s %s %d %d %d %d\n" % (hexs(d), hexs(p), hexs(b["defines"]), b["global"][0],
                                             b["global"][1], b["local"][0], b["local"][1]))
EOF2
python3 "$T/gen.py" "$T" || bad "the generator"
expect_status "export" 0 "$SPACETUNE" export "$T/db.jsonl" --c "$T/params.h" --json "$T/params.json"
check "no sanitizer report" no_sanitizer_reports "$T/err"
to_fifo "export --json" "$T/params.json" "$SPACETUNE" export "$T/db.jsonl" --json "$T/fifo"
mkdir -p "$T/ref" # the header's include guard follows the file's name: the same name here
"$SPACETUNE" export "$T/db.jsonl" --c "$T/ref/fifo" >/dev/null 2>&1
to_fifo "export --c" "$T/ref/fifo" "$SPACETUNE" export "$T/db.jsonl" --c "$T/fifo"
jq -S -c '[.[] | {device, problem, defines, time_ms}] | sort_by(.device, .problem)' "$T/params.json" >"$T/got.json"
jq -S -c . "$T/want.json" >"$T/want.jsonc"
cmp -s "$T/want.jsonc" "$T/got.json" && ok "JSON: the best verified entry of the newest kernel per device and problem" ||
	{ bad "JSON differs from the oracle"; diff "$T/want.jsonc" "$T/got.json" | head -5; }

cat >"$T/app.c" <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include "params.h"

static void unhex(const char *h, char *out)
{
	for (; h[0] && h[1]; h += 2) {
		unsigned v;
		sscanf(h, "%2x", &v);
		*out++ = (char)v;
	}
	*out = '\0';
}

static void hex(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		printf("%02x", *p);
	putchar(' ');
}

int main(void)
{
	char dev_hex[512], prec[32], dev[256];
	double m, t;
	while (scanf("%511s %31s %lf %lf", dev_hex, prec, &m, &t) == 4) {
		unhex(dev_hex, dev);
		const struct spacetune_params *p = gemm_params(dev, prec, m, t);
		if (!p)
			return 1;
		hex(p->device);
		hex(p->problem);
		hex(p->defines);
		printf("%zu %zu %zu %zu\n", p->global[0], p->global[1], p->local[0], p->local[1]);
	}
	return 0;
}
EOF2
if $CC -std=c11 -Wall -Wextra -Werror -I"$T" -o "$T/app" "$T/app.c" -lm 2>"$T/cc.err"; then
	ok "the header compiles with -Wall -Wextra -Werror"
	"$T/app" <"$T/queries" >"$T/got"
	cmp -s "$T/want" "$T/got" && ok "300 lookups choose as documented (exact, else nearest)" ||
		{ bad "lookups differ from the oracle"; diff "$T/want" "$T/got" | head -5; }
else
	bad "the header compiles with -Wall -Wextra -Werror"
	sed 's/^/    | /' "$T/cc.err" | head -20
fi
printf '{"v":1,"status":"timeout"}\n' >"$T/none.jsonl"
expect_status "nothing verified" 1 "$SPACETUNE" export "$T/none.jsonl" --c "$T/none.h"
check "says so" grep -q "no verified" "$T/err"
check "and writes nothing" test ! -e "$T/none.h"
expect_status "a missing database" 1 "$SPACETUNE" export "$T/nope.jsonl" --c "$T/nope.h"
check "is named, with the system's reason once" test "$(grep -c 'nope.jsonl.*No such file or directory' "$T/err")" -eq 1 -a \
	"$(grep -o 'No such file or directory' "$T/err" | wc -l)" -eq 1
expect_status "export without an output" 2 "$SPACETUNE" export "$T/db.jsonl"
finish
