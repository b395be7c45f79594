#!/usr/bin/env bash
# tests/e2e/e2e.sh: end-to-end tests of the whole chain: tt-fw-threadx (ThreadX workload,
# `--time counter`: every event's time stamp is a global +1 sequence number) writing into the RAM
# of tt-simtarget, a real OpenOCD 0.12 driving it over remote_bitbang, and
# `tracetapd --no-server --stdout` following the trace buffer; check_seq proves every event
# arrived exactly once and in order, or inside a gap whose count matches.
#
# usage: e2e.sh CASE OPENOCD_CFG   (cases: see the `case` at the end)
# env (meson sets them): TRACETAPD CHECK_SEQ SIMTARGET FW_THREADX; TT_KEEP=1 keeps the logs.
# Every wait has a deadline; the test stops by itself (meson's timeout is only a backstop).
set -u
OPENOCD_CFG=${2:-${OPENOCD_CFG:-}}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../sim/lib.sh
. "$here/../sim/lib.sh"
# shellcheck source=lib.sh
. "$here/lib.sh"

REC=$TT_TMP/records.jsonl
DLOG=$TT_TMP/daemon.err   # *.err: tt_die prints its tail on failure
DPID=""

# daemon PROBE_ARGS...: tracetapd with records on stdout and its log in $DLOG.
daemon() {
	: >"$DLOG"
	${TT_WRAP-} "$TRACETAPD" --no-server --stdout --log-level info --name sim --pointer $BASE "$@" \
		>"$REC" 2>"$DLOG" &
	DPID=$!
	TT_PIDS+=("$DPID")
}

spawned() {
	daemon --probe openocd-spawn -f "$OPENOCD_CFG" -c "remote_bitbang port $SIM_PORT" \
		--openocd-log "$TT_TMP/ocd.log" "$@"
}

# lossless_after N: no gap among the records from the first event numbered above N on (the
# stream after the attach transient; see README.md).
lossless_after() {
	awk -v n="$1" 'f || (match($0, /"time":[0-9]+,/) &&
		substr($0, RSTART + 7, RLENGTH - 8) + 0 > n) { f = 1; print }' "$REC" \
		>"$TT_TMP/settled.jsonl"
	"$CHECK_SEQ" --lossless --min-events 100 "$TT_TMP/settled.jsonl" ||
		tt_die "loss after event $1 (after the attach transient)"
}

# ---- integration: rates -------------------------------------------------------------------

# rate RATE SECONDS BUF [lossless|settled|lossy] [spawn|external]
rate_case() {
	local rate=$1 secs=$2 bs=$3 mode=$4 how=${5:-spawn}
	sim
	fw "$rate" "$bs"
	local started=$SECONDS # the daemon's lifetime bounds its log's loss lines
	if [ "$how" = external ]; then
		ext_ocd_start
		daemon --probe "openocd:127.0.0.1:$OCD_PORT"
	else
		spawned
	fi
	wait_log 'connected: streaming'
	# lossy: the loss is forced (the reader paused while the writer laps), never hoped for
	[ "$mode" = lossy ] && pause_until_lapped
	local end=$((SECONDS + secs))
	while [ $SECONDS -lt $end ]; do
		kill -0 "$DPID" 2>/dev/null || tt_die "tracetapd died under load"
		sleep 0.2
	done
	case $mode in
	lossless) finish --lossless --min-events $((rate * secs / 2)) ;;
	settled) finish --min-events $((rate * secs / 2)); lossless_after $((rate * 3)) ;;
	lossy)
		finish --min-events 100
		[ "$(count_rec '"type":"gap"')" -gt 0 ] || tt_die "a rate beyond the link without a gap?"
		# the journal shows the loss: a line for the first gap, then one per 10 s at most
		grep -qE 'target sim: (about |at least )?[0-9]+ events lost \(' "$DLOG" ||
			tt_die "events were lost and the log does not say so"
		local lived=$((SECONDS - started))
		[ "$(grep -c 'events lost' "$DLOG")" -le $((lived / 10 + 2)) ] ||
			tt_die "more loss lines than one per 10 s: $(grep -c 'events lost' "$DLOG") in $lived s"
		;;
	esac
}

