#!/usr/bin/env bash
# tests/nuttx/live-sim.sh: tt-fw-nuttx writes a NuttX 13.x noteram ring (32-bit, overwrite mode,
# time stamps a +1 counter over every record) into tt-simtarget's RAM, a real OpenOCD drives the
# simulator, `tracetapd --no-server --stdout --format nuttx --address g_noteram_driver` follows
# the ring; check_seq proves every record arrived exactly once and in order, or inside a gap
# whose count is exact (or a lower bound, marked so).
#
# usage: live-sim.sh CASE OPENOCD_CFG   (cases at the end)
# env (meson sets them): TRACETAPD CHECK_SEQ SIMTARGET FW_NUTTX; TT_KEEP=1 keeps the logs.
set -u
OPENOCD_CFG=${2:-${OPENOCD_CFG:-}}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../sim/lib.sh
. "$here/../sim/lib.sh"
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"

REC=$TT_TMP/records.jsonl
DLOG=$TT_TMP/daemon.err
DPID=""

# nx_fw RATE RING_BYTES [ARGS...]: the workload on the simulator's RAM file; DRIVER = the
# address of its g_noteram_driver.
nx_fw() {
	local rate=$1 bs=$2
	shift 2
	tt_spawn fw "$FW_NUTTX" --ram "$TT_TMP/ram.bin" --base $BASE --size $RAM_SIZE \
		--buf-size "$bs" --rate "$rate" "$@"
	tt_expect fw '^driver=(0x[0-9a-f]+) '
	DRIVER=${BASH_REMATCH[1]}
}

nx_daemon() {
	${TT_WRAP-} "$TRACETAPD" --no-server --stdout --log-level info --name sim --format nuttx \
		--address "$DRIVER" --probe openocd-spawn -f "$OPENOCD_CFG" \
		-c "remote_bitbang port $SIM_PORT" --openocd-log "$TT_TMP/ocd.log" "$@" \
		>"$REC" 2>"$DLOG" &
	DPID=$!
	TT_PIDS+=("$DPID")
}

# rate_case RATE SECONDS RING_BYTES lossless|lapped [WORKLOAD ARGS...]
rate_case() {
	local rate=$1 secs=$2 bs=$3 mode=$4
	shift 4
	sim
	nx_fw "$rate" "$bs" "$@"
	nx_daemon
	wait_log 'connected: streaming'
	local end=$((SECONDS + secs))
	while [ $SECONDS -lt $end ]; do
		kill -0 "$DPID" 2>/dev/null || tt_die "tracetapd died under load"
		sleep 0.2
	done
	# names from the START notes at boot, syscalls, switches decoded (not just numbered)
	grep -q '"name":"NOTE_SYSCALL_ENTER"' "$REC" && grep -q '"thread_name":"nsh_main"' "$REC" ||
		tt_die "no decoded syscall / task name in the stream"
	case $mode in
	lossless) finish --lossless --min-events $((rate * secs / 2)) ;;
	lapped)
		finish --min-events 1000 --ranges
		[ "$(count_rec '"type":"gap".*"reason":"lapped"')" -gt 0 ] ||
			tt_die "a rate beyond the link without a 'lapped' gap?"
		;;
	esac
}

