#!/usr/bin/env bash
# tests/qnx/live.sh: the QNX ring of kernel trace buffers followed live through the whole chain:
# tt-fw-qnx (`--time counter`: every 16-byte event's time stamp is its index) writing the ring
# into tt-simtarget's RAM, a real OpenOCD spawned by `tracetapd --format qnx --address`, and
# check_seq proving every event arrived exactly once and in order, or inside a gap whose count is
# exactly the events missing.
#
# usage: live.sh lossless|lossy OPENOCD_CFG  |  live.sh file-max
#   lossless: 1000 events/s (16 KiB/s, a quarter of the link), 32 buffers: no gap at all.
#   lossy:    2000 events/s (32 KiB/s, half the link) into 4 buffers (handed on at 714 events
#             each, as QNX's kernel does: 2856 events): tracetapd
#             is stopped (SIGSTOP) until the writer has handed on more buffers than the ring
#             has (their sequence numbers in the RAM file say so), so the loss is forced, not
#             hoped for from a writer outrunning the link; every lost buffer is counted between
#             events that did arrive (an estimate from the ring's num_events, which this
#             writer's buffers make equal to the truth), nothing repeats.
#   file-max: no OpenOCD: the workload unpaced (tens of millions of events/s) into 4 buffers,
#             tracetapd --probe file: on the RAM file itself: laps all the time, every gap
#             counted to the event, nothing repeats.
# env (meson sets them): TRACETAPD CHECK_SEQ SIMTARGET FW_QNX; TT_KEEP=1 keeps logs.
# Every wait has a deadline; the test stops by itself.
set -u
OPENOCD_CFG=${2:-${OPENOCD_CFG:-}}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../sim/lib.sh
. "$here/../sim/lib.sh"

BASE=0x20000000
RING=0x20001000
RAM_SIZE=0x90000 # the ring at +0x1000: 32 buffers of 16 KiB = 0x80000
REC=$TT_TMP/records.jsonl
DLOG=$TT_TMP/daemon.err
case ${1:-} in
lossless) RATE=1000 SECS=4 NBUFS=32 ;;
lossy) RATE=2000 SECS=4 NBUFS=4 MIN=1000 ;;
file-max) RATE=0 SECS=2 NBUFS=4 MIN=10000 ;;
*) echo "usage: $0 lossless|lossy|file-max [OPENOCD_CFG]" >&2; exit 2 ;;
esac

# Without --address there is nothing to follow: a clear message, not a bare errno.
rc=0
timeout 10 ${TT_WRAP-} "$TRACETAPD" --no-server --stdout --format qnx --probe "file:$TT_TMP/none.kev" \
	>/dev/null 2>"$TT_TMP/noaddr.log" || rc=$?
[ "$rc" -ne 0 ] && grep -q 'qnx: give --address, the first buffer' "$TT_TMP/noaddr.log" ||
	tt_die "tracetapd --format qnx without --address: status $rc, $(cat "$TT_TMP/noaddr.log")"

if [ "$1" = file-max ]; then
	PROBE=(--probe "file:$TT_TMP/ram.bin" --base $BASE)
else
	tt_sim_start --base $BASE --size $RAM_SIZE --ram "$TT_TMP/ram.bin"
	PROBE=(--probe openocd-spawn -f "$OPENOCD_CFG" -c "remote_bitbang port $SIM_PORT"
		--openocd-log "$TT_TMP/ocd.log")
fi
tt_spawn fw "$FW_QNX" --ram "$TT_TMP/ram.bin" --base $BASE --size $RAM_SIZE --nbufs $NBUFS \
	--rate $RATE --time counter
tt_expect fw '^ring=0x([0-9a-f]+) .*events_per_buffer=([0-9]+)'
[ "0x${BASH_REMATCH[1]}" = $RING ] || tt_die "ring at 0x${BASH_REMATCH[1]}, expected $RING"

${TT_WRAP-} "$TRACETAPD" --no-server --stdout --log-level info --name qnx --format qnx --address $RING \
	--format-opt nbufs=$NBUFS "${PROBE[@]}" >"$REC" 2>"$DLOG" &
DPID=$!
TT_PIDS+=("$DPID")

