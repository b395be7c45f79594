# bench/lib.sh: what bench/run.sh and tests/e2e/bench.sh share (sourced after tests/sim/lib.sh,
# whose tt_die and cleanup they use). Needs TRACETAPD.

# bench_daemon ERR_FILE ARGS...: tracetapd ARGS with its server on an ephemeral port of
# 127.0.0.1 (stdout discarded, stderr in ERR_FILE); sets DP (pid) and HPORT. Deadline 10 s.
bench_daemon() {
	local err=$1 end=$((SECONDS + 10))
	shift
	"$TRACETAPD" "$@" --port 0 >/dev/null 2>"$err" &
	DP=$!
	TT_PIDS+=("$DP")
	until grep -q 'dashboard at http://127.0.0.1:[0-9]*/' "$err"; do
		[ $SECONDS -lt $end ] && kill -0 "$DP" 2>/dev/null || tt_die "tracetapd did not print its port"
		sleep 0.05
	done
	HPORT=$(sed -n 's|.*dashboard at http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$err")
}

# bench_metric PORT NAME: the sum of a /metrics counter over its labels.
bench_metric() {
	curl -s "http://127.0.0.1:$1/metrics" |
		awk -v m="$2" '$1 ~ "^"m"({|$)" { s += $2 } END { printf "%d", s }'
}
