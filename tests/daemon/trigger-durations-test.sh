#!/usr/bin/env bash
# tests/daemon/trigger-durations-test.sh: the interrupt and system-call duration conditions on
# a NuttX workload (tt-fw-nuttx writing a noteram ring that tracetapd follows): nothing fires
# while every interrupt is short; one interrupt made 100000 ticks long (--long-irq-at) fires
# irq max>1000 at a record after it, and a bound above its length (irq max>200000) never fires;
# the system calls open across it (nxw_any's enter and leave notes are of different tasks: the
# analysis pairs them per task, so some span the jump) fire syscall max>1000 the same way. An
# event's text: one NOTE_DUMP_MARK "up_assert: ..." (--mark-at) fires '* text~assert' on that
# record, once; '* text~panic' never.
# usage: trigger-durations-test.sh TRACETAPD FW_NUTTX
tracetapd=$1 fw=$2
command -v jq > /dev/null || { echo "SKIP: jq not installed"; exit 77; }
. "$(dirname "$0")/lib.sh"
logs=("$work/d.log" "$work/fw.out")

"$fw" --ram "$work/ram.bin" --base 0x20000000 --size 65536 --rate 2000 --duration 60 \
  --long-irq-at 8000 --mark-at 9000 --mark "up_assert: Assertion failed at file: x.c line: 12" \
  > "$work/fw.out" &
pids+=($!)
wait_for "$work/fw.out" '^driver=' 20
"$tracetapd" --probe "file:$work/ram.bin" --base 0x20000000 --format nuttx --address 0x20000100 \
  --port 0 --web "$work" --stdout --trigger 'irq: irq max>1000' --trigger 'never: irq max>200000' \
  --trigger 'sc: syscall max>1000' --trigger 'asrt: * text~assert' --trigger 'panic: * text~panic' \
  > "$work/stream.jsonl" 2> "$work/d.log" &
dpid=$!
pids+=($dpid)
daemon_port "$work/d.log" 30
# the long interrupt is written 4 s in: by then the analysis has seen many short ones
wait_for "$work/fw.out" '^long irq at=' 30
jump=$(sed -n 's/^long irq at=[0-9]* time=\([0-9]*\) .*/\1/p' "$work/fw.out")
wait_for "$work/d.log" 'trigger irq fired \(irq max>1000: interrupt 14 took 1000[0-9]{2} ticks\) at seq [0-9]+' 30
seq=$(sed -n 's/.*trigger irq fired .* at seq \([0-9]*\).*/\1/p' "$work/d.log")
t=$(jq -cR "fromjson? | select(.seq == $seq) | .time" "$work/stream.jsonl")
[ -n "$t" ] && [ "$t" -ge "$jump" ] || fail "fired at seq $seq (time $t), the long interrupt ended at time $jump"
wait_for "$work/d.log" 'trigger sc fired \(syscall max>1000: system call .* took [0-9]+ ticks\) at seq' 30
# each fired at a record after the jump, not before it (by the record's time, not by when the
# test looked: the daemon may read the long interrupt as soon as it is written)
seq=$(sed -n 's/.*trigger sc fired .* at seq \([0-9]*\).*/\1/p' "$work/d.log" | head -n 1)
t=$(jq -cR "fromjson? | select(.seq == ${seq:-0}) | .time" "$work/stream.jsonl")
[ -n "$t" ] && [ "$t" -ge "$jump" ] || fail "sc fired at seq $seq (time $t), before the long interrupt ended ($jump)"
wait_for "$work/fw.out" '^mark at=' 30
wait_for "$work/d.log" 'trigger asrt fired' 30
kill -TERM "$dpid"
rc=0; wait "$dpid" || rc=$?
[ "$rc" = 0 ] || fail "tracetapd exited $rc"
grep -q 'trigger never fired' "$work/d.log" && fail "irq max>200000 fired for a 100000-tick interrupt"
grep -q 'trigger panic fired' "$work/d.log" && fail "text~panic fired: no event says panic"
[ "$(grep -c 'trigger asrt fired' "$work/d.log")" = 1 ] || fail "text~assert fired $(grep -c 'trigger asrt fired' "$work/d.log") times for one mark"
aseq=$(sed -n 's/.*trigger asrt fired (\* text~assert) at seq \([0-9]*\).*/\1/p' "$work/d.log")
mtime=$(sed -n 's/^mark at=[0-9]* time=\([0-9]*\).*/\1/p' "$work/fw.out")
[ "$(jq -cR "fromjson? | select(.seq == ${aseq:-0}) | [.name, .time, .args.text]" "$work/stream.jsonl")" = \
  "[\"NOTE_DUMP_MARK\",$mtime,\"up_assert: Assertion failed at file: x.c line: 12\"]" ] ||
  fail "text~assert fired at seq ${aseq:-none}, the mark was written at time $mtime"
echo "ok: $(grep -o 'trigger irq fired.*' "$work/d.log"), after the long interrupt (time $jump); irq max>200000 never"
echo "ok: '* text~assert' fired once, at the NOTE_DUMP_MARK (seq $aseq, time $mtime); '* text~panic' never"