# sock_queue PID FD [peer]: bytes waiting to be read on process PID's unix socket FD (libuv's
# stdio "pipes" are socket pairs), or with `peer` on the socket at its other end (ss -x).
sock_queue() {
	local line
	line=$(ss -xpnH | grep -F "pid=$1,fd=$2)") || return 1
	if [ "${3:-}" = peer ]; then
		ss -xnH | awk -v i="$(awk '{ print $8 }' <<<"$line")" '$6 == i { print $3 }'
	else
		awk '{ print $3 }' <<<"$line"
	fi
}

# hold_null_reply: tracetapd's next read of the (NULL) header pointer is answered but not taken,
# as on a daemon descheduled between a read and its reply: OpenOCD (its child, TCL on pipes) is
# stopped until tracetapd's request waits in its stdin, tracetapd is stopped, and OpenOCD goes on
# and answers into tracetapd's pipe. Tracetapd stays stopped.
hold_null_reply() {
	local ocd
	ocd=$(pgrep -P "$DPID" -x openocd) || tt_die "no OpenOCD spawned by tracetapd"
	kill -STOP "$ocd"
	tt_wait_for 20 "a request of tracetapd's waiting in OpenOCD's stdin" \
		eval '[ "$(sock_queue "$ocd" 0)" -gt 0 ]'
	kill -STOP "$DPID"
	kill -CONT "$ocd"
	tt_wait_for 20 "OpenOCD's answer waiting for tracetapd" eval '[ "$(sock_queue "$ocd" 1 peer)" -gt 0 ]'
}

