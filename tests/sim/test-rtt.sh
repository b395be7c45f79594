#!/bin/bash
# tests/sim/test-rtt.sh: tt-fw-threadx --rtt-off lays out a SEGGER RTT control block that
# OpenOCD's own RTT (`rtt setup`, `rtt start`, `rtt server start`) finds on the simulated
# Cortex-M and streams: tt-bench-rtt reads the server and checks the 32-byte records arrive
# whole, in order, none missing (the 16 KiB up-buffer and a 10 ms poll hold 200 records/s
# many times over), and the channel is the one the block describes.
# Usage: test-rtt.sh SIMTARGET FW_THREADX TT_BENCH_RTT INTERFACE_CFG TARGET_CFG
SIMTARGET=$1
FW_THREADX=$2
RTT_CLIENT=$3
OPENOCD_CFG=$4
OPENOCD_TARGET_CFG=$5
. "$(dirname "$0")/lib.sh"

BASE=0x20000000
SIZE=0x20000
ram="$TT_TMP/ram.bin"

"$FW_THREADX" --ram "$ram" --base $BASE --size $SIZE --buf-size 0x10000 --rtt-off 0x10800 \
	--rtt-size 64 --rate 0 --count 1 >/dev/null 2>"$TT_TMP/overlap.err" &&
	tt_die "an RTT block overlapping the trace buffer was accepted"
grep -q 'outside the trace buffer' "$TT_TMP/overlap.err" ||
	tt_die "no clear error for an overlapping RTT block: $(cat "$TT_TMP/overlap.err")"
tt_ok "an RTT block overlapping the trace buffer is refused with a clear error"

tt_spawn fw "$FW_THREADX" --ram "$ram" --base $BASE --size $SIZE --buf-size 0x10000 --rate 200 \
	--rtt-off 0x12000 --rtt-size 16384
tt_expect fw ' mono_start_ns=([0-9]+)'
start=${BASH_REMATCH[1]}
tt_sim_start --cortex-m --ram "$ram" --base $BASE --size $SIZE
tt_ocd_start
tt_ok_rpc 'capture {rtt setup 0x20010000 0x4000 "SEGGER RTT"; rtt polling_interval 10; rtt start; rtt server start 0 0}'
[[ $TT_RPC == *'Control block found at 0x20012000'* ]] || tt_die "rtt start: $TT_RPC"
[[ $TT_RPC =~ Listening\ on\ port\ ([0-9]+)\ for\ rtt ]] || tt_die "rtt server: $TT_RPC"
port=${BASH_REMATCH[1]}
tt_ok_rpc 'capture {rtt channels}'
[[ $TT_RPC == *'0: Trace 16384 0'* ]] || tt_die "rtt channels: $TT_RPC"
tt_ok "OpenOCD finds the control block at 0x20012000 and up-channel 0 'Trace', 16384 bytes"

out=$(timeout 20 "$RTT_CLIENT" "$port" 3 0 "$start") || tt_die "tt-bench-rtt: $out"
echo "$out"
[[ $out =~ records=([0-9]+).*missing=([0-9]+) ]] || tt_die "tt-bench-rtt printed: $out"
[ "${BASH_REMATCH[1]}" -ge 300 ] || tt_die "only ${BASH_REMATCH[1]} records in 3 s at 200/s"
[ "${BASH_REMATCH[2]}" = 0 ] || tt_die "${BASH_REMATCH[2]} records missing"
tt_ok "OpenOCD's RTT server streams the records whole, in order, none missing"
