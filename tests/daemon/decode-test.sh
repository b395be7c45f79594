#!/usr/bin/env bash
# tests/daemon/decode-test.sh: `tracetap decode` on RAM images the ThreadX workload wrote, as raw
# binary, Intel HEX and S-record: every event once and in order (check_seq over the counter
# time stamps), the same records from all three encodings, readable text, and clear errors for
# bad files.
# usage: decode-test.sh TRACETAP FW_THREADX CHECK_SEQ
set -euo pipefail
tracetap=$1 fw=$2 check=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

ram=$work/ram.bin
"$fw" --ram "$ram" --base 0x20000000 --size 65536 --rate 0 --count 5000 --time counter \
  > "$work/fw.out"
hdr=$(sed -n 's/^header=\(0x[0-9a-f]*\).*/\1/p' "$work/fw.out")
[ -n "$hdr" ] || fail "workload printed no header address"

${TT_WRAP-} "$tracetap" decode --json --base 0x20000000 --address "$hdr" "$ram" > "$work/raw.jsonl"
n=$(wc -l < "$work/raw.jsonl")
# The buffer holds its newest entries: all numbered, consecutive, ending at the last one written.
last=$(grep -c . "$work/raw.jsonl" >/dev/null; sed -n 's/.*"time":\([0-9]*\).*/\1/p' "$work/raw.jsonl" | tail -1)
"$check" --lossless --min-events 1000 "$work/raw.jsonl" || fail "raw image: sequence broken"
summary_events=$(sed -n 's/^summary events=\([0-9]*\).*/\1/p' "$work/fw.out")
[ "$n" -gt 1000 ] || fail "raw image: only $n records"
echo "ok: raw image: $n records, last time stamp $last (workload wrote $summary_events events)"

# The same memory as Intel HEX and S-record, at the same address.
objcopy -I binary -O ihex --change-addresses 0x20000000 "$ram" "$work/ram.hex"
objcopy -I binary -O srec --change-addresses 0x20000000 "$ram" "$work/ram.srec"
for f in hex srec; do
  ${TT_WRAP-} "$tracetap" decode --json --address "$hdr" "$work/ram.$f" > "$work/$f.jsonl"
  cmp -s "$work/raw.jsonl" "$work/$f.jsonl" || fail "$f: records differ from the raw image"
  echo "ok: $f decodes to the same $n records"
done

# Readable text: names resolved from the registry.
${TT_WRAP-} "$tracetap" decode --no-color --base 0x20000000 --address "$hdr" "$ram" > "$work/text"
grep -qE 'THREAD_(RESUME|SUSPEND) +thread=(sensor|control|comms|worker-0)' "$work/text" ||
  fail "text output lacks decoded thread switches"
[ "$(wc -l < "$work/text")" -eq "$n" ] || fail "text and JSON differ in record count"
echo "ok: text output"

# Bad input: a clear error naming the file and the problem, exit status 1, nothing on stdout.
expect_error() { # name, expected message part, decode args...
  local name=$1 want=$2; shift 2
  local rc=0
  ${TT_WRAP-} "$tracetap" decode "$@" > "$work/out" 2> "$work/err" || rc=$?
  [ "$rc" -eq 1 ] || fail "$name: exit status $rc, expected 1"
  [ ! -s "$work/out" ] || fail "$name: printed records"
  grep -q -- "$want" "$work/err" || fail "$name: message '$(cat "$work/err")' lacks '$want'"
  echo "ok: $name: $(head -c 160 "$work/err")"
}
head -c 100 "$ram" > "$work/trunc.bin"
expect_error truncated "trunc.bin" --base 0x20000000 --address "$hdr" "$work/trunc.bin"
# Header intact, entries cut off.
head -c $((0x1000 + 48 + 16 * 48 + 100)) "$ram" > "$work/cut.bin"
expect_error "entries cut off" "cut.bin" --base 0x20000000 --address "$hdr" "$work/cut.bin"
printf 'NOPE%.0s' $(seq 20) > "$work/magic.bin"
expect_error "wrong magic" "magic.bin" "$work/magic.bin"
expect_error "missing file" "No such file" "$work/none.trx"
sed '3s/^:10\(....\)00\(..\)/:10\100FF/' "$work/ram.hex" > "$work/bad.hex"
expect_error "bad hex checksum" "line 3" --address "$hdr" "$work/bad.hex"

# Not a trace of the format: one error with the check and the offset, before any record (a
# deterministic pseudo-random file: the same bytes every run).
LC_ALL=C awk 'BEGIN { x = 12345; for (i = 0; i < 65536; i++) { x = (x * 1103515245 + 12345) % 2147483648; printf "%c", int(x / 65536) % 256 } }' > "$work/random.bin"
expect_error "random bytes as nuttx" "bad note at file offset [0-9]*: .*(not a nuttx trace: nothing printed)" --format nuttx "$work/random.bin"
[ "$(wc -l < "$work/err")" -eq 1 ] || fail "random bytes: more than one line: $(cat "$work/err")"
: > "$work/empty.bin"
expect_error "empty file" "empty: nothing to decode" "$work/empty.bin"
echo '{"type":"hello"}' > "$work/notrec.jsonl"
expect_error "JSONL that is not a recording" "line 1 is not a tracetap record" "$work/notrec.jsonl"

# A recording decodes back: JSONL (as `tracetap record` writes it) gives the same text and the
# same JSON lines as the image it came from; standard input (-) reads the same.
${TT_WRAP-} "$tracetap" decode --no-color "$work/raw.jsonl" > "$work/text2"
cmp -s "$work/text" "$work/text2" || fail "a JSONL recording decodes to other text than its image"
${TT_WRAP-} "$tracetap" decode --json "$work/raw.jsonl" | cmp -s - "$work/raw.jsonl" ||
  fail "a JSONL recording decoded --json is not the recording"
${TT_WRAP-} "$tracetap" decode --json --base 0x20000000 --address "$hdr" - < "$ram" | cmp -s - "$work/raw.jsonl" ||
  fail "decode - (standard input) differs from decoding the file"
echo "ok: JSONL recordings decode back; - reads standard input"

# Options: decode takes only its own (no daemon polling options), each error one line.
rc=0; ${TT_WRAP-} "$tracetap" decode --poll-max 3 "$ram" > "$work/out" 2> "$work/err" || rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l < "$work/err")" -eq 1 ] && grep -q "unknown option '--poll-max'" "$work/err" ||
  fail "decode --poll-max: exit $rc, '$(cat "$work/err")'"
"$tracetap" decode --help | grep -qE -- '--(poll-min|poll-max|max-read|start-at-now)' &&
  fail "decode --help lists the daemon's polling options"
echo "ok: decode's own options only"