# Mode 0 (`ni_overwrite` 0): the ring fills and the target stops recording (mode 2) until
# NOTERAM_CLEAR (SIGUSR1 to the workload). Each overflow is one gap (lower bound 1, reason naming
# it) after the last stored record; after the clear reading goes on; the records not stored are
# inside those gaps (check_seq), nothing else is missing, the last stored record comes out.
stop_mode() {
	local n over='"type":"gap".*"reason":"noteram full, overwrite disabled'
	sim
	nx_fw 1000 0x1000 --mode stop
	nx_daemon
	wait_log 'connected: streaming'
	for n in 1 2 3; do
		local end=$((SECONDS + 15))
		until [ "$(count_rec "$over")" -ge $n ]; do
			[ $SECONDS -lt $end ] || tt_die "no overflow gap #$n"
			sleep 0.05
		done
		kill -USR1 "$TT_PID_fw"
		tt_expect fw "^clear n=$n "
	done
	kill -TERM "$TT_PID_fw"
	tt_expect fw '^summary events=([0-9]+) .*last_stored=([0-9]+) .*overflows=([0-9]+) ' 10
	local last=${BASH_REMATCH[2]} overflows=${BASH_REMATCH[3]}
	wait_last_time "$last"
	kill -TERM "$DPID"
	local rc=0
	wait "$DPID" || rc=$?
	[ "$rc" -eq 0 ] || tt_die "tracetapd exited with status $rc on SIGTERM"
	"$CHECK_SEQ" --last "$last" --min-events 500 "$REC" || tt_die "check_seq failed"
	[ "$(count_rec "$over")" = "$overflows" ] && [ "$(count_rec '"type":"gap"')" = "$overflows" ] ||
		tt_die "$(count_rec '"type":"gap"') gaps, $(count_rec "$over") overflow gaps for $overflows overflows"
	grep "$over" "$REC" | grep -q '"lost":1,"exact":false' || tt_die "overflow gap not a lower bound of 1: $(grep -m1 "$over" "$REC")"
	tt_ok "$overflows overflows, each one gap; last stored record $last out; tracetapd exited 0"
}

# Task names read from the target (--format-opt pidhash=... tcb_name=...): the workload writes
# no START notes (--tasks: a system traced long after boot); its TCBs (g_pidhash -> struct
# tcb_s) hold the names. The first records of a task may come without a name (looked up after
# the poll that first shows its pid); from its first named record on, every record of the task
# carries the name in its TCB, and every task gets named. Nothing lost meanwhile.
names_case() {
	sim
	nx_fw 400 0x8000 --tasks
	tt_expect fw '^tasks pidhash=(0x[0-9a-f]+) npidhash=(0x[0-9a-f]+) tcb_pid=([0-9]+) tcb_name=([0-9]+) tcb_name_size=([0-9]+)$'
	nx_daemon --format-opt "pidhash=${BASH_REMATCH[1]}" --format-opt "npidhash=${BASH_REMATCH[2]}" \
		--format-opt "tcb_pid=${BASH_REMATCH[3]}" --format-opt "tcb_name=${BASH_REMATCH[4]}" \
		--format-opt "tcb_name_size=${BASH_REMATCH[5]}"
	wait_log 'connected: streaming'
	sleep 4
	finish --lossless --min-events 1000
	check_names
}

