#!/usr/bin/env bash
# tests/qnx/cli-test.sh: `tracetap decode --format qnx` on .kev files from kev_gen: JSON and
# text records, both byte orders alike, and clear errors for bad files.
# usage: cli-test.sh TRACETAP KEV_GEN
set -euo pipefail
tracetap=$1 gen=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$gen" "$work/le.kev"
"$gen" "$work/be.kev" be
${TT_WRAP-} "$tracetap" decode --format qnx --json "$work/le.kev" > "$work/le.jsonl"
${TT_WRAP-} "$tracetap" decode --format qnx --json "$work/be.kev" > "$work/be.jsonl"
# Without --format the .kev signature picks the QNX reader.
${TT_WRAP-} "$tracetap" decode --json "$work/le.kev" | cmp -s - "$work/le.jsonl" || fail "format not detected from the .kev header"
cat "$work/le.jsonl"
# Equal but for raw (string payload words read differently in the other byte order).
sed 's/,"raw":.*//' "$work/le.jsonl" > "$work/le.noraw"
sed 's/,"raw":.*//' "$work/be.jsonl" > "$work/be.noraw"
cmp -s "$work/le.noraw" "$work/be.noraw" || fail "big-endian file decodes differently"
[ "$(wc -l < "$work/le.jsonl")" -eq 14 ] || fail "expected 14 records"
want() { grep -qF -- "$1" "$work/le.jsonl" || fail "JSON lacks: $1"; }
want '"seq":1,"id":1025,"name":"CONTROL_TIME","ctx":"unknown","core":0,"ts":4096,"time":61229053775872,"ns":0'
want '"name":"PROCCREATE_NAME"'
want '"name":"/usr/sbin/io-pkt"'
want '"name":"THREAD_RUNNING","ctx":"thread","core":0,"thread":"0x20080003","thread_name":"io-pkt/rx"'
want '"name":"KER_CALL_MSG_RECEIVEV","ctx":"thread","core":0,"thread":"0x20080003","thread_name":"io-pkt/rx","ts":4160,"time":61229053775936,"ns":64,"args":{"call":"MSG_RECEIVEV","word1":"0x00000012"'
want '"name":"INT_ENTRY","ctx":"isr","core":0,"interrupted":"0x20080003","interrupted_name":"io-pkt/rx"'
want '"args":{"irq":11,"ip":"0x80001234"}'
want '"name":"THREAD_READY"'
want '"thread":"io-pkt/1","pid":8200,"tid":1,"state":"ready"'
want '{"type":"gap","seq":11,"lost":1428,"exact":false,"basis":"the kernel'\''s hand-on at 714 events per buffer","reason":"kernel buffers lost"}'
want '"name":"USER_EVENT","ctx":"unknown","core":1'
want '"text":"checkpoint A"'
echo "ok: JSON records, both byte orders"

${TT_WRAP-} "$tracetap" decode --format qnx --no-color "$work/le.kev" > "$work/text"
cat "$work/text"
[ "$(wc -l < "$work/text")" -eq 14 ] || fail "text and JSON differ in record count"
# (textfmt adds id= for ids >= 4096, a ThreadX user-event rule; QNX ids carry the class bits.)
grep -qE 'io-pkt/rx +THREAD_RUNNING +(id=4097 )?thread=io-pkt/rx pid=8200 tid=3 state=running' "$work/text" ||
  fail "text lacks the THREAD_RUNNING line"
grep -qE 'ISR +INT_ENTRY +irq=11 ip=0x80001234' "$work/text" || fail "text lacks INT_ENTRY"
grep -qi 'gap' "$work/text" || fail "text lacks the gap"
echo "ok: text output"

# --tick-hz overrides TRACE_CYCLES_PER_SEC (1 kHz: one cycle is 1 ms).
${TT_WRAP-} "$tracetap" decode --format qnx --json --tick-hz 1000 "$work/le.kev" | grep -qF '"ts":4160,"time":61229053775936,"ns":64000000,' ||
  fail "--tick-hz did not override the header's rate"
echo "ok: --tick-hz"

