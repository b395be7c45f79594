#!/bin/bash
# tests/sim/bench-read.sh: read throughput through a real OpenOCD (TCL RPC over `tcl_port pipe`)
# from tt-simtarget, per read_memory size; optionally with the workload writing meanwhile.
# Usage: bench-read.sh SIMTARGET OPENOCD_CFG [FW_THREADX]
SIMTARGET=$1
OPENOCD_CFG=$2
FW_THREADX=${3:-}
. "$(dirname "$0")/lib.sh"

BASE=0x20000000
SIZE=131072
tt_sim_start --ram "$TT_TMP/ram.bin" --base $BASE --size $SIZE
if [ -n "$FW_THREADX" ]; then
	tt_spawn fw "$FW_THREADX" --ram "$TT_TMP/ram.bin" --base $BASE --size $SIZE --rate 10000
	tt_expect fw '^header='
fi
tt_ocd_start
tt_read $BASE 32 1

usec() { local t=${EPOCHREALTIME/./}; echo "$t"; }
printf '%-28s %8s %12s %12s\n' command reps ms/command KiB/s
for spec in "return 1:0:200" "32 1:4:200" "32 16:64:100" "32 256:1024:50" "32 1024:4096:20" \
	"32 16384:65536:3" "8 1024:1024:20"; do
	IFS=: read -r args bytes reps <<<"$spec"
	if [ "$args" = "return 1" ]; then cmd="return 1"; else cmd="read_memory $BASE $args"; fi
	t0=$(usec)
	for ((i = 0; i < reps; i++)); do
		tt_rpc "$cmd"
	done
	t1=$(usec)
	us=$(((t1 - t0) / reps))
	kib="-"
	[ "$bytes" -gt 0 ] && kib=$((bytes * 1000000 / 1024 / (us > 0 ? us : 1)))
	printf '%-28s %8d %9d.%02d %12s\n' "$cmd" "$reps" $((us / 1000)) $((us % 1000 / 10)) "$kib"
done
tt_ocd_stop
