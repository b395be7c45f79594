#!/usr/bin/env bash
# tests/fault/soak.sh: the soak (not in CI). The fault matrix's chain (faults.sh: one tracetapd,
# spawned OpenOCD, simulated target, 500 events/s, a recording `tracetap tail --json`) runs for
# MINUTES with one fault injected at the start of every minute, rotating through the matrix's
# faults; tracetapd's RSS and open fds are sampled every 10 s into a CSV. At the end: SIGTERM
# (exit 0), the whole stream checked (check_seq, seq +1), and a summary: first/last/max RSS and
# fds, RSS slope per hour after the warm-up (the default 100,000-record history fills in 200 s
# at 500 events/s), events, gaps, duplicates, failed fault rows.
#
# usage: tests/fault/soak.sh [MINUTES]     (default 60)
# env: BUILD (build directory, default build), SOAK_CSV (default soak-DATE.csv here),
#      FAULT_TRACETAPD (another tracetapd, e.g. an ASan build), TT_KEEP=1 keeps the logs.
# Exit status 1 if a fault row failed, the stream was not exact, or fds grew.
set -u
MINUTES=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
B=$(cd "$root" && cd "${BUILD:-build}" && pwd) || { echo "no build directory ${BUILD:-build}" >&2; exit 2; }
TRACETAPD=$B/daemon/tracetapd
TRACETAP=$B/client/tracetap
CHECK_SEQ=$B/tests/live/check_seq
SIMTARGET=$B/tests/sim/tt-simtarget
FW_THREADX=$B/tests/sim/tt-fw-threadx
WSFAULT=$B/tests/fault/tt-wsfault
OPENOCD_CFG=$root/tests/sim/openocd-sim.cfg
FAULT_TRACETAPD=${FAULT_TRACETAPD:-$TRACETAPD}
CSV=${SOAK_CSV:-$PWD/soak-$(date -u +%Y%m%d-%H%M%S).csv}
for f in "$TRACETAPD" "$TRACETAP" "$CHECK_SEQ" "$SIMTARGET" "$FW_THREADX" "$WSFAULT"; do
	[ -x "$f" ] || { echo "missing $f (ninja -C $B)" >&2; exit 2; }
done
# shellcheck source=../sim/lib.sh
. "$here/../sim/lib.sh"
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"
# shellcheck source=faults.sh
. "$here/faults.sh"

FAULTS=(fault_openocd_kill fault_sim_restart fault_power fault_wait_storm fault_bus_fault
	fault_target_reset fault_client_flood fault_slow_client fault_malformed)

fault_start
T0=$SECONDS
echo "elapsed_s,rss_kib,fds,records,fault" >"$CSV"
# the sampler: every 10 s while tracetapd lives; the fault being injected comes from a file
echo start >"$TT_TMP/fault.now"
(
	while alive; do
		printf '%d,%s,%s,%s,%s\n' $((SECONDS - T0)) "$(rss_kib)" "$(fdcount)" \
			"$(wc -l <"$REC")" "$(cat "$TT_TMP/fault.now")" >>"$CSV"
		sleep 10
	done
) &
TT_PIDS+=($!)
echo "soak: $MINUTES min, samples in $CSV"

for ((m = 0; m < MINUTES; m++)); do
	f=${FAULTS[m % ${#FAULTS[@]}]}
	echo "${f#fault_}" >"$TT_TMP/fault.now"
	echo "minute $m: ${f#fault_} (RSS $(rss_kib) KiB, $(fdcount) fds)"
	$f
	alive || break
	echo "-" >"$TT_TMP/fault.now"
	while [ $((SECONDS - T0)) -lt $(((m + 1) * 60)) ]; do
		alive || break 2
		sleep 1
	done
done
fault_finish
fault_print_matrix | awk -F' \\| ' 'NR <= 3 || $NF != "PASS"' # header and failed rows only

# ---- summary ----------------------------------------------------------------------------------
events=$(grep -c '"type":"event"' "$REC")
gaps=$(grep -c '"type":"gap"' "$REC")
lost=$(sed -n 's/.*"type":"gap".*"lost":\([0-9]*\).*/\1/p' "$REC" | awk '{ s += $1 } END { print s + 0 }')
resets=$(grep -c '"type":"reset"' "$REC")
awk -F, -v warm=300 -v ev="$events" -v gaps="$gaps" -v lost="$lost" -v resets="$resets" \
    -v holes="$(seq_holes "$REC")" -v rows="${#ROWS[@]}" -v fails="$FAILS" '
function slope(from,   i, k, sx, sy, sxx, sxy) {
	for (i = 1; i <= n; i++) {
		if (t[i] < from) continue
		k++; sx += t[i]; sy += r[i]; sxx += t[i] * t[i]; sxy += t[i] * r[i]
	}
	return (k > 1 && k * sxx != sx * sx) ? (k * sxy - sx * sy) / (k * sxx - sx * sx) * 3600 : 0
}
NR == 1 { next }
{
	n++; t[n] = $1; r[n] = $2; f[n] = $3
	if (r[n] > rmax) rmax = r[n]
	if (f[n] > fmax) fmax = f[n]
	if (!rw && t[n] >= warm) rw = r[n]
}
END {
	half = t[1] + (t[n] - t[1]) / 2
	printf "soak summary (%d samples over %d s)\n", n, t[n] - t[1]
	printf "  RSS KiB: first %d, at %d s %d, last %d, max %d\n", r[1], warm, rw, r[n], rmax
	printf "  RSS slope: after %d s %+.0f KiB/h, over the second half (from %d s) %+.0f KiB/h\n",
		warm, slope(warm), half, slope(half)
	printf "  open fds: first %d, last %d, max %d\n", f[1], f[n], fmax
	printf "  events %d, gap records %d (lost %d), resets %d, seq holes/duplicates %d\n",
		ev, gaps, lost, resets, holes
	printf "  fault rows %d, failed %d\n", rows, fails
}' "$CSV"
[ "$FAILS" -eq 0 ] || { TT_FAIL=1; exit 1; }
