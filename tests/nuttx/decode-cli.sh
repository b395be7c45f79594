#!/usr/bin/env bash
# tests/nuttx/decode-cli.sh: `tracetap decode --format nuttx` on a RAM image the test writer
# produced (a wrapped noteram ring): every held record once, in order, with names and arguments;
# the same through --address alone; clear errors for a wrong address.
# usage: decode-cli.sh TRACETAP NX_MKIMAGE
set -euo pipefail
tracetap=$1 mk=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/lib.sh"

"$mk" "$work/ram.bin" 500 > "$work/mk.out"
drv=$(sed -n 's/^driver=\(0x[0-9a-f]*\).*/\1/p' "$work/mk.out")
held=$(sed -n 's/.* held=\([0-9]*\).*/\1/p' "$work/mk.out")
last=$(sed -n 's/.* last_time=\([0-9]*\).*/\1/p' "$work/mk.out")
[ -n "$drv" ] && [ "$held" -gt 20 ] || fail "mkimage: $(cat "$work/mk.out")"

${TT_WRAP-} "$tracetap" decode --json --format nuttx --base 0x20000000 --address "$drv" "$work/ram.bin" \
  > "$work/out.jsonl"
n=$(grep -c '"type":"event"' "$work/out.jsonl")
[ "$n" -eq "$held" ] || fail "decoded $n events, the ring holds $held"
# time stamps: consecutive multiples of 1000 ending at the last one written
times_ok "$work/out.jsonl" "$last" || fail "records out of order or missing"
grep -q '"name":"NOTE_START".*"thread_name":"[a-z_]*".*"args":{"name":"' "$work/out.jsonl" ||
  fail "no NOTE_START with a task name"
grep -q '"name":"NOTE_SYSCALL_ENTER".*"args":{"nr":[0-9]*,"arg0":"0x[0-9a-f]*"' "$work/out.jsonl" ||
  fail "no decoded NOTE_SYSCALL_ENTER"
grep -q '"arg[0-9]":"0x????' "$work/out.jsonl" || fail "no truncated syscall argument flagged"
grep -q '"name":"NOTE_IRQ_\(ENTER\|LEAVE\)".*"args":{"irq":14,"handler":"0x08001234"' \
  "$work/out.jsonl" || fail "no decoded IRQ note"
grep -q '"name":"NOTE_HEAP_ALLOC".*"size":256' "$work/out.jsonl" || fail "no decoded HEAP_ALLOC"
echo "ok: $n records, in order, ending at time $last"

# The driver at the image's start: --address alone is the base too.
${TT_WRAP-} "$tracetap" decode --json --format nuttx --address "$drv" "$work/ram.bin" > "$work/out2.jsonl"
cmp -s "$work/out.jsonl" "$work/out2.jsonl" || fail "--address alone decodes differently"
# Text output works too.
${TT_WRAP-} "$tracetap" decode --no-color --format nuttx --address "$drv" "$work/ram.bin" > "$work/text"
[ "$(wc -l < "$work/text")" -ge "$n" ] || fail "text output is short"

# A wrong address: a clear error, exit status 1.
if ${TT_WRAP-} "$tracetap" decode --format nuttx --base 0x20000000 --address 0x20000100 "$work/ram.bin" \
  2> "$work/err"; then
  fail "a wrong address was accepted"
fi
grep -q 'noteram' "$work/err" || fail "unclear error: $(cat "$work/err")"
echo "ok: wrong address -> $(cat "$work/err")"

# Format options (--format-opt): the defaults spelled out decode the same; a wrong layout field
# changes what is read; bad keys and values are named; a format without options refuses them.
${TT_WRAP-} "$tracetap" decode --json --format nuttx --address "$drv" --format-opt release=13.0 \
  --format-opt ptr_size=4 --format-opt off_head=16 --format-opt off_tail=20 "$work/ram.bin" \
  > "$work/out3.jsonl"
cmp -s "$work/out.jsonl" "$work/out3.jsonl" || fail "explicit default options decode differently"
if ${TT_WRAP-} "$tracetap" decode --json --format nuttx --address "$drv" --format-opt off_head=20 \
  --format-opt off_tail=16 "$work/ram.bin" > "$work/out4.jsonl" 2> "$work/err"; then
  cmp -s "$work/out.jsonl" "$work/out4.jsonl" && fail "off_head/off_tail were ignored"
