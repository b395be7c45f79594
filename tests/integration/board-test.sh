#!/usr/bin/env bash
# tests/integration/board-test.sh: tracetapd on a board as users have one: tt-simtarget
# --cortex-m (a Cortex-M3 whose halt, resume and reset act on the tt-fw-threadx workload), an
# OpenOCD of the user's driving it with a stock-style config (remote-bitbang.cfg + sim-cm3.cfg)
# and tracetapd attached to that OpenOCD's TCL port, the dashboard's WebSocket followed by
# `tracetap tail`. Every situation is forced (GDB parked in a shell command while attached, a `reset
# halt` that keeps the firmware from running), never waited for by time.
#
# usage: board-test.sh CASE INTERFACE_CFG TARGET_CFG
#   (cases: gdb-halt, reset, attach-halted, trigger-halt, trigger-states)
# env (meson sets them): TRACETAPD TRACETAP CHECK_SEQ SIMTARGET FW_THREADX; TT_KEEP=1 keeps logs.
set -u
CASE=$1
OPENOCD_CFG=$2
OPENOCD_TARGET_CFG=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../sim/lib.sh
. "$here/../sim/lib.sh"
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"

REC=$TT_TMP/records.jsonl
DLOG=$TT_TMP/daemon.err
TAIL=$TT_TMP/tail.err
DAEMON_EXTRA=()

setup() {
	sim --cortex-m
	fw 300 0x10000
	tt_ctl "core $TT_PID_fw"
	tt_board_ocd_start
	OCD_PID=${TT_PIDS[-1]}
	[ "${1:-}" != halted ] || ocd_cmd halt
	: >"$DLOG"
	"$TRACETAPD" --port 0 --web "$here" --stdout --log-level info --name sim --pointer $BASE \
		--probe "openocd:127.0.0.1:$OCD_PORT" "${DAEMON_EXTRA[@]}" >"$REC" 2>"$DLOG" &
	DPID=$!
	TT_PIDS+=("$DPID")
	wait_log 'dashboard at http://127\.0\.0\.1:[0-9]+/'
	HTTP_PORT=$(sed -n 's/.*dashboard at http:\/\/127\.0\.0\.1:\([0-9]*\)\/.*/\1/p' "$DLOG" | head -n 1)
	"$TRACETAP" tail --json "ws://127.0.0.1:$HTTP_PORT/" >/dev/null 2>"$TAIL" &
	TT_PIDS+=("$!")
	if [ "${1:-}" = halted ]; then
		wait_log 'target sim: halted: core halted by the debugger'
		return
	fi
	wait_log 'connected: streaming'
	[ "${1:-}" = trigger ] || advance 300
}

api_field() { tt_api_field "$HTTP_PORT" "$1"; }
api_is() { [ "$(api_field "$1")" = "$2" ]; }
tail_says() { grep -qE "$1" "$TAIL"; }
fw_stopped() { [ "$(tt_proc_state "$TT_PID_fw")" = T ]; }
resets_above() { [ "$(count_rec '"type":"reset"')" -gt "$1" ]; }
bytes_grow() { [ "$(api_field bytes_read)" -gt "$1" ]; }

gdb_halt() {
	setup
	# GDB attaches (OpenOCD halts the core for it), then sits in a shell command until the
	# test lets it go: the core stays halted exactly as long as the test needs.
	timeout 60 gdb-multiarch -batch -nx -ex "set architecture arm" \
		-ex "target extended-remote 127.0.0.1:$GDB_PORT" \
		-ex "shell touch '$TT_TMP/gdb.attached'; until [ -e '$TT_TMP/gdb.go' ]; do sleep 0.05; done" \
		-ex "monitor resume" -ex "detach" >"$TT_TMP/gdb.out" 2>"$TT_TMP/gdb.err" &
	local gdb=$!
	TT_PIDS+=("$gdb")
	tt_wait_for 20 "GDB attached" test -e "$TT_TMP/gdb.attached"
	tt_wait_for 10 "the firmware stopped by GDB's halt" fw_stopped
	tt_wait_for 10 "status halted in /api/targets" api_is state halted
	tt_wait_for 10 "halted in the stream's status" tail_says 'sim is halted'
	wait_log 'target sim: halted: core halted by the debugger'
	local b events gaps
	b=$(api_field bytes_read)
	tt_wait_for 10 "reading goes on while halted" bytes_grow $((b + 400))
	events=$(count_rec '"type":"event"')
	gaps=$(count_rec '"type":"gap"')
	b=$(api_field bytes_read)
	tt_wait_for 10 "reading goes on while halted" bytes_grow $((b + 400))
	[ "$(count_rec '"type":"event"')" = "$events" ] || tt_die "events while the core is halted"
	[ "$(count_rec '"type":"gap"')" = "$gaps" ] || tt_die "a gap while the core is halted"
	api_is state halted || tt_die "state left halted while GDB holds the core"
	tt_ok "GDB halt: firmware stopped, status 'halted' (API, stream, log), buffer still read, nothing new, no gap"
	touch "$TT_TMP/gdb.go"
	wait "$gdb" || tt_die "GDB failed: $(tail -n 5 "$TT_TMP/gdb.err")"
	tt_wait_for 10 "connected again after the resume" api_is state connected
	tt_wait_for 10 "running in the stream's status" tail_says 'sim is connected.*core running'
	advance 300
	finish --lossless
	[ "$(count_rec '"type":"reset"')" = 0 ] || tt_die "a reset record for a halt"
	tt_ok "resumed cleanly: the stream goes on, every event exactly once, no gap, no reset"
}

