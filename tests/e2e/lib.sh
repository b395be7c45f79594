# tests/e2e/lib.sh: chain helpers shared by e2e.sh and tests/fault (sourced after
# tests/sim/lib.sh): the workload and the simulator on one RAM file, the daemon's log and record
# stream, and waits on them with deadlines. The caller sets REC (the JSONL record stream being
# followed), DLOG (tracetapd's log; named *.err so that tt_die prints it) and DPID (tracetapd).
# The soft waits (log_has, time_reaches) return 1 at their deadline; the others fail the test.

BASE=0x20000000
RAM_SIZE=0x40000      # 256 KiB of simulated RAM; the trace buffer is at BASE + 0x1000

# fw RATE BUF_SIZE [ARGS...]: the workload (`--time counter`), started once the simulator runs;
# ENTRIES = the buffer's entries.
fw() {
	local rate=$1 bs=$2
	shift 2
	tt_spawn fw "$FW_THREADX" --ram "$TT_TMP/ram.bin" --base $BASE --size $RAM_SIZE \
		--buf-size "$bs" --rate "$rate" --time counter "$@"
	tt_expect fw '^header=(0x[0-9a-f]+) .*entries=([0-9]+)'
	FW_HDR=${BASH_REMATCH[1]}
	ENTRIES=${BASH_REMATCH[2]}
}

# fw_cur: the workload's current pointer (the ThreadX header's word at +32) from the RAM file.
fw_cur() {
	od -An -tu4 -j $((FW_HDR - BASE + 32)) -N4 "$TT_TMP/ram.bin" | tr -d ' '
}

# pause_until_lapped [LAPS]: tracetapd stopped (SIGSTOP) until the workload's current pointer has
# wrapped and come back to where it was: every entry tracetapd had not read is overwritten, so a
# loss is forced whatever the machine's speed. The pointer is sampled: a writer at full speed
# wraps between samples, and a sample at or past a start near the buffer's end may never come,
# so a second wrap seen counts too (the pointer passed the start on the way). LAPS (default 1):
# that many laps.
pause_until_lapped() {
	local laps=${1:-1} c0 c prev wraps=0 end=$((SECONDS + 30))
	kill -STOP "$DPID"
	c0=$(fw_cur)
	prev=$c0
	while :; do
		c=$(fw_cur)
		[ "$c" -lt "$prev" ] && wraps=$((wraps + 1))
		{ [ $wraps -ge $((laps + 1)) ] || { [ $wraps = "$laps" ] && [ "$c" -ge "$c0" ]; }; } && break
		[ $SECONDS -lt $end ] || { kill -CONT "$DPID"; tt_die "the workload did not lap in 30 s"; }
		prev=$c
		sleep 0.02
	done
	kill -CONT "$DPID"
}

# wait_storm_paused: 3000 WAIT answers from the simulated DAP, with the workload stopped
# (SIGSTOP) until OpenOCD has had them all. The storm slows the link as much as the machine makes
# it; with no entry written meanwhile nothing can be overwritten, so "nothing lost" holds
# whatever the speed (a loaded machine's storm once outlasted the 4 s the buffer holds). Returns
# 1 when WAITs are still pending after 60 s (the workload runs again either way).
wait_storm_paused() {
	local end=$((SECONDS + 60)) rc=0
	kill -STOP "$TT_PID_fw"
	tt_ctl 'wait 3000'
	until [ "$(sim_stat wait_pending)" = 0 ]; do
		[ $SECONDS -lt $end ] || { rc=1; break; }
		sleep 0.2
	done
	kill -CONT "$TT_PID_fw"
	return $rc
}

sim() { tt_sim_start --base $BASE --size $RAM_SIZE --ram "$TT_TMP/ram.bin" "$@"; }

# sim_restart_same_port: tt-simtarget killed and started again on the same RAM file and port
# (SO_REUSEADDR); SIM_CTL follows it.
sim_restart_same_port() {
	kill -TERM "$TT_PID_sim"
	wait "$TT_PID_sim" 2>/dev/null
	local n=$((${SIM_GEN:-1} + 1))
	SIM_GEN=$n
	tt_spawn "sim$n" "$SIMTARGET" --ctl "$TT_TMP/sim.ctl.$n" --port "$SIM_PORT" --base $BASE \
		--size $RAM_SIZE --ram "$TT_TMP/ram.bin"
	tt_expect "sim$n" "^listening port=$SIM_PORT\$"
	SIM_CTL=$TT_TMP/sim.ctl.$n
	local v=TT_PID_sim$n
	TT_PID_sim=${!v}
}

