#!/usr/bin/env bash
# tests/run-all.sh: set up, build with -Werror, run every test suite (the Debian package's too);
# rebuild with ASan+UBSan and run every suite again but the package's; run the integration
# suite under valgrind (tests/valgrind.sh: the compiled tests and the programs the scripts
# start, zero errors and zero leaks); build the libFuzzer harnesses with clang and run each for
# a short time (tests/fuzz); last, every row of `bench/run.sh --quick` once (meson's bench-quick
# benchmark): numbers printed, not asserted; it fails the run only when a part did not run, and
# counts in no total (benchmarks are not tests: README.md).
# Ends with a line per skipped test (which build, which test, the reason it printed) and one
# line "tests: N passed, N failed, N skipped" counting every run above (a skipped test is not
# a pass), and exits non-zero if anything failed. TT_CI_FUZZ=0 leaves out the clang build (no clang installed).
set -euo pipefail
cd "$(dirname "$0")/.."
tests/setup.sh

build() { # dir, extra meson options...
  local dir=$1; shift
  if [ -d "$dir" ]; then meson setup --reconfigure "$dir" "$@" >/dev/null
  else meson setup "$dir" "$@" >/dev/null; fi
  ninja -C "$dir"
}

passed=0 failed=0 status=0 skipped=()
# run DIR MESON_TEST_ARGS...: meson test in DIR, then adds its passed and failed results to
# the totals; skipped ones are neither, and are listed at the end by name.
run() {
  local dir=$1 p f log; shift
  log="$dir/meson-logs/testlog${setup_suffix:-}.json"
  meson test -C "$dir" --print-errorlogs --num-processes 2 "$@" || status=1
  read -r p f < <(jq -s '[ (map(select(.result == "OK" or .result == "EXPECTEDFAIL")) | length),
    (map(select(.result != "OK" and .result != "EXPECTEDFAIL" and .result != "SKIP")) | length) ]
    | @tsv' -r "$log")
  passed=$((passed + p)) failed=$((failed + f))
  mapfile -t -O "${#skipped[@]}" skipped < <(jq -r --arg d "$dir${setup_suffix:-}" \
    'select(.result == "SKIP") | "\($d) \(.name): \((.stdout // "") | split("\n") | map(select(test("skip|SKIP"))) | first // "skipped")"' "$log")
}

build build-ci -Dwerror=true
run build-ci --no-suite bench --no-suite fuzz

# Every suite again with the sanitizers (benchmarks measure speed: not here; the package
# test builds its own binaries from the tree, so it runs once, above).
build build-asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  run build-asan --no-suite bench --no-suite fuzz --no-suite package

# The unit and integration suites under valgrind (the same -Werror build as the first run).
setup_suffix=-valgrind run build-ci --setup valgrind --suite unit --suite integration

# The libFuzzer harnesses (clang): only what they need is built.
if [ "${TT_CI_FUZZ:-1}" = 1 ]; then
  opts=(-Db_sanitize=address,undefined -Db_lundef=false -Dc_args=-fsanitize=fuzzer-no-link
        -Dfuzzing=enabled)
  if [ -d build-fuzz ]; then meson setup --reconfigure build-fuzz "${opts[@]}" >/dev/null
  else CC=clang meson setup build-fuzz "${opts[@]}" >/dev/null; fi
  mapfile -t fuzz_targets < <(meson introspect build-fuzz --targets | jq -r \
    --arg b "$PWD/build-fuzz/" '.[] | select(.defined_in | endswith("tests/fuzz/meson.build"))
      | .filename[] | ltrimstr($b)')
  ninja -C build-fuzz "${fuzz_targets[@]}"
  run build-fuzz --no-rebuild --suite fuzz
fi

# The benchmarks, short, in the -Werror build (bench-quick: bench/run.sh --quick, every row).
if meson test -C build-ci --benchmark --suite bench --print-errorlogs; then
  bench="benchmarks: every row ran (bench/run.sh --quick, numbers above)"
else
  bench="benchmarks: bench/run.sh --quick FAILED (above)"; status=1
fi

for s in "${skipped[@]}"; do echo "skipped: $s"; done
echo "$bench"
echo "tests: $passed passed, $failed failed, ${#skipped[@]} skipped (counted in neither)"
exit "$status"
