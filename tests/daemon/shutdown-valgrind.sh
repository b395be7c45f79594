#!/usr/bin/env bash
# tests/daemon/shutdown-valgrind.sh: tracetapd under valgrind, streaming to a connected
# `tracetap tail` client and answering HTTP, then SIGTERM: the client gets close code 1001, the
# daemon exits 0 with no memory error and nothing left allocated.
# usage: shutdown-valgrind.sh TRACETAPD TRACETAP FW_THREADX
tracetapd=$1 tracetap=$2 fw=$3
. "$(dirname "$0")/lib.sh"
logs=("$work/vg.log")

"$fw" --ram "$work/ram.bin" --base 0x20000000 --size 65536 --rate 500 --duration 120 \
  > "$work/fw.out" 2>&1 &
pids+=($!)
valgrind --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all --track-fds=no \
  "$tracetapd" --probe "file:$work/ram.bin" --base 0x20000000 --pointer 0x20000000 --port 0 \
  --web "$work" 2> "$work/vg.log" &
vpid=$!
pids+=($vpid)
daemon_port "$work/vg.log" 60
"$tracetap" tail --json "ws://127.0.0.1:$port/" > "$work/tail.out" 2> "$work/tail.err" &
tpid=$!
pids+=($tpid)
end=$((SECONDS + 60))
until [ "$(wc -l < "$work/tail.out")" -gt 100 ]; do
  [ $SECONDS -lt $end ] || fail "no records reached the client"; sleep 0.1
done
curl -sf "http://127.0.0.1:$port/api/targets" > /dev/null || fail "/api/targets"
curl -sf "http://127.0.0.1:$port/api/export?target=ram&format=trx" > "$work/x.trx" || fail "export"
kill -TERM "$vpid"
rc=0; wait "$vpid" || rc=$?
[ "$rc" -eq 0 ] || fail "tracetapd exited with $rc"
grep -q "ERROR SUMMARY: 0 errors" "$work/vg.log" || fail "valgrind found errors"
grep -q "in use at exit: 0 bytes in 0 blocks" "$work/vg.log" || fail "memory left allocated at exit"
end=$((SECONDS + 30))
until grep -q "1001" "$work/tail.err"; do
  [ $SECONDS -lt $end ] || fail "the client was not told 1001 (stderr: $(head -c 300 "$work/tail.err"))"
  sleep 0.1
done
echo "ok: $(wc -l < "$work/tail.out") records streamed; SIGTERM: exit 0, valgrind clean, client told 1001"
