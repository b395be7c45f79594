#!/bin/bash
# tests/nuttx/fixtures.sh TRACETAP NX_FTRACE TRACETAPD: real NuttX sim data (../shared/fixtures/nuttx-sim,
# 64- and 32-bit) read by tracetap without the ELF: a layout file built from facts.json
# (fixture-layout.py, what `tracetap layout --elf` would save) given to `tracetap decode
# --layout`. Each RAM image, exported as ftrace, must equal NuttX's own `trace dump` of the same
# records entry for entry, every field (fixture_compare.py lists where NuttX's text is wrong);
# each `trace dump -b` file must decode record for record as the bytes say (fixture_compare.py
# --binary). tracetapd serves the m64 image with the layout file from its configuration file (the
# format from the layout file). Exit 77 when the fixtures are not there.
set -euo pipefail
TRACETAP=$1
NX_FTRACE=$2
TRACETAPD=$3
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${TT_SOURCE_ROOT:-$HERE/../..}
FIX=${TT_FIXTURES:-$ROOT/../shared/fixtures}/nuttx-sim
if [ ! -f "$FIX/facts.json" ]; then
	echo "SKIP: no NuttX fixtures at $FIX (set TT_FIXTURES to the fixtures folder)"
	exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

for m in m64 m32; do
	python3 "$HERE/fixture-layout.py" "$FIX/facts.json" $m > "$T/$m.layout.json"
	xz -dc "$FIX/$m/image.bin.xz" > "$T/$m.img"
	"$TRACETAP" decode --json --layout "$T/$m.layout.json" --base "$(cat "$FIX/$m/image-base.txt")" \
		"$T/$m.img" > "$T/$m.jsonl"
	"$NX_FTRACE" < "$T/$m.jsonl" > "$T/$m.ftrace"
	# the text form: one line per record, nsh's newline-ended command texts escaped
	"$TRACETAP" decode --no-color --layout "$T/$m.layout.json" \
		--base "$(cat "$FIX/$m/image-base.txt")" "$T/$m.img" > "$T/$m.txt"
	[ "$(wc -l < "$T/$m.txt")" -eq "$(wc -l < "$T/$m.jsonl")" ] ||
		{ echo "FAIL: $m: $(wc -l < "$T/$m.txt") text lines for $(wc -l < "$T/$m.jsonl") records"; exit 1; }
	grep -q 'NOTE_DUMP_BEGIN .* text=kill -9 6\\n$' "$T/$m.txt" ||
		{ echo "FAIL: $m: no 'text=kill -9 6\\n' line"; exit 1; }
	python3 "$HERE/fixture_compare.py" --facts "$FIX/facts.json" --build $m \
		"$T/$m.jsonl" "$T/$m.ftrace" "$FIX/$m/dump.txt"
	# `trace dump -b FILE`: the layout file's address is not in it: the notes back to back
	"$TRACETAP" decode --json --layout "$T/$m.layout.json" "$FIX/$m/dump-b.bin" > "$T/$m.b.jsonl"
	python3 "$HERE/fixture_compare.py" --facts "$FIX/facts.json" --build $m --binary \
		"$T/$m.b.jsonl" "$FIX/$m/dump-b.bin"
done
# tracetapd with the layout file in its configuration (no "format": the layout file's): every
# record of the image, as tracetap decode gives them (a condition with a deadline)
printf '{ "targets": [ { "name": "nx", "probe": "file:%s", "layout": "%s", "file_base": "%s" } ] }\n' \
	"$T/m64.img" "$T/m64.layout.json" "$(cat "$FIX/m64/image-base.txt")" > "$T/tracetapd.json"
"$TRACETAPD" --config "$T/tracetapd.json" --no-server --stdout > "$T/d.jsonl" 2> "$T/d.err" &
dpid=$!
want=$(wc -l < "$T/m64.jsonl")
end=$((SECONDS + 30))
until [ "$(grep -c '"type":"event"' "$T/d.jsonl")" -ge "$want" ]; do
	if ! kill -0 $dpid 2>/dev/null || [ $SECONDS -ge $end ]; then
		kill $dpid 2>/dev/null
		echo "FAIL: tracetapd --config with a layout file: $(grep -c '"type":"event"' "$T/d.jsonl") of $want records; $(tail -2 "$T/d.err")"
		exit 1
	fi
	sleep 0.1
done
kill -TERM $dpid
wait $dpid || { echo "FAIL: tracetapd exited with status $? on SIGTERM"; exit 1; }
# (live, a pid's first records come before its name is looked up: names are not compared)
[ "$(jq -c 'del(.seq, .target, .thread_name)' "$T/d.jsonl" | sort)" = \
  "$(jq -c 'del(.seq, .thread_name)' "$T/m64.jsonl" | sort)" ] ||
	{ echo "FAIL: tracetapd's records differ from tracetap decode's"; exit 1; }
echo "ok: tracetapd --config with \"layout\" (no \"format\"): the image's $want records"
echo "PASS: NuttX sim m64 and m32: images equal NuttX's trace dump, -b files decode record for record"