expect_error() { # name, expected message part, file
  local rc=0
  ${TT_WRAP-} "$tracetap" decode --format qnx --json "$3" > "$work/out" 2> "$work/err" || rc=$?
  [ "$rc" -eq 1 ] || fail "$1: exit status $rc, expected 1"
  grep -qF -- "$2" "$work/err" || fail "$1: message '$(cat "$work/err")' lacks '$2'"
  echo "ok: $1: $(head -c 200 "$work/err")"
}
head -c 100 "$work/le.kev" > "$work/trunc.kev"
expect_error "truncated header" "trunc.kev: truncated header: no TRACE_HEADER_END::" "$work/trunc.kev"
[ ! -s "$work/out" ] || fail "truncated header: printed records"
hl=$(grep -abo 'TRACE_HEADER_END::' "$work/le.kev" | cut -d: -f1)
head -c $((hl + 18 + 500)) "$work/le.kev" > "$work/sys.kev"
expect_error "syspage cut" "TRACE_SYSPAGE_LEN 1024 runs past the end of the file" "$work/sys.kev"
"$gen" "$work/part.kev" cut 5
expect_error "partial event" "trailing partial event: 11 bytes at byte offset" "$work/part.kev"
[ "$(wc -l < "$work/out")" -eq 13 ] || fail "partial event: the whole events before it were not printed"
head -c 4096 /dev/urandom > "$work/garbage.kev"
expect_error "garbage" "not a QNX .kev file: no TRACE_HEADER_BEGIN:: at byte 0" "$work/garbage.kev"
rc=0
${TT_WRAP-} "$tracetap" decode --format qnx --address 0x1000 "$work/le.kev" > /dev/null 2> "$work/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q -- "--address does not apply" "$work/err" || fail "--address accepted"
echo "ok: --address refused"

# --follow: a .kev growing as tracelogger writes it: the header in two pieces, the events with a
# partial last one (held back until its rest arrives); then the file replaced: a reset record
# and the new file from its header. Deadlines of 10 s per step; SIGINT ends it with status 0.
size=$(wc -c < "$work/le.kev")
head -c 50 "$work/le.kev" > "$work/grow.kev"
${TT_WRAP-} "$tracetap" decode --follow --json "$work/grow.kev" > "$work/follow.jsonl" 2> "$work/follow.err" &
fpid=$!
trap 'kill $fpid 2>/dev/null || true; rm -rf "$work"' EXIT
lines_reach() { # N: until follow.jsonl has N lines
  local end=$((SECONDS + 10))
  until [ "$(wc -l < "$work/follow.jsonl")" -ge "$1" ]; do
    [ $SECONDS -lt $end ] || fail "--follow: $(wc -l < "$work/follow.jsonl") records, waited for $1"
    sleep 0.05
  done
}
# the first 50 bytes were read: the header is incomplete (waited for, not slept on: under
# valgrind the start alone can take longer than any fixed pause)
end=$((SECONDS + 10))
until grep -q "waiting for the rest of the header" "$work/follow.err"; do
  [ $SECONDS -lt $end ] || fail "--follow: no waiting message for a 50-byte file"
  sleep 0.05
done
tail -c +51 "$work/le.kev" | head -c $((hl + 18 + 700 - 50)) >> "$work/grow.kev" # header, part of the syspage
sleep 0.3
[ ! -s "$work/follow.jsonl" ] || fail "--follow printed records before the events"
tail -c +$((hl + 18 + 701)) "$work/le.kev" | head -c $((size - hl - 18 - 700 - 8)) >> "$work/grow.kev"
lines_reach 13
sleep 0.3
[ "$(wc -l < "$work/follow.jsonl")" -eq 13 ] || fail "--follow: the partial last event was printed"
tail -c 8 "$work/le.kev" >> "$work/grow.kev"
lines_reach 14
sed 's/"seq":[0-9]*,//' "$work/follow.jsonl" | cmp -s - <(sed 's/"seq":[0-9]*,//' "$work/le.jsonl") ||
  fail "--follow records differ from decoding the whole file"
cp "$work/be.kev" "$work/grow.kev.new" && mv "$work/grow.kev.new" "$work/grow.kev"
lines_reach 29
sed -n 15p "$work/follow.jsonl" | grep -qF '"type":"reset"' || fail "--follow: no reset record when the file was replaced"
sed -n 16,29p "$work/follow.jsonl" | sed 's/"seq":[0-9]*,//;s/,"raw":.*//' |
  cmp -s - <(sed 's/"seq":[0-9]*,//;s/,"raw":.*//' "$work/be.jsonl") || fail "--follow: the replaced file decodes differently"
kill -INT $fpid
rc=0
wait $fpid || rc=$?
[ "$rc" -eq 0 ] || fail "--follow: exit status $rc on SIGINT"
echo "ok: --follow (growing header, partial event held, replaced file = reset)"

