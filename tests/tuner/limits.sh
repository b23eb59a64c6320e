#!/bin/sh
# spacetune's limits and signals (issue 13, section 4), on PoCL:
#  - every build of a queue under --jobs 1 takes longer than the run limit
#    (each reads a FIFO that a feeder fills 1.2 s after it is opened), and
#    every configuration is still ok: the run limit covers runs only;
#  - a C reference that never returns is stopped at --run-timeout, and one
#    whose compiler never finishes (it reads a FIFO nobody fills) at
#    --build-timeout, with the compiler killed too;
#  - SIGTERM while that reference spins: spacetune exits at once (130)
#    with a message, and the database is as it was; SIGTERM while a build
#    hangs in the search: exit 130 at once, the build not recorded.
# The oracles are the delays and limits set here.  Commands that could
# hang run under `timeout -s KILL`, so a regression fails instead.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
need_opencl
feeder=
trap '[ -n "$feeder" ] && kill $feeder 2>/dev/null; rm -rf "$T"' EXIT
# Running and not a zombie (a background job's pid stays valid until reaped).
alive() {
	s=$(ps -o stat= -p "$1" 2>/dev/null)
	[ -n "$s" ] && [ "${s#Z}" = "$s" ]
}
# No process whose command line holds $1 within 10 s (workers share their parent's).
no_process() { ! pgrep -f -- "$1" >/dev/null; }
none_left() {
	wait_until 10 no_process "$1"
	no_process "$1"
}
# Runs `cmd...` every 0.1 s until it succeeds, SECONDS at most.
wait_until() { # SECONDS cmd...
	n=$(($1 * 10))
	shift
	i=0
	while [ "$i" -lt "$n" ] && ! "$@" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
}
# SIGTERM to the background spacetune $1 (its checks named $2); its exit
# status in $st.  Not gone within 30 s: a failure, and SIGKILL.
terminate() { # pid what
	kill -TERM "$1"
	wait_until 30 dead "$1"
	if alive "$1"; then
		bad "$2: SIGTERM did not stop spacetune within 30 s"
		kill -9 "$1"
	fi
	wait "$1"
	st=$?
	[ "$st" -eq 130 ] && ok "$2: exit 130" || bad "$2: exit $st, wanted 130"
}
dead() { ! alive "$1"; }
cp "$TD/vadd.cl" "$TD/vadd_ref.c" "$TD/spin_ref.c" "$T/"
mkdir "$T/work"

