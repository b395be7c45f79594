#!/usr/bin/env bash
# tests/live/live-test.sh: follow a live 32-bit ThreadX-format writer with
# `tracetapd --probe process:PID` and check every event arrived exactly once, in order, or inside
# a gap whose count matches (tests/live/check_seq.c).
#
# usage: live-test.sh TRACETAPD LIVE_WRITER CHECK_SEQ RATE SECONDS ENTRIES [--lossless] [--elf]
# --elf: find the buffer from the writer's ELF symbol _tx_trace_header_ptr, not its address.
set -euo pipefail
tracetapd=$1 writer=$2 check=$3 rate=$4 secs=$5 entries=$6 mode=${7:-} where=${8:-}
. "$(dirname "$0")/lib.sh"

mkfifo "$work/hold"
"$writer" "$rate" "$secs" "$entries" < "$work/hold" > "$work/writer.out" &
wpid=$!
exec 3> "$work/hold"   # the writer lingers until this closes
wait_for "$work/writer.out" '^pid=' 10
read -r pidf hdrf _ < "$work/writer.out"
pid=${pidf#pid=} hdr=${hdrf#header=}

locate=(--address "$hdr")
[ "$where" = --elf ] && locate=(--elf "$writer")
"$tracetapd" --probe "process:$pid" "${locate[@]}" --stdout --poll-min 1 --poll-max 10 \
  --log-level notice --no-server > "$work/records.jsonl" 2> "$work/daemon.log" &
dpid=$!

wait_for "$work/writer.out" '^done' $((${secs%.*} + 30))
last=$(sed -n 's/^done seq=\([0-9]*\).*/\1/p' "$work/writer.out")
wrate=$(sed -n 's/^done .*rate=\([0-9]*\).*/\1/p' "$work/writer.out")
# The last event must reach the stream: wait for its number in a record (info 1 or info 3).
deadline=$((SECONDS + 20))
until "$check" --last "$last" "$work/records.jsonl" > /dev/null 2>&1; do
  if [ "$SECONDS" -ge "$deadline" ]; then break; fi
  sleep 0.1
done
kill -TERM "$dpid"
rc=0; wait "$dpid" || rc=$?
dpid=""
if [ "$rc" -ne 0 ]; then
  echo "live-test: tracetapd exited with $rc"; cat "$work/daemon.log"; exit 1
fi
echo "live-test: writer wrote $last events at $wrate events/s into $entries slots"
args=(--last "$last" --min-events 1000)
[ "$mode" = --lossless ] && args+=(--lossless)
if ! "$check" "${args[@]}" "$work/records.jsonl"; then
  echo "--- daemon log"; tail -20 "$work/daemon.log"; exit 1
fi