# log_has REGEX [SECONDS]: until a line of the daemon's log matches (extended regex); 1 at the
# deadline or when tracetapd exited.
log_has() {
	local end=$((SECONDS + ${2:-15}))
	until grep -qE "$1" "$DLOG"; do
		[ $SECONDS -lt $end ] && kill -0 "$DPID" 2>/dev/null || return 1
		sleep 0.05
	done
}

wait_log() {
	log_has "$@" && return 0
	kill -0 "$DPID" 2>/dev/null || tt_die "tracetapd exited while waiting for /$1/"
	tt_die "no log line matching /$1/ in time"
}

# last_time: the time stamp as written (`ts`: the workload's sequence number mod 2^32) of the
# newest event record so far. `ts`, not the reader's unwrapped `time`: a wrong unwrap must fail
# in check_seq with a message, not as a timeout here.
last_time() {
	tail -n 200 "$REC" 2>/dev/null | sed -n 's/.*"type":"event".*"ts":\([0-9]*\),.*/\1/p' |
		tail -n 1
}

# time_reaches N [SECONDS]: until an event numbered at least N was emitted (the stream flows);
# 1 at the deadline or when tracetapd exited.
time_reaches() {
	local end=$((SECONDS + ${2:-20})) t
	while :; do
		t=$(last_time)
		[ -n "$t" ] && [ "$t" -ge "$1" ] && return 0
		[ $SECONDS -lt $end ] && kill -0 "$DPID" 2>/dev/null || return 1
		sleep 0.05
	done
}

wait_time() {
	time_reaches "$@" && return 0
	kill -0 "$DPID" 2>/dev/null || tt_die "tracetapd exited"
	tt_die "stream stuck: newest event $(last_time), waited for $1"
}

# advance N [SECONDS]: the stream goes on for N more events from now (advance_soft: 1 if not).
advance_soft() {
	local t
	t=$(last_time)
	time_reaches $((${t:-0} + $1)) "${2:-20}"
}

advance() {
	local t
	t=$(last_time)
	wait_time $((${t:-0} + $1)) "${2:-20}"
}

# fw_stop: SIGTERM to the workload; LAST = its event count; waits (20 s) until its last event
# came out in the stream.
fw_stop() {
	kill -TERM "$TT_PID_fw"
	tt_expect fw '^summary events=([0-9]+) ' 10
	LAST=${BASH_REMATCH[1]}
	wait_last_time $((LAST % 4294967296))
}

# wait_last_time T: until the newest event's time stamp as written is T (deadline 20 s).
wait_last_time() {
	local end=$((SECONDS + 20))
	until [ "$(last_time)" = "$1" ]; do
		[ $SECONDS -lt $end ] || tt_die "the last event ($1) never came out (newest: $(last_time))"
		sleep 0.1
	done
}

# count_rec REGEX: how many records of the stream match (grep -c).
count_rec() { grep -cE "$1" "$REC" || true; }

# finish [CHECK_SEQ ARGS...]: stops the workload, waits for its last event to come out (every
# event exactly once or in an exactly counted gap; deadline 30 s), stops tracetapd with SIGTERM
# (exit status 0 wanted), runs the final check.
finish() {
	fw_stop
	kill -TERM "$DPID"
	local rc=0
	wait "$DPID" || rc=$?
	[ "$rc" -eq 0 ] || tt_die "tracetapd exited with status $rc on SIGTERM"
	"$CHECK_SEQ" --last "$LAST" "$@" "$REC" || tt_die "check_seq failed"
	tt_ok "tracetapd exited 0; $(count_rec '"type":"gap"') gap(s), $(count_rec '"type":"reset"') reset(s)"
}

# ocd_child: the pid of tracetapd's spawned OpenOCD.
ocd_child() { pgrep -P "$DPID" -x openocd; }
