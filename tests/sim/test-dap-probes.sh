#!/bin/bash
# tests/sim/test-dap-probes.sh: the simulated CMSIS-DAP probe as a user meets it: `tracetap
# probes` under libtt-fakeusb.so lists it (recognised by its CMSIS-DAP v2 interface string, as a
# real one) with the OpenOCD arguments to use, and those arguments, pasted into the real
# openocd with a stock-style target config, select it by serial and read the target's RAM over
# SWD. Without TT_SIM_DAP no probe is plugged in; a wrong serial selects nothing.
# Usage: test-dap-probes.sh SIMTARGET FAKEUSB TRACETAP TARGET_CFG
SIMTARGET=$1
FAKEUSB=$2
TRACETAP=$3
TARGET_CFG=$4
. "$(dirname "$0")/lib.sh"
# A sanitizer build's tracetap with a library preloaded ahead of its sanitizer runtime: allowed
# (the library is built without sanitizers), not a link error.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0

BASE=0x20000000
SIZE=65536
ram="$TT_TMP/ram.bin"
printf '\x78\x56\x34\x12\xef\xbe\xad\xde' >"$ram"

out=$(LD_PRELOAD=$FAKEUSB ${TT_WRAP-} "$TRACETAP" probes 2>&1) || tt_die "tracetap probes failed: $out"
[[ $out == *"no debug probes found"* ]] || tt_die "a probe without TT_SIM_DAP: $out"
tt_ok "no TT_SIM_DAP, no probe: $out"

SIM_LINK=cmsis-dap tt_sim_start --cortex-m --ram "$ram" --base $BASE --size $SIZE
export TT_SIM_DAP=$SIM_PORT
out=$(LD_PRELOAD=$FAKEUSB ${TT_WRAP-} "$TRACETAP" probes) || tt_die "tracetap probes failed: $out"
want1='1209:0001  CMSIS-DAP v2  "tracetap simulated CMSIS-DAP"  serial TTSIM0001  (usb 1-1)'
want2="    openocd -f interface/cmsis-dap.cfg -c 'adapter serial TTSIM0001'"
[ "$out" = "$want1"$'\n'"$want2" ] || tt_die "tracetap probes printed:
$out
instead of:
$want1
$want2"
tt_ok "tracetap probes lists it with its OpenOCD arguments"

json=$(LD_PRELOAD=$FAKEUSB ${TT_WRAP-} "$TRACETAP" probes --json) || tt_die "tracetap probes --json failed"
mapfile -t args < <(python3 -c 'import json, sys
for a in json.load(sys.stdin)[0]["openocd_args"]: print(a)' <<<"$json") ||
	tt_die "no openocd_args in: $json"
[ "${args[*]}" = "-f interface/cmsis-dap.cfg -c adapter serial TTSIM0001" ] ||
	tt_die "openocd_args: ${args[*]}"
tt_ctl stats
[[ $TT_CTL_REPLY =~ connections=0 ]] || tt_die "listing probes took the simulator's link: $TT_CTL_REPLY"
tt_ok "--json gives the same arguments; listing never touched the simulator's link"

run_ocd() {
	LD_PRELOAD=$FAKEUSB timeout 30 openocd "$@" -f "$TARGET_CFG" -c "gdb_port disabled" \
		-c "tcl_port disabled" -c "telnet_port disabled" -c init -c "mdw $BASE 2" -c shutdown \
		>"$TT_TMP/ocd.log" 2>&1
}
run_ocd "${args[@]}" || tt_die "openocd with the listed arguments failed"
grep -q 'Using CMSIS-DAPv2 interface with VID:PID=0x1209:0x0001, serial=TTSIM0001' \
	"$TT_TMP/ocd.log" || tt_die "OpenOCD did not take the CMSIS-DAPv2 bulk interface"
grep -q 'SWD DPIDR 0x1ba01477' "$TT_TMP/ocd.log" || tt_die "no SW-DP found over SWD"
grep -q '0x20000000: 12345678 deadbeef' "$TT_TMP/ocd.log" || tt_die "RAM not read over SWD"
tt_ctl dap
[[ $TT_CTL_REPLY =~ transfers=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -gt 0 ] ||
	tt_die "no SWD transfers counted: $TT_CTL_REPLY"
tt_ok "openocd with those arguments (stock interface/cmsis-dap.cfg): SW-DP 0x1ba01477, RAM read ($TT_CTL_REPLY)"

run_ocd -f interface/cmsis-dap.cfg -c 'adapter serial NOTTHISONE' &&
	tt_die "openocd accepted a serial no probe has"
grep -q 'unable to find a matching CMSIS-DAP device' "$TT_TMP/ocd.log" ||
	tt_die "wrong serial: $(tail -n 3 "$TT_TMP/ocd.log")"
tt_ok "another serial selects no probe"
