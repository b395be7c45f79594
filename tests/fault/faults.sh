# tests/fault/faults.sh: the faults of the matrix, shared by matrix.sh and soak.sh (sourced after
# tests/sim/lib.sh and tests/e2e/lib.sh). fault_start brings up the chain (tt-simtarget,
# tt-fw-threadx, tracetapd with a spawned OpenOCD and its server on an ephemeral port, a
# recording `tracetap tail --json`); each fault_* function injects one fault, waits for its
# expected record and for the stream to go on, and adds rows with `row`.
#
# Caller's env: FAULT_TRACETAPD TRACETAP CHECK_SEQ SIMTARGET FW_THREADX WSFAULT OPENOCD_CFG.

REC=$TT_TMP/records.jsonl   # the recording client's stdout: one record per line
TAILERR=$TT_TMP/tail.log    # its stderr: state changes, "missed records", reconnects
DLOG=$TT_TMP/daemon.err     # *.err: tt_die prints its tail
DPID=""
FRATE=${FRATE:-500}         # events/s: 64 KiB buffer = 2020 entries = 4 s of history
FBUF=0x10000
ROWS=()
FAILS=0

# row FAULT EXPECTED SEEN VERDICT
row() {
	ROWS+=("$1"$'\t'"$2"$'\t'"$3"$'\t'"$4")
	[ "$4" = PASS ] || FAILS=$((FAILS + 1))
	echo "row: $1 | $2 | $3 | $4"
}

verdict() { [ "$1" -eq 0 ] && echo PASS || echo FAIL; }