fi
opt_err() { # expected-text args...
  local want=$1; shift
  if ${TT_WRAP-} "$tracetap" decode "$@" "$work/ram.bin" > /dev/null 2> "$work/err"; then
    fail "accepted: $*"
  fi
  grep -qF -- "$want" "$work/err" || fail "for $*: unclear error: $(cat "$work/err")"
  echo "ok: $* -> $(cat "$work/err")"
}
opt_err "nuttx has no option 'colour'" --format nuttx --address "$drv" --format-opt colour=red
opt_err "release='12': expected MAJOR.MINOR" --format nuttx --address "$drv" --format-opt release=12
opt_err "ptr_size='2': expected 4 or 8" --format nuttx --address "$drv" --format-opt ptr_size=2
opt_err "expected KEY=VALUE" --format nuttx --address "$drv" --format-opt release
opt_err "format threadx takes no options" --format threadx --format-opt x=1
# the options as a whole (reader.h cfg_check): a partial task table, an inconsistent layout
opt_err "nuttx: task names from the target need all of pidhash, npidhash, tcb_pid, tcb_name" \
  --format nuttx --address "$drv" --format-opt pidhash=0x20000800
opt_err "nuttx: driver member offsets span more than 256 bytes" --format nuttx --address "$drv" \
  --format-opt off_tail=400
opt_err "qnx: qnx layout: header_size leaves room for fewer than 4 events" --format qnx \
  --address "$drv" --format-opt buf_size=4096 --format-opt header_size=4096
# Layout files (--layout): untrusted input, every error names the file and the field
lay() { printf '%s' "$2" > "$work/$1.json"; echo "$work/$1.json"; }
opt_err "$work/notjson.json: not JSON (at byte" --layout "$(lay notjson '{"format": "nuttx",')"
opt_err "$work/noformat.json: no \"format\" string" --layout "$(lay noformat '{"address": "0x1"}')"
opt_err "$work/other.json: a layout for format nuttx, not qnx" --format qnx \
  --layout "$(lay other '{"format": "nuttx"}')"
opt_err "$work/badopt.json: nuttx.options.off_head: nuttx option off_head='x': expected a number" \
  --layout "$(lay badopt '{"format": "nuttx", "nuttx": {"options": {"off_head": "x"}}}')"
opt_err "$work/neg.json: nuttx.options.ptr_size: expected a string or a non-negative integer" \
  --layout "$(lay neg '{"format": "nuttx", "nuttx": {"options": {"ptr_size": -8}}}')"
opt_err "$work/addr.json: address: expected a string like" \
  --layout "$(lay addr '{"format": "nuttx", "address": 536870912}')"
opt_err "$work/sc.json: nuttx.syscalls[1]: not a name of at most 63 characters, nor null" \
  --layout "$(lay sc '{"format": "nuttx", "address": "0x20000000", "nuttx": {"syscalls": ["a", 7]}}')"
opt_err "$work/str.json: nuttx.strings.zz: expected an address key" \
  --layout "$(lay str '{"format": "nuttx", "address": "0x20000000", "nuttx": {"strings": {"zz": "%d"}}}')"
opt_err "--layout $work/ok.json and --elf $work/ok.json: give one" --elf "$work/ok.json" \
  --layout "$(lay ok '{"format": "nuttx", "address": "0x20000000"}')"
# a good one: the format and the address from it, the same records as --format/--address
"$tracetap" decode --json --format nuttx --address "$drv" "$work/ram.bin" > "$work/addr.jsonl"
"$tracetap" decode --json --layout "$(lay good "{\"format\": \"nuttx\", \"address\": \"$drv\"}")" \
  "$work/ram.bin" > "$work/lay.jsonl" || fail "decode --layout failed"
cmp -s "$work/addr.jsonl" "$work/lay.jsonl" || fail "decode --layout differs from --format/--address"
echo "ok: --layout with the format and address only decodes as --format nuttx --address"

