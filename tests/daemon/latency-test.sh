#!/usr/bin/env bash
# tests/daemon/latency-test.sh: --latency MS (and "latency_ms" in a configuration file) caps the
# poll interval. An idle buffer makes the adaptive interval grow to --poll-max (50 ms: seen
# first, so the test can tell the two apart); with a latency bound of 8 ms the interval the
# daemon uses (the tracetap_poll_interval_seconds gauge) is the bound minus the last poll's
# duration (the file probe's poll takes 0-1 ms by the loop's millisecond clock, more under
# valgrind: the test allows down to half the bound) and never exceeds the bound while sampled.
# usage: latency-test.sh TRACETAPD FW_THREADX
tracetapd=$1 fw=$2
. "$(dirname "$0")/lib.sh"

"$fw" --ram "$work/ram.bin" --base 0x20000000 --size 65536 --rate 0 --count 20 --time counter \
  > /dev/null || fail "tt-fw-threadx could not write the buffer"
probe=(--probe "file:$work/ram.bin" --base 0x20000000 --pointer 0x20000000)
interval() { # the gauge in ms, or empty
  curl -sf "http://127.0.0.1:$port/metrics" |
    awk '$1 ~ /^tracetap_poll_interval_seconds[{]/ { printf "%d", $2 * 1000 + 0.5 }'
}
wait_interval() { # ms, seconds: until the interval is in [ms / 2, ms] (exactly ms for 50)
  local end=$((SECONDS + $2)) v= lo=$(($1 == 50 ? 50 : $1 / 2))
  until v=$(interval) && [ -n "$v" ] && [ "$v" -ge $lo ] && [ "$v" -le "$1" ]; do
    [ $SECONDS -lt $end ] || fail "poll interval is ${v:-unknown} ms, not $lo-$1 ms after $2 s"
    sleep 0.05
  done
}
# run NAME ARGS...: a daemon with ARGS; sets port, dpid.
run() {
  local name=$1
  shift
  ${TT_WRAP-} "$tracetapd" "$@" --port 0 --web "$work" 2> "$work/$name.log" &
  dpid=$!
  pids+=($dpid)
  logs=("$work/$name.log")
  daemon_port "$work/$name.log" 20
}
stop() { kill "$dpid"; wait "$dpid" 2>/dev/null || true; }

run default --name t "${probe[@]}" --poll-max 50
wait_interval 50 20
stop

run option --name t "${probe[@]}" --poll-max 50 --latency 8
wait_interval 8 20
for _ in $(seq 40); do # 2 s of an idle target: without the cap it grows 8 -> 13 -> ... -> 50
  v=$(interval)
  [ -n "$v" ] && [ "$v" -le 8 ] || fail "--latency 8: poll interval ${v:-unknown} ms"
  sleep 0.05
done
stop

printf '{"port":0,"targets":[{"name":"t","probe":"file:%s/ram.bin","file_base":"0x20000000","address":"0x20000000","address_is_pointer":true,"poll_max_ms":50,"latency_ms":12}]}\n' \
  "$work" > "$work/cfg.json"
run config --config "$work/cfg.json"
wait_interval 12 20
stop

${TT_WRAP-} "$tracetapd" --name t "${probe[@]}" --latency 0 --port 0 2> "$work/zero.log" &&
  fail "--latency 0 was accepted"
grep -q -- '--latency: must be at least 1 ms' "$work/zero.log" ||
  fail "--latency 0: no clear error: $(cat "$work/zero.log")"
echo "ok: idle interval 50 ms by default, <= 8 ms with --latency 8, <= 12 ms with latency_ms 12"
