#!/usr/bin/env bash
# tests/integration/enable-test.sh: events written before tracetapd's first read of a ThreadX
# buffer, through the whole chain (tt-fw-threadx -> tt-simtarget -> a real OpenOCD spawned by
# tracetapd). The reader is stopped (SIGSTOP) while the workload writes, so the first read always
# finds the buffer wrapped, whatever the machine's speed; `--time counter` makes every event's time
# stamp its number since tx_trace_enable, so the true count of what the first read missed is known.
#
# usage: enable-test.sh CASE OPENOCD_CFG   (cases: since-enable, attach)
#  since-enable: tracetapd reads the header pointer NULL (tracing off), is stopped, the workload
#                enables tracing and laps the buffer, tracetapd goes on: the stream starts with a
#                gap record for what was overwritten, and every event after it arrives.
#  attach:       the workload has written (and lapped) before tracetapd starts: that history was
#                never promised, so no gap record; the `skipped` counter is in /api/targets and
#                /metrics.
# env (meson sets them): TRACETAPD CHECK_SEQ SIMTARGET FW_THREADX; TT_KEEP=1 keeps the logs.
set -u
CASE=$1
OPENOCD_CFG=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../sim/lib.sh
. "$here/../sim/lib.sh"
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"

REC=$TT_TMP/records.jsonl
DLOG=$TT_TMP/daemon.err
BUF=0x2000 # 232 entries

daemon() {
	: >"$DLOG"
	"$TRACETAPD" --port 0 --web "$here" --stdout --log-level info --name sim --pointer $BASE \
		--probe openocd-spawn -f "$OPENOCD_CFG" -c "remote_bitbang port $SIM_PORT" \
		--openocd-log "$TT_TMP/ocd.log" >"$REC" 2>"$DLOG" &
	DPID=$!
	TT_PIDS+=("$DPID")
	wait_log 'dashboard at http://127\.0\.0\.1:[0-9]+/'
	HTTP_PORT=$(sed -n 's/.*dashboard at http:\/\/127\.0\.0\.1:\([0-9]*\)\/.*/\1/p' "$DLOG" | head -n 1)
}

# workload COUNT: the workload writes COUNT events as fast as it can and exits; LAST = COUNT.
workload() {
	fw 0 $BUF --count "$1"
	tt_expect fw '^summary events=([0-9]+) ' 20
	LAST=${BASH_REMATCH[1]}
	[ "$LAST" -gt "$ENTRIES" ] || tt_die "the workload did not lap the buffer ($LAST events)"
}

# stop: SIGTERM to tracetapd, exit status 0 wanted (under ASan: no leak, no error).
stop() {
	local rc=0
	kill -TERM "$DPID"
	wait "$DPID" || rc=$?
	[ "$rc" -eq 0 ] || tt_die "tracetapd exited with status $rc on SIGTERM"
}

first_ts() { sed -n 's/.*"type":"event".*"ts":\([0-9]*\),.*/\1/p' "$REC" | head -n 1; }

since_enable() {
	sim
	daemon
	wait_log 'is NULL: tracing not enabled yet'
	kill -STOP "$DPID"
	# one and a half buffers: the first lap is in what the buffer lost, so its count is exact
	workload $((232 * 3 / 2))
	kill -CONT "$DPID"
	wait_time "$LAST"
	local first lost
	first=$(head -n 1 "$REC")
	[[ $first == *'"type":"gap"'* ]] || tt_die "the stream does not start with a gap: $first"
	[[ $first == *'"reason":"overwritten before the first read"'* ]] || tt_die "gap reason: $first"
	[[ $first == *'"exact":false'* && $first != *'"basis"'* ]] ||
		tt_die "the gap is not labelled a lower bound: $first"
	[[ $first =~ \"lost\":([0-9]+) ]] || tt_die "no count in $first"
	lost=${BASH_REMATCH[1]}
	# events 1 .. first_ts - 1 were overwritten before the first read
	[ "$lost" = $(($(first_ts) - 1)) ] ||
		tt_die "gap of $lost, but the first event published is number $(first_ts)"
	[ "$(count_rec '"type":"gap"')" = 1 ] || tt_die "more than one gap"
	"$CHECK_SEQ" --last "$LAST" "$REC" || tt_die "check_seq failed"
	stop
	tt_ok "since enable: gap of $lost (events 1-$((lost))) before event $(first_ts), then every event to $LAST"
}

attach() {
	sim
	workload $((232 * 3 / 2))
	daemon
	wait_time "$LAST"
	local j
	[ "$(count_rec '"type":"gap"')" = 0 ] || tt_die "a gap for history never promised"
	[ "$(first_ts)" -gt 1 ] || tt_die "the whole history arrived: nothing was lapped?"
	j=$(curl -sf "http://127.0.0.1:$HTTP_PORT/api/targets") || tt_die "/api/targets"
	[[ $j =~ \"skipped\":[0-9]+ ]] || tt_die "no skipped counter in /api/targets: $j"
	curl -sf "http://127.0.0.1:$HTTP_PORT/metrics" |
		grep -qE '^tracetap_history_skipped_total\{target="sim"\} [0-9]+$' ||
		tt_die "no tracetap_history_skipped_total in /metrics"
	"$CHECK_SEQ" --last "$LAST" "$REC" || tt_die "check_seq failed"
	stop
	tt_ok "plain attach: no gap, history from event $(first_ts), skipped counter shown"
}

case $CASE in
since-enable) since_enable ;;
attach) attach ;;
*) tt_die "unknown case $CASE" ;;
esac
