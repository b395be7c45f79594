# tests/nuttx/lib.sh: helpers for the NuttX shell tests (sourced).

# times_ok JSONL LAST: the events' "time" values are consecutive multiples of 1000 (the test
# writer's step) ending at LAST; prints where not and returns 1.
times_ok() {
  sed -n 's/.*"time":\([0-9]*\).*/\1/p' "$1" |
    awk -v last="$2" 'NR > 1 && $1 != prev + 1000 { print "step at line " NR; bad = 1 }
      { prev = $1 } END { if (prev != last) { print "ends at " prev " not " last; bad = 1 }; exit bad }'
}