# A binary dump (`trace dump -b`: notes back to back, nc_length bytes each, no padding; odd
# lengths such as NOTE_START "nsh_main" = 25 bytes): the record-stream mode (no --address)
# reads every note, in order.
"$mk" --dump "$work/dump.bin" 300 > "$work/dump.out"
last=$(sed -n 's/.* last_time=\([0-9]*\).*/\1/p' "$work/dump.out")
${TT_WRAP-} "$tracetap" decode --json --format nuttx "$work/dump.bin" > "$work/dump.jsonl"
n=$(grep -c '"type":"event"' "$work/dump.jsonl" || true)
[ "$n" -eq 300 ] || fail "binary dump: $n of 300 notes decoded"
times_ok "$work/dump.jsonl" "$last" || fail "binary dump: records out of order or missing"
grep -q '"name":"NOTE_START".*"args":{"name":"nsh_main"}' "$work/dump.jsonl" ||
  fail "binary dump: no NOTE_START nsh_main"
# a dump cut in the middle of its last note (as a copy cut short): the whole notes before the
# cut, then one clear error naming the offset
head -c 1000 "$work/dump.bin" > "$work/cut.bin"
if ${TT_WRAP-} "$tracetap" decode --json --format nuttx "$work/cut.bin" > "$work/cut.jsonl" \
  2> "$work/cut.err"; then
  fail "a truncated dump was accepted"
fi
grep -q 'bad note at file offset [0-9]*: record length [0-9]* runs past' "$work/cut.err" ||
  fail "truncated dump: unclear error: $(cat "$work/cut.err")"
[ "$(wc -l < "$work/cut.err")" -eq 1 ] || fail "truncated dump: more than one error line"
[ "$(grep -c '"type":"event"' "$work/cut.jsonl")" -gt 30 ] || fail "truncated dump: notes before the cut lost"
echo "ok: binary dump: 300 notes in order; cut dump -> $(cat "$work/cut.err")"

# Task names from the TCBs a whole-RAM image holds (no START note in it): every event of pids 1-5
# named from its first record on, as the workload's task table says; without the options none.
"$mk" --tasks "$work/tasks.bin" 500 > "$work/tasks.out"
[[ $(sed -n 2p "$work/tasks.out") =~ ^tasks\ pidhash=(0x[0-9a-f]+)\ npidhash=(0x[0-9a-f]+)\ tcb_pid=([0-9]+)\ tcb_name=([0-9]+)\ tcb_name_size=([0-9]+)$ ]] ||
  fail "mkimage --tasks: $(cat "$work/tasks.out")"
topts=(--format-opt "pidhash=${BASH_REMATCH[1]}" --format-opt "npidhash=${BASH_REMATCH[2]}"
  --format-opt "tcb_pid=${BASH_REMATCH[3]}" --format-opt "tcb_name=${BASH_REMATCH[4]}"
  --format-opt "tcb_name_size=${BASH_REMATCH[5]}")
${TT_WRAP-} "$tracetap" decode --json --format nuttx --address "$drv" "$work/tasks.bin" \
  > "$work/tasks0.jsonl"
! grep -q '"thread_name"' "$work/tasks0.jsonl" || fail "--tasks image: names without the options?"
${TT_WRAP-} "$tracetap" decode --json --format nuttx --address "$drv" "${topts[@]}" \
  "$work/tasks.bin" > "$work/tasks.jsonl"
bad=$(jq -r 'select(.type == "event") | [.thread, .thread_name // "none"] | @tsv' "$work/tasks.jsonl" |
  awk -F'\t' 'BEGIN { w["0x00000001"] = "nsh_main"; w["0x00000002"] = "hpwork";
    w["0x00000003"] = "lpwork"; w["0x00000004"] = "trace"; w["0x00000005"] = "app" }
    { n++; if (w[$1] != $2) { print "thread " $1 " named " $2; exit } }
    END { if (n < 20) print "only " n " events" }')
[ -z "$bad" ] || fail "--tasks image: $bad"
echo "ok: names from the TCBs in the image: $(grep -c '"thread_name"' "$work/tasks.jsonl") events named"
