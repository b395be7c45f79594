#!/usr/bin/env bash
# tests/fuzz/run.sh [-b BUILD] [--tmp] HARNESS|all [SECONDS]: runs libFuzzer harnesses.
#
# HARNESS is a name from tests/fuzz/README.md (threadx, nuttx, qnx, image, tcl, config,
# client_msg, wire, mqtt) or "all" (one after the other, SECONDS each; default 300). The corpus persists
# outside the source tree in ${TT_FUZZ_DIR:-~/.cache/tracetap-fuzz}/HARNESS and grows from run
# to run; the seeds (generated at build time in BUILD/tests/fuzz/seeds-HARNESS, and the
# checked-in tests/fuzz/corpus/HARNESS) are read, never written. Crashes, leaks and timeouts
# are written to TT_FUZZ_DIR/crashes/HARNESS-*. --tmp: a scratch corpus removed at exit, and
# crash files in the scratch dir's log (what `meson test --suite fuzz` runs). BUILD: a clang
# build dir configured as tests/fuzz/README.md says (default: build-fuzz).
# Prints one line per harness: executions, seconds, corpus size, crash files; exits non-zero
# when any harness found something.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$src/build-fuzz
tmp=0
while [ $# -gt 0 ]; do
	case $1 in
	-b) build=$(cd "$2" && pwd); shift 2 ;;
	--tmp) tmp=1; shift ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
what=$1 secs=${2:-300}

if [ "$what" = all ]; then
	names=()
	for exe in "$build"/tests/fuzz/fuzz_*; do
		[ -x "$exe" ] && [ -f "$exe" ] && names+=("${exe##*/fuzz_}")
	done
	[ ${#names[@]} -gt 0 ] || { echo "run.sh: no harness in $build/tests/fuzz (see tests/fuzz/README.md)" >&2; exit 2; }
else
	names=("$what")
fi

if [ $tmp = 1 ]; then
	root=$(mktemp -d "${TMPDIR:-/tmp}/tt-fuzz.XXXXXX")
	trap 'rm -rf "$root"' EXIT
else
	root=${TT_FUZZ_DIR:-$HOME/.cache/tracetap-fuzz}
fi
mkdir -p "$root/crashes"

# UBSan only prints by default: make undefined behaviour a crash libFuzzer records
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}
status=0
for h in "${names[@]}"; do
	exe=$build/tests/fuzz/fuzz_$h
	[ -x "$exe" ] || { echo "run.sh: $exe is not built (see tests/fuzz/README.md)" >&2; exit 2; }
	corpus=$root/$h
	mkdir -p "$corpus"
	seeds=()
	for d in "$build/tests/fuzz/seeds-$h" "$src/tests/fuzz/corpus/$h"; do
		[ -d "$d" ] && seeds+=("$d")
	done
	log=$root/$h.log
	rc=0
	# -timeout: one input taking over 10 s is a hang; -rss_limit_mb: a runaway allocation
	"$exe" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$root/crashes/$h-" "$corpus" "${seeds[@]}" >"$log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	crashes=$(find "$root/crashes" -name "$h-*" | wc -l)
	printf 'fuzz %-10s %10s execs in %ss, corpus %s files, %s crash files%s\n' "$h" \
		"${execs:-?}" "$secs" "$(find "$corpus" -type f | wc -l)" "$crashes" \
		"$([ $tmp = 0 ] && echo " in $root/crashes")"
	if [ $rc -ne 0 ] || [ -z "$execs" ]; then
		status=1
		echo "fuzz $h: libFuzzer exited $rc; its log:" >&2
		grep -v '^#[0-9]' "$log" | tail -60 >&2
		[ $tmp = 1 ] && for f in "$root"/crashes/"$h"-*; do
			[ -f "$f" ] && { echo "reproducer $f (base64):"; base64 -w0 "$f" | head -c 20000; echo; } >&2
		done
	fi
done
exit $status
