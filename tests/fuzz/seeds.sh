#!/usr/bin/env bash
# tests/fuzz/seeds.sh OUTDIR HARNESS [TOOL|FILE...]: writes a harness's starting corpus into
# OUTDIR with the project's own writers (run by tests/fuzz/meson.build at build time).
#   threadx FUZZ_THREADX_SMOKE    buffer images from tests/fw/txwriter
#   nuttx   NX_MKIMAGE            RAM images from tests/nuttx/nxwriter (wrapped ring, empty)
#   qnx     KEV_GEN               .kev files from tests/qnx/kevw (both byte orders, truncated)
#   image   FUZZ_THREADX_SMOKE    a txwriter image as Intel HEX and S-record (objcopy)
#   config  FILE...               configuration files copied as they are
#   wire    TRACETAP FUZZ_THREADX_SMOKE KEV_GEN   records as the server sends them
set -euo pipefail
out=$1 h=$2
shift 2
rm -rf "$out"
mkdir -p "$out"
case $h in
threadx) "$1" --write-seeds "$out" ;;
nuttx)
	"$1" "$out/ring-40.bin" 40 >/dev/null
	"$1" "$out/ring-0.bin" 0 >/dev/null ;;
qnx)
	"$1" "$out/le.kev"
	"$1" "$out/be.kev" be
	"$1" "$out/cut.kev" cut 7 ;;
image)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	"$1" --write-seeds "$tmp"
	objcopy -I binary -O ihex --change-addresses 0x20000000 "$tmp/txwriter-2.bin" "$out/trx.hex"
	objcopy -I binary -O srec --change-addresses 0x20000000 "$tmp/txwriter-3.bin" "$out/trx.srec" ;;
config) cp "$@" "$out/" ;;
wire)
	# records as the server sends them: `tracetap decode --json` of a txwriter image and a
	# .kev file, one stream per file, NUL between records
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	"$2" --write-seeds "$tmp"
	"$3" "$tmp/q.kev"
	"$1" decode --json "$tmp/txwriter-2.bin" | tr '\n' '\0' > "$out/threadx.jsonl0"
	"$1" decode --json "$tmp/q.kev" | tr '\n' '\0' > "$out/qnx.jsonl0" ;;
*) echo "seeds.sh: no generated seeds for $h" >&2; exit 2 ;;
esac