# A user string longer than the text line's 64 characters: the line marks the cut and says how
# long the whole is; JSON and --traceprinter keep it whole.
"$gen" "$work/long.kev" long
s10=0123456789
${TT_WRAP-} "$tracetap" decode --no-color "$work/long.kev" > "$work/long.txt"
grep -qF "text=$s10$s10$s10$s10$s10$s10${s10:0:4}...[100 chars]" "$work/long.txt" ||
  fail "text line: a long string cut without a mark: $(cat "$work/long.txt")"
${TT_WRAP-} "$tracetap" decode --json "$work/long.kev" | grep -qF "\"text\":\"$s10$s10$s10$s10$s10$s10$s10$s10$s10$s10\"" ||
  fail "JSON: the long string is not whole"
${TT_WRAP-} "$tracetap" decode --traceprinter "$work/long.kev" | grep -qF "$s10$s10$s10$s10$s10$s10$s10$s10$s10$s10" ||
  fail "--traceprinter: the long string is not whole"
echo "ok: long strings whole or marked"

# --traceprinter: the example of QNX's documentation (shared/reference/qnx-trace.md), written
# here by hand in the form QNX 6.4's traceprinter 1.02 prints it (a thread state's line ends
# with a space there; THCREATE's does not), then the kernel call forms KER_CALL:<NAME>/<nn> and a
# failed KER_EXIT (the whole fixture comparison is qnx_traceprinter).
"$gen" "$work/tp.kev" tp
${TT_WRAP-} "$tracetap" decode --traceprinter "$work/tp.kev" > "$work/tp.txt"
cat "$work/tp.txt"
sed -n '/^ -- KERNEL EVENTS -- $/,$p' "$work/tp.txt" | sed -n 2,5p > "$work/tp.events"
cat > "$work/tp.want" <<'TXT'
t:0x4f81e320 CPU:00 CONTROL :TIME msb:0x000037b0 lsb(offset):0x4f81e014
t:0x4f820f9a CPU:00 THREAD  :THCREATE      pid:1 tid:1
t:0x4f821358 CPU:00 THREAD  :THREADY       pid:1 tid:1 
t:0x4f821787 CPU:00 THREAD  :THRECEIVE     pid:1 tid:2 
TXT
diff "$work/tp.want" "$work/tp.events" || fail "--traceprinter differs from QNX's example"
grep -qF 't:0x4f821800 CPU:01 KER_CALL:MSG_SENDV/11 coid:0x00000003 msg:"" (0x00001000)' "$work/tp.txt" ||
  fail "--traceprinter: no KER_CALL:MSG_SENDV/11"
grep -qE '^t:0x4f821900 CPU:01 KER_EXIT:MSG_SENDV/11 ret_val:-1, errno:3$' "$work/tp.txt" ||
  fail "--traceprinter: no KER_EXIT:MSG_SENDV/11"
grep -q '^ *TRACE_CYCLES_PER_SEC:: 1000000000$' "$work/tp.txt" || fail "--traceprinter: no header attribute"
rc=0
${TT_WRAP-} "$tracetap" decode --traceprinter --json "$work/tp.kev" > /dev/null 2> "$work/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "not with --json" "$work/err" || fail "--traceprinter --json accepted"
echo "ok: --traceprinter (QNX's documented example)"

# --follow --traceprinter: the header's lines, then the events, as for the whole file (wait with
# a deadline until every line is there, then SIGINT)
${TT_WRAP-} "$tracetap" decode --follow --traceprinter "$work/tp.kev" > "$work/tpf.txt" 2> "$work/tpf.err" &
tpid=$!
trap 'kill $fpid $tpid 2>/dev/null || true; rm -rf "$work"' EXIT
end=$((SECONDS + 10))
until [ "$(wc -l < "$work/tpf.txt")" -ge "$(wc -l < "$work/tp.txt")" ]; do
  [ $SECONDS -lt $end ] || fail "--follow --traceprinter: $(wc -l < "$work/tpf.txt") lines of $(wc -l < "$work/tp.txt")"
  sleep 0.05
done
kill -INT $tpid
wait $tpid || fail "--follow --traceprinter: exit status $? on SIGINT"
diff "$work/tp.txt" "$work/tpf.txt" || fail "--follow --traceprinter differs from decoding the whole file"
echo "ok: --follow --traceprinter (the header's lines before the events)"
