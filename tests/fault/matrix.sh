#!/usr/bin/env bash
# tests/fault/matrix.sh: the fault matrix. ONE tracetapd (spawned OpenOCD 0.12, tt-simtarget,
# tt-fw-threadx --time counter at 500 events/s into a 64 KiB buffer) streams over WebSocket to a
# recording client (`tracetap tail --json`); faults are injected one after the other. For each:
# the expected record in the stream, tracetapd still the same live process, the stream since the
# fault exact (check_seq: every event once, in order, or inside an exactly counted gap), record
# seq numbers +1 with no hole or repeat, the recording client never skipped nor reconnected, and
# the stream goes on. At the end: SIGTERM -> exit 0, no sanitizer report (LeakSanitizer with an
# ASan build), open fds not grown. Prints the matrix (fault | expected | seen | PASS/FAIL) and
# fails if any row fails.
#
# usage: matrix.sh OPENOCD_CFG   (env, meson sets them: TRACETAPD TRACETAP CHECK_SEQ SIMTARGET
#        FW_THREADX WSFAULT; FAULT_TRACETAPD overrides TRACETAPD, e.g. with an ASan build;
#        TT_KEEP=1 keeps the logs). 127.0.0.1 only; every wait has a deadline.
set -u
OPENOCD_CFG=${1:-${OPENOCD_CFG:-}}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../sim/lib.sh
. "$here/../sim/lib.sh"
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"
# shellcheck source=faults.sh
. "$here/faults.sh"

FAULT_TRACETAPD=${FAULT_TRACETAPD:-$TRACETAPD}

fault_start

fault_openocd_kill
fault_sim_restart
fault_power
fault_wait_storm
fault_bus_fault
fault_target_reset
fault_client_flood
fault_slow_client
fault_malformed

fault_finish
fault_print_matrix
[ "$FAILS" -eq 0 ] || { TT_FAIL=1; echo "FAIL: $FAILS row(s) failed" >&2; exit 1; }
echo "all ${#ROWS[@]} rows passed"