# check_names: the records of pids 1-5 are named from their TCBs, from their first named record
# on; no NOTE_START (--tasks).
check_names() {
	[ "$(count_rec '"name":"NOTE_START"')" = 0 ] || tt_die "NOTE_START records with --tasks"
	# thread -> expected name (the workload's TCBs: pid 0 Idle_Task, then nxw_task_names)
	local bad
	bad=$(jq -r -s '
		{"0x00000001": "nsh_main", "0x00000002": "hpwork", "0x00000003": "lpwork",
		 "0x00000004": "trace", "0x00000005": "app"} as $want
		| [.[] | select(.type == "event")] as $ev
		| [ ($want | keys)[] as $p
		    | [$ev[] | select(.thread == $p)] as $r
		    | ([$r | to_entries[] | select(.value.thread_name != null) | .key] | first) as $first
		    | if ($r | length) == 0 then "pid \($p): no record"
		      elif $first == null then "pid \($p): \($r | length) records, none named"
		      else ($r[$first:][] | select(.thread_name != $want[$p])
			    | "pid \($p): seq \(.seq) named \(.thread_name) after the first named record")
		      end ] | .[:5][]' "$REC") || tt_die "jq failed on $REC"
	[ -z "$bad" ] || tt_die "task names: $bad"
	tt_ok "pids 1-5 named from their TCBs: $(jq -r -s '[.[] | select(.type == "event" and .thread_name != null)] | length' "$REC") of $(count_rec '"type":"event"') records named"
}

# A 64-bit target whose RAM is above 4 GiB (NuttX's default sim keeps its heap and TCBs there):
# tt-fw-nuttx writes a 64-bit ring and task table in its own memory at 0x7e5a00000000 and
# tracetapd follows it through the process: probe. Every record arrives (nothing lost at 2000/s)
# and every task is named from its TCB, read through 64-bit pointers.
process64_case() {
	local named end
	tt_spawn fw "$FW_NUTTX" --base 0x7e5a00000000 --size 0x10000 --ptr 8 --rate 2000 --tasks \
		--count 6000 --hold
	tt_expect fw '^driver=(0x[0-9a-f]+) '
	DRIVER=${BASH_REMATCH[1]}
	tt_expect fw '^tasks pidhash=(0x[0-9a-f]+) npidhash=(0x[0-9a-f]+) tcb_pid=([0-9]+) tcb_name=([0-9]+) tcb_name_size=([0-9]+)$'
	${TT_WRAP-} "$TRACETAPD" --no-server --stdout --log-level info --name p64 --format nuttx \
		--address "$DRIVER" --probe "process:$TT_PID_fw" --format-opt ptr_size=8 \
		--format-opt "pidhash=${BASH_REMATCH[1]}" --format-opt "npidhash=${BASH_REMATCH[2]}" \
		--format-opt "tcb_pid=${BASH_REMATCH[3]}" --format-opt "tcb_name=${BASH_REMATCH[4]}" \
		--format-opt "tcb_name_size=${BASH_REMATCH[5]}" >"$REC" 2>"$DLOG" &
	DPID=$!
	TT_PIDS+=("$DPID")
	# until every task of the table has a named record (deadline 30 s)
	end=$((SECONDS + 30))
	until named=$(jq -r -s '[.[] | select(.type == "event" and .thread_name != null) | .thread]
			| unique | length' "$REC" 2>/dev/null) && [ "${named:-0}" -ge 5 ]; do
		kill -0 "$DPID" 2>/dev/null || tt_die "tracetapd died: $(cat "$DLOG")"
		[ $SECONDS -lt $end ] || tt_die "only ${named:-0} of 5 tasks named: $(tail -3 "$DLOG")"
		sleep 0.1
	done
	# the workload ends (its memory kept until SIGTERM): its last record must come out
	tt_expect fw '^summary events=([0-9]+) ' 30
	LAST=${BASH_REMATCH[1]}
	wait_last_time "$LAST"
	kill -TERM "$DPID"
	wait "$DPID" || tt_die "tracetapd exited with status $? on SIGTERM"
	"$CHECK_SEQ" --last "$LAST" --lossless --min-events 5000 "$REC" || tt_die "check_seq failed"
	check_names
	! grep -q "4 GiB\|32-bit" "$DLOG" || tt_die "the probe refused a 64-bit address: $(cat "$DLOG")"
	tt_ok "64-bit target at $DRIVER through process:, every record, every task named"
}

# Loss against the truth, through process: (a 64-bit ring in tt-fw-nuttx's own memory): the
# workload's time stamps step by nxwriter.c's irregular 1-5000 ticks (--irregular), so no gap
# can be counted exactly from them and the reader estimates; check_seq --clock nxw knows every
# record's time, so each gap's truth, and --ranges fails when it lies outside [lower, upper] (or
# an exact count is wrong). The losses are forced with tracetapd stopped (SIGSTOP), not left to
# the host's timing. tracetapd gets the time stamps' nominal rate (--tick-hz: 2500 ticks a record
# at --rate 400), so the host's clock is evidence.
P64_JUMPS=()
p64_start() {
	tt_spawn fw "$FW_NUTTX" --base 0x7e5a00000000 --size 0x10000 --ptr 8 --rate 400 --irregular \
		--hold "$@"
	tt_expect fw '^driver=(0x[0-9a-f]+) ring=(0x[0-9a-f]+) size=([0-9]+) '
	DRIVER=${BASH_REMATCH[1]} RING=${BASH_REMATCH[2]} RING_SIZE=${BASH_REMATCH[3]}
	: >"$REC" # there before the waits on it read it
	${TT_WRAP-} "$TRACETAPD" --no-server --stdout --log-level info --name p64 --format nuttx \
		--address "$DRIVER" --probe "process:$TT_PID_fw" --format-opt ptr_size=8 \
		--tick-hz 1000000 --poll-min 1 --poll-max 10 >"$REC" 2>"$DLOG" &
	DPID=$!
	TT_PIDS+=("$DPID")
}

# p64_streamed N: until N events came out (deadline 30 s).
p64_streamed() {
	local end=$((SECONDS + 30))
	until [ "$(count_rec '"type":"event"')" -ge "$1" ]; do
		kill -0 "$DPID" 2>/dev/null || tt_die "tracetapd died: $(tail -3 "$DLOG")"
		[ $SECONDS -lt $end ] || tt_die "fewer than $1 events streamed"
		sleep 0.05
	done
}

# p64_finish CHECK_ARGS...: the workload ends (--count), its last record comes out, tracetapd
# stops; check_seq judges every gap against the truth and prints them (CHECK_OUT).
p64_finish() {
	tt_expect fw '^summary events=([0-9]+) last_time=([0-9]+) ' 60
	local n=${BASH_REMATCH[1]} last=${BASH_REMATCH[2]}
	wait_last_time "$last"
	kill -TERM "$DPID"
	wait "$DPID" || tt_die "tracetapd exited with status $? on SIGTERM"
	CHECK_OUT=$("$CHECK_SEQ" --ranges --clock nxw "${P64_JUMPS[@]}" --last "$n" "$@" "$REC") ||
		tt_die "check_seq: $CHECK_OUT"
	echo "$CHECK_OUT"
}

# the largest gap's truth (from check_seq's lines) is at least $1
p64_big_gap() {
	echo "$CHECK_OUT" | awk -v min="$1" '/^gap before/ { if ($8 + 0 >= min) big = 1 }
		END { exit !big }' || tt_die "no gap of $1 or more notes: the forced loss did not happen"
}

# `trace start` with a burst: NOTERAM_CLEAR (SIGUSR1) and 20,000 notes at once right after it
# (about 40 laps of the 16 KiB ring, 1-5 ticks apart: a writer 800 times faster than before)
# while tracetapd is stopped (the ring holds 1.3 s of the slower notes after the burst: the burst
# is still in it when tracetapd reads, its pace the evidence for the range); the gap after it holds the burst
# in its range (before: a lower bound of a few notes, no laps counted).
start_burst_case() {
	p64_start --buf-size 0x4000 --count 21500 --burst-after 20000
	p64_streamed 800
	kill -STOP "$DPID"
	kill -USR1 "$TT_PID_fw"
	tt_expect fw '^clear n=1 '
	tt_expect fw '^burst at=([0-9]+) n=([0-9]+)$'
	P64_JUMPS=(--fast "${BASH_REMATCH[1]}:${BASH_REMATCH[2]}")
	tt_expect fw '^burst done ' 30
	kill -CONT "$DPID"
	p64_finish --min-events 1500
	p64_big_gap 18000
	tt_ok "burst after trace start counted within its range"
}

# A descheduled writer whose clock runs: the workload is stopped (SIGSTOP) 1 s while its time
# stamps' clock goes on (--clock-runs: 2.5 M ticks of no notes), then writes 12,000 notes at once
# (1-5 ticks apart, about 22 laps of the 16 KiB ring) while tracetapd is stopped. The time stamps across the gap say far more than was written: the
# truth must still lie in the range.
descheduled_case() {
	p64_start --buf-size 0x4000 --count 13500 --clock-runs --burst-after 12000
	p64_streamed 800
	kill -STOP "$TT_PID_fw"
	sleep 1 # the time the writer is descheduled (the workload measures it: the jump below)
	kill -STOP "$DPID"
	kill -CONT "$TT_PID_fw"
	tt_expect fw '^jump at=([0-9]+) ticks=([0-9]+)$'
	P64_JUMPS=(--jump "${BASH_REMATCH[1]}:${BASH_REMATCH[2]}")
	[ "${BASH_REMATCH[2]}" -ge 1000000 ] || tt_die "the clock ran only ${BASH_REMATCH[2]} ticks while stopped"
	tt_expect fw '^burst at=([0-9]+) n=([0-9]+)$'
	P64_JUMPS+=(--fast "${BASH_REMATCH[1]}:${BASH_REMATCH[2]}")
	tt_expect fw '^burst done ' 30
	kill -CONT "$DPID"
	p64_finish --min-events 2000
	p64_big_gap 10000
	tt_ok "a descheduled writer's gap within its range"
}

# Tasks that live for one batch (--short-tasks 40: pid 100 + k, START naming it job-<pid>, six
# notes, STOP, written at once between two polls): every note of each is named, the first too.
short_tasks_case() {
	local want bad
	p64_start --buf-size 0x8000 --count 3000 --short-tasks 40
	p64_finish --lossless --min-events 3000
	want=$(for p in $(seq 100 200); do printf '"0x%08x":"job-%d",' "$p" "$p"; done)
	bad=$(jq -r -s --argjson want "{${want%,}}" '
		[.[] | select(.type == "event" and $want[.thread] != null)] as $r
		| if ($r | length) < 8 * 60 then "only \($r | length) notes of short tasks"
		  else ($r[] | select(.thread_name != $want[.thread])
			| "seq \(.seq) of \(.thread) named \(.thread_name // "nothing")") end' "$REC" |
		head -5) || tt_die "jq failed on $REC"
	[ -z "$bad" ] || tt_die "short-lived tasks: $bad"
	tt_ok "every note of $(jq -r -s --argjson want "{${want%,}}" '[.[] | select(.type == "event" and $want[.thread] != null) | .thread] | unique | length' "$REC") short-lived tasks named"
}

# A read torn by `trace stop` under a fast writer. tt-holdread follows tracetapd's reads and
# holds it at the first read of the ring after a read of the control words: tracetapd has read
# the head and not yet the notes. Meanwhile the workload writes a burst 1-5 ticks apart (laps
# of the 16 KiB ring) and stops (SIGUSR2: `trace stop`), and, with a restart, clears and goes on
# (SIGUSR1: `trace start`); then tracetapd reads on. The read is torn, not the ring corrupt: no
# bad note, no error, no reset but one per `trace start`; every note before and after the
# stop is streamed once or inside a gap whose range holds its truth, across the resets too
# (check_seq --across-resets: a clear is no licence to lose notes unread). The gaps' estimates
# are printed, not judged: a burst 1-5 ticks apart after notes 2,500 apart is estimated at the
# mean rate (proto/README.md).

# torn_hold N [--first]: tt-holdread on tracetapd, holding N reads of the ring in a row (with
# --first: the first read of the ring of N plans)
torn_hold() {
	tt_spawn hold "$HOLDREAD" --pid "$DPID" --arm "$DRIVER:64" --hold "$RING:$RING_SIZE" \
		--holds "$@" --timeout 60
	tt_expect hold '^attached '
}

# torn_held N: until tracetapd is held at the N-th read
torn_held() {
	tt_expect hold "^held n=$1 addr=(0x[0-9a-f]+) len=([0-9]+)\$" 30
	echo "tracetapd held at its read of $((${BASH_REMATCH[2]})) bytes at ${BASH_REMATCH[1]}"
}

# torn_stop: `trace stop` after the stop burst; STOP_LAST = the last note's time
torn_stop() {
	kill -USR2 "$TT_PID_fw"
	tt_expect fw '^burst at=([0-9]+) n=([0-9]+)$'
	P64_JUMPS+=(--fast "${BASH_REMATCH[1]}:${BASH_REMATCH[2]}")
	tt_expect fw '^stopped at=([0-9]+) last_time=([0-9]+)$' 30
	STOP_LAST=${BASH_REMATCH[2]}
}

# torn_start: `trace start` (NOTERAM_CLEAR, recording again) and its burst, if any
torn_start() {
	kill -USR1 "$TT_PID_fw"
	tt_expect fw '^clear n=([0-9]+) '
	if [ "$1" -gt 0 ]; then
		tt_expect fw '^burst at=([0-9]+) n=([0-9]+)$'
		P64_JUMPS+=(--fast "${BASH_REMATCH[1]}:${BASH_REMATCH[2]}")
	fi
}

# torn_release: tracetapd goes on and is left alone
torn_release() {
	kill -USR1 "$TT_PID_hold"
	tt_expect hold '^released$' 30
}

# torn_after STARTS BIG: the stream and tracetapd's log after the runs: STARTS trace starts at
# most as many resets, a gap of BIG notes or more (the forced one)
torn_after() {
	local resets bad
	p64_finish --min-events 1500 --across-resets
	p64_big_gap "$2"
	bad=$(grep -E 'bad note|laps its|noteram at|outside the|attaching|error' "$DLOG" | head -3)
	[ -z "$bad" ] || tt_die "the torn read taken for a fault: $bad"
	# a clear the reader had caught up with, or one a lap hid, needs no reset
	resets=$(count_rec '"type":"reset"')
	[ "$resets" -le "$1" ] || tt_die "$resets resets for $1 trace start(s): $(grep '"type":"reset"' "$REC" | head -3)"
	[ "$(count_rec '"type":"reset".*noteram buffer cleared')" = "$resets" ] ||
		tt_die "a reset that is not a clear: $(grep '"type":"reset"' "$REC" | head -3)"
}

# held after the head was read: a burst of 3,000 notes (about 6 laps) and `trace stop`; trace
# start once tracetapd has read all there is
torn_stop_case() {
	p64_start --buf-size 0x4000 --count 4600 --stop-burst 3000
	p64_streamed 800
	torn_hold 1
	torn_held 1
	torn_stop
	torn_release
	wait_last_time "$STOP_LAST"
	torn_start 0
	torn_after 1 2000
	tt_ok "a read torn by trace stop: counted within its range, nothing taken for corrupt"
}

# the same with `trace start` and 300 new notes (1-5 ticks apart) before tracetapd reads on
torn_stop_start_case() {
	p64_start --buf-size 0x4000 --count 4600 --stop-burst 3000 --burst-after 300
	p64_streamed 800
	torn_hold 1
	torn_held 1
	torn_stop
	torn_start 300
	tt_expect fw '^burst done ' 30
	torn_release
	torn_after 0 2000
	tt_ok "a read torn by trace stop and start: counted within its range, nothing taken for corrupt"
}

# held at the first read of the ring (a burst of 1,500 notes, the writer goes on) and at the
# next (the rest of the notes or the anchor: 1,500 more and `trace stop`); trace start (with
# its burst of 1,500) once tracetapd has read all there is. sync: the second hold is at the
# first read of the next plan instead, the full read after the lap the first burst made (its
# tail and head from before the second burst).
torn_stop_midread_case() {
	p64_start --buf-size 0x4000 --count 6000 --stop-burst 1500 --burst-after 1500
	p64_streamed 800
	torn_hold 2 "$@"
	torn_held 1
	kill -CONT "$TT_PID_fw" # the writer's burst (it was not stopped: no clock ran)
	tt_expect fw '^burst at=([0-9]+) n=([0-9]+)$'
	P64_JUMPS+=(--fast "${BASH_REMATCH[1]}:${BASH_REMATCH[2]}")
	tt_expect fw '^burst done ' 30
	kill -USR1 "$TT_PID_hold"
	torn_held 2
	torn_stop
	torn_release
	wait_last_time "$STOP_LAST"
	torn_start 1500
	torn_after 1 2000
	tt_ok "a read torn twice, then trace stop: counted within its range, nothing taken for corrupt"
}

case ${1:-} in
# well within what the simulated link carries (about 2500 small records/s): nothing lost
lossless) rate_case 400 6 0x8000 lossless ;;
# Bursts of 1000 records (about 22 KiB, at memory speed) into a 4 KiB ring, twice a second: each
# burst laps the ring several times; the reader reads the whole ring in the pause (~80 ms).
# A writer *continuously* faster than the link cannot be followed at all with variable-length
# records (every full read of the ring is overtaken; README-nuttx.md, Known limits).
lapped) rate_case 2000 5 0x1000 lapped --burst 1000 ;;
stop) stop_mode ;;
names) names_case ;;
process64) process64_case ;;
start-burst) start_burst_case ;;
descheduled) descheduled_case ;;
short-tasks) short_tasks_case ;;
torn-stop) torn_stop_case ;;
torn-stop-start) torn_stop_start_case ;;
torn-stop-midread) torn_stop_midread_case ;;
torn-stop-sync) torn_stop_midread_case --first ;;
*) echo "usage: $0 CASE (see the case list at the end of the script)" >&2; exit 2 ;;
esac
