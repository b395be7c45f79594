#!/usr/bin/env bash
# tests/integration/qemu-test.sh: the project's firmware (tt-fw-mps2.elf) on a real emulated
# core, traced live as on a board: QEMU's mps2-an385 (Cortex-M3) with its PSRAM shared as a file,
# tt-simtarget --qmp serving that file and QEMU's run state to OpenOCD, an OpenOCD with the
# stock-style sim-cm3.cfg, and tracetapd --elf on OpenOCD's TCL port. QEMU starts stopped (-S) so
# tracetapd sees the firmware's first event; OpenOCD's `resume` starts it.
# Checks: the stream follows; after `halt` through OpenOCD (PC from QEMU, in the firmware) it
# catches up with what the firmware counted, and the live stream's last window equals an offline
# decode of a halt-and-dump event for event (raw words); nothing invented, duplicated or reordered (user-event numbers, time);
# every loss a gap with its count (events + lost = the firmware's own counter); then `reset run`
# is one reset record and the stream resumes.
# usage: qemu-test.sh FIRMWARE_ELF INTERFACE_CFG TARGET_CFG
# env (meson): TRACETAPD TRACETAP CHECK_SEQ SIMTARGET; TT_KEEP=1 keeps the logs.
set -u
FW_ELF=$1
OPENOCD_CFG=$2
OPENOCD_TARGET_CFG=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../sim/lib.sh
. "$here/../sim/lib.sh"

[ -f "$FW_ELF" ] || {
	echo "skipped: the firmware was not built (gcc-arm-none-eabi, libnewlib-arm-none-eabi)"; exit 77; }
command -v qemu-system-arm >/dev/null || { echo "skipped: qemu-system-arm not installed"; exit 77; }
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }

PSRAM=$TT_TMP/psram.bin
QMP=$TT_TMP/qmp.sock
REC=$TT_TMP/records.jsonl
DLOG=$TT_TMP/daemon.err
HDR_PTR=0x21000000

qemu-system-arm -machine mps2-an385,memory-backend=ram \
	-object memory-backend-file,id=ram,size=16M,mem-path="$PSRAM",share=on \
	-kernel "$FW_ELF" -nographic -monitor none -serial none -S \
	-qmp "unix:$QMP,server=on,wait=off" 2>"$TT_TMP/qemu.err" &
TT_PIDS+=("$!")
tt_wait_for 20 "QEMU's QMP socket" test -S "$QMP"
tt_sim_start --qmp "$QMP" --ram "$PSRAM" --base 0x21000000 --size 0x1000000
tt_board_ocd_start
"$TRACETAPD" --no-server --stdout --log-level info --name qemu --elf "$FW_ELF" --tick-hz 25M \
	--probe "openocd:127.0.0.1:$OCD_PORT" >"$REC" 2>"$DLOG" &
DPID=$!
TT_PIDS+=("$DPID")
tt_wait_for 20 "tracetapd waiting for tracing to be enabled" \
	grep -q 'tracing not enabled yet' "$DLOG"

count() { grep -c "\"type\":\"$1\"" "$REC" || true; }
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
