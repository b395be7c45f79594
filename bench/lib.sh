# bench/lib.sh: what bench/run.sh and tests/e2e/bench.sh share (sourced after tests/sim/lib.sh,
# whose tt_die and cleanup they use). Needs TRACETAPD.

# bench_daemon ERR_FILE ARGS...: tracetapd ARGS with its server on an ephemeral port of
# 127.0.0.1 (stdout discarded, stderr in ERR_FILE); sets DP (pid) and HPORT. Deadline 10 s.
bench_daemon() {
	local err=$1 end=$((SECONDS + 10))
	shift
	: >"$err" # emptied first: a log left by an earlier daemon would give its port
	"$TRACETAPD" "$@" --port 0 >/dev/null 2>"$err" &
	DP=$!
	TT_PIDS+=("$DP")
	until grep -q 'dashboard at http://127.0.0.1:[0-9]*/' "$err"; do
		[ $SECONDS -lt $end ] && kill -0 "$DP" 2>/dev/null || tt_die "tracetapd did not print its port"
		sleep 0.05
	done
	HPORT=$(sed -n 's|.*dashboard at http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$err")
}

# bench_tail_loss JSONL ERR: "events gap_records lost missed" of a `tracetap tail --json` run:
# records received, the gap records in the stream and their `lost` counts, and the records the
# client said it missed (its stderr).
bench_tail_loss() {
	read -r _ev _gaps _lost < <(awk '/"type":"event"/ { e++ } /"type":"gap"/ { g++;
		if (match($0, /"lost":[0-9]+/)) l += substr($0, RSTART + 7, RLENGTH - 7) }
		END { print e + 0, g + 0, l + 0 }' "$1")
	echo "$_ev $_gaps $_lost $(awk '/missed records/ { split($4, r, /\.\./); m += r[2] - r[1] + 1 }
		END { print m + 0 }' "$2")"
}

# bench_metric PORT NAME: the sum of a /metrics counter over its labels.
bench_metric() {
	curl -s "http://127.0.0.1:$1/metrics" |
		awk -v m="$2" '$1 ~ "^"m"({|$)" { s += $2 } END { printf "%d", s }'
}
