#!/usr/bin/env bash
# tests/daemon/threadx-files-test.sh: ThreadX files as a user hands them over. `tracetap decode
# --pointer ADDR` reads the header pointer at ADDR (as tracetapd does); `--elf` finds that pointer
# by _tx_trace_header_ptr and reads it from the dump; `tracetapd --probe file:X.trx` streams a
# .trx without --base, its oldest entry included; `tracetap decode --to FMT -o OUT` converts a
# file offline with the daemon's exporters (jsonl = --json, trx round trip, perfetto, ftrace).
# usage: threadx-files-test.sh TRACETAP TRACETAPD FW_THREADX ELF_WITH_TX_TRACE_HEADER_PTR
set -euo pipefail
tracetap=$1 tracetapd=$2 fw=$3 elf=$4
source "$(dirname "$0")/lib.sh"

# A RAM dump whose buffer has wrapped; the header pointer is at the base (0x20000000).
"$fw" --ram "$work/ram.bin" --base 0x20000000 --size 65536 --rate 0 --count 5000 \
  --time counter > "$work/fw.out"
hdr=$(sed -n 's/^header=\(0x[0-9a-f]*\).*/\1/p' "$work/fw.out")
[ "$(sed -n 's/.* header_ptr=\(0x[0-9a-f]*\).*/\1/p' "$work/fw.out")" = 0x20000000 ] ||
  fail "workload did not put the header pointer at the base"
${TT_WRAP-} "$tracetap" decode --json --base 0x20000000 --address "$hdr" "$work/ram.bin" \
  > "$work/addr.jsonl"
n=$(wc -l < "$work/addr.jsonl")
[ "$n" -gt 1000 ] || fail "only $n records from --address"

# --pointer: the pointer's address, not the header's (the image starts there without --base).
for args in "--base 0x20000000 --pointer 0x20000000" "--pointer 0x20000000"; do
  # shellcheck disable=SC2086
  ${TT_WRAP-} "$tracetap" decode --json $args "$work/ram.bin" > "$work/ptr.jsonl" ||
    fail "decode $args failed"
  cmp -s "$work/addr.jsonl" "$work/ptr.jsonl" || fail "decode $args differs from --address"
done
echo "ok: --pointer reads the header address from the dump ($n records)"
rc=0
${TT_WRAP-} "$tracetap" decode --base 0x20000000 --pointer 0x20000004 "$work/ram.bin" \
  > /dev/null 2> "$work/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "trace header pointer at 0x20000004 is NULL" "$work/err" ||
  fail "a NULL pointer: status $rc, '$(cat "$work/err")'"
echo "ok: a NULL header pointer: $(cat "$work/err")"

# --elf: _tx_trace_header_ptr is a pointer the target set; the dump holds its value.
${TT_WRAP-} "$tracetap" decode --json --format threadx --elf "$elf" --base 0x20000000 \
  "$work/ram.bin" > "$work/elf.jsonl" || fail "decode --elf failed"
cmp -s "$work/addr.jsonl" "$work/elf.jsonl" || fail "decode --elf differs from --address"
echo "ok: --elf finds the header through _tx_trace_header_ptr"

# A .trx: the buffer alone, from its header to the end of its entries.
end=$(od -A n -t u4 -j $((hdr - 0x20000000 + 28)) -N 4 "$work/ram.bin" | tr -d ' ')
dd if="$work/ram.bin" of="$work/cap.trx" bs=1 skip=$((hdr - 0x20000000)) \
  count=$((end - hdr)) status=none
${TT_WRAP-} "$tracetap" decode --json "$work/cap.trx" > "$work/trx.jsonl"
raw() { sed -n 's/.*"addr":"\([^"]*\)".*"raw":\(\[[^]]*\]\).*/\1 \2/p' "$1"; }
raw "$work/trx.jsonl" > "$work/trx.raw"
raw "$work/addr.jsonl" > "$work/addr.raw"
cmp -s "$work/trx.raw" "$work/addr.raw" || fail "the .trx decodes to other entries than the dump"

