#!/usr/bin/env bash
# tests/e2e/bench.sh: the end-to-end benchmark (not a test: it asserts nothing, it measures).
# Prints one table: the link's raw read_memory throughput (tt-bench-link, same run), probe bytes
# per delivered event in steady state (tracetapd's /metrics), the highest event rate followed
# without loss (bisection, a few seconds per trial) as a fraction of the raw link, and the latency
# from the workload writing an entry to tracetapd printing it, p50/p99 at 1,000 events/s.
# bench/run.sh also runs the parts `naive` (the same bytes/event and lossless rate for
# tt-bench-naive, a reader that dumps the whole buffer each poll) and `wslatency` (latency to a
# WebSocket client, `tracetap tail --json`, at several rates, with the loss reported).
#
# usage: bench.sh BENCH_LINK LATENCY OPENOCD_CFG  (env: TRACETAPD CHECK_SEQ SIMTARGET FW_THREADX)
#   meson test -C BUILD --benchmark -v e2e-bench
# env knobs: TRIAL_S (seconds per bisection trial, 5), STEPS (bisection steps, 6),
#   BUF (trace buffer bytes, 0x10000), DAEMON_ARGS (extra tracetapd arguments, e.g. --poll-max 50)
#   PARTS (default "link bpe lossless latency"; also "naive" (env NAIVE: tt-bench-naive) and
#   "wslatency" (env TAIL: the tracetap client, LAT_RATES "100 1000 10000", LAT_S seconds, 10)).
# The last lines are `result KEY=VALUE`, for bench/run.sh.
set -u
BENCH_LINK=$1 LATENCY=$2 OPENOCD_CFG=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../sim/lib.sh"
. "$here/../../bench/lib.sh"

BASE=0x20000000
RAM_SIZE=0x40000
BUF=${BUF:-0x10000}
TRIAL_S=${TRIAL_S:-5}
STEPS=${STEPS:-6}
PARTS=" ${PARTS:-link bpe lossless latency} "
read -r -a XARGS <<<"${DAEMON_ARGS:-}"
K=0
has() { [[ $PARTS == *" $1 "* ]]; }
result() { RESULTS+=("result $1"); }
RESULTS=()

# chain RATE [FW ARGS...]: a fresh simulator and workload (names sim$K, fw$K); SIM_PORT, FWPID,
# HDR (trace header address), ENTRIES, START_NS.
chain() {
	local rate=$1
	shift
	K=$((K + 1))
	rm -f "$TT_TMP/ram$K.bin"
	tt_spawn "sim$K" "$SIMTARGET" --ctl "$TT_TMP/sim$K.ctl" --base $BASE --size $RAM_SIZE \
		--ram "$TT_TMP/ram$K.bin"
	tt_expect "sim$K" '^listening port=([0-9]+)$'
	SIM_PORT=${BASH_REMATCH[1]}
	tt_spawn "fw$K" "$FW_THREADX" --ram "$TT_TMP/ram$K.bin" --base $BASE --size $RAM_SIZE \
		--buf-size "$BUF" --rate "$rate" "$@"
	tt_expect "fw$K" '^header=(0x[0-9a-f]+) .*entries=([0-9]+).* mono_start_ns=([0-9]+)'
	HDR=${BASH_REMATCH[1]} ENTRIES=${BASH_REMATCH[2]} START_NS=${BASH_REMATCH[3]}
	local v="TT_PID_fw$K"
	FWPID=${!v}
}

daemon_args() {
	DARGS=(--name sim --pointer $BASE --log-level notice --probe openocd-spawn -f "$OPENOCD_CFG"
		-c "remote_bitbang port $SIM_PORT" "${XARGS[@]}")
}

chain_stop() {
	local p
	for p in "$@"; do kill -TERM "$p" 2>/dev/null; done
	for p in "$@"; do wait "$p" 2>/dev/null; done
	return 0
}

# 1. the raw link, measured now (the lossless bisections start from it)
if has link || has lossless || has naive; then
	"$BENCH_LINK" "$SIMTARGET" "$OPENOCD_CFG" spawn 2 >"$TT_TMP/link.txt" || tt_die "tt-bench-link failed"
	cat "$TT_TMP/link.txt"
	LINK_KIB=$(sed -n 's/^read  4096 B:.* \([0-9.]*\) KiB\/s$/\1/p' "$TT_TMP/link.txt")
	LINK1_KIB=$(sed -n 's/^read  1024 B:.* \([0-9.]*\) KiB\/s$/\1/p' "$TT_TMP/link.txt")
	[ -n "$LINK_KIB" ] || tt_die "no 4096 B figure from tt-bench-link"
	LINK_EPS=$(awk -v k="$LINK_KIB" 'BEGIN { printf "%d", k * 1024 / 32 }')
	result "link_kib_s=$LINK_KIB"
	result "link_1k_kib_s=$LINK1_KIB"
	result "link_entries_s=$LINK_EPS"
