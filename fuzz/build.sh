#!/bin/sh
# Builds a libFuzzer target, with AddressSanitizer and
# UndefinedBehaviorSanitizer:
#
#     fuzz/build.sh [TARGET]
#
#   frontend  (default) fuzz/fuzz_frontend: the front end in lang/
#   bindings  fuzz/fuzz_bindings: --device-profile JSON and --set values
#   db        fuzz/fuzz_db: results databases (JSONL), torn ones included
#   batch     fuzz/fuzz_batch: `spacetune batch` files
#   kopt      fuzz/fuzz_kopt: OpenCL kernels' `#pragma spacetune` lines
#
#   CLANG         the compiler (default: clang)
#   top_srcdir    the source tree (default: the parent of this script)
#   top_builddir  where lang/parser.c and lang/lexer.c may already exist and
#                 where fuzz/fuzz_frontend goes (default: top_srcdir)
#   LIBCLANG_CFLAGS, LIBCLANG_LIBS  kopt's libclang, as configure found it
#                 (make check passes them); else the first LLVM that has
#                 clang-c/Index.h
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

target=${1:-frontend}
src=$top_srcdir/lang
out=$top_builddir/fuzz/fuzz_$target
mkdir -p "$top_builddir/fuzz"
case $src in /*) ;; *) src=$(pwd)/$src ;; esac
case $top_srcdir in /*) ;; *) top_srcdir=$(pwd)/$top_srcdir ;; esac

flags="-g -O1 -std=gnu11 -fno-omit-frame-pointer
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	-I$top_srcdir -I$src -I$top_srcdir/runtime -Wno-unused-function"
rt=$top_srcdir/runtime
runtime="$rt/values.c $rt/ctx.c $rt/sinks.c $rt/driver.c $rt/output.c $rt/par.c $rt/access.c $rt/memo.c"

# link OUT ARGS...: links; the functions ARGS' files call but that live in
# parts of the tree not linked (the runner beside the batch reader, the
# evaluator beside the status names) become stubs that abort, saying so,
# if ever reached.
link() {
	o=$1
	shift
	if "$CLANG" $flags "$@" -o "$o" 2>"$o.log"; then
		rm -f "$o.log"
		return 0
	fi
	sed -n "s/.*undefined reference to \`\([A-Za-z_][A-Za-z0-9_]*\)'.*/\1/p" "$o.log" | sort -u >"$o.undef"
	if [ ! -s "$o.undef" ]; then
		cat "$o.log" >&2
		return 1
	fi
	{
		echo '#include <stdio.h>'
		echo '#include <stdlib.h>'
		while read -r name; do
			printf 'void %s(void);\nvoid %s(void) { fputs("fuzz stub %s reached\\n", stderr); abort(); }\n' \
				"$name" "$name" "$name"
		done <"$o.undef"
	} >"$o.stubs.c"
	echo "build.sh: stubbed $(wc -l <"$o.undef") function(s) not linked: $(tr '\n' ' ' <"$o.undef")"
	"$CLANG" -g -O1 -c "$o.stubs.c" -o "$o.stubs.o" && "$CLANG" $flags "$@" "$o.stubs.o" -o "$o"
	rc=$?
	rm -f "$o.log" "$o.undef" "$o.stubs.c" "$o.stubs.o"
	return $rc
}

case $target in
frontend) ;;
bindings)
	# shellcheck disable=SC2086
	link "$out" "$here/fuzz_bindings.c" $runtime -lm -lpthread
	echo "built $out"
	exit 0 ;;
db)
	# shellcheck disable=SC2086
	# eval.c for its status names alone: the linker drops the evaluator.
	# shellcheck disable=SC2086
	link "$out" $(pkg-config --cflags json-c) "$here/fuzz_db.c" "$top_srcdir/tuner/db.c" \
		"$top_srcdir/tuner/replay.c" "$top_srcdir/tuner/eval.c" \
		$(pkg-config --libs json-c liblzma) -lm
	echo "built $out"
	exit 0 ;;
batch)
	# The reader, what it calls (diag, the strategies' budgets and
	# names, objectives, --set's rule); the runner's calls become stubs.
	# shellcheck disable=SC2086
	link "$out" $(pkg-config --cflags json-c icu-uc) "$here/fuzz_batch.c" "$top_srcdir/tuner/batch.c" \
		"$src/diag.c" "$src/arena.c" "$top_srcdir/tuner/strategy.c" "$top_srcdir/tuner/best.c" $runtime \
		$(pkg-config --libs json-c icu-uc) -lm -lpthread
	echo "built $out"
	exit 0 ;;
kopt)
	# libclang parses the kernel: the one configure chose for spacetune.
	# Without configure's word, the first LLVM with libclang's headers:
	# plain llvm-config may name an LLVM that has only clang itself (a
	# fresh Debian with clang-14 and libclang-15-dev).
	if [ -z "${LIBCLANG_LIBS:-}" ]; then
		for llvm in $(llvm-config-15 --prefix 2>/dev/null) $(llvm-config --prefix 2>/dev/null) \
			$(ls -d /usr/lib/llvm-* 2>/dev/null | sort -t- -k2 -nr); do
			[ -f "$llvm/include/clang-c/Index.h" ] && break
		done
		LIBCLANG_CFLAGS="-I$llvm/include"
		LIBCLANG_LIBS="-L$llvm/lib -Wl,-rpath,$llvm/lib -lclang"
	fi
	# shellcheck disable=SC2086
	link "$out" $LIBCLANG_CFLAGS "$here/fuzz_kopt.c" "$top_srcdir/optimizer/kopt.c" \
		"$src/diag.c" "$src/arena.c" $(pkg-config --cflags --libs icu-uc) \
		$LIBCLANG_LIBS -lm
	echo "built $out"
	exit 0 ;;
*)
	echo "build.sh: no fuzz target '$target' (frontend, bindings, db, batch, kopt)" >&2
	exit 2 ;;
esac

gen=$(mktemp -d "${TMPDIR:-/tmp}/fuzzgen.XXXXXX")
trap 'rm -rf "$gen"' EXIT INT TERM

# newer A B: A exists and is not older than B.
newer() { [ -f "$1" ] && [ -z "$(find "$2" -newer "$1" 2>/dev/null)" ]; }

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