reset_case() {
	setup
	# reset halt: the firmware is stopped before its reset runs, so the buffer is unchanged;
	# the reset record can only come from OpenOCD's own notification
	local before
	before=$(count_rec '"type":"reset"')
	ocd_cmd 'reset halt'
	tt_wait_for 10 "the firmware held at the reset vector" fw_stopped
	tt_wait_for 10 "a reset record while the core is held in reset halt" resets_above "$before"
	[ "$(od -An -tu4 -j4 -N4 "$TT_TMP/ram.bin" | tr -d ' ')" = 0 ] ||
		tt_die "the firmware ran its reset before the record came (it should be held)"
	grep '"type":"reset"' "$REC" | tail -n 1 | grep -q 'target reset by OpenOCD (reset halt)' ||
		tt_die "reset record: $(grep '"type":"reset"' "$REC" | tail -n 1)"
	tt_ctl cm
	[[ $TT_CTL_REPLY =~ resets=1 ]] || tt_die "the simulated core was not reset: $TT_CTL_REPLY"
	tt_wait_for 10 "status halted after reset halt" api_is state halted
	tt_ok "reset halt: one reset record from OpenOCD's notification before the firmware ran"
	ocd_cmd 'resume'
	tt_expect fw '^reset n=1 '
	tt_wait_for 10 "streaming again after the reset" api_is state connected
	advance 300
	[ "$(count_rec '"type":"reset"')" = 1 ] ||
		tt_die "$(count_rec '"type":"reset"') reset records for one reset"
	tt_ok "the firmware's own re-enable was not a second reset; the stream resumed"
	# reset run: the firmware restarts at once; still one record, where the new run begins
	ocd_cmd 'reset run'
	tt_expect fw '^reset n=2 '
	advance 300
	[ "$(count_rec '"type":"reset"')" = 2 ] ||
		tt_die "$(count_rec '"type":"reset"') reset records for two resets"
	grep '"type":"reset"' "$REC" | tail -n 1 | grep -q 'target reset by OpenOCD (reset run)' ||
		tt_die "reset record: $(grep '"type":"reset"' "$REC" | tail -n 1)"
	# every event before and after the resets exactly once, in order; numbers missing only
	# right at a reset record (events the reset wiped before they were read)
	finish
	tt_ok "reset run: one reset record, the stream resumes; nothing duplicated or reordered"
}

# tracetapd attaches to a core that is already halted: OpenOCD sends no notification for that,
# the state comes from asking it once the link is up
attach_halted() {
	setup halted
	tt_wait_for 10 "status halted in /api/targets" api_is state halted
	tt_wait_for 10 "the halted core's buffer read" eval '[ "$(count_rec '"'"'"type":"event"'"'"')" -gt 0 ]'
	api_is state halted || tt_die "reading the buffer turned 'halted' into $(api_field state)"
	tt_ok "attached to a halted core: status 'halted', its buffer read ($(count_rec '"type":"event"') events)"
	ocd_cmd resume
	tt_wait_for 10 "connected after the resume" api_is state connected
	advance 300
	finish --lossless
	tt_ok "resumed: connected, every event exactly once"
}

