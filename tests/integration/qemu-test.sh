#!/usr/bin/env bash
# tests/integration/qemu-test.sh: the project's firmware (tt-fw-mps2.elf) on a real emulated
# core, traced live as on a board: QEMU's mps2-an385 (Cortex-M3) with its PSRAM shared as a file,
# tt-simtarget --qmp serving that file and QEMU's run state to OpenOCD, an OpenOCD with the
# stock-style sim-cm3.cfg, and tracetapd --elf on OpenOCD's TCL port. QEMU starts stopped (-S) so
# tracetapd sees the firmware's first event; OpenOCD's `resume` starts it.
# Cases:
# - stream: the stream follows; after `halt` through OpenOCD (PC from QEMU, in the firmware) it
#   catches up with what the firmware counted, and the live stream's last window equals an
#   offline decode of a halt-and-dump event for event (raw words); nothing invented, duplicated
#   or reordered (user-event numbers, time); every loss a gap with its count (events + lost = the
#   firmware's own counter); then `reset run` is one reset record and the stream resumes.
# - trigger-halt: a trigger with the halt action (a user event with info 1 >= 300) stops the
#   emulated core: DHCSR read through OpenOCD has S_HALT, GDB attached to OpenOCD's gdb port sees
#   a PC inside the firmware's .text (the ELF's section bounds), the stream's status says
#   `halted` and nothing new comes; after a resume through OpenOCD (and a final halt, so the
#   firmware's count is final) every event the firmware wrote was streamed, no gap, one halt.
# - narrow: the firmware's narrow variant (24-bit time, late enable, a thread re-created under
#   new names), the reader held away across the enable and mid-stream: narrow_case says what.
# usage: qemu-test.sh CASE FIRMWARE_ELF INTERFACE_CFG TARGET_CFG
# env (meson): TRACETAPD TRACETAP CHECK_SEQ SIMTARGET; TT_KEEP=1 keeps the logs.
set -u
CASE=$1
FW_ELF=$2
OPENOCD_CFG=$3
OPENOCD_TARGET_CFG=$4
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../sim/lib.sh
. "$here/../sim/lib.sh"

[ -f "$FW_ELF" ] || {
	echo "skipped: the firmware was not built (gcc-arm-none-eabi, libnewlib-arm-none-eabi)"; exit 77; }
command -v qemu-system-arm >/dev/null || { echo "skipped: qemu-system-arm not installed"; exit 77; }
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
[ "$CASE" != trigger-halt ] || command -v gdb-multiarch >/dev/null ||
	{ echo "skipped: gdb-multiarch not installed"; exit 77; }

PSRAM=$TT_TMP/psram.bin
QMP=$TT_TMP/qmp.sock
REC=$TT_TMP/records.jsonl
DLOG=$TT_TMP/daemon.err
HDR_PTR=0x21000000

# QEMU (stopped), tt-simtarget on its PSRAM and QMP, OpenOCD (OCD_PORT, GDB_PORT)
qemu_start() {
	qemu-system-arm -machine mps2-an385,memory-backend=ram \
		-object memory-backend-file,id=ram,size=16M,mem-path="$PSRAM",share=on \
		-kernel "$FW_ELF" -nographic -monitor none -serial none -S \
		-qmp "unix:$QMP,server=on,wait=off" 2>"$TT_TMP/qemu.err" &
	TT_PIDS+=("$!")
	tt_wait_for 20 "QEMU's QMP socket" test -S "$QMP"
	tt_sim_start --qmp "$QMP" --ram "$PSRAM" --base 0x21000000 --size 0x1000000
	tt_board_ocd_start
}

# tracetapd on OpenOCD's TCL port, waiting for the firmware to enable tracing; extra arguments
# are tracetapd's
daemon_start() {
	"$TRACETAPD" --stdout --log-level info --name qemu --elf "$FW_ELF" --tick-hz 25M \
		--probe "openocd:127.0.0.1:$OCD_PORT" "$@" >"$REC" 2>"$DLOG" &
	DPID=$!
	TT_PIDS+=("$DPID")
	tt_wait_for 20 "tracetapd waiting for tracing to be enabled" \
		grep -q 'tracing not enabled yet' "$DLOG"
}

count() { grep -c "\"type\":\"$1\"" "$REC" || true; }

