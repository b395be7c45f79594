#!/bin/bash
# tests/qnx/traceprinter.sh TRACETAP: `tracetap decode --traceprinter` on every file of the
# qnx-openqnx fixtures (../shared/fixtures, or TT_FIXTURES) against QNX's own `traceprinter -n`
# text of the same file, line for line (tp_compare.py names and counts each place where
# traceprinter 1.02 is itself wrong or drops what tracetap prints). The RAM image of the kernel's
# ring is compared with the text of the .kev that holds its events. Exit 77 without the fixtures.
set -euo pipefail
TRACETAP=$1
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${TT_SOURCE_ROOT:-$HERE/../..}
FIX=${TT_FIXTURES:-$ROOT/../shared/fixtures}/qnx-openqnx
if [ ! -f "$FIX/facts.json" ]; then
	echo "SKIP: no QNX fixtures at $FIX (set TT_FIXTURES to the fixtures folder)"
	exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { # name, --be 0|1 [--image], expected text, our text, KIND=N...
	local name=$1
	shift
	echo "== $name"
	python3 "$HERE/tp_compare.py" "$@" || { echo "FAIL: $name"; fail=1; }
}

"$TRACETAP" decode --traceprinter "$FIX/syn_le_fast.kev" > "$T/le.txt"
check syn_le_fast --be 0 "$FIX/syn_le_fast.traceprinter-n.txt" "$T/le.txt" \
	version_lines=1 no_line_end=30 binary_user=14 sigevent=12
"$TRACETAP" decode --traceprinter "$FIX/syn_be_wide.kev" > "$T/be.txt"
check syn_be_wide --be 1 "$FIX/syn_be_wide.traceprinter-n.txt" "$T/be.txt" \
	version_lines=1 no_line_end=21 be_errno=21 be_msg=172 binary_user=12 sigevent=15 \
	header_garbage=1 gap=1
"$TRACETAP" decode --traceprinter "$FIX/syn_inter_le.kev" > "$T/inter.txt"
check syn_inter_le --be 0 "$FIX/syn_inter_le.traceprinter-n.txt" "$T/inter.txt" \
	version_lines=1 binary_user=1 incomplete=1 gap=1
"$TRACETAP" decode --traceprinter "$FIX/ring_le_expected.kev" > "$T/ringkev.txt"
check ring_le_expected --be 0 "$FIX/ring_le_expected.traceprinter-n.txt" "$T/ringkev.txt" \
	version_lines=1 no_line_end=37 binary_user=20 sigevent=15 incomplete=1
# the ring in RAM, read with the default layout (QNX's tracebuf_t), 6.4's names
"$TRACETAP" decode --traceprinter --format qnx --address 0x80100000 --base 0x80100000 \
	--format-opt version=6 "$FIX/ring_le.bin" > "$T/ring.txt"
check ring_le.bin --be 0 --image "$FIX/ring_le_expected.traceprinter-n.txt" "$T/ring.txt" \
	version_lines=1 no_line_end=37 binary_user=20 sigevent=15 incomplete=1
exit $fail
