#!/usr/bin/env bash
# tests/prometheus/metrics-test.sh RULES TRACETAPD FW_THREADX: the alert rules speak of metrics
# tracetapd really serves, and of what they really do. A rule on a misspelt or renamed metric
# is valid PromQL that never fires, which promtool cannot see: so a real tracetapd is scraped,
# the scrape must pass `promtool check metrics`, and every tracetap_* name in the rules must be
# in it, each one the rules take increase() of typed as a counter. Its two targets check the
# premise of TracetapTargetNotRead: an idle connected target ("idle", a file probe over a RAM
# image whose workload wrote its events, one priority inversion among them, on painted stacks,
# and stopped: the analysis's thread, stack and inversion families have samples) is read at
# every poll, so its probe bytes grow with no event; a disconnected one ("down", an OpenOCD port nobody listens on) reads none;
# tracetap_target_state says connected and disconnected, one state each.
. "$(dirname "$0")/../daemon/lib.sh"
usage="usage: metrics-test.sh RULES TRACETAPD FW_THREADX"
rules=${1:?$usage} tracetapd=${2:?$usage} fw=${3:?$usage}

"$fw" --ram "$work/idle.bin" --base 0x20000000 --size 65536 --buf-size 0x8000 --count 300 --rate 0 --inversion-at 2 --stacks 0xa000 > "$work/fw.log" 2>&1 ||
  fail "the workload failed: $(cat "$work/fw.log")"
written=$(sed -n 's/^summary events=\([0-9]*\) .*/\1/p' "$work/fw.log") # its setup events too
[ -n "$written" ] || fail "the workload printed no summary: $(cat "$work/fw.log")"
tick_hz=$(sed -n 's/^header=.* tick_hz=\([0-9]*\) .*/\1/p' "$work/fw.log")
[ -n "$tick_hz" ] || fail "the workload printed no tick_hz: $(cat "$work/fw.log")"
# A port that refuses: bind one, note it, close it.
closed=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf '{"port":0,"targets":[%s,%s]}\n' \
  "{\"name\":\"idle\",\"probe\":\"file:$work/idle.bin\",\"file_base\":\"0x20000000\",\"address\":\"0x20000000\",\"address_is_pointer\":true,\"tick_hz\":$tick_hz}" \
  "{\"name\":\"down\",\"probe\":\"openocd:127.0.0.1:$closed\",\"address\":\"0x20000000\"}" \
  > "$work/cfg.json"
logs=("$work/daemon.log")
${TT_WRAP-} "$tracetapd" --config "$work/cfg.json" > "$work/daemon.log" 2>&1 &
pids+=($!)
daemon_port "$work/daemon.log" 30

# sample NAME TARGET: the value of NAME{target="TARGET"} in a fresh scrape ($work/metrics.txt)
sample() {
  curl -sf "http://127.0.0.1:$port/metrics" > "$work/metrics.txt" || fail "GET /metrics failed"
  sed -n "s/^$1{target=\"$2\"} \([0-9.e+]*\)$/\1/p" "$work/metrics.txt"
}
end=$((SECONDS + 30))
until [ "$(sample tracetap_events_total idle)" = "$written" ]; do
  [ $SECONDS -lt $end ] || fail "target idle: not the $written events written within 30 s"
  sleep 0.1
done
first=$(sample tracetap_probe_bytes_total idle)
until [ "$(sample tracetap_probe_bytes_total idle)" != "$first" ]; do
  [ $SECONDS -lt $end ] || fail "target idle: probe bytes stayed at $first while connected"
  sleep 0.1
done
[ "$(sample tracetap_events_total idle)" = "$written" ] || fail "target idle: events changed (not idle)"
[ "$(sample tracetap_probe_bytes_total down)" = 0 ] || fail "target down: probe bytes read"
curl -sf "http://127.0.0.1:$port/api/targets" | grep -q '"name":"down"[^}]*"state":"disconnected"' ||
  fail "target down is not disconnected"
# the states the target rules match, as /api/targets has them (one line per state, one set)
for ts in idle:connected down:disconnected; do
  t=${ts%%:*} want=${ts#*:}
  on=$(grep -c "^tracetap_target_state{target=\"$t\",state=\"[a-z]*\"} 1$" "$work/metrics.txt")
  grep -q "^tracetap_target_state{target=\"$t\",state=\"$want\"} 1$" "$work/metrics.txt" && [ "$on" = 1 ] ||
    fail "target $t: tracetap_target_state is not $want alone: $(grep "^tracetap_target_state{target=\"$t\"" "$work/metrics.txt" | tr '\n' ' ')"
done
echo "ok: idle connected target read with no event ($first -> $(sample tracetap_probe_bytes_total idle) bytes), disconnected target 0 bytes"
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
  elif ! grep -q "^$n{\|^$n " "$work/metrics.txt"; then
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
