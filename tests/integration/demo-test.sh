#!/usr/bin/env bash
# tests/integration/demo-test.sh: the README's first quick-start command, tests/demo/run-demo.sh,
# as a reader runs it once the machine is set up (--no-setup: CI installed the packages already;
# --no-browser: no desktop here), from a tree whose build/ is the build under test. It must
# stream: the dashboard's /api/targets on the demo's port 7733 shows the target connected with
# events arriving and no gap; `build/client/tracetap tail`, which the demo suggests, prints
# records; and Ctrl-C (SIGINT to the demo's whole process group, as a terminal sends it) stops
# every process the demo started (60 s at most: it stops them one after the other). The fixed port is kept: the test runs in a network
# namespace of its own (unshare -rn), like readme-test.sh. With `qemu`, the same for
# `run-demo.sh --qemu` (the project's firmware on QEMU), whose Ctrl-C must also stop OpenOCD
# before the simulator it drives (no assertion of OpenOCD's in the demo's output). `--help`
# prints the usage, --qemu included, and exits 0.
# usage: demo-test.sh SOURCE_ROOT BUILD_DIR [qemu]
set -u
if [ -z "${TT_DEMO_NETNS:-}" ]; then
	unshare -rn true 2>/dev/null || {
		echo "skipped: no network namespace (unshare -rn) to keep the demo's port 7733 private"
		exit 77
	}
	TT_DEMO_NETNS=1 exec unshare -rn "$BASH" "$0" "$@"
fi
SRC=$1 BUILD=$2 MODE=${3:-}
. "$SRC/tests/sim/lib.sh"
ip link set lo up || tt_die "cannot bring up loopback in the namespace"
# the reader's tree: the sources, with build/ the build under test (already built: the demo's
# own ninja run finds nothing to do)
cd "$TT_TMP" || exit 1
ln -s "$BUILD" build && ln -s "$SRC/tests" tests && ln -s "$SRC/web" web ||
	tt_die "cannot make the tree in $TT_TMP"

# job control: the demo gets a process group of its own and keeps SIGINT (a background job of a
# script without it would ignore SIGINT, and its trap could not be tested)
help=$(tests/demo/run-demo.sh --help) || tt_die "run-demo.sh --help exited non-zero: $help"
[[ $help == usage:*--qemu* ]] || tt_die "run-demo.sh --help does not give the usage with --qemu: $help"
demo_args=(--no-setup --no-browser)
procs=(tracetapd openocd tt-simtarget tt-fw-threadx)
if [ "$MODE" = qemu ]; then
	[ -f build/tests/firmware/tt-fw-mps2.elf ] && command -v qemu-system-arm > /dev/null || {
		echo "skipped: no tt-fw-mps2.elf or qemu-system-arm for run-demo.sh --qemu"
		exit 77
	}
	demo_args+=(--qemu)
	procs=(tracetapd openocd tt-simtarget qemu-system-arm)
fi
set -m
tests/demo/run-demo.sh "${demo_args[@]}" > "$TT_TMP/demo.out" 2>&1 &
demo=$!
set +m
TT_PIDS+=("$demo")

field() { tt_api_field 7733 "$1"; }
events_above() { local e; e=$(field events) && [ "$e" -gt "$1" ]; }
end=$((SECONDS + 60))
until events_above 1000; do
	[ $SECONDS -lt $end ] || tt_die "the demo's dashboard not streaming within 60 s; the demo" \
		"printed: $(cat "$TT_TMP/demo.out")"
	sleep 0.1
done
[ "$(field state)" = connected ] || tt_die "state $(field state): $(field message)"
grep -q 'dashboard at http://127.0.0.1:7733/' "$TT_TMP/demo.out" ||
	tt_die "the demo did not say where its dashboard is: $(cat "$TT_TMP/demo.out")"
e=$(field events)
tt_wait_for 20 "events still arriving" events_above $((e + 500))
# no "no gap" here: a machine busy enough can make the simulated link lap the buffer, and the
# demo then shows a counted gap, as it should
tt_ok "the demo streams: $(field events) events, state connected, $(field gaps) gaps"

# what the demo suggests in another terminal (its text, then the same as JSON to count on)
timeout 30 build/client/tracetap tail --count 20 --no-color > "$TT_TMP/tail.out" 2> "$TT_TMP/tail.err" ||
	tt_die "tracetap tail --count 20: $(cat "$TT_TMP/tail.err")"
[ "$(wc -l < "$TT_TMP/tail.out")" -eq 20 ] || tt_die "tracetap tail: not 20 lines: $(cat "$TT_TMP/tail.out")"
timeout 30 build/client/tracetap tail --count 20 --json > "$TT_TMP/tail.json" 2> "$TT_TMP/tail.err" ||
	tt_die "tracetap tail --count 20 --json: $(cat "$TT_TMP/tail.err")"
n=$(grep -c '^{"type":"event".*"name":"[A-Z_]*"' "$TT_TMP/tail.json")
g=$(grep -c '^{"type":"gap".*"lost":[1-9]' "$TT_TMP/tail.json")
[ "$n" -ge 1 ] && [ $((n + g)) -eq 20 ] ||
	tt_die "tracetap tail --json: $n named events and $g counted gaps of 20 records: $(cat "$TT_TMP/tail.json")"
tt_ok "build/client/tracetap tail: 20 lines; --json: $n named events, $g counted gaps ($(head -n 1 "$TT_TMP/tail.out" | tr -s ' ' | cut -c1-100))"

# Ctrl-C: the whole group, then nothing of the demo is left
# (the demo's process group, and what it started in a session of its own)
members=$( { pgrep -g "$demo"; pgrep -P "$demo"; } | sort -u | tr '\n' ' ')
names=$(for p in $members; do cat "/proc/$p/comm" 2>/dev/null; done | sort -u | tr '\n' ' ')
for want in "${procs[@]}"; do
	[[ " $names " == *" $want "* ]] || tt_die "the demo runs no $want (its processes: $names)"
done
kill -INT -- "-$demo"
gone() { # nothing left in the group, nor any process seen in it before
	local p
	pgrep -g "$demo" > /dev/null && return 1
	for p in $members; do kill -0 "$p" 2>/dev/null && return 1; done
	return 0
}
end=$((SECONDS + 60)) # a backstop: the demo stops its processes one after the other
until gone; do
	if [ $SECONDS -ge $end ]; then
		left=$(for p in $members; do ps -o pid=,comm= -p "$p"; done | tr '\n' ';')
		kill -KILL -- "-$demo" 2>/dev/null # what Ctrl-C left must not outlive the test
		tt_die "demo processes left 60 s after Ctrl-C: $left"
	fi
	sleep 0.05
done
tt_ok "Ctrl-C stopped all of: $names"
! grep -q 'Assertion' "$TT_TMP/demo.out" ||
	tt_die "the demo's output after Ctrl-C: $(grep 'Assertion' "$TT_TMP/demo.out")"
