#!/bin/sh
# `spacetune best` writes database and command-line strings into C and JSON:
# none may inject code.  Python writes a database whose strings try to end
# the header's comment, splice lines and start directives; the header must
# compile under -Wall -Wextra -Werror and define only its guard and the
# record's macros (cc -dM lists them), and the JSON must give back every
# string exactly (Python's json module is the oracle).
. "${top_srcdir:-.}/tests/tuner/lib.sh"

DB="$T/d*/x */ int from_path = 1; /*.jsonl"
mkdir -p "$(dirname "$DB")" "$T/work"
python3 - "$DB" <<'EOF' || { echo "python3 failed"; exit 99; }
import json, sys
hostile = ['*/ int injected = 1; /*', 'a\\', 'x\n#define injected 1\n', '??/', '\ufeffbom "q" \u2028',
           'tab\there\\\n*/']
line = {"v": 1, "space": hostile[0], "kernel": hostile[1], "device": hostile[2],
        "platform": hostile[3], "driver": hostile[4], "source_hash": hostile[5],
        "params": {"X": 2, "p */ int k = 3; /*": "*/ int v = 4; /*"},
        "metrics": {"*/ int m = 5; /*": 1.5}, "defines": "-DX=2 -DY -I/x*/int/*",
        "global": ["*/ int g = 6; /*"], "local": [1], "status": "ok",
        "time_ms": {"median": 1.25, "min": 1.0}}
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write(json.dumps(line, ensure_ascii=False) + "\n")
json.dump(line, open(sys.argv[1] + ".want", "w"))
EOF
expect_status "best --header on hostile strings" 0 "$SPACETUNE" best --db "$DB" \
	--header "$T/work/b.h" --json "$T/work/b.json"
printf '#include "b.h"\nint injected = 0;\nint main(void) { return X - 2 + injected; }\n' > "$T/work/use.c"
check "the header compiles clean" cc -Wall -Wextra -Werror -std=c11 -c -o "$T/work/use.o" "$T/work/use.c"
check "and with trigraphs on" cc -Wall -Werror -std=c11 -trigraphs -Wno-trigraphs -fsyntax-only "$T/work/use.c"
cc -E -dM -x c /dev/null | sort > "$T/predefined"
cc -E -dM "$T/work/b.h" | sort | comm -13 "$T/predefined" - |
	sed 's/^#define SPACETUNE_BEST_[A-Z0-9_]*_H $/guard/' > "$T/macros"
printf 'guard\n#define X 2\n#define Y 1\n' > "$T/want_macros"
check "it defines only its guard, X and Y" cmp -s "$T/macros" "$T/want_macros"
cc -E -P "$T/work/b.h" | tr -d ' \n' > "$T/code"
check "and no code" test ! -s "$T/code"
check "the JSON gives every string back" python3 - "$DB" "$T/work/b.json" <<'EOF'
import json, sys
want = json.load(open(sys.argv[1] + ".want"))
got = json.load(open(sys.argv[2], encoding="utf-8"))
pairs = [("kernel_name", "kernel"), ("space", "space"), ("device", "device"), ("platform", "platform"),
         ("driver", "driver"), ("source_hash", "source_hash"), ("parameters", "params"),
         ("defines", "defines"), ("global", "global"), ("metrics", "metrics")]
bad = [k for k, w in pairs if got.get(k) != want[w]]
if bad:
    sys.exit("differ: %s" % bad)
EOF

# -D options that cannot be #defines: refused, nothing written
for d in '-DX=1\\' '-DX=1/*' '-D1X=2' '-DX-Y=3' '-DX=a//b'; do
	python3 -c 'import json, sys; print(json.dumps({"v": 1, "space": "s", "kernel": "k", "device": "d",
		"platform": "p", "driver": "1", "source_hash": "h", "params": {"X": 1}, "defines": sys.argv[1],
		"status": "ok", "time_ms": {"median": 1.0, "min": 1.0}}))' "$d" > "$T/bad.jsonl"
	expect_status "best refuses '$d' as a #define" 1 "$SPACETUNE" best --db "$T/bad.jsonl" \
		--header "$T/work/bad.h"
	check "and writes no header for it" test ! -e "$T/work/bad.h"
done
finish
