#!/bin/sh
# Builds the libFuzzer target fuzz/fuzz_frontend from the front-end sources
# in lang/, with AddressSanitizer and UndefinedBehaviorSanitizer.
#
#   CLANG         the compiler (default: clang)
#   top_srcdir    the source tree (default: the parent of this script)
#   top_builddir  where lang/parser.c and lang/lexer.c may already exist and
#                 where fuzz/fuzz_frontend goes (default: top_srcdir)
#
# The generated parser and scanner are reused from $top_builddir/lang when
# they are newer than parser.y and lexer.l; otherwise bison and flex run
# into a temporary folder.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(dirname "$here")}"
: "${top_builddir:=$top_srcdir}"
CLANG=${CLANG:-clang}
BISON=${BISON:-bison}
FLEX=${FLEX:-flex}

src=$top_srcdir/lang
out=$top_builddir/fuzz/fuzz_frontend
mkdir -p "$top_builddir/fuzz"

gen=$(mktemp -d "${TMPDIR:-/tmp}/fuzzgen.XXXXXX")
trap 'rm -rf "$gen"' EXIT INT TERM

# newer A B: A exists and is not older than B.
newer() { [ -f "$1" ] && [ -z "$(find "$2" -newer "$1" 2>/dev/null)" ]; }

case $src in /*) ;; *) src=$(pwd)/$src ;; esac
b=$top_builddir/lang
if newer "$b/parser.c" "$src/parser.y" && newer "$b/parser.h" "$src/parser.y" &&
   newer "$b/lexer.c" "$src/lexer.l"; then
	cp "$b/parser.c" "$b/parser.h" "$b/lexer.c" "$gen/"
else
	"$BISON" -d -Wall -o "$gen/parser.c" "$src/parser.y"
	# lexer.l may name its own outfile, so run flex inside $gen.
	(cd "$gen" && "$FLEX" "$src/lexer.l" && if [ -f lex.yy.c ]; then mv lex.yy.c lexer.c; fi)
fi

# The generated files come first on the include path, so a stale
# parser.h in the source tree cannot shadow the fresh one.
"$CLANG" -g -O1 -std=gnu11 -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I"$gen" -I"$src" -I"$top_srcdir/runtime" \
	-Wno-unused-function -Wno-unneeded-internal-declaration \
	"$here/fuzz_frontend.c" \
	"$src/arena.c" "$src/diag.c" "$src/ast.c" "$src/sema.c" "$src/specialize.c" \
	"$gen/parser.c" "$gen/lexer.c" \
	$(pkg-config --cflags --libs icu-uc) -lm -o "$out"
echo "built $out"