# tracetapd follows the .trx with no --base: every entry, the oldest one too, in order; the
# same .trx as Intel HEX (at its own address).
objcopy -I binary -O ihex --change-addresses "$hdr" "$work/cap.trx" "$work/cap.hex"
logs+=("$work/d.err")
for f in cap.trx cap.hex; do
  # emptied here, not only by the background job's redirection: the wait below must never
  # count the previous file's output
  : > "$work/d.out"
  ${TT_WRAP-} "$tracetapd" --probe "file:$work/$f" --no-server --stdout --poll-max 10 \
    > "$work/d.out" 2> "$work/d.err" &
  dpid=$!
  pids+=($dpid)
  end_t=$((SECONDS + 20))
  until [ "$(grep -c '"type":"event"' "$work/d.out" 2>/dev/null)" -ge "$n" ]; do
    [ $SECONDS -lt $end_t ] || fail "$f: tracetapd published $(grep -c . "$work/d.out") of $n"
    sleep 0.05
  done
  kill -TERM $dpid
  wait $dpid || true
  raw "$work/d.out" > "$work/d.raw"
  cmp -s "$work/trx.raw" "$work/d.raw" || fail "$f: tracetapd's entries differ from the file's"
  ! grep -q '"type":"gap"\|"type":"reset"' "$work/d.out" || fail "$f: gap or reset from a still file"
  echo "ok: tracetapd streams $f without --base, all $n entries from the oldest"
done

# Offline conversion with the daemon's exporters.
${TT_WRAP-} "$tracetap" decode "$work/cap.trx" --to jsonl -o "$work/x.jsonl" 2> "$work/err"
cmp -s "$work/trx.jsonl" "$work/x.jsonl" || fail "--to jsonl differs from --json"
grep -q "$n records written to .*x.jsonl (jsonl)" "$work/err" || fail "summary: $(cat "$work/err")"
${TT_WRAP-} "$tracetap" decode "$work/ram.bin" --base 0x20000000 --pointer 0x20000000 \
  --to trx -o "$work/rt.trx" 2> /dev/null
${TT_WRAP-} "$tracetap" decode --json "$work/rt.trx" > "$work/rt.jsonl"
raw "$work/rt.jsonl" | cut -d' ' -f2 > "$work/rt.raw"
cut -d' ' -f2 "$work/addr.raw" | cmp -s - "$work/rt.raw" || fail "--to trx does not round-trip"
${TT_WRAP-} "$tracetap" decode "$work/cap.trx" --to perfetto -o "$work/x.json" 2> /dev/null
jq -e '[.traceEvents[] | select(.ph == "i")] | length > 1000' "$work/x.json" > /dev/null ||
  fail "--to perfetto: not Chrome trace JSON with the events"
${TT_WRAP-} "$tracetap" decode "$work/cap.trx" --to ftrace -o "$work/x.txt" 2> /dev/null
grep -qE '^ +[A-Za-z0-9_.-]+-[0-9]+ +\[000\] .*THREAD_(RESUME|SUSPEND):' "$work/x.txt" ||
  fail "--to ftrace: no thread switch lines"
# a gap in the records is a marker in the .trx (TraceX shows it), and the summary says so
{ head -n 5 "$work/trx.jsonl"
  echo '{"type":"gap","target":"x","seq":6,"lost":7,"exact":true,"reason":"lapped"}'
  sed -n 6,10p "$work/trx.jsonl"; } > "$work/g.jsonl"
${TT_WRAP-} "$tracetap" decode "$work/g.jsonl" --to trx -o "$work/g.trx" 2> "$work/err" ||
  fail "--to trx of records with a gap: $(cat "$work/err")"
grep -q "11 records written to .*g.trx (trx); 1 gap marked as TraceX user event 65535 (7 events lost" \
  "$work/err" || fail "--to trx summary of a gap: $(cat "$work/err")"
${TT_WRAP-} "$tracetap" decode --json "$work/g.trx" | sed -n 6p |
  grep -q '"id":65535,.*"raw":\[4042322160,0,65535,[0-9]*,7,1,0,0\]' ||
  fail "the .trx has no gap marker as its 6th entry: $(${TT_WRAP-} "$tracetap" decode --json "$work/g.trx" | sed -n 6p)"
echo "ok: --to jsonl, trx (round trip, a gap as user event 65535), perfetto, ftrace"
rc=0
${TT_WRAP-} "$tracetap" decode "$work/cap.trx" --to svg -o "$work/x.svg" 2> "$work/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "expected jsonl, perfetto, ftrace or trx" "$work/err" ||
  fail "--to svg: status $rc, '$(cat "$work/err")'"
rc=0
${TT_WRAP-} "$tracetap" decode "$work/trunc.trx" --to jsonl -o "$work/t.jsonl" 2> /dev/null || rc=$?
[ "$rc" -eq 1 ] && [ ! -e "$work/t.jsonl" ] || fail "a missing input left $work/t.jsonl"
head -c 3000 "$work/cap.trx" > "$work/cut.trx"
rc=0
${TT_WRAP-} "$tracetap" decode "$work/cut.trx" --to jsonl -o "$work/t.jsonl" 2> "$work/err" || rc=$?
[ "$rc" -eq 1 ] && [ ! -e "$work/t.jsonl" ] || fail "a truncated .trx: status $rc, output left"
echo "ok: bad conversions: $(head -c 120 "$work/err")"
