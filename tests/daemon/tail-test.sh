#!/usr/bin/env bash
# tests/daemon/tail-test.sh: `tracetap tail --json` through the whole real chain (ThreadX
# workload -> tt-simtarget -> OpenOCD spawned by tracetapd -> WebSocket) receives every record
# exactly once across forced disconnects: the client talks to the daemon through a TCP relay
# (socat) that the test kills and restarts, so the client's connection really drops and it
# must reconnect and resume from its last sequence number.
# usage: tail-test.sh TRACETAPD TRACETAP SIMTARGET FW_THREADX CHECK_SEQ OPENOCD_CFG
tracetapd=$1 tracetap=$2 sim=$3 fw=$4 check=$5 ocfg=$6
. "$(dirname "$0")/lib.sh"
logs=("$work/d.log" "$work/tail.err")

"$sim" --base 0x20000000 --size 131072 --ram "$work/ram.bin" > "$work/sim.out" 2>&1 &
pids+=($!)
wait_for "$work/sim.out" '^listening port=' 30
sim_port=$(sed -n 's/^listening port=\([0-9]*\)/\1/p' "$work/sim.out")
"$fw" --ram "$work/ram.bin" --base 0x20000000 --size 131072 --rate 400 --time counter \
  --duration 120 > "$work/fw.out" 2>&1 &
pids+=($!)
${TT_WRAP-} "$tracetapd" --name sim --port 0 --web "$work" --probe openocd-spawn -f "$ocfg" \
  -c "remote_bitbang port $sim_port" --pointer 0x20000000 --start-at-now 2> "$work/d.log" &
dpid=$!
pids+=($dpid)
daemon_port "$work/d.log" 30

relay "$port"
${TT_WRAP-} "$tracetap" tail --json "ws://127.0.0.1:$relay_port/" > "$work/tail.jsonl" 2> "$work/tail.err" &
tpid=$!
pids+=($tpid)

count() { wc -l < "$work/tail.jsonl"; }
wait_more() { # at least N more lines than now, within S seconds
  local want=$(( $(count) + $1 )) end=$((SECONDS + $2))
  until [ "$(count)" -ge "$want" ]; do [ $SECONDS -lt $end ] || fail "stream stalled at $(count) lines"; sleep 0.1; done
}
wait_more 200 20
for round in 1 2 3; do
  before=$(grep -c "reconnected" "$work/tail.err" || true)
  relay_cut
  sleep 1   # the daemon keeps streaming into the history meanwhile
  relay "$port" "$relay_port"
  wait_until_reconnected() {
    local end=$((SECONDS + 20))
    until [ "$(grep -c "reconnected" "$work/tail.err" || true)" -gt "$before" ]; do
      [ $SECONDS -lt $end ] || fail "round $round: the client did not reconnect"; sleep 0.05
    done
  }
  wait_until_reconnected
  wait_more 200 20
  echo "ok: round $round: reconnected, $(count) records so far"
done
kill "$tpid"; wait "$tpid" 2>/dev/null || true

# Every hub sequence number exactly once, in order, no hole; every event exactly once (the
# workload's counter time stamps) with no gap.
jq -r .seq "$work/tail.jsonl" | awk 'NR == 1 { prev = $1; next } $1 != prev + 1 { print "seq " $1 " after " prev; bad = 1 } { prev = $1 } END { exit bad }' ||
  fail "sequence numbers repeat or skip across reconnects"
"$check" --lossless --min-events 700 "$work/tail.jsonl" || fail "events lost or repeated"
reconnects=$(grep -c "reconnected" "$work/tail.err" || true)
[ "$reconnects" -ge 3 ] || fail "the client did not report its reconnections (stderr: $(head -c 300 "$work/tail.err"))"
echo "ok: $(count) records exactly once across 3 forced disconnects"
kill -TERM "$dpid"
rc=0; wait "$dpid" || rc=$?
[ "$rc" -eq 0 ] || fail "tracetapd exited with $rc"
