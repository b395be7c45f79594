#!/usr/bin/env bash
# tests/integration/readme-test.sh: runs a block of README.md word for word, the way a reader
# would paste it (after building, from the source tree): the block marked "readme-test.sh (CASE)"
# (board: the simulated Cortex-M board with the user's OpenOCD, tracetapd and GDB; qemu: the
# firmware under QEMU), then checks that tracetapd streams from it. The README's fixed ports
# (5555, 6666, 3333, 7733) are kept: the test runs in a network namespace of its own
# (unshare -rn), so they never meet another program's. Each background line gets up to 5 s to
# start listening before the next one runs, as a reader would wait for it.
# usage: readme-test.sh board|qemu README.md SOURCE_ROOT BUILD_DIR
set -u
if [ "$1" = qemu ]; then
	[ -f "$4/tests/firmware/tt-fw-mps2.elf" ] || {
		echo "skipped: the firmware was not built (gcc-arm-none-eabi, libnewlib-arm-none-eabi)"
		exit 77
	}
	command -v qemu-system-arm >/dev/null || { echo "skipped: qemu-system-arm not installed"; exit 77; }
fi
if [ -z "${TT_README_NETNS:-}" ]; then
	unshare -rn true 2>/dev/null || {
		echo "skipped: no network namespace (unshare -rn) to keep the README's fixed ports private"
		exit 77
	}
	TT_README_NETNS=1 exec unshare -rn "$BASH" "$0" "$@"
fi
CASE=$1 README=$2 SRC=$3 BUILD=$4
. "$SRC/tests/sim/lib.sh"
ip link set lo up || tt_die "cannot bring up loopback in the namespace"
cd "$TT_TMP" || exit 1
ln -s "$BUILD" build && ln -s "$SRC/tests" tests && ln -s "$SRC/web" web

lines=$(awk -v tag="readme-test.sh ($CASE)" 'index($0, tag) { f = 1; next }
	f && /^```sh/ { b = 1; next } b && /^```/ { exit } b { print }' "$README")
[ -n "$lines" ] || tt_die "no block marked 'readme-test.sh ($CASE)' in $README"

listening() { ss -lnpH 2>/dev/null | grep -q "pid=$1,"; }
n=0
while IFS= read -r line; do
	n=$((n + 1))
	echo "+ $line"
	if [[ $line == *'&' ]]; then
		eval "$line"
		TT_PIDS+=("$!")
		for _ in $(seq 100); do
			listening "$!" && break
			kill -0 "$!" 2>/dev/null || tt_die "line $n exited at once"
			sleep 0.05
		done
	else
		eval "$line" &
		fg=$!
		end=$((SECONDS + 60))
		while kill -0 "$fg" 2>/dev/null; do
			[ $SECONDS -lt $end ] || { kill "$fg"; tt_die "line $n did not finish in 60 s"; }
			sleep 0.1
		done
		wait "$fg" || tt_die "line $n failed"
	fi
done <<<"$lines"

field() { tt_api_field 7733 "$1"; }
events_above() { local e; e=$(field events) && [ "$e" -gt "$1" ]; }
tt_wait_for 30 "tracetapd streaming from the README's chain" events_above 1000
[ "$(field state)" = connected ] || tt_die "state $(field state): $(field message)"
e=$(field events)
tt_wait_for 20 "events still arriving" events_above $((e + 500))
[ "$(field gaps)" = 0 ] && [ "$(field resets)" = 0 ] ||
	tt_die "gaps $(field gaps), resets $(field resets) in a plain run"
tt_ok "README block '$CASE' run word for word: $(field events) events, state connected, no gap"
