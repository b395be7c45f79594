#!/usr/bin/env bash
# tests/valgrind.sh PROGRAM ARGS...: the wrapper of `meson test --setup valgrind` (root
# meson.build). Zero errors and zero leaks, for compiled tests and for the shell-script tests:
#
# - A compiled test runs under valgrind (memcheck); an invalid access, an uninitialised value
#   used, or a block definitely or indirectly lost at exit makes it fail.
# - A script (bash, or a #! file) runs as it is, with TT_WRAP set to this file: the scripts put
#   ${TT_WRAP-} in front of the project's programs (tracetapd, tracetap), so each of those runs
#   under valgrind with its report in a scratch directory. After the script, every report must
#   say "ERROR SUMMARY: 0 errors" (leaks count as errors here); otherwise the test fails and the
#   report is printed. A script that ran nothing under TT_WRAP is reported as skipped (77): it
#   checked nothing under valgrind.
set -uo pipefail
vg=(valgrind --leak-check=full --show-leak-kinds=definite,indirect
    --errors-for-leak-kinds=definite,indirect --track-fds=no --num-callers=30)
prog=$1

if [ -n "${TT_VG_DIR:-}" ]; then
	# started by a script under TT_WRAP: report to a file, keep the program's own exit status;
	# a child forked to exec another program (tracetapd spawning OpenOCD) is not reported
	exec "${vg[@]}" --child-silent-after-fork=yes \
		--log-file="$TT_VG_DIR/$(basename "$prog").%p.log" "$@"
fi
case $(basename "$prog") in
bash|sh|dash) script=1 ;;
*) [ "$(head -c 2 "$prog" 2>/dev/null)" = '#!' ] && script=1 || script=0 ;;
esac
if [ $script = 0 ]; then
	exec "${vg[@]}" --error-exitcode=99 "$@"
fi

TT_VG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tt-vg.XXXXXX")
trap 'rm -rf "$TT_VG_DIR"' EXIT
export TT_VG_DIR TT_WRAP=$(cd "$(dirname "$0")" && pwd)/valgrind.sh
"$@"
rc=$?
shopt -s nullglob
reports=("$TT_VG_DIR"/*.log)
bad=0
for r in "${reports[@]}"; do
	if ! grep -q "ERROR SUMMARY: 0 errors" "$r"; then
		bad=1
		echo "valgrind: $(basename "$r"): errors or leaks (or no summary: killed before exit):"
		cat "$r"
	fi
done
echo "valgrind: ${#reports[@]} program run(s) checked, $([ $bad = 0 ] && echo clean || echo NOT clean)"
[ $rc -ne 0 ] && exit $rc
[ $bad -ne 0 ] && exit 1
[ ${#reports[@]} -eq 0 ] && { echo "valgrind: no program ran under TT_WRAP: skipped"; exit 77; }
exit 0
