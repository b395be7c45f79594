#!/usr/bin/env bash
# tests/live/loss-test.sh: ThreadX loss estimates against the truth, live through
# `tracetapd --probe process:PID`. The writer (tests/live/live_writer.c) numbers every event and
# runs a 24-bit time source of nominally 25 MHz (a wrap every 0.67 s at nominal) at a fraction of
# real time (a target clock slower than the host's: an emulated CPU on a loaded host). The losses
# are forced, not left to timing:
#   lap:      clock at 0.3 (a wrap every 2.2 s of host time); once 40,960 events streamed,
#             tracetapd is stopped (SIGSTOP) until the writer wrote 51,200 more (about 1 s of host
#             time: 1.5 wraps at the nominal rate, 0.45 of the target's; 12 laps of its 4,096
#             slots), then continued;
#   lap-half: the same with the clock at 0.5 (1 s of host time: 0.75 of a wrap);
#   late:     tracetapd watches the header pointer NULL, is stopped, the writer enables tracing
#             (SIGUSR1) and writes 12,288 events (3 laps), then tracetapd continues: the first
#             read's gap ("overwritten before the first read"), whose basis says the target's
#             clock was not measured yet (its estimate took the nominal tick rate);
#   desched:  clock at 0.5; the writer is stopped 0.5 s (its clock runs on: a descheduled target
#             process), then tracetapd is stopped while the writer writes 51,200 more;
#   names:    `lap-half` with the consumer thread deleted and created again in the same control
#             block every 512 events under a new name (job-G): no event of it may carry another
#             generation's name (an unknown name shows as none, the address);
#   linux:    the ThreadX Linux port's time source (CLOCK_REALTIME's tv_nsec: a wrap at 10^9
#             every second, tracetapd --time-wrap 1000000000 --tick-hz 1G); tracetapd is
#             stopped until the writer wrote 35,000 more events (about 0.7 s: a gap of half a
#             wrap to a wrap, whose events came out that much early before).
# check_seq --key seq then holds every gap's true count inside its range and its estimate too
# (lap, lap-half, names: the forced gap's estimate within 25% of the truth, where a wrap of the
# clock added from the host's time (a phantom lap) would double or triple it; gaps a loaded host
# adds, the late enable's and the descheduled writer's only have to lie in their range), and
# prints reported/true/range per gap. tests/live/times.py then holds every user event's mapped
# time (`ns`) after the first gap to its true time (the writer's wraps in info 4) within 50 ms.
#
# usage: loss-test.sh TRACETAPD LIVE_WRITER CHECK_SEQ lap|lap-half|late|desched|names|linux
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

clock=narrow:0.5 flags=() hz=25M hzn=25e6 tw=$((1 << 24)) wrap=() held=51200
case $mode in
lap) clock=narrow:0.3 ;;
linux) clock=linux hz=1G hzn=1e9 tw=1000000000 wrap=(--time-wrap "$tw") held=35000 ;;
late) clock=narrow:0.3 flags=(late) ;;
names) flags=(recreate) ;;
lap-half|desched) ;;
*) echo "loss-test: unknown mode $mode"; exit 2 ;;
esac
mkfifo "$work/hold"
"$writer" 50000 5 4096 "$clock" "${flags[@]}" < "$work/hold" > "$work/writer.out" &
wpid=$!
exec 3> "$work/hold"
wait_for "$work/writer.out" '^pid=' 10
read -r pidf hdrf _ < "$work/writer.out"
pid=${pidf#pid=}
hdr=${hdrf#header=}

"$tracetapd" --probe "process:$pid" --elf "$writer" --tick-hz "$hz" "${wrap[@]}" --stdout --poll-min 1 \
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
  if [ "$mode" = desched ]; then
    kill -STOP "$wpid"
    sleep 0.5 # descheduled (its clock runs on: the time stamps jump, no event)
    kill -STOP "$dpid"
    kill -CONT "$wpid"
  else
    kill -STOP "$dpid"
  fi
  s0=$(progress)
  wait_seq $((s0 + held))
  kill -CONT "$dpid"
fi

wait_for "$work/writer.out" '^done' 30
last=$(sed -n 's/^done seq=\([0-9]*\).*/\1/p' "$work/writer.out")
last=$((last - 2)) # done reports the counter's count: two events more than the numbers
stop_when_drained --key seq --last "$last"
within=()
case $mode in lap|lap-half|names) within=(--within 25) ;; esac # the evidence pins a lap's count
out=$("$check" --key seq --last "$last" --min-events 1000 "${within[@]}" "$work/records.jsonl") || {
  echo "$out"; echo "--- daemon log"; tail -20 "$work/daemon.log"; exit 1; }
echo "$out"
# every event's mapped time (ns) after the first gap against its true time (info 4: the wraps):
# within a poll interval (10 ms at most here) and a margin of 40 ms; a wrong unwrap across a gap
# is half a wrap (335 ms) or more off (before: one wrap late after a lap, the host's time taken
# at the nominal tick rate; or the whole gap early when it spanned half a wrap to a wrap)
python3 "$(dirname "$0")/times.py" "$work/records.jsonl" --hz "$hzn" --wrap "$tw" --bound-ms 50 ||
  { echo "--- daemon log"; tail -20 "$work/daemon.log"; exit 1; }
# the forced loss is there: at least one gap of more than a lap
echo "$out" | awk '/^gap before/ { t = $8 + 0; if (t > 4096) big = 1 } END { exit !big }' ||
  { echo "loss-test: no gap of more than a lap (the forced loss did not happen)"; exit 1; }
if [ "$mode" = late ]; then
  # the first read came before the target's clock was measured against the host's: the estimate
  # took the nominal tick rate, and its basis says so
  basis=$(jq -r -s '[.[] | select(.type == "gap")][0].basis // "none"' "$work/records.jsonl")
  case $basis in *"not measured"*) ;; *)
    echo "loss-test: the first gap's basis does not say the clock was not measured: $basis"; exit 1 ;;
  esac
  echo "first gap's basis: $basis"
fi
if [ "$mode" = names ]; then
  # the consumer's events: none named as another generation (G = the event's number / 512;
  # generation 0 is "consumer")
  worker=$(printf '0x%08x' $((hdr + 0xF0100)))
  res=$(jq -r -s --arg w "$worker" '
    [.[] | select(.type == "event" and .thread == $w)
     | (if .id == 4096 then .raw[4] else .raw[6] end) as $s
     | (($s / 512) | floor) as $g
     | {s: $s, n: .thread_name, want: (if $g == 0 then "consumer" else "job-\($g)" end)}] as $e
    | ([$e[] | select(.n != null and .n != .want)] | .[:3]
       | map("event \(.s) named \(.n), its generation is \(.want)") | join("; ")) as $bad
    | "\($e | length) \([$e[] | select(.n == .want)] | length) \([$e[] | .s / 512 | floor] | unique | length) \($bad)"' \
    "$work/records.jsonl")
  read -r n named gens bad <<< "$res"
  [ "$n" -gt 1000 ] && [ "$gens" -gt 50 ] || { echo "loss-test: only $n events of the re-created thread, $gens generations"; exit 1; }
  [ -z "$bad" ] || { echo "loss-test: names of another generation: $bad"; exit 1; }
  echo "names: $n events of $gens generations of the re-created thread, $named named with their own generation's name, none with another's"
fi
