#!/bin/bash
# tests/sim/test-cortex-m.sh: tt-simtarget --cortex-m examined by OpenOCD's own cortex_m target
# through a stock-style board config (sim-cm3.cfg), with tt-fw-threadx as the firmware: the ROM
# table and CPUID, then halt, step, resume, reset run and reset halt, each checked on the
# firmware side (the workload process stopped or running, its reset applied or not).
# Usage: test-cortex-m.sh SIMTARGET FW_THREADX INTERFACE_CFG TARGET_CFG
SIMTARGET=$1
FW_THREADX=$2
OPENOCD_CFG=$3
OPENOCD_TARGET_CFG=$4
. "$(dirname "$0")/lib.sh"

BASE=0x20000000
SIZE=65536
ram="$TT_TMP/ram.bin"

tt_spawn fw "$FW_THREADX" --ram "$ram" --base $BASE --size $SIZE --rate 2000
tt_expect fw '^header=0x[0-9a-f]+ .* pid=([0-9]+)'
FW_PID=${BASH_REMATCH[1]}
tt_sim_start --cortex-m --core-pid "$FW_PID" --ram "$ram" --base $BASE --size $SIZE
tt_ocd_start
grep -q 'Cortex-M3 r2p1 processor detected' "$TT_TMP/ocd.log" ||
	tt_die "OpenOCD did not detect a Cortex-M3"
tt_ok_rpc 'capture {dap info}'
for part in 'Cortex-M3 ROM (ROM Table)' 'Cortex-M3 SCS' 'Cortex-M3 DWT' 'Cortex-M3 FPB' \
	'Cortex-M3 ITM' 'End of ROM table'; do
	[[ $TT_RPC == *"$part"* ]] || tt_die "dap info lacks '$part': $TT_RPC"
done
tt_ok "cortex_m examines it: Cortex-M3 r2p1, ROM table with SCS, DWT, FPB, ITM"
tt_ok_rpc 'mdw 0xE0042004'
[[ $TT_RPC == *': 00000307'* ]] || tt_die "examine-end's DBGMCU_CR write: $TT_RPC"
tt_ok "the config's examine-end event ran (DBGMCU_CR = 0x307)"

curstate() { tt_ok_rpc '[target current] curstate'; [ "$TT_RPC" = "$1" ]; }
seq_word() { tt_read $((BASE + 8)) 32 1; echo $((TT_RPC)); }
fw_state() { [ "$(tt_proc_state "$FW_PID")" = "$1" ]; }
fw_advances() { local a; a=$(seq_word); sleep 0.02; [ "$(seq_word)" -gt "$a" ]; }

tt_wait_for 10 "target running" curstate running
tt_wait_for 10 "firmware writing events" fw_advances
tt_ok "running: OpenOCD says running and the firmware writes events"

tt_ok_rpc halt
curstate halted || tt_die "after halt: $TT_RPC"
tt_wait_for 10 "firmware stopped by the halt" fw_state T
a=$(seq_word)
tt_ok_rpc 'sleep 100'
[ "$(seq_word)" = "$a" ] || tt_die "the firmware wrote events while halted"
tt_ok "halt stops the firmware (process stopped, no event written); memory still reads"

tt_ok_rpc 'lindex [reg pc] 2'
pc=$TT_RPC
tt_ok_rpc step
curstate halted || tt_die "after step: $TT_RPC"
tt_ok_rpc 'lindex [reg pc] 2'
[ $((TT_RPC)) = $((pc + 2)) ] || tt_die "step: pc $pc -> $TT_RPC"
tt_ok "step: one instruction, halted again (pc $pc -> $TT_RPC)"

tt_ok_rpc resume
curstate running || tt_die "after resume: $TT_RPC"
tt_wait_for 10 "firmware running again" fw_advances
tt_ok "resume: the firmware runs again"

tt_ok_rpc 'reset run'
tt_expect fw '^reset n=1 '
tt_wait_for 10 "running after reset run" curstate running
tt_wait_for 10 "firmware running after reset run" fw_advances
tt_ok "reset run: the firmware restarted its trace and runs"

tt_ok_rpc 'reset halt'
curstate halted || tt_die "after reset halt: $TT_RPC"
tt_wait_for 10 "firmware stopped by reset halt" fw_state T
tt_ok_rpc 'lindex [reg pc] 2'
[ $((TT_RPC)) = $((BASE + 0x100)) ] || tt_die "reset halt: pc $TT_RPC, not the reset vector"
tt_read $((BASE + 4)) 32 1
[ "$TT_RPC" = 0x1 ] || tt_die "reset halt ran firmware code before resume (resets word $TT_RPC)"
tt_ok_rpc resume
tt_expect fw '^reset n=2 '
tt_wait_for 10 "firmware running after reset halt + resume" fw_advances
tt_ok "reset halt: halted at the reset vector, no firmware code until resume, then restarted"
tt_ocd_stop