stream_case() {
	qemu_start
	daemon_start --no-server
	ocd_cmd resume
	tt_wait_for 30 "3000 events streamed from the firmware" eval '[ "$(count event)" -ge 3000 ]'
	tt_ok "following the firmware on QEMU: $(count event) events"

	# who ran, from each event's `run` over the time since the previous event: the firmware idles in
	# WFI between its rounds (comms suspends itself, the tick names no interrupted thread), so idle
	# holds most of the time and no thread near all of it
	shares=$(jq -rs '[.[] | select(.type == "event")] as $e
		| [range(1; $e | length) | {who: ($e[.].run_name // $e[.].run // "unknown"),
		   dt: ($e[.].time - $e[. - 1].time)}]
		| (map(.dt) | add) as $all | group_by(.who)
		| map("\(.[0].who)=\((map(.dt) | add) * 100 / $all | floor)") | join(" ")' \
		<(head -n "$(wc -l <"$REC")" "$REC")) # whole lines only: tracetapd is still writing
	idle=$(sed -n 's/.*\bidle=\([0-9]*\).*/\1/p' <<<"$shares")
	[ "${idle:-0}" -ge 50 ] || tt_die "idle holds ${idle:-0}% of the time (shares in %: $shares)"
	for t in sensor control comms; do
		pc=$(sed -n "s/.*\b$t=\([0-9]*\).*/\1/p" <<<"$shares")
		[ "${pc:-0}" -lt 30 ] || tt_die "$t holds $pc% of the time on an idle firmware ($shares)"
	done
	tt_ok "time shares (%) from the records' run: $shares"

	# halt through OpenOCD: the firmware's counters are final, and the registers OpenOCD reads are
	# the emulated core's (its PC in the firmware's code at 0, not the model's made-up one)
	ocd_cmd halt
	ocd_cmd 'reg pc'
	[[ $OCD_REPLY =~ (0x[0-9a-f]+) ]] && [ $((BASH_REMATCH[1])) -lt $((0x400000)) ] ||
		tt_die "halted PC is not in the firmware's code: $OCD_REPLY"
	ocd_cmd "read_memory $HDR_PTR 32 4"
	read -r hdr boots last_seq fw_events <<<"$OCD_REPLY"
	[ "$((boots))" = 1 ] || tt_die "boot count $boots: $OCD_REPLY"
	last_user() { grep '"id":4096' "$REC" | tail -n 1 | jq '.raw[4]'; }
	tt_wait_for 20 "the stream caught up with user event $((last_seq))" \
		eval '[ "$(last_user)" = "$((last_seq))" ]'
	ocd_cmd "dump_image $TT_TMP/dump.bin $HDR_PTR 0x11000"
	"$TRACETAP" decode --json --format threadx --base $HDR_PTR --address "$hdr" "$TT_TMP/dump.bin" \
		>"$TT_TMP/offline.jsonl" || tt_die "offline decode failed"
	jq -c 'select(.type == "event") | .raw' "$TT_TMP/offline.jsonl" >"$TT_TMP/offline.raw"
	n=$(wc -l <"$TT_TMP/offline.raw")
	[ "$n" -gt 1000 ] || tt_die "the dump holds only $n events"
	jq -c 'select(.type == "event") | .raw' "$REC" | tail -n "$n" >"$TT_TMP/live.raw"
	cmp -s "$TT_TMP/offline.raw" "$TT_TMP/live.raw" ||
		tt_die "live window != offline decode: $(diff "$TT_TMP/offline.raw" "$TT_TMP/live.raw" | head -n 4)"
	tt_ok "halt-and-dump: the live stream's last $n events equal the offline decode, raw word for word"

	"$CHECK_SEQ" --key user "$REC" || tt_die "user events invented, repeated or reordered"
	jq -r 'select(.type == "event") | .time' "$REC" | awk 'NR > 1 && $1 < p { bad = 1 } { p = $1 }
		END { exit bad }' || tt_die "time stamps go backwards in the stream"
	lost=$(jq -s 'map(select(.type == "gap")) | (map(.lost) | add) // 0' "$REC")
	inexact=$(jq -s 'map(select(.type == "gap" and .exact == false)) | length' "$REC")
	events=$(count event)
	[ "$inexact" = 0 ] && [ $((events + lost)) = $((fw_events)) ] ||
		tt_die "$events events + $lost lost ($inexact inexact gaps) != the firmware's $((fw_events))"
	tt_ok "$events events + $lost counted as lost = the firmware's count $((fw_events)); user numbers and time in order"

	ocd_cmd 'reset run'
	tt_wait_for 20 "a reset record" eval '[ "$(count reset)" -ge 1 ]'
	tt_wait_for 30 "the stream resumes after the reset" \
		eval '[ "$(sed -n "/\"type\":\"reset\"/,\$p" "$REC" | grep -c "\"type\":\"event\"")" -ge 1000 ]'
	[ "$(count reset)" = 1 ] || tt_die "$(count reset) reset records for one reset"
	grep '"type":"reset"' "$REC" | grep -q 'target reset by OpenOCD (reset run)' ||
		tt_die "reset record: $(grep '"type":"reset"' "$REC")"
	ocd_cmd "read_memory $HDR_PTR 32 2"
	[ "$(echo "$OCD_REPLY" | cut -d' ' -f2)" = 0x2 ] || tt_die "the firmware did not boot again: $OCD_REPLY"
	kill -TERM "$DPID"
	wait "$DPID" || tt_die "tracetapd exited with status $? on SIGTERM"
	tt_ok "reset run: one reset record, the firmware booted again, the stream resumed"
}

# The trigger's halt stops the emulated core where the firmware is; GDB finds it there.
trigger_halt_case() {
	local text_start text_size
	read -r text_start text_size < <(readelf -SW "$FW_ELF" |
		awk '$2 == ".text" { print "0x" $4, "0x" $6 } $3 == ".text" { print "0x" $5, "0x" $7 }')
	[ -n "$text_start" ] && [ $((text_size)) -gt 0 ] || tt_die "no .text in $FW_ELF"
	qemu_start
	daemon_start --port 0 --web "$here" --trigger 'stop: USER_EVENT id=4096 info1>=300; halt limit=1'
	local port
	tt_wait_for 20 "the daemon's port" grep -q 'dashboard at http://127\.0\.0\.1:[0-9]*/' "$DLOG"
	port=$(sed -n 's/.*dashboard at http:\/\/127\.0\.0\.1:\([0-9]*\)\/.*/\1/p' "$DLOG" | head -n 1)
	"$TRACETAP" tail --json "ws://127.0.0.1:$port/" >/dev/null 2>"$TT_TMP/tail.err" &
	TT_PIDS+=("$!")
	ocd_cmd resume
	local seq dhcsr events b
	tt_wait_for 60 "the trigger fired" grep -qE 'trigger stop fired \(USER_EVENT id=4096 info1>=300\) at seq [0-9]+' "$DLOG"
	seq=$(sed -n 's/.*trigger stop fired .* at seq \([0-9]*\).*/\1/p' "$DLOG" | head -n 1)
	[ "$(jq -cR "fromjson? | select(.seq == $seq) | [.id, .raw[4] >= 300]" "$REC")" = '[4096,true]' ] ||
		tt_die "seq $seq is not a user event with info 1 >= 300: $(grep "\"seq\":$seq," "$REC")"
	tt_wait_for 20 "the core halted by the trigger" grep -q 'target qemu: core halted (a trigger)' "$DLOG"
	tt_wait_for 20 "status halted in /api/targets" eval '[ "$(tt_api_field "$port" state)" = halted ]'
	tt_wait_for 20 "halted in the stream's status" grep -q 'qemu is halted' "$TT_TMP/tail.err"
	ocd_cmd 'mdw 0xE000EDF0'
	dhcsr=$(sed -n 's/^0x[eE]000[eE][dD][fF]0: \([0-9a-fA-F]*\).*/\1/p' <<<"$OCD_REPLY")
	[ -n "$dhcsr" ] && [ $(((0x$dhcsr >> 17) & 1)) = 1 ] || tt_die "DHCSR: $OCD_REPLY (S_HALT wanted)"
	# reading goes on while halted (a poll cycle after the halt for what was written before
	# it), and nothing new comes over the next one
	b=$(tt_api_field "$port" bytes_read)
	tt_wait_for 20 "reading goes on while halted" eval '[ "$(tt_api_field "$port" bytes_read)" -gt $((b + 400)) ]'
	events=$(count event)
	b=$(tt_api_field "$port" bytes_read)
	tt_wait_for 20 "reading goes on while halted" eval '[ "$(tt_api_field "$port" bytes_read)" -gt $((b + 400)) ]'
	[ "$(count event)" = "$events" ] || tt_die "events while the core is halted"
	tt_ok "trigger at seq $seq halted the emulated core: DHCSR 0x$dhcsr (S_HALT), status 'halted' (log, API, stream), nothing new"
	# GDB on OpenOCD's gdb port: the PC of the halted core, inside the firmware's .text; it
	# leaves the core halted (disconnect, not detach: no resume)
	timeout 60 gdb-multiarch -batch -nx -ex "set architecture arm" \
		-ex "target extended-remote 127.0.0.1:$GDB_PORT" -ex "info registers pc" \
		-ex "disconnect" >"$TT_TMP/gdb.out" 2>"$TT_TMP/gdb.err" ||
		tt_die "GDB failed: $(tail -n 5 "$TT_TMP/gdb.err")"
	local pc
	pc=$(sed -n 's/^pc  *\(0x[0-9a-f]*\).*/\1/p' "$TT_TMP/gdb.out")
	[ -n "$pc" ] && [ $((pc)) -ge $((text_start)) ] && [ $((pc)) -lt $((text_start + text_size)) ] ||
		tt_die "GDB's pc '$pc' is not in .text [$text_start, +$text_size): $(cat "$TT_TMP/gdb.out")"
	# ... and inside one of its functions (Thumb: a FUNC symbol's value has bit 0 set)
	local fn
	local _n val size type _b _v _x name
	while read -r _n val size type _b _v _x name; do
		[ "$type" = FUNC ] && [ $((pc)) -ge $((0x$val & ~1)) ] &&
			[ $((pc)) -lt $(((0x$val & ~1) + size)) ] && fn=$name
	done < <(readelf -sW "$FW_ELF")
	[ -n "$fn" ] || tt_die "GDB's pc $pc is in no function of $FW_ELF"
	tt_ok "GDB attached to the halted core: pc $pc in .text [$text_start, +$text_size), in $fn()"
	# resume through OpenOCD; the stream goes on; a final halt freezes the firmware's count
	ocd_cmd resume
	tt_wait_for 20 "connected again after the resume" eval '[ "$(tt_api_field "$port" state)" = connected ]'
	tt_wait_for 30 "1000 more events after the resume" eval '[ "$(count event)" -ge $((events + 1000)) ]'
	ocd_cmd halt
	ocd_cmd "read_memory $HDR_PTR 32 4"
	local fw_events
	read -r _ _ _ fw_events <<<"$OCD_REPLY"
	[ -n "$fw_events" ] || tt_die "the firmware's counters: $OCD_REPLY"
	tt_wait_for 20 "the stream caught up with the firmware's $((fw_events)) events" \
		eval '[ "$(count event)" -ge $((fw_events)) ]'
	[ "$(count event)" = $((fw_events)) ] && [ "$(count gap)" = 0 ] ||
		tt_die "$(count event) events and $(count gap) gaps streamed; the firmware wrote $((fw_events))"
	"$CHECK_SEQ" --key user "$REC" || tt_die "user events invented, repeated or reordered"
	[ "$(grep -c 'core halted (a trigger)' "$DLOG")" = 1 ] || tt_die "halted more than once (limit=1)"
	kill -TERM "$DPID"
	wait "$DPID" || tt_die "tracetapd exited with status $? on SIGTERM"
	tt_ok "resumed: the firmware wrote $((fw_events)) events, all $((fw_events)) streamed, no gap, one halt"
}

# A word of the firmware's (fw_boots, fw_last_seq, fw_events: main.c) read from the shared PSRAM
# file while the core runs: OFFSET from 0x21000000.
fw_word() { od -An -tu4 -j "$1" -N4 "$PSRAM" | tr -d ' '; }

# The narrow variant (tt-fw-mps2-narrow.elf): a 24-bit time source (a wrap every 0.67 s), a late
# tx_trace_enable, comms deleted and created again in the same control block as comms-G. The
# reader is held away (SIGSTOP) across the enable and again mid-stream, each time for more than a
# buffer's worth (about 2,020 entries) of events. The truth is the firmware's own count of what
# it wrote less what was streamed: it lies within the gaps' summed range, and nothing else was
# lost (no gap but the two). Every comms event is named as its own generation (its user events
# carry G in info 3) or not named, never as another.
narrow_case() {
	qemu_start
	daemon_start --no-server --time-wrap 0x1000000
	kill -STOP "$DPID"
	ocd_cmd resume
	tt_wait_for 60 "5000 events written while the reader is away" eval '[ "$(fw_word 12)" -ge 5000 ]'
	kill -CONT "$DPID"
	tt_wait_for 30 "the reader back" eval '[ "$(count event)" -ge 500 ]'
	local n0 events hdr boots last_seq fw_events
	n0=$(fw_word 12)
	events=$(count event)
	kill -STOP "$DPID"
	tt_wait_for 60 "3000 more events written while the reader is away again" \
		eval '[ "$(fw_word 12)" -ge $((n0 + 3000)) ]'
	kill -CONT "$DPID"
	tt_wait_for 60 "the reader back again, 3000 events on" eval '[ "$(count event)" -ge $((events + 3000)) ]'
	ocd_cmd halt
	ocd_cmd "read_memory $HDR_PTR 32 4"
	read -r hdr boots last_seq fw_events <<<"$OCD_REPLY"
	last_user() { grep '"id":4096' "$REC" | tail -n 1 | jq '.raw[4]'; }
	tt_wait_for 20 "the stream caught up with user event $((last_seq))" \
		eval '[ "$(last_user)" = "$((last_seq))" ]'
	"$CHECK_SEQ" --key user "$REC" >/dev/null || tt_die "user events invented, repeated or reordered"
	events=$(count event)
	local truth=$((fw_events - events)) lost lower upper ngaps
	read -r lost lower upper ngaps < <(jq -rs '[.[] | select(.type == "gap")]
		| "\(map(.lost) | add // 0) \(map(.lower // .lost) | add // 0) \(map(.upper // .lost) | add // 0) \(length)"' "$REC")
	jq -c 'select(.type == "gap") | {seq, lost, lower, upper, exact, reason}' "$REC" | sed 's/^/gap: /'
	[ "$ngaps" = 2 ] || tt_die "$ngaps gaps, 2 forced (the late enable, the pause)"
	[ "$lower" -le "$truth" ] && [ "$truth" -le "$upper" ] ||
		tt_die "$truth lost in truth ($((fw_events)) written, $events streamed): outside [$lower, $upper] (reported $lost)"
	tt_ok "24-bit time, late enable, a pause: $((fw_events)) written, $events streamed, $truth lost within [$lower, $upper] (reported $lost in $ngaps gaps)"
	local bad gens
	bad=$(jq -rc 'select(.type == "event" and .id == 4096 and .raw[5] == 2 and .thread_name != null)
		| select(.thread_name != (if .raw[6] == 0 then "comms" else "comms-\(.raw[6])" end))
		| [.seq, .thread_name, .raw[6]]' "$REC" | head -n 3)
	[ -z "$bad" ] || tt_die "comms events named as another generation ([seq, name, generation]): $bad"
	local all named unnamed
	gens=$(jq -r 'select(.type == "event" and .id == 4096 and .raw[5] == 2 and .thread_name != null)
		| .raw[6]' "$REC" | sort -u | wc -l)
	all=$(jq -r 'select(.type == "event" and .id == 4096 and .raw[5] == 2) | .raw[6]' "$REC" | sort -u | wc -l)
	named=$(jq -r 'select(.type == "event" and .id == 4096 and .raw[5] == 2 and .thread_name != null) | .seq' "$REC" | wc -l)
	unnamed=$(jq -r 'select(.type == "event" and .id == 4096 and .raw[5] == 2 and .thread_name == null) | .seq' "$REC" | wc -l)
	# a batch holding more than one generation (a whole buffer read after a gap, or over this
	# slow link while the reader catches up: 64 KiB at about 55 KiB/s) holds generations no
	# registry read saw (the registry names only the newest): those are unnamed
	[ "$all" -ge 10 ] && [ "$gens" -ge 1 ] || tt_die "$all generations of comms streamed, $gens named"
	tt_ok "comms re-created in its control block: $all generations streamed, $gens named ($named user events named, $unnamed unnamed), none as another"
	kill -TERM "$DPID"
	wait "$DPID" || tt_die "tracetapd exited with status $? on SIGTERM"
}

case $CASE in
stream) stream_case ;;
trigger-halt) trigger_halt_case ;;
narrow) narrow_case ;;
*) echo "usage: $0 stream|trigger-halt|narrow FIRMWARE_ELF INTERFACE_CFG TARGET_CFG" >&2; exit 2 ;;
esac
