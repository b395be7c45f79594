#!/usr/bin/env bash
# tests/run-all.sh: set up, build with -Werror, run every test suite; then rebuild with
# ASan+UBSan and run the C suites again, and the unit suite under valgrind. Benchmarks are not
# tests: see README.md.
# Ends with one line "tests: N passed, N failed" and exits non-zero if anything failed.
set -euo pipefail
cd "$(dirname "$0")/.."
tests/setup.sh

build() { # dir, extra meson options...
  local dir=$1; shift
  if [ -d "$dir" ]; then meson setup --reconfigure "$dir" "$@" >/dev/null
  else meson setup "$dir" "$@" >/dev/null; fi
  ninja -C "$dir"
}

# count DIR: passed and failed results of the last `meson test` in DIR.
count() {
  jq -s '[ (map(select(.result == "OK" or .result == "EXPECTEDFAIL")) | length),
           (map(select(.result != "OK" and .result != "EXPECTEDFAIL" and .result != "SKIP")) | length) ]
         | @tsv' -r "$1/meson-logs/testlog.json"
}

status=0
build build-ci -Dwerror=true
meson test -C build-ci --print-errorlogs --num-processes 2 --no-suite bench || status=1
read -r p1 f1 < <(count build-ci)

build build-asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C build-asan --print-errorlogs --num-processes 2 \
    --suite unit --suite live --suite server --suite integration || status=1
read -r p2 f2 < <(count build-asan)

meson test -C build-ci --print-errorlogs --num-processes 2 --setup valgrind --suite unit || status=1
read -r p3 f3 < <(count build-ci)

echo "tests: $((p1 + p2 + p3)) passed, $((f1 + f2 + f3)) failed"
exit "$status"