# A narrow, slow time source and a late tx_trace_enable, as ThreadX on an emulated core: a
# 24-bit counter of nominally 25 MHz (a wrap every 0.67 s) running at half real time (a wrap
# every 1.34 s of host time), 500 events/s into 256 entries. tracetapd watches the NULL header
# pointer; `late`: it is stopped, tracing is enabled (SIGHUP) and the workload laps the buffer 3
# times before tracetapd reads (the first read's gap); `late-reply`: the same, but tracetapd is
# stopped holding an answer that read the pointer NULL before the enable (hold_null_reply): the
# time tracing was off is when that read went out, not when tracetapd took its answer (before,
# the gap's range was [79, 79] where 4,075 were lost, upstream ThreadX on QEMU with the reader
# stopped; here [lower, upper] capped below the truth); `lap`: tracing is enabled while it reads,
# and once it streams it is stopped for 2 laps (about 1 s: 1.5 wraps at the nominal rate, 0.75
# of the target's). Every event
# is owed (nothing before the enable), so the truth is the workload's events less those that
# came; it must lie within the gaps' summed range, and for `lap`, when the forced gap is the only
# one, the count within 25% (a wrap added from the host's clock, a phantom lap, adds 670 events). The user events' numbers show
# nothing missing without a gap (check_seq --key user).
narrow_case() {
	local mode=$1 n got lost lower upper
	sim
	tt_spawn fw "$FW_THREADX" --ram "$TT_TMP/ram.bin" --base $BASE --size $RAM_SIZE \
		--buf-size 9008 --rate 500 --time cycles --tick-hz 25000000 --time-bits 24 \
		--clock-scale 0.5 --late
	tt_expect fw '^late '
	spawned --tick-hz 25M
	wait_log 'is NULL'
	[ "$mode" = late ] && kill -STOP "$DPID"
	[ "$mode" = late-reply ] && hold_null_reply
	kill -HUP "$TT_PID_fw"
	tt_expect fw '^header=(0x[0-9a-f]+) .*entries=([0-9]+)'
	FW_HDR=${BASH_REMATCH[1]}
	ENTRIES=${BASH_REMATCH[2]}
	if [ "$mode" != lap ]; then
		pause_until_lapped 3
	else
		local end=$((SECONDS + 20))
		until [ "$(count_rec '"type":"event"')" -ge $((ENTRIES * 3)) ]; do
			[ $SECONDS -lt $end ] || tt_die "tracetapd did not stream after the late enable"
			sleep 0.1
		done
		pause_until_lapped 2
	fi
	local end=$((SECONDS + 2))
	while [ $SECONDS -lt $end ]; do sleep 0.2; done # it streams on (and measures its clock)
	kill -TERM "$TT_PID_fw"
	tt_expect fw '^summary events=([0-9]+) user_events=[0-9]+ last_seq=([0-9]+) ' 10
	n=${BASH_REMATCH[1]}
	LAST=${BASH_REMATCH[2]}
	end=$((SECONDS + 20))
	until "$CHECK_SEQ" --key user --last "$LAST" "$REC" >/dev/null 2>&1; do
		[ $SECONDS -lt $end ] || tt_die "the last user event ($LAST) never came out"
		sleep 0.1
	done
	kill -TERM "$DPID"
	wait "$DPID" || tt_die "tracetapd exited with status $? on SIGTERM"
	"$CHECK_SEQ" --key user --last "$LAST" "$REC" || tt_die "check_seq failed"
	got=$(count_rec '"type":"event"')
	read -r lost lower upper < <(jq -r -s '[.[] | select(.type == "gap")] |
		"\(map(.lost) | add // 0) \(map(if .exact then .lost else (.lower // .lost) end) | add // 0)
		 \(if any(.[]; (.exact | not) and .upper == null) then -1
		    else map(if .exact then .lost else .upper end) | add // 0 end)"' "$REC" | tr '\n' ' ')
	local truth=$((n - got))
	echo "gaps: $(count_rec '"type":"gap"'), reported $lost, true $truth, range [$lower, $upper]"
	jq -c 'select(.type == "gap") | {reason, lost, exact, lower, upper}' "$REC"
	[ "$truth" -ge "$lower" ] && { [ "$upper" = -1 ] || [ "$truth" -le "$upper" ]; } ||
		tt_die "$truth lost, outside the range [$lower, $upper]"
	# the count pinned when the forced gap is the only one (a loaded host adds gaps whose
	# truths the sum mixes: then only the range is judged)
	if [ "$mode" = lap ] && [ "$(count_rec '"type":"gap"')" = 1 ]; then
		local off=$((lost > truth ? lost - truth : truth - lost))
		[ $((off * 4)) -le "$truth" ] || tt_die "reported $lost where $truth were lost: more than 25% off"
	fi
	[ "$truth" -gt "$ENTRIES" ] || tt_die "only $truth lost: the forced loss did not happen"
	tt_ok "narrow slow clock, $mode: reported $lost, true $truth, range [$lower, $upper]"
}

# An OpenOCD of our own (TCL on TCP, ephemeral or given port); OCD_PORT, TT_PID_xocd.
ext_ocd_start() {
	local port=${1:-0} end=$((SECONDS + 10))
	: >"$TT_TMP/xocd.log"
	openocd -f "$OPENOCD_CFG" -c "remote_bitbang port $SIM_PORT" -c "tcl_port $port" \
		-l "$TT_TMP/xocd.log" >/dev/null 2>&1 &
	TT_PID_xocd=$!
	TT_PIDS+=("$TT_PID_xocd")
	until grep -q 'Listening on port [0-9]* for tcl' "$TT_TMP/xocd.log"; do
		[ $SECONDS -lt $end ] || tt_die "external OpenOCD did not listen"
		sleep 0.05
	done
	OCD_PORT=$(sed -n 's/.*Listening on port \([0-9]*\) for tcl.*/\1/p' "$TT_TMP/xocd.log")
}

# A user's telnet session on the OpenOCD tracetapd reads through stays usable: tracetapd's
# reads (every poll, each a TCL command with a result) must not be echoed to it. Fails when
# OpenOCD logs the replies (about 100 KB/s at this rate before the replies were kept out of
# its log); the user's own command is answered in the same session.
telnet_quiet() {
	local end=$((SECONDS + 10)) tport
	sim
	fw 1000 0x10000
	: >"$TT_TMP/xocd.log"
	openocd -f "$OPENOCD_CFG" -c "remote_bitbang port $SIM_PORT" -c "tcl_port 0" \
		-c "telnet_port 0" -l "$TT_TMP/xocd.log" >/dev/null 2>&1 &
	TT_PID_xocd=$!
	TT_PIDS+=("$TT_PID_xocd")
	until grep -q 'Listening on port [0-9]* for telnet' "$TT_TMP/xocd.log" &&
		grep -q 'Listening on port [0-9]* for tcl' "$TT_TMP/xocd.log"; do
		[ $SECONDS -lt $end ] || tt_die "external OpenOCD did not listen"
		sleep 0.05
	done
	OCD_PORT=$(sed -n 's/.*Listening on port \([0-9]*\) for tcl.*/\1/p' "$TT_TMP/xocd.log")
	tport=$(sed -n 's/.*Listening on port \([0-9]*\) for telnet.*/\1/p' "$TT_TMP/xocd.log")
	daemon --probe "openocd:127.0.0.1:$OCD_PORT"
	wait_log 'connected: streaming'
	# the session: reads until the daemon delivered 3000 more events, then asks one thing
	python3 "$here/telnet_watch.py" "$tport" "$TT_TMP/telnet.out" "$TT_TMP/ask" &
	local watch=$!
	TT_PIDS+=("$watch")
	end=$((SECONDS + 10))
	until [ -e "$TT_TMP/telnet.out" ]; do # created once connected
		[ $SECONDS -lt $end ] || tt_die "no telnet session with OpenOCD on port $tport"
		sleep 0.05
	done
	advance 3000
	: >"$TT_TMP/ask"
	wait "$watch" || tt_die "the telnet session did not answer expr 6*7 while tracetapd read"
	local bytes replies
	bytes=$(stat -c %s "$TT_TMP/telnet.out")
	replies=$(grep -ac '@[0-9]* 0 ' "$TT_TMP/telnet.out" || true)
	[ "$replies" = 0 ] || tt_die "the telnet session shows $replies of tracetapd's replies ($bytes bytes)"
	[ "$bytes" -lt 4096 ] || tt_die "the telnet session got $bytes bytes while tracetapd read"
	tt_ok "telnet session: $bytes bytes while 3000 events were read, none of them a reply"
	finish
}

# ---- fault ----------------------------------------------------------------------------------
# Every fault case: 500 events/s into a 64 KiB buffer (2020 entries: 4 s of history), so an
# outage of a second or two is either caught up without loss or counted exactly.
FRATE=500
FBUF=0x10000

fault_setup() {
	sim "$@"
	fw $FRATE $FBUF
	spawned
	wait_log 'connected: streaming'
	advance 500
}

kill_spawn() {
	fault_setup
	local old new end=$((SECONDS + 10))
	old=$(ocd_child) || tt_die "no OpenOCD child of tracetapd"
	kill -KILL "$old"
	wait_log ': disconnected: '
	until new=$(ocd_child) && [ "$new" != "$old" ] && grep -q "OpenOCD running (pid $new)" "$DLOG"; do
		[ $SECONDS -lt $end ] || tt_die "tracetapd did not restart OpenOCD"
		sleep 0.05
	done
	tt_ok "OpenOCD $old killed, tracetapd started $new"
	advance 1000
	finish
}

kill_external() {
	sim
	fw $FRATE $FBUF
	ext_ocd_start
	daemon --probe "openocd:127.0.0.1:$OCD_PORT"
	wait_log 'connected: streaming'
	advance 500
	kill -KILL "$TT_PID_xocd"
	wait "$TT_PID_xocd" 2>/dev/null
	wait_log ': disconnected: '
	local n
	n=$(grep -c 'probe connected' "$DLOG")
	ext_ocd_start "$OCD_PORT"
	local end=$((SECONDS + 15))
	until [ "$(grep -c 'probe connected' "$DLOG")" -gt "$n" ]; do
		[ $SECONDS -lt $end ] || tt_die "tracetapd did not reconnect to the restarted OpenOCD"
		sleep 0.05
	done
	tt_ok "reconnected to the restarted OpenOCD on port $OCD_PORT"
	advance 1000
	finish
}

# The simulator restarts on the same RAM file and the same port (SO_REUSEADDR). remote_bitbang
# never reconnects, so the spawned OpenOCD must be replaced: wanted from tracetapd by itself.
sim_restart() {
	fault_setup
	local old
	old=$(ocd_child) || tt_die "no OpenOCD child of tracetapd"
	sim_restart_same_port
	advance 1000 30
	local new
	new=$(ocd_child) || true
	tt_ok "stream continued after the simulator restart (OpenOCD pid $old -> ${new:-none})"
	finish
}

power() {
	fault_setup
	tt_ctl 'power off'
	wait_log 'target sim: (stalled|disconnected):'
	tt_ok "power off seen: $(grep -E 'target sim: (stalled|disconnected):' "$DLOG" | tail -n 1)"
	tt_ctl 'power on'
	advance 1000
	finish
}

wait_storm() {
	fault_setup
	wait_storm_paused || { tt_ctl stats; tt_die "WAITs still pending after 60 s: $TT_CTL_REPLY"; }
	# every WAIT answered, or cancelled by OpenOCD's DAPABORT when its WAIT recovery timed out
	# on a loaded machine (then a read failed: stalled and back, nothing lost)
	tt_ctl stats
	[[ $TT_CTL_REPLY =~ waits=([0-9]+).*waits_aborted=([0-9]+) ]] &&
		[ "${BASH_REMATCH[1]}" -gt 0 ] &&
		[ $((BASH_REMATCH[1] + BASH_REMATCH[2])) -ge 3000 ] ||
		tt_die "the WAIT storm did not happen: $TT_CTL_REPLY"
	advance 1000
	finish --lossless
}

busfault() {
	fault_setup
	# the whole entry area: header at BASE+0x1000, registry 16 x 48 bytes, then the entries
	tt_ctl "busfault $(printf '0x%x' $((BASE + 0x1000 + 48 + 768))) $((ENTRIES * 32))"
	wait_log 'target sim: stalled:.*'
	tt_ok "bus fault seen: $(grep 'target sim: stalled:' "$DLOG" | tail -n 1)"
	tt_ctl 'busfault off'
	advance 1000
	finish
}

target_reset() {
	fault_setup
	kill -USR1 "$TT_PID_fw"
	tt_expect fw '^reset n=1 '
	local end=$((SECONDS + 15))
	until [ "$(count_rec '"type":"reset"')" -ge 1 ]; do
		[ $SECONDS -lt $end ] || tt_die "no reset record after the target reset"
		sleep 0.05
	done
	advance 1000
	finish
}

# --address outside RAM: a precise error in the log, the daemon keeps running (and retrying).
bad_address() {
	sim
	fw $FRATE $FBUF
	daemon --probe openocd-spawn -f "$OPENOCD_CFG" -c "remote_bitbang port $SIM_PORT" \
		--openocd-log "$TT_TMP/ocd.log" --address 0x30000000
	wait_log 'target sim: .*0x30000000'
	tt_ok "logged: $(grep '0x30000000' "$DLOG" | head -n 1)"
	# still alive and still polling: the probe is read again (backoff), the loop answers SIGTERM
	local n end=$((SECONDS + 15))
	tt_ctl stats
	[[ $TT_CTL_REPLY =~ bus_faults=([0-9]+) ]] && n=${BASH_REMATCH[1]}
	until tt_ctl stats && [[ $TT_CTL_REPLY =~ bus_faults=([0-9]+) ]] &&
		[ "${BASH_REMATCH[1]}" -gt "$n" ]; do
		[ $SECONDS -lt $end ] || tt_die "tracetapd stopped retrying"
		kill -0 "$DPID" 2>/dev/null || tt_die "tracetapd exited on a bad address"
		sleep 0.1
	done
	kill -TERM "$DPID"
	local rc=0
	wait "$DPID" || rc=$?
	[ "$rc" -eq 0 ] || tt_die "tracetapd exited with $rc"
	tt_ok "tracetapd kept running and exited 0 on SIGTERM"
}

missing_config() {
	local rc=0 out
	out=$(${TT_WRAP-} "$TRACETAPD" --no-server --stdout --config "$TT_TMP/nope.json" 2>&1) || rc=$?
	[ "$rc" -ne 0 ] || tt_die "tracetapd accepted a missing config file"
	[[ $out == *"$TT_TMP/nope.json"* ]] || tt_die "the message does not name the file: $out"
	tt_ok "exit $rc: $out"
}

case ${1:-} in
rate-200) rate_case 200 6 0x8000 lossless ;;
# About a third of what the simulated link carries, so that a loaded 2-core CI machine (or a
# sanitizer build of tracetapd beside other suites) still keeps up; the rate the link can
# really follow is measured by the benchmark (e2e-bench), not asserted by a timed test.
rate-600) rate_case 600 8 0x10000 settled ;;
rate-600-external) rate_case 600 8 0x10000 settled external ;;
rate-3000) rate_case 3000 6 0x10000 lossy ;;
rate-max) rate_case 0 5 0x10000 lossy ;;
kill-spawn) kill_spawn ;;
kill-external) kill_external ;;
sim-restart) sim_restart ;;
power) power ;;
wait-storm) wait_storm ;;
busfault) busfault ;;
target-reset) target_reset ;;
bad-address) bad_address ;;
missing-config) missing_config ;;
telnet-quiet) telnet_quiet ;;
narrow-late) narrow_case late ;;
narrow-late-reply) narrow_case late-reply ;;
narrow-lap) narrow_case lap ;;
*) echo "usage: $0 CASE (see the case list at the end of the script)" >&2; exit 2 ;;
esac
