#!/usr/bin/env bash
# tests/daemon/trx-roundtrip-test.sh: TraceX's sample through the daemon and back:
# `tracetapd --probe file:demo_threadx.trx` -> /api/export?format=trx -> `tracetap decode`,
# and offline: `tracetap decode demo_threadx.trx --to trx`.
# The export keeps the header's timer mask (0x0000FFFF, a 16-bit down counter) and the whole
# registry (15 objects, their parameters), and the events come back the same as decoding the
# sample directly: every field but seq and addr (times, names, args, raw words); the first
# event the daemon published has no `run` after the round trip (nothing before it).
# usage: trx-roundtrip-test.sh TRACETAPD TRACETAP   (fixtures: $TT_FIXTURES, else
# <source>/../shared/fixtures; skipped when absent)
tracetapd=$1 tracetap=$2
fixtures=${TT_FIXTURES:-$(dirname "$0")/../../../shared/fixtures}
trx=$fixtures/tracex/demo_threadx.trx
if [ ! -f "$trx" ]; then echo "SKIP: $trx not found (set TT_FIXTURES)"; exit 77; fi
command -v jq > /dev/null || { echo "SKIP: jq not installed"; exit 77; }
. "$(dirname "$0")/lib.sh"
logs=("$work/d.log")

u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
u8() { od -An -tu1 -j "$2" -N1 "$1" | tr -d ' '; }
base=$(u32 "$trx" 8)
${TT_WRAP-} "$tracetapd" --port 0 --web "$work" --probe "file:$trx" --base "$base" \
  --address "$base" 2> "$work/d.log" &
pids+=($!)
daemon_port "$work/d.log" 30
end=$((SECONDS + 30))
until [ "$(curl -sf "http://127.0.0.1:$port/api/targets" | jq '.[0].events')" -ge 973 ]; do
  [ $SECONDS -lt $end ] || fail "the daemon did not publish the sample's events"
  sleep 0.1
done
curl -sf "http://127.0.0.1:$port/api/export?format=trx" -o "$work/out.trx" || fail "export failed"

# the header's timer mask and the whole registry
[ "$(u32 "$work/out.trx" 4)" = "$(u32 "$trx" 4)" ] || fail "timer mask $(u32 "$work/out.trx" 4), source $(u32 "$trx" 4)"
objects() { # FILE: "type ptr p1 p2" of every registry entry in use
  local f=$1 b r e n i o
  b=$(u32 "$f" 8); r=$(( $(u32 "$f" 12) - b )); e=$(( $(u32 "$f" 20) - b ))
  n=$(( 16 + $(u8 "$f" 18) + 256 * $(u8 "$f" 19) ))
  for ((o = r; o + n <= e; o += n)); do
    [ "$(u8 "$f" $((o + 1)))" = 0 ] && continue
    echo "$(u8 "$f" $((o + 1))) $(u32 "$f" $((o + 4))) $(u32 "$f" $((o + 8))) $(u32 "$f" $((o + 12))) $(dd if="$f" bs=1 skip=$((o + 16)) count=$((n - 16)) 2> /dev/null | tr -d '\0')"
  done
}
objects "$trx" > "$work/reg.src"
objects "$work/out.trx" > "$work/reg.out"
[ "$(wc -l < "$work/reg.src")" = 15 ] || fail "the sample has $(wc -l < "$work/reg.src") objects, not 15"
diff "$work/reg.src" "$work/reg.out" > "$work/reg.diff" || { cat "$work/reg.diff"; fail "the registry differs"; }

"$tracetap" decode "$trx" --json > "$work/orig.jsonl" || fail "decode of the sample failed"

# offline: tracetap decode --to trx keeps them too
"$tracetap" decode "$trx" --to trx -o "$work/off.trx" 2> /dev/null || fail "decode --to trx failed"
[ "$(u32 "$work/off.trx" 4)" = "$(u32 "$trx" 4)" ] || fail "offline: timer mask $(u32 "$work/off.trx" 4)"
objects "$work/off.trx" > "$work/reg.off"
diff "$work/reg.src" "$work/reg.off" > "$work/reg.diff" || { cat "$work/reg.diff"; fail "offline: the registry differs"; }
"$tracetap" decode "$work/off.trx" --json | jq -c 'del(.seq, .addr)' > "$work/off.jsonl"
jq -c 'del(.seq, .addr)' "$work/orig.jsonl" | diff - "$work/off.jsonl" > /dev/null || fail "offline: events differ"

# the events (through the daemon)
"$tracetap" decode "$work/out.trx" --json > "$work/back.jsonl" || fail "decode of the export failed"
n=$(wc -l < "$work/back.jsonl"); skip=$(( $(wc -l < "$work/orig.jsonl") - n ))
[ "$n" -ge 973 ] && [ "$skip" -le 1 ] || fail "$n events came back"
tail -n +$((skip + 1)) "$work/orig.jsonl" | jq -c 'del(.seq, .addr)' | \
  jq -c 'if input_line_number == 1 then del(.run, .run_thread, .run_name) else . end' > "$work/a"
jq -c 'del(.seq, .addr)' "$work/back.jsonl" > "$work/b"
diff "$work/a" "$work/b" > "$work/ev.diff" || { head -4 "$work/ev.diff"; fail "events differ"; }
echo "ok: trx round trip through the daemon: mask $(u32 "$work/out.trx" 4), 15 registry objects, $n events identical"
