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
# --lossless needs a reader that keeps up: the writer is paced by what the stream delivered
# (the newest event time, every 64 records, in $work/read.pos), never by the machine's speed
pace_env=()
if [ "$mode" = --lossless ]; then
  mkfifo "$work/pace.fifo"
  : > "$work/records.jsonl"
  tail -n +1 -F "$work/records.jsonl" 2>/dev/null > "$work/pace.fifo" &
  pacers+=($!)
  awk -v f="$work/read.pos" 'match($0, /"time":[0-9]+/) && ++n % 64 == 0 {
    print substr($0, RSTART + 7, RLENGTH - 7) > f; close(f) }' < "$work/pace.fifo" &
  pacers+=($!)
  pace_env=(LIVE_WRITER_PACE="$work/read.pos")
fi
env "${pace_env[@]}" "$writer" "$rate" "$secs" "$entries" < "$work/hold" > "$work/writer.out" &
wpid=$!
exec 3> "$work/hold"   # the writer lingers until this closes
wait_for "$work/writer.out" '^pid=' 10
read -r pidf hdrf _ < "$work/writer.out"
pid=${pidf#pid=} hdr=${hdrf#header=}

locate=(--address "$hdr")
[ "$where" = --elf ] && locate=(--elf "$writer")
"$tracetapd" --probe "process:$pid" "${locate[@]}" --stdout --poll-min 1 --poll-max 10 \
  --log-level notice --no-server >> "$work/records.jsonl" 2> "$work/daemon.log" &
dpid=$!

if [ "$mode" = --lossless ]; then
  # the reader stalls (a loaded machine, forced): the writer must wait for it, not lap it
  wait_for "$work/records.jsonl" '"time":[0-9]{4,}' 30
  kill -STOP "$dpid"
  wait_for "$work/writer.out" '^waiting seq=' 30 || { kill -CONT "$dpid"; exit 1; }
  kill -CONT "$dpid"
  echo "live-test: reader stopped; the writer waited ($(grep -m1 '^waiting' "$work/writer.out"))"
fi
wait_for "$work/writer.out" '^done' $((${secs%.*} + 30))
last=$(sed -n 's/^done seq=\([0-9]*\).*/\1/p' "$work/writer.out")
wrate=$(sed -n 's/^done .*rate=\([0-9]*\).*/\1/p' "$work/writer.out")
# The last event must reach the stream: wait for its number in a record (info 1 or info 3).
stop_when_drained --last "$last"
echo "live-test: writer wrote $last events at $wrate events/s into $entries slots"
args=(--last "$last" --min-events 1000)
[ "$mode" = --lossless ] && args+=(--lossless)
if ! "$check" "${args[@]}" "$work/records.jsonl"; then
  echo "--- daemon log"; tail -20 "$work/daemon.log"; exit 1
fi