# log_wait REGEX SECONDS: a line of tracetapd's log matches, or the test fails.
log_wait() {
	local end=$((SECONDS + $2))
	until grep -qE "$1" "$DLOG"; do
		kill -0 "$DPID" 2>/dev/null || tt_die "tracetapd exited while waiting for /$1/"
		[ $SECONDS -lt $end ] || tt_die "no log line matching /$1/ in time"
		sleep 0.05
	done
}
# last_ts: the time stamp as written (the event's index mod 2^32) of the newest event so far.
last_ts() {
	tail -n 50 "$REC" 2>/dev/null | sed -n 's/.*"type":"event".*"ts":\([0-9]*\),.*/\1/p' |
		tail -n 1
}

# ring_seq: the newest buffer sequence number in the RAM file (seq_buff_num, 32-bit little-endian
# at offset 16 of each 16 KiB buffer's tracebuf_t header; the ring at RAM offset 0x1000).
ring_seq() {
	local i v max=0
	for ((i = 0; i < NBUFS; i++)); do
		v=$(od -An -tu4 -j $((0x1000 + i * 16384 + 16)) -N4 "$TT_TMP/ram.bin" | tr -d ' ')
		[ "${v:-0}" -gt "$max" ] && max=$v
	done
	echo "$max"
}

log_wait 'connected: streaming' 30
if [ "$1" = lossy ]; then
	# the reader paused while the writer hands on NBUFS + 1 buffers: every buffer it had not
	# read yet is overwritten, whatever the machine's speed
	end=$((SECONDS + 30))
	until grep -q '"type":"event"' "$REC"; do
		[ $SECONDS -lt $end ] || tt_die "no event before the pause"
		sleep 0.05
	done
	kill -STOP "$DPID"
	seq0=$(ring_seq)
	end=$((SECONDS + 30))
	until [ "$(ring_seq)" -gt $((seq0 + NBUFS)) ]; do
		[ $SECONDS -lt $end ] || { kill -CONT "$DPID"; tt_die "the writer did not lap the ring in 30 s"; }
		sleep 0.05
	done
	kill -CONT "$DPID"
	echo "tracetapd stopped while the writer went from buffer seq $seq0 to $(ring_seq)"
fi
end=$((SECONDS + SECS))
while [ $SECONDS -lt $end ]; do
	kill -0 "$DPID" 2>/dev/null || tt_die "tracetapd died under load"
	sleep 0.2
done
kill -TERM "$TT_PID_fw"
tt_expect fw '^summary events=([0-9]+) ' 10
LAST=$((BASH_REMATCH[1] - 1))
end=$((SECONDS + 30))
until [ "$(last_ts)" = "$LAST" ]; do
	[ $SECONDS -lt $end ] || tt_die "the last event ($LAST) never came out (newest: $(last_ts))"
	sleep 0.1
done
kill -TERM "$DPID"
rc=0
wait "$DPID" || rc=$?
[ "$rc" -eq 0 ] || tt_die "tracetapd exited with status $rc on SIGTERM"

gaps=$(grep -c '"type":"gap"' "$REC" || true)
resets=$(grep -c '"type":"reset"' "$REC" || true)
[ "$resets" -eq 0 ] || tt_die "$resets reset record(s) without a restart"
grep -q '"name":"USER_EVENT"' "$REC" || tt_die "no USER_EVENT record"
if [ "$1" = lossless ]; then
	"$CHECK_SEQ" --last "$LAST" --lossless --min-events $((RATE * SECS / 2)) "$REC" ||
		tt_die "check_seq failed"
else
	out=$("$CHECK_SEQ" --last "$LAST" --min-events $MIN "$REC") || tt_die "check_seq failed: $out"
	echo "$out"
	[[ $out =~ missing=([0-9]+)\ gap_lost=([0-9]+) ]] || tt_die "check_seq said '$out'"
	# losses between events that arrived, counted exactly (not only before the first one)
	[ "${BASH_REMATCH[1]}" -gt 0 ] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] ||
		tt_die "a rate beyond the link: missing ${BASH_REMATCH[1]}, gaps ${BASH_REMATCH[2]}"
	grep -q '"reason":"kernel buffers overwritten before they were read"' "$REC" ||
		tt_die "gap without the ring's reason"
fi
tt_ok "$1: $((LAST + 1)) events written, $gaps gap(s); tracetapd exited 0"