# alive: tracetapd is the same process and not a zombie (kill -0 succeeds on zombies).
alive() { [ -r "/proc/$DPID/stat" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$DPID/status"; }

fdcount() { find "/proc/$DPID/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
rss_kib() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$DPID/status"; }

metric() {
	curl -s --max-time 5 "http://127.0.0.1:$PORT/metrics" |
		awk -v m="$1" '$1 == m || index($1, m "{") == 1 { s += $2 } END { printf "%d", s }'
}

fault_start() {
	sim
	fw "$FRATE" $FBUF
	# Client queues smaller than the defaults (1024 frames, 8 MiB), so that a client that stops
	# reading overflows in seconds at 500 events/s, yet big enough for the catch-up burst after
	# an outage (a whole buffer: 2020 records, about 0.9 MiB in about 15 frames), which a client
	# reading at full speed must get without a skip.
	printf '{ "client_queue_frames": 64, "client_queue_bytes": 2097152, "targets": [] }\n' \
		>"$TT_TMP/tracetapd.json"
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "$FAULT_TRACETAPD" \
		--config "$TT_TMP/tracetapd.json" --port 0 --log-level info --name sim --pointer $BASE \
		--probe openocd-spawn -f "$OPENOCD_CFG" -c "remote_bitbang port $SIM_PORT" \
		--openocd-log "$TT_TMP/ocd.log" >/dev/null 2>"$DLOG" &
	DPID=$!
	TT_PIDS+=("$DPID")
	wait_log 'dashboard at http://127\.0\.0\.1:[0-9]+/' 30
	PORT=$(sed -n 's/.*dashboard at http:\/\/127\.0\.0\.1:\([0-9]*\)\/.*/\1/p' "$DLOG" | head -n 1)
	wait_log 'connected: streaming' 30
	"$TRACETAP" tail --json --target sim "ws://127.0.0.1:$PORT" >"$REC" 2>"$TAILERR" &
	TAIL_PID=$!
	TT_PIDS+=("$TAIL_PID")
	advance 500 30
	FD0=$(fdcount)
	RSS0=$(rss_kib)
	tt_ok "tracetapd pid $DPID on port $PORT, recorder $TAIL_PID, $FD0 fds, RSS $RSS0 KiB"
}

# ---- one segment of the stream per fault -----------------------------------------------------

seg_begin() {
	SEG_REC=$(wc -l <"$REC")
	SEG_TAIL=$(wc -l <"$TAILERR")
}

seg_tail() { tail -n +$((SEG_TAIL + 1)) "$TAILERR"; }

# seg_wait_state REGEX [SECONDS]: until the recorder printed a state matching REGEX (soft).
seg_wait_state() {
	local end=$((SECONDS + ${2:-15}))
	until seg_tail | grep -qE "^tracetap: sim is ($1)"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.05
	done
}

# The states the recorder printed since seg_begin, in order.
seg_states() {
	seg_tail | sed -n 's/^tracetap: sim is \([a-z]*\).*/\1/p' | paste -sd, -
}

# seq_holes FILE: how many records do not carry the previous record's seq + 1.
seq_holes() {
	awk 'match($0, /"seq":[0-9]+/) { s = substr($0, RSTART + 6, RLENGTH - 6) + 0
		if (n && s != p + 1) bad++; p = s; n++ } END { print bad + 0 }' "$1"
}

# seg_check: the stream since seg_begin: tracetapd alive, check_seq exact, seq +1, the recorder
# never skipped or reconnected. SEG_SEEN describes it; returns 1 if any of it failed.
seg_check() {
	local f=$TT_TMP/seg.jsonl bad=0 out holes g l r miss
	tail -n +"$SEG_REC" "$REC" >"$f" # from the record before the fault: a hole right after it counts
	alive || { SEG_SEEN="tracetapd died"; return 1; }
	out=$("$CHECK_SEQ" "$f" 2>&1) || bad=1
	holes=$(seq_holes "$f")
	[ "$holes" -eq 0 ] || bad=1
	g=$(grep -c '"type":"gap"' "$f")
	l=$(sed -n 's/.*"type":"gap".*"lost":\([0-9]*\).*/\1/p' "$f" | awk '{ s += $1 } END { print s + 0 }')
	r=$(grep -c '"type":"reset"' "$f")
	miss=$(seg_tail | grep -cE 'missed records|connection lost|server closed')
	[ "$miss" -eq 0 ] || bad=1
	SEG_SEEN="gaps $g (lost $l) resets $r; seq holes $holes; recorder skips $miss"
	[ $bad -eq 0 ] || SEG_SEEN="$SEG_SEEN; check_seq: ${out##*$'\n'}"
	return $bad
}

# fault_end NAME EXPECTED SEEN OK: the stream must go on for 1000 events, then seg_check.
fault_end() {
	local ok=$4
	advance_soft 1000 30 || { ok=1; SEEN_MORE="stream stuck; "; }
	seg_check || ok=1
	row "$1" "$2" "${SEEN_MORE:-}$3; $SEG_SEEN" "$(verdict $ok)"
	SEEN_MORE=""
}

# ---- target-side faults ---------------------------------------------------------------------

fault_openocd_kill() {
	local old new="" ok=0 end
	seg_begin
	old=$(ocd_child) || { row "OpenOCD killed" "-" "no OpenOCD child" FAIL; return; }
	kill -KILL "$old"
	seg_wait_state 'disconnected|stalled' || ok=1
	end=$((SECONDS + 20))
	until new=$(ocd_child) && [ "$new" != "$old" ]; do
		[ $SECONDS -lt $end ] || { ok=1; break; }
		sleep 0.05
	done
	fault_end "OpenOCD killed" "status disconnected; new OpenOCD; exact" \
		"states $(seg_states); OpenOCD $old->${new:-none}" $ok
}

fault_sim_restart() {
	local ok=0
	seg_begin
	sim_restart_same_port
	seg_wait_state 'disconnected|stalled' 20 || ok=1
	fault_end "simulator restarted" "status stalled/disconnected; exact" \
		"states $(seg_states); OpenOCD now $(ocd_child || echo none)" $ok
}

fault_power() {
	local ok=0
	seg_begin
	tt_ctl 'power off'
	seg_wait_state 'disconnected|stalled' || ok=1
	tt_ctl 'power on'
	fault_end "power loss" "status stalled/disconnected; exact" "states $(seg_states)" $ok
}

# OpenOCD replays every WAIT: nothing may be lost. On a loaded machine (a sanitizer build beside
# other suites) the 3000 round trips can outlast OpenOCD's WAIT recovery timeout ("Timeout during
# WAIT recovery"): OpenOCD then aborts the AP transaction (DAPABORT, which ends the storm in the
# simulator), that read fails and the state goes stalled and back, which is allowed. Every WAIT
# is accounted for: answered, or cancelled by OpenOCD's abort.
fault_wait_storm() {
	local ok=0 w0 w1 a0 a1 st
	seg_begin
	w0=$(sim_stat waits)
	a0=$(sim_stat waits_aborted)
	wait_storm_paused || ok=1
	w1=$(sim_stat waits)
	a1=$(sim_stat waits_aborted)
	[ $((w1 - w0)) -gt 0 ] && [ $((w1 - w0 + a1 - a0)) -ge 3000 ] || ok=1
	advance_soft 500 30 || ok=1
	st=$(seg_states)
	[ -z "$st" ] || [ "${st##*,}" = connected ] || ok=1
	[ "$(tail -n +$((SEG_REC + 1)) "$REC" | grep -c '"type":"gap"')" -eq 0 ] || ok=1
	fault_end "WAIT storm" ">=3000 WAITs answered or aborted; no gap; connected at the end" \
		"$((w1 - w0)) WAITs answered, $((a1 - a0)) aborted; states ${st:-none}" $ok
}

fault_bus_fault() {
	local ok=0
	seg_begin
	# the whole entry area: header at BASE+0x1000, registry 16 x 48 bytes, then the entries
	tt_ctl "busfault $(printf '0x%x' $((BASE + 0x1000 + 48 + 768))) $((ENTRIES * 32))"
	seg_wait_state 'stalled' || ok=1
	tt_ctl 'busfault off'
	fault_end "bus fault" "status stalled; exact" "states $(seg_states)" $ok
}

fault_target_reset() {
	local ok=0 end n
	seg_begin
	kill -USR1 "$TT_PID_fw"
	tt_expect fw '^reset n=[0-9]+ '
	end=$((SECONDS + 15))
	until n=$(tail -n +$((SEG_REC + 1)) "$REC" | grep -c '"type":"reset"') && [ "$n" -ge 1 ]; do
		[ $SECONDS -lt $end ] || { ok=1; break; }
		sleep 0.05
	done
	fault_end "target reset" "1 reset record; exact" "$n reset record(s)" $ok
}

# ---- client-side faults ---------------------------------------------------------------------

# fd_settles BOUND: until tracetapd has at most BOUND open fds (10 s); FDN = the last count.
fd_settles() {
	local end=$((SECONDS + 10))
	until FDN=$(fdcount) && [ "$FDN" -le "$1" ]; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}

fault_client_flood() {
	local ok=0 out c0 c1 end
	seg_begin
	c0=$(metric tracetap_clients)
	out=$("$WSFAULT" flood "$PORT" 3 1000) || ok=1
	[[ $out =~ started=([0-9]+).*upgrade_wanted=([0-9]+)\ upgraded=([0-9]+)\ refused=([0-9]+)\ bad_answer=([0-9]+)\ timeouts=([0-9]+).*rate=([0-9]+) ]] ||
		{ row "client flood" "-" "tt-wsfault: $out" FAIL; return; }
	local started=${BASH_REMATCH[1]} want=${BASH_REMATCH[2]} up=${BASH_REMATCH[3]}
	local refused=${BASH_REMATCH[4]} badans=${BASH_REMATCH[5]} tmo=${BASH_REMATCH[6]}
	local rate=${BASH_REMATCH[7]}
	[ "$rate" -ge 900 ] && [ "$up" -eq "$want" ] && [ "$refused" -eq 0 ] && [ "$badans" -eq 0 ] &&
		[ "$tmo" -eq 0 ] || ok=1
	end=$((SECONDS + 10))
	until c1=$(metric tracetap_clients) && [ "$c1" -le "$c0" ]; do
		[ $SECONDS -lt $end ] || { ok=1; break; }
		sleep 0.1
	done
	fd_settles $((FD0 + 2)) || ok=1
	fault_end "client flood" "1000 connects/s x 3 s; every upgrade 101; clients, fds back" \
		"$started at ${rate}/s, $up/$want upgraded, $refused refused, $tmo timeouts; clients $c0->$c1, fds $FDN" $ok
}

fault_slow_client() {
	local ok=0 out
	seg_begin
	out=$("$WSFAULT" slow "$PORT" sim 60) || ok=1
	[[ $out =~ gap_msgs=([0-9]+)\ gap_lost=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 1 ] &&
		[ "${BASH_REMATCH[2]}" -ge 1 ] || ok=1
	fault_end "slow client" "it gets a 'slow client' gap with the exact count; others unaffected" \
		"${out#slow }" $ok
}

# What the server does with each malformed client message (tt-wsfault bad KIND), as a regex.
# unmasked: RFC 6455 wants 1002, but libwebsockets 4.1 accepts unmasked client frames (the mask
# bit is not visible to the callback), so the frame is processed: its `{}` is a bad_request.
MALFORMED=(
	"unmasked:error-bad_request,open"
	"reserved-opcode:close-1002"
	"rsv-bits:close-1002"
	"bad-continuation:close-1002"
	"long-ping:close-1002|dropped"
	"bad-utf8:close-1007"
	"binary:close-1003"
	"oversize:close-1009"
	"huge-length:close-1009"
	"bad-json:error-bad_request,open"
)

fault_malformed() {
	local m kind exp out seen ok=0 bad0 bad1
	seg_begin
	bad0=$(metric tracetap_bad_messages_total)
	for m in "${MALFORMED[@]}"; do
		kind=${m%%:*}
		exp=${m#*:}
		out=$("$WSFAULT" bad "$PORT" "$kind" 2>&1)
		seen=$(sed -n 's/.*seen=\([^ ]*\).*/\1/p' <<<"$out")
		if [[ $seen =~ ^($exp)$ ]] && alive; then
			row "malformed: $kind" "$exp" "$seen" PASS
		else
			row "malformed: $kind" "$exp" "${seen:-$out}" FAIL
		fi
	done
	bad1=$(metric tracetap_bad_messages_total)
	[ "$bad1" -gt "$bad0" ] || ok=1
	fault_end "malformed: stream" "recorder unaffected; bad messages counted" \
		"tracetap_bad_messages_total $bad0->$bad1" $ok
}

# ---- end --------------------------------------------------------------------------------------

fault_finish() {
	local rc=0 n miss fd1 sanit
	fw_stop
	miss=$(grep -cE 'missed records|connection lost|server closed' "$TAILERR")
	fd_settles $((FD0 + 2))
	fd1=$FDN
	row "open fds" "<= $((FD0 + 2)) (start $FD0)" "$fd1" "$(verdict $((fd1 > FD0 + 2)))"
	local out holes
	out=$("$CHECK_SEQ" --last "$LAST" "$REC" 2>&1) && n=0 || n=1
	holes=$(seq_holes "$REC")
	[ "$holes" -eq 0 ] && [ "$miss" -eq 0 ] || n=1
	row "whole stream" "every event once or in an exact gap; seq +1; recorder never skipped" \
		"${out##*$'\n'}; seq holes $holes; recorder skips $miss" "$(verdict $n)"
	kill -TERM "$DPID"
	wait "$DPID" || rc=$?
	sanit=$(grep -cE 'ERROR: (Leak|Address)Sanitizer|runtime error:' "$DLOG")
	if ldd "$FAULT_TRACETAPD" 2>/dev/null | grep -q libasan; then
		row "SIGTERM (ASan+LSan build)" "exit 0; no sanitizer report" "exit $rc; $sanit report(s)" \
			"$(verdict $((rc != 0 || sanit != 0)))"
	else
		row "SIGTERM" "exit 0 (leaks: run with an ASan build)" "exit $rc; $sanit report(s)" \
			"$(verdict $((rc != 0 || sanit != 0)))"
	fi
	kill "$TAIL_PID" 2>/dev/null
}

fault_print_matrix() {
	local r f e s v
	printf '\n%-26s | %-48s | %-s | %s\n' fault expected seen result
	printf '%s\n' "---------------------------------------------------------------------------"
	for r in "${ROWS[@]}"; do
		IFS=$'\t' read -r f e s v <<<"$r"
		printf '%-26s | %-48s | %s | %s\n' "$f" "$e" "$s" "$v"
	done
	echo
}
