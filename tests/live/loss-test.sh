#!/usr/bin/env bash
# tests/live/loss-test.sh: ThreadX loss estimates against the truth, live through
# `tracetapd --probe process:PID`. The writer (tests/live/live_writer.c) numbers every event and
# runs a 24-bit time source of nominally 25 MHz at 0.3 of real time (a target clock slower than
# the host's: it wraps every 2.2 s of host time). The losses are forced, not left to timing:
#   lap:  once 40,960 events streamed, tracetapd is stopped (SIGSTOP) until the writer wrote
#         51,200 more (about 1 s of host time, 0.45 of a wrap of the target's clock, 12 laps of
#         its 4,096 slots), then continued;
#   late: tracetapd watches the header pointer NULL, is stopped, the writer enables tracing
#         (SIGUSR1) and writes 12,288 events (3 laps), then tracetapd continues: the first read's
#         gap ("overwritten before the first read").
# check_seq --key seq then holds every gap's true count inside its range and its estimate too
# (lap: the forced gap's estimate within 25% of the truth, where a wrap of the clock added from
# the host's time would triple it; gaps a loaded host adds only have to lie in their range), and
# prints reported/true/range per gap.
#
# usage: loss-test.sh TRACETAPD LIVE_WRITER CHECK_SEQ lap|late
set -euo pipefail
tracetapd=$1 writer=$2 check=$3 mode=$4
. "$(dirname "$0")/lib.sh"

# The writer's progress: the last `seq=N` it printed (every 4096 events).
progress() { sed -n 's/^seq=\([0-9]*\)$/\1/p' "$work/writer.out" | tail -n 1; }
wait_seq() {
  local deadline=$((SECONDS + 30)) p
  while :; do
    p=$(progress); p=${p:-0}
    [ "$p" -ge "$1" ] && return 0
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "loss-test: the writer did not reach event $1 (at $p)"; return 1
    fi
    sleep 0.01
  done
}

wait_lines() {
  local deadline=$((SECONDS + 30))
  until [ "$(wc -l < "$work/records.jsonl")" -ge "$1" ]; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "loss-test: fewer than $1 records streamed"; return 1
    fi
    sleep 0.01
  done
}

late=""
[ "$mode" = late ] && late=late
mkfifo "$work/hold"
"$writer" 50000 5 4096 narrow:0.3 $late < "$work/hold" > "$work/writer.out" &
wpid=$!
exec 3> "$work/hold"
wait_for "$work/writer.out" '^pid=' 10
read -r pidf _ < "$work/writer.out"
pid=${pidf#pid=}

"$tracetapd" --probe "process:$pid" --elf "$writer" --tick-hz 25M --stdout --poll-min 1 \
  --poll-max 10 --log-level info --no-server > "$work/records.jsonl" 2> "$work/daemon.log" &
dpid=$!

if [ "$mode" = late ]; then
  wait_for "$work/daemon.log" 'is NULL' 10
  kill -STOP "$dpid"
  kill -USR1 "$wpid"
  wait_seq 12288
  kill -CONT "$dpid"
else
  wait_seq 40960
  wait_lines 36000 # streamed about that far: the target's clock measured against the host's
  kill -STOP "$dpid"
  s0=$(progress)
  wait_seq $((s0 + 51200))
  kill -CONT "$dpid"
fi

wait_for "$work/writer.out" '^done' 30
last=$(sed -n 's/^done seq=\([0-9]*\).*/\1/p' "$work/writer.out")
last=$((last - 2)) # done reports the counter's count: two events more than the numbers
stop_when_drained --key seq --last "$last"
within=()
[ "$mode" = lap ] && within=(--within 25) # the evidence pins a lap's count; a late enable's less
out=$("$check" --key seq --last "$last" --min-events 1000 "${within[@]}" "$work/records.jsonl") || {
  echo "$out"; echo "--- daemon log"; tail -20 "$work/daemon.log"; exit 1; }
echo "$out"
# the forced loss is there: at least one gap of more than a lap
echo "$out" | awk '/^gap before/ { t = $8 + 0; if (t > 4096) big = 1 } END { exit !big }' ||
  { echo "loss-test: no gap of more than a lap (the forced loss did not happen)"; exit 1; }