fi

# 2. probe bytes per delivered event, steady state at 1,000 events/s (server on an ephemeral port)
if has bpe; then
	chain 1000 --time counter
	daemon_args
	bench_daemon "$TT_TMP/metrics-daemon.err" "${DARGS[@]}" --web "$here"
	sleep 3 # past the attach history: steady state only
	b0=$(bench_metric "$HPORT" tracetap_probe_bytes_total) e0=$(bench_metric "$HPORT" tracetap_events_total)
	sleep 5
	b1=$(bench_metric "$HPORT" tracetap_probe_bytes_total) e1=$(bench_metric "$HPORT" tracetap_events_total)
	chain_stop "$DP" "$FWPID"
	[ "$e1" -gt "$e0" ] || tt_die "no events counted in /metrics ($e0 -> $e1)"
	BPE=$(awk -v b=$((b1 - b0)) -v e=$((e1 - e0)) 'BEGIN { printf "%.1f", b / e }')
	echo "steady state at 1000/s: $((b1 - b0)) probe bytes for $((e1 - e0)) events"
	result "bpe=$BPE"
fi

# 3. highest lossless rate: bisection. A trial: the workload at RATE for TRIAL_S seconds; pass =
# check_seq exact over the whole stream, the last event arrived, and no gap among the events
# written after the first 1.5 s (the attach transient is reported apart, see README.md).
trial() {
	local rate=$1 rec="$TT_TMP/trial$((K + 1)).jsonl"
	chain "$rate" --time counter
	daemon_args
	"$TRACETAPD" "${DARGS[@]}" --no-server --stdout >"$rec" 2>"$TT_TMP/trial$K.log" &
	local dp=$! fp=$FWPID
	sleep "$TRIAL_S"
	kill -TERM "$fp"
	tt_expect "fw$K" '^summary events=([0-9]+) ' 10
	local last=${BASH_REMATCH[1]} end=$((SECONDS + 10))
	until "$CHECK_SEQ" --last "$last" "$rec" >/dev/null 2>&1; do
		[ $SECONDS -lt $end ] && kill -0 "$dp" 2>/dev/null || break
		sleep 0.2
	done
	chain_stop "$dp"
	local settle=$((rate * 3 / 2 + 11)) out
	out=$("$CHECK_SEQ" --last "$last" "$rec" 2>&1) && awk -v n="$settle" \
		'f || (match($0, /"time":[0-9]+,/) && substr($0, RSTART + 7, RLENGTH - 8) + 0 > n) { f = 1; print }' \
		"$rec" | "$CHECK_SEQ" --lossless --min-events 100 >/dev/null 2>&1
	local rc=$?
	TRIAL_ATTACH_GAPS=$(awk -v n="$settle" '/"type":"gap"/ { g++ } match($0, /"time":[0-9]+,/) && substr($0, RSTART + 7, RLENGTH - 8) + 0 > n { print g + 0; exit }' "$rec")
	echo "trial rate=$rate: $([ $rc -eq 0 ] && echo lossless || echo LOSS) ($(echo "$out" | tail -n 1); gaps before settling: ${TRIAL_ATTACH_GAPS:-?})"
	return $rc
}
# The same for tt-bench-naive (dumps the whole buffer each poll): pass = no sequence number
# lost after the first 1.5 s, at least 100 events seen.
naive_trial() {
	local rate=$1 out
	chain "$rate" --time counter
	out=$("$NAIVE" "$OPENOCD_CFG" "$SIM_PORT" "$HDR" "$BUF" "$TRIAL_S" $((rate * 3 / 2 + 11)))
	chain_stop "$FWPID"
	local after=${out##*lost_after_settle=} ev=${out##*events=}
	after=${after%% *} ev=${ev%% *}
	[ "${after:-1}" = 0 ] && [ "${ev:-0}" -ge 100 ]
	local rc=$?
	echo "naive trial rate=$rate: $([ $rc -eq 0 ] && echo lossless || echo LOSS) ($out)"
	return $rc
}
# bisect TRIAL_FN: the highest rate TRIAL_FN passes at, in LO.
bisect() {
	local hi=$((LINK_EPS * 3 / 2)) mid
	LO=0
	"$1" 200 && LO=200
	for _ in $(seq "$STEPS"); do
		mid=$(((LO + hi) / 2))
		if "$1" "$mid"; then LO=$mid; else hi=$mid; fi
	done
}
if has lossless; then
	bisect trial
	lo=$LO
	FRAC=$(awk -v r="$lo" -v l="$LINK_EPS" 'BEGIN { printf "%.2f", r / l }')
	result "lossless=$lo"
	result "lossless_frac=$FRAC"
fi

# 3b. the naive reader: bytes per delivered event at 1,000 events/s (after its first dump),
# then its highest lossless rate
if has naive; then
	chain 1000 --time counter
	NOUT=$("$NAIVE" "$OPENOCD_CFG" "$SIM_PORT" "$HDR" "$BUF" 8 1000000000)
	chain_stop "$FWPID"
	echo "naive at 1000/s: $NOUT"
	NBPE=${NOUT##*bytes_per_event=} NPOLL=${NOUT##*poll_ms=} NLOST=${NOUT##* lost=}
	result "naive_bpe=${NBPE%% *}"
	result "naive_lost_1000=${NLOST%% *}"
	result "naive_poll_ms=${NPOLL%% *}"
	bisect naive_trial
	result "naive_lossless=$LO"
	result "naive_lossless_frac=$(awk -v r="$LO" -v l="$LINK_EPS" 'BEGIN { printf "%.2f", r / l }')"
fi

# 4. latency at 1,000 events/s: --time cycles (100 MHz ticks from the workload's CLOCK_MONOTONIC)
if has latency; then
	chain 1000 --time cycles --tick-hz 100000000
	daemon_args
	mkfifo "$TT_TMP/lat.fifo"
	"$LATENCY" "$START_NS" 100000000 2000 <"$TT_TMP/lat.fifo" >"$TT_TMP/lat.txt" &
	LP=$!
	"$TRACETAPD" "${DARGS[@]}" --no-server --stdout >"$TT_TMP/lat.fifo" 2>"$TT_TMP/lat-daemon.err" &
	DP=$!
	sleep 7
	chain_stop "$DP"      # its stdout closes: the reader sees EOF and prints
	wait "$LP"
	chain_stop "$FWPID"
	cat "$TT_TMP/lat.txt"
	P50=$(sed -n 's/.* p50_ms=\([0-9.]*\).*/\1/p' "$TT_TMP/lat.txt")
	P99=$(sed -n 's/.* p99_ms=\([0-9.]*\).*/\1/p' "$TT_TMP/lat.txt")
	result "stdout_latency_1000=$P50/$P99"
fi

# 4b. latency to a WebSocket client (`tracetap tail --json`, line-buffered, piped into
# tt-e2e-latency) at each of LAT_RATES for LAT_S seconds. tracetapd --start-at-now: live events
# only (no attach history to catch up on); events written in the first 3 s (OpenOCD start-up)
# are skipped. Loss: gap records in the stream (the reader lapped) and records the client
# missed (its stderr).
if has wslatency; then
	LAT_S=${LAT_S:-10}
	for rate in ${LAT_RATES:-100 1000 10000}; do
		chain "$rate" --time cycles --tick-hz 100000000
		daemon_args
		bench_daemon "$TT_TMP/wslat$rate-daemon.err" "${DARGS[@]}" --web "$here" --start-at-now
		"$TAIL" tail --json --duration $((LAT_S + 3)) "ws://127.0.0.1:$HPORT/" \
			2>"$TT_TMP/wslat$rate-tail.err" | tee "$TT_TMP/wslat$rate.jsonl" |
			"$LATENCY" "$START_NS" 100000000 3000 >"$TT_TMP/wslat$rate.txt"
		chain_stop "$DP" "$FWPID"
		lat=$(cat "$TT_TMP/wslat$rate.txt")
		read -r ev gaps lost missed < <(bench_tail_loss "$TT_TMP/wslat$rate.jsonl" "$TT_TMP/wslat$rate-tail.err")
		echo "websocket latency at $rate/s: $lat; events=$ev gap_records=$gaps lost=$lost client_missed=$missed"
		p50=$(sed -n 's/.* p50_ms=\([0-9.]*\).*/\1/p' <<<"$lat")
		p99=$(sed -n 's/.* p99_ms=\([0-9.]*\).*/\1/p' <<<"$lat")
		result "ws_latency_$rate=${p50:-none}/${p99:-none}"
		result "ws_loss_$rate=$lost lost in $gaps gap records, $missed missed by the client, $ev events received"
	done
fi

printf '\n%-58s %s\n' "measure" "value"
has link && printf '%-58s %s\n' "raw link read_memory 4 KiB reads (tt-bench-link, spawn)" "$LINK_KIB KiB/s = $LINK_EPS entries/s"
has link && printf '%-58s %s\n' "raw link read_memory 1 KiB reads" "$LINK1_KIB KiB/s"
has bpe && printf '%-58s %s\n' "probe bytes per delivered event, steady state, 1000/s" "$BPE (goal <= 36)"
has lossless && printf '%-58s %s\n' "highest lossless rate (bisection, ${TRIAL_S} s trials)" "$lo events/s"
has lossless && printf '%-58s %s\n' "  as a fraction of the raw link" "$FRAC (goal >= 0.8)"
has latency && printf '%-58s %s\n' "latency write -> stdout at 1000/s, p50 / p99" "$P50 / $P99 ms"
printf '%s\n' "${RESULTS[@]}"
