#!/usr/bin/env bash
# tests/live/bench-live.sh: how fast a writer can go before `tracetapd --probe process:PID`
# loses events. Runs the live test (tests/live/live-test.sh: every event checked) at rising
# rates and prints one line per rate: what was written, delivered and reported lost.
# usage: bench-live.sh TRACETAPD LIVE_WRITER CHECK_SEQ [ENTRIES] [SECONDS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
tracetapd=$1 writer=$2 check=$3 entries=${4:-16384} secs=${5:-2}
printf '%-12s %-14s %-12s %-12s %-8s %s\n' "target/s" "written/s" "delivered" "lost" "gaps" "check"
best=0
for rate in 100000 200000 500000 1000000 2000000 4000000 8000000 0; do
  out=$("$here/live-test.sh" "$tracetapd" "$writer" "$check" "$rate" "$secs" "$entries" 2>&1)
  rc=$?
  wr=$(sed -n 's/.*events at \([0-9]*\) events\/s.*/\1/p' <<< "$out")
  line=$(grep '^check_seq:' <<< "$out" | tail -1)
  num=$(sed -n 's/.*numbered=\([0-9]*\).*/\1/p' <<< "$line")
  miss=$(sed -n 's/.* missing=\([0-9]*\).*/\1/p' <<< "$line")
  gaps=$(sed -n 's/.* gaps=\([0-9]*\).*/\1/p' <<< "$line")
  verdict=$([ $rc -eq 0 ] && echo ok || echo FAIL)
  printf '%-12s %-14s %-12s %-12s %-8s %s\n' "${rate/#0/max}" "$wr" "$num" "$miss" "$gaps" "$verdict"
  [ "$verdict" = ok ] && [ "${miss:-1}" = 0 ] && [ "${wr:-0}" -gt "$best" ] && best=$wr
done
echo "highest rate followed without loss: $best events/s ($entries-entry buffer, process probe)"
