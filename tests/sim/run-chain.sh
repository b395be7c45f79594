#!/bin/bash
# tests/sim/run-chain.sh: start the whole simulated chain for manual use and demos:
# tt-simtarget (+ optionally the tt-fw-threadx workload) + a real OpenOCD with a TCL RPC port.
# Everything is cleaned up on exit (Ctrl-C, or when COMMAND finishes).
#
# usage: run-chain.sh [-B BUILDDIR] [-p TCL_PORT] [-s RAM_SIZE] [-w 'WORKLOAD ARGS'] [-n]
#                     [-- COMMAND ARGS...]
#   -B  meson build dir holding tests/sim/tt-simtarget (default: build-sim, then build)
#   -p  OpenOCD tcl_port (default 6666; 0 = ephemeral, read back from OpenOCD's log)
#   -s  simulated RAM size in bytes at 0x20000000 (default 65536)
#   -w  run tt-fw-threadx with these extra arguments (e.g. '--rate 1000')
#   -n  no workload (RAM stays zero unless written through OpenOCD)
# COMMAND runs with SIM_PORT, SIM_CTL, TCL_PORT, RAM_FILE, RAM_BASE, TT_HEADER (if a workload
# runs) and FW_PID in its environment; without COMMAND the chain runs until Ctrl-C.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=""
tcl_port=6666
size=65536
workload=1
fw_args="--rate 1000"
while getopts "B:p:s:w:nh" o; do
	case $o in
	B) build=$OPTARG ;;
	p) tcl_port=$OPTARG ;;
	s) size=$OPTARG ;;
	w) fw_args=$OPTARG ;;
	n) workload=0 ;;
	*) sed -n '2,16p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
if [ -z "$build" ]; then
	for b in "$root/build-sim" "$root/build"; do
		[ -x "$b/tests/sim/tt-simtarget" ] && build=$b && break
	done
fi
SIMTARGET="$build/tests/sim/tt-simtarget"
FW_THREADX="$build/tests/sim/tt-fw-threadx"
OPENOCD_CFG="$here/openocd-sim.cfg"
[ -x "$SIMTARGET" ] || { echo "run-chain: no tt-simtarget in '$build' (build first, or -B)" >&2; exit 2; }
TT_KEEP=${TT_KEEP:-}
. "$here/lib.sh"

RAM_BASE=0x20000000
RAM_FILE="$TT_TMP/ram.bin"
tt_sim_start --ram "$RAM_FILE" --base $RAM_BASE --size "$size"
echo "simtarget: port $SIM_PORT, control socket $SIM_CTL, RAM $RAM_FILE"
FW_PID=""
TT_HEADER=""
if [ $workload = 1 ]; then
	# shellcheck disable=SC2086 # fw_args is a list of options
	tt_spawn fw "$FW_THREADX" --ram "$RAM_FILE" --base $RAM_BASE --size "$size" $fw_args
	tt_expect fw '^header=(0x[0-9a-f]+)'
	TT_HEADER=${BASH_REMATCH[1]}
	FW_PID=$TT_PID_fw
	echo "workload: pid $FW_PID, $TT_LINE"
fi

openocd -f "$OPENOCD_CFG" -c "remote_bitbang port $SIM_PORT" -c "tcl_port $tcl_port" \
	-l "$TT_TMP/ocd.log" </dev/null 2>"$TT_TMP/ocd.err" &
TT_PIDS+=($!)
TT_PID_ocd=$!
end=$((SECONDS + 10))
TCL_PORT=""
while [ -z "$TCL_PORT" ]; do
	TCL_PORT=$(sed -n 's/.*Listening on port \([0-9]*\) for tcl connections.*/\1/p' \
		"$TT_TMP/ocd.log" 2>/dev/null | head -n1)
	kill -0 $TT_PID_ocd 2>/dev/null || tt_die "OpenOCD exited (log: $TT_TMP/ocd.log)"
	[ $SECONDS -lt $end ] || tt_die "OpenOCD did not open its TCL port"
	[ -n "$TCL_PORT" ] || sleep 0.05
done
echo "openocd: TCL RPC on 127.0.0.1:$TCL_PORT (log $TT_TMP/ocd.log)"
echo "control: $SIMTARGET --ctl $SIM_CTL --send 'stats'"
export SIM_PORT SIM_CTL TCL_PORT RAM_FILE RAM_BASE TT_HEADER FW_PID
if [ $# -gt 0 ]; then
	"$@"
	rc=$?
	exit $rc
fi
echo "running; Ctrl-C to stop"
wait $TT_PID_ocd