# ---- builds longer than the run limit are not timeouts ------------------------
mkdir "$T/inc"
mkfifo "$T/inc/slow.h"
{ echo '#include "slow.h"'; cat "$TD/vadd.cl"; } >"$T/vadd_slow.cl"
cat >"$T/queue.space" <<SPACE
setting N = 8192
WPT = [1, 2, 4]
LOCAL = [16, 64]
tune:
    kernel vadd from "vadd_slow.cl"
    options "-I$T/inc"
    define WPT, LOCAL
    global [N // WPT]
    local [LOCAL]
    arg int N
    arg in float a[N] = random(1)
    arg in float b[N] = random(2)
    arg inout float c[N] = random(3)
    arg float 0.5
    reference c vadd_ref from "vadd_ref.c"
SPACE
# Each open of the FIFO (one per build) gets the header 1.2 s later.
# A reader that closes before the write (a compiler probing the file) must
# not end the feeder with SIGPIPE: every later build would then block on
# the FIFO forever (CI saw the run stall at 2 of 6 and the feeder gone).
# The pause after each write lets the build just fed close its end first:
# while it still holds the FIFO open, the feeder's next open would succeed
# at once and the next build would wait less than 1.2 s (CI saw a build
# recorded under 1.2 s).  A build that opens during the pause just waits
# longer: a FIFO's reader blocks until a writer opens.
(trap '' PIPE; while :; do { sleep 1.2; echo '#define SLOW_HEADER 1'; } >"$T/inc/slow.h" 2>/dev/null; sleep 0.5; done) &
feeder=$!
expect_status "six builds of 1.2 s each under --jobs 1 --run-timeout 1" 0 \
	timeout -s KILL 300 "$SPACETUNE" run "$T/queue.space" --db "$T/queue.jsonl" --jobs 1 \
	--repeat 2 --run-timeout 1
kill $feeder
feeder=
check "six configurations recorded" test "$(wc -l <"$T/queue.jsonl")" -eq 6
statuses=$(jq -r .status "$T/queue.jsonl" | sort | uniq -c | tr -s ' \n' ' ')
[ "$(jq -s '[.[] | select(.status != "ok")] | length' "$T/queue.jsonl")" -eq 0 ] &&
	ok "every configuration ok" || bad "every configuration ok: statuses seen:$statuses"
check "every build took longer than the run limit" \
	test "$(jq -s '[.[] | select(.build_s > 1)] | length' "$T/queue.jsonl")" -eq 6

# ---- the C reference's limits -------------------------------------------------
sed 's/^    reference c .*/    reference c spin_ref from "spin_ref.c"/' "$TD/vadd.space" >"$T/spin.space"
expect_status "a C reference that never returns, --run-timeout 1" 1 \
	timeout -s KILL 120 "$SPACETUNE" run "$T/spin.space" --db "$T/work/spin.jsonl" --run-timeout 1
check "the run limit is named" \
	grep -q "C reference 'spin_ref' was still running after the run limit of 1 s" "$T/err"
check "no database written" test ! -e "$T/work/spin.jsonl"
check "its worker is gone" none_left "$T/spin.space"

mkdir "$T/hang"
mkfifo "$T/hang/never.h"
printf '#include "never.h"\n' >"$T/hang/hang_ref.c"
cat "$TD/vadd_ref.c" >>"$T/hang/hang_ref.c"
sed 's|^    reference c .*|    reference c vadd_ref from "hang/hang_ref.c"|' "$TD/vadd.space" >"$T/hang.space"
expect_status "a C reference whose compiler never finishes, --build-timeout 3" 1 \
	timeout -s KILL 120 "$SPACETUNE" run "$T/hang.space" --db "$T/work/hang.jsonl" --build-timeout 3
check "the build limit is named" \
	grep -q "C reference 'vadd_ref' did not finish within the build limit of 3 s" "$T/err"
check "the compiler is gone too" none_left "$T/hang/hang_ref.c"

# ---- SIGTERM while the reference spins ------------------------------------------
db=$T/db.jsonl
expect_status "an ordinary run first" 0 "$SPACETUNE" run "$TD/vadd.space" --db "$db" --jobs 1 \
	--repeat 1 --budget 2 --strategy exhaustive
cp "$db" "$T/db.before"
XDG_CACHE_HOME=$T/spin-cache "$SPACETUNE" run "$T/spin.space" --db "$db" --jobs 1 \
	>"$T/out" 2>"$T/err" &
pid=$!
# The reference is compiled into the cache just before it is called.
cref_built() { ls "$T"/spin-cache/spacetune/cref-*.so >/dev/null 2>&1; }
wait_until 120 cref_built
sleep 1
terminate $pid "SIGTERM"
check "SIGTERM: a message says so" grep -q "interrupted while the C reference 'spin_ref' was computed" "$T/err"
check "SIGTERM: the database is as it was" cmp -s "$db" "$T/db.before"
whole_json() { jq -e . "$1" >/dev/null; }
check "SIGTERM: every line is whole JSON" whole_json "$db"
check "SIGTERM: no worker left" none_left "$T/spin.space"

# ---- SIGTERM during the search, a build in flight that never ends ---------------
# (nobody feeds slow.h now; fresh caches, so it is built): exit 130 at once,
# the build abandoned, not recorded.
XDG_CACHE_HOME=$T/stuck-cache POCL_CACHE_DIR=$T/stuck-pocl \
	"$SPACETUNE" run "$T/queue.space" --db "$T/stuck.jsonl" --jobs 1 >"$T/out" 2>"$T/err" &
pid=$!
wait_until 120 test -e "$T/stuck.jsonl"  # opened once the reference is done
sleep 1
terminate $pid "SIGTERM in the search"
check "SIGTERM in the search: the build is abandoned" \
	grep -q "1 evaluation in flight abandoned, not recorded" "$T/err"
check "SIGTERM in the search: nothing recorded" test ! -s "$T/stuck.jsonl"
check "SIGTERM in the search: no worker left" none_left "$T/queue.space"
check "no sanitizer report" no_sanitizer_reports "$T/err"
finish
