#!/bin/sh
# The tuner's end-to-end suites on a loaded machine (issue 13): with four
# CPU hogs beside them (`stress --cpu 4`, or shell busy loops where stress
# is missing), e2e.sh and faults.sh must pass as they do on an idle
# machine: builds slowed down by the load are no timeouts, and the default
# run limit leaves room for a loaded machine's stalls.  (limits.sh is left
# out to keep this to a few minutes: its delays come from FIFOs, not from
# the load.)  The hogs stop with this script, and after 20 minutes
# whatever happens.
. "${top_srcdir:-.}/tests/tuner/lib.sh"
need_opencl
hogs=
stop_hogs() {
	for p in $hogs; do kill "$p" 2>/dev/null; done
	for p in $hogs; do wait "$p" 2>/dev/null; done
	hogs=
}
trap 'stop_hogs; rm -rf "$T"' EXIT
if command -v stress >/dev/null 2>&1; then
	stress --cpu 4 --timeout 1200 >/dev/null 2>&1 &
	hogs=$!
	how="stress --cpu 4"
else
	for k in 1 2 3 4; do
		timeout 1200 sh -c 'while :; do :; done' &
		hogs="$hogs $!"
	done
	how="four shell busy loops (no stress installed)"
fi
echo "load: $how"
for suite in e2e faults; do
	sh "$TD/$suite.sh" >"$T/$suite.log" 2>&1
	st=$?
	if [ "$st" -eq 0 ]; then
		ok "$suite.sh under load ($(tail -1 "$T/$suite.log"))"
	else
		bad "$suite.sh under load: exit $st"
		grep -v '^ok ' "$T/$suite.log" | sed 's/^/    | /' | tail -40
	fi
done
stop_hogs
finish
