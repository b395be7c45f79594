#!/bin/bash
# tests/sim/test-chain.sh: tt-simtarget driven by a real OpenOCD: memory reads at every width,
# across a 1 KiB TAR block, writes, bus faults, WAIT storms, power loss and a debugger
# reconnect. Usage: test-chain.sh SIMTARGET OPENOCD_CFG
SIMTARGET=$1
OPENOCD_CFG=$2
. "$(dirname "$0")/lib.sh"

BASE=0x20000000
SIZE=65536
WORDS=4096
# RAM pattern: the word at BASE + 4i is 0xA5000000 + i (little-endian), for i < WORDS
ram="$TT_TMP/ram.bin"
for ((i = 0; i < WORDS; i++)); do
	v=$((0xA5000000 + i))
	printf -v b '\\x%02x\\x%02x\\x%02x\\x%02x' $((v & 255)) $((v >> 8 & 255)) $((v >> 16 & 255)) \
		$((v >> 24 & 255))
	printf "$b"
done >"$ram"
word() { tt_hex $((0xA5000000 + $1)); }

tt_sim_start --ram "$ram" --base $BASE --size $SIZE
tt_ocd_start

tt_read $BASE 32 4
[ "$TT_RC" = 0 ] && [ "$TT_RPC" = "$(word 0) $(word 1) $(word 2) $(word 3)" ] ||
	tt_die "32-bit read: $TT_RC $TT_RPC"
tt_ok "32-bit reads"

# bytes 1..6: 00 00 a5 | 01 00 00
tt_read $((BASE + 1)) 8 6
[ "$TT_RC" = 0 ] && [ "$TT_RPC" = "0x0 0x0 0xa5 0x1 0x0 0x0" ] || tt_die "8-bit read: $TT_RPC"
tt_ok "8-bit packed reads at an unaligned address"

# halfwords 0x3fc..0x407 cross the 1 KiB auto-increment block: words 0xff, 0x100, 0x101
tt_read $((BASE + 0x3fc)) 16 6
[ "$TT_RC" = 0 ] && [ "$TT_RPC" = "0xff 0xa500 0x100 0xa500 0x101 0xa500" ] ||
	tt_die "16-bit read across 1 KiB: $TT_RPC"
tt_ok "16-bit packed reads across a 1 KiB boundary"

tt_read $((BASE + 0x3f0)) 32 600
expect=""
for ((i = 0x3f0 / 4; i < 0x3f0 / 4 + 600; i++)); do
	expect+="$(word $i) "
done
[ "$TT_RC" = 0 ] && [ "$TT_RPC " = "$expect" ] || tt_die "600-word read across 1 KiB blocks"
tt_ok "600 32-bit words across two 1 KiB boundaries"

tt_rpc "write_memory $((BASE + 0x2001)) 8 {0x11 0x22 0x33 0x44 0x55}"
tt_rpc "write_memory $((BASE + 0x2008)) 16 {0xbeef 0xcafe}"
tt_read $((BASE + 0x2000)) 32 3
[ "$TT_RPC" = "0x33221100 0xa5005544 0xcafebeef" ] ||
	tt_die "write then read back: $TT_RPC"
tt_ok "8/16-bit writes land in RAM"

tt_read $((BASE + SIZE)) 32 1
[ "$TT_RC" = 1 ] || tt_die "read past RAM did not fail: $TT_RPC"
tt_read $((BASE + SIZE - 8)) 32 2
[ "$TT_RC" = 0 ] || tt_die "read after a bus fault failed: $TT_RPC"
tt_ok "an address outside RAM is a bus fault; the next read works"

tt_ctl "busfault $((BASE + 0x100)) 4"
tt_read $((BASE + 0xf0)) 32 8
[ "$TT_RC" = 1 ] || tt_die "read over a bus-fault window did not fail"
tt_read $((BASE + 0x104)) 32 4
[ "$TT_RC" = 0 ] && [ "$TT_RPC" = "$(word 65) $(word 66) $(word 67) $(word 68)" ] ||
	tt_die "read beside the bus-fault window: $TT_RPC"
tt_ctl "busfault off"
tt_read $((BASE + 0xf0)) 32 8
[ "$TT_RC" = 0 ] || tt_die "read after busfault off failed"
tt_ok "busfault window and busfault off"

tt_ctl "wait 40"
tt_read $((BASE + 0x400)) 32 64
expect=""
for ((i = 256; i < 320; i++)); do
	expect+="$(word $i) "
done
[ "$TT_RC" = 0 ] && [ "$TT_RPC " = "$expect" ] || tt_die "read under a WAIT storm: $TT_RPC"
tt_ctl "wait 10"
tt_rpc "write_memory $((BASE + 0x3000)) 32 {1 2 3 4 5 6 7 8}"
tt_read $((BASE + 0x3000)) 32 8
[ "$TT_RPC" = "0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8" ] || tt_die "write under a WAIT storm: $TT_RPC"
tt_ctl stats
[[ $TT_CTL_REPLY =~ waits=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 40 ] ||
	tt_die "WAIT storm not seen: $TT_CTL_REPLY"
[[ $TT_CTL_REPLY =~ wait_pending=0 ]] || tt_die "WAIT storm not consumed: $TT_CTL_REPLY"
tt_ok "WAIT storms: OpenOCD replays, no data lost ($TT_CTL_REPLY)"

tt_ctl "power cycle"
tt_read $BASE 32 1
[ "$TT_RC" = 1 ] || tt_die "read after a power cycle did not fail"
tt_read $BASE 32 1
[ "$TT_RC" = 0 ] && [ "$TT_RPC" = "$(word 0)" ] || tt_die "OpenOCD did not re-power: $TT_RPC"
tt_ok "power cycle: one read fails, OpenOCD re-powers the DAP"

tt_ctl "power off"
for i in 1 2 3; do
	tt_read $BASE 32 1
	[ "$TT_RC" = 1 ] || tt_die "read while powered off did not fail"
done
tt_ctl "power on"
tt_read $BASE 32 1
[ "$TT_RC" = 0 ] || tt_read $BASE 32 1  # OpenOCD may need one failed read to notice
[ "$TT_RC" = 0 ] && [ "$TT_RPC" = "$(word 0)" ] || tt_die "no recovery after power on: $TT_RPC"
tt_ok "power off holds the DAP down; power on lets OpenOCD recover"

tt_ocd_stop
tt_ocd_start
tt_read $((BASE + 8)) 32 1
[ "$TT_RC" = 0 ] && [ "$TT_RPC" = "$(word 2)" ] || tt_die "second OpenOCD: $TT_RPC"
tt_ctl stats
[[ $TT_CTL_REPLY =~ connections=2 ]] || tt_die "expected 2 connections: $TT_CTL_REPLY"
tt_ok "the next OpenOCD is accepted after a disconnect"
tt_ocd_stop
