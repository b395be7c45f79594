#!/usr/bin/env bash
# tests/prometheus/metrics-test.sh RULES TRACETAPD: the alert rules speak of metrics tracetapd
# really serves. A rule on a misspelt or renamed metric is valid PromQL that never fires, which
# promtool cannot see: so a real tracetapd (one target on an OpenOCD port nobody listens on)
# is scraped, the scrape must pass `promtool check metrics`, and every tracetap_* name in the
# rules must be in it, each one the rules take increase() of typed as a counter.
. "$(dirname "$0")/../daemon/lib.sh"
rules=${1:?usage: metrics-test.sh RULES TRACETAPD}
tracetapd=${2:?usage: metrics-test.sh RULES TRACETAPD}

# A port that refuses: bind one, note it, close it (the target stays disconnected; nothing
# else on loopback is expected to take it within the test).
closed=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
logs=("$work/daemon.log")
${TT_WRAP-} "$tracetapd" --port 0 --name b1 --probe "openocd:127.0.0.1:$closed" \
  --address 0x20000000 > "$work/daemon.log" 2>&1 &
pids+=($!)
daemon_port "$work/daemon.log" 30
# the target is listed once the first attempt was made (state known)
wait_for "$work/daemon.log" 'target b1: ' 30
curl -sf "http://127.0.0.1:$port/metrics" > "$work/metrics.txt" || fail "GET /metrics failed"
promtool check metrics < "$work/metrics.txt" || fail "promtool check metrics: the scrape has problems (above)"

# the names in the rules (comment lines left out: they may speak of tracetap_* in general)
names=$(grep -v '^[[:space:]]*#' "$rules" | grep -oE 'tracetap_[a-z_]*[a-z]' | sort -u)
[ -n "$names" ] || fail "$rules names no tracetap_ metric"
counters=$(grep -v '^[[:space:]]*#' "$rules" | grep -oE 'increase\(tracetap_[a-z_]*[a-z]' |
  sed 's/increase(//' | sort -u)
bad=0
for n in $names; do
  if ! grep -q "^# TYPE $n " "$work/metrics.txt"; then
    echo "MISSING: $rules uses $n, which tracetapd's /metrics does not serve"; bad=1
  elif ! grep -q "^$n{target=\"b1\"} \|^$n " "$work/metrics.txt"; then
    echo "NO SAMPLE: $n has no sample"; bad=1
  else
    echo "ok: $n"
  fi
done
for n in $counters; do
  grep -q "^# TYPE $n counter$" "$work/metrics.txt" || { echo "NOT A COUNTER: increase($n)"; bad=1; }
done
[ $bad = 0 ] || fail "the rules and /metrics disagree"
echo "metrics-test: $(echo "$names" | wc -w) metric names of the rules served by tracetapd"