# A trigger with the halt action: the core stops at the event (DHCSR says halted, the
# firmware process is stopped, GDB attaches), the stream says `halted`, and after the resume
# every event comes exactly once; the trigger's limit keeps it from halting again.
trigger_halt() {
	DAEMON_EXTRA=(--trigger 'stop: USER_EVENT id=4096 info1>=200; halt limit=1')
	setup trigger
	wait_log 'trigger stop fired \(USER_EVENT id=4096 info1>=200\) at seq [0-9]+'
	local seq
	seq=$(sed -n 's/.*trigger stop fired .* at seq \([0-9]*\).*/\1/p' "$DLOG" | head -n 1)
	grep '"seq":'"$seq"',' "$REC" | grep -q '"id":4096' || tt_die "seq $seq is not a user event"
	tt_wait_for 10 "the firmware stopped by the trigger's halt" fw_stopped
	wait_log 'target sim: core halted \(a trigger\)'
	tt_wait_for 10 "status halted in /api/targets" api_is state halted
	tt_wait_for 10 "halted in the stream's status" tail_says 'sim is halted'
	ocd_cmd 'mdw 0xE000EDF0'
	local dhcsr
	dhcsr=$(sed -n 's/^0x[eE]000[eE][dD][fF]0: \([0-9a-fA-F]*\).*/\1/p' <<<"$OCD_REPLY")
	[ -n "$dhcsr" ] && [ $(((0x$dhcsr >> 17) & 1)) = 1 ] || tt_die "DHCSR: $OCD_REPLY (S_HALT wanted)"
	# a poll cycle after the halt first (what was written before it may still come), then
	# nothing new over the next one
	local events b
	b=$(api_field bytes_read)
	tt_wait_for 10 "reading goes on while halted" bytes_grow $((b + 400))
	events=$(count_rec '"type":"event"')
	b=$(api_field bytes_read)
	tt_wait_for 10 "reading goes on while halted" bytes_grow $((b + 400))
	[ "$(count_rec '"type":"event"')" = "$events" ] || tt_die "events while the core is halted"
	tt_ok "trigger at seq $seq halted the core: DHCSR 0x$dhcsr (S_HALT), firmware stopped, status 'halted', nothing new"
	timeout 60 gdb-multiarch -batch -nx -ex "set architecture arm" \
		-ex "target extended-remote 127.0.0.1:$GDB_PORT" -ex "info registers pc" \
		-ex "monitor resume" -ex "detach" >"$TT_TMP/gdb.out" 2>"$TT_TMP/gdb.err" ||
		tt_die "GDB failed: $(tail -n 5 "$TT_TMP/gdb.err")"
	grep -qE '^pc +0x[0-9a-f]+' "$TT_TMP/gdb.out" || tt_die "GDB saw no pc: $(cat "$TT_TMP/gdb.out")"
	tt_ok "GDB attached to the halted core: $(grep -E '^pc' "$TT_TMP/gdb.out" | tr -s ' ')"
	tt_wait_for 10 "connected again after the resume" api_is state connected
	advance 300
	[ "$(grep -c 'core halted (a trigger)' "$DLOG")" = 1 ] || tt_die "halted more than once (limit=1)"
	finish --lossless
	tt_ok "resumed: every event exactly once across the halt, no gap, one halt"
}

# The state conditions: `halt` fires when the core becomes halted (here by a debugger's halt,
# once per halt, not while it stays halted), `disconnect` when the link goes (OpenOCD killed);
# neither before, and a trigger bound to another target never.
trigger_states() {
	DAEMON_EXTRA=(--trigger 'seen: halt; holdoff=0ms' --trigger 'gone: disconnect'
		--trigger 'elsewhere: disconnect; target=other')
	setup
	fired() { grep -c "trigger $1 fired" "$DLOG" || true; }
	[ "$(fired seen)" = 0 ] && [ "$(fired gone)" = 0 ] || tt_die "a state trigger fired while connected"
	ocd_cmd halt
	tt_wait_for 10 "status halted" api_is state halted
	wait_log 'trigger seen fired \(halt: core halted by the debugger'
	local b
	b=$(api_field bytes_read)
	tt_wait_for 10 "reading goes on while halted" bytes_grow $((b + 400))
	[ "$(fired seen)" = 1 ] || tt_die "seen fired $(fired seen) times for one halt"
	ocd_cmd resume
	tt_wait_for 10 "connected after the resume" api_is state connected
	advance 100
	[ "$(fired seen)" = 1 ] && [ "$(fired gone)" = 0 ] || tt_die "fired after the resume"
	ocd_cmd halt
	wait_log 'trigger seen fired .*' 10
	tt_wait_for 10 "a second halt, a second firing" eval '[ "$(fired seen)" = 2 ]'
	ocd_cmd resume
	tt_ok "halt: fired once per halt (2 halts, 2 firings), not while running"
	kill -KILL "$OCD_PID"
	tt_wait_for 20 "status disconnected" api_is state disconnected
	wait_log 'trigger gone fired \(disconnect: '
	[ "$(fired gone)" = 1 ] && [ "$(fired elsewhere)" = 0 ] || tt_die "gone $(fired gone), elsewhere $(fired elsewhere)"
	tt_ok "disconnect: fired when OpenOCD went away; the trigger of another target did not"
}

case $CASE in
gdb-halt) gdb_halt ;;
attach-halted) attach_halted ;;
reset) reset_case ;;
trigger-halt) trigger_halt ;;
trigger-states) trigger_states ;;
*) echo "usage: $0 gdb-halt|reset|attach-halted|trigger-halt|trigger-states INTERFACE_CFG TARGET_CFG" >&2; exit 2 ;;
esac
