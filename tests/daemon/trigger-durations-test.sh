#!/usr/bin/env bash
# tests/daemon/trigger-durations-test.sh: the interrupt and system-call duration conditions on
# a NuttX workload (tt-fw-nuttx writing a noteram ring that tracetapd follows): nothing fires
# while every interrupt is short; one interrupt made 100000 ticks long (--long-irq-at) fires
# irq max>1000 at a record after it, and a bound above its length (irq max>200000) never fires;
# the system calls open across it (nxw_any's enter and leave notes are of different tasks: the
# analysis pairs them per task, so some span the jump) fire syscall max>1000 the same way.
# usage: trigger-durations-test.sh TRACETAPD FW_NUTTX
tracetapd=$1 fw=$2
command -v jq > /dev/null || { echo "SKIP: jq not installed"; exit 77; }
. "$(dirname "$0")/lib.sh"
logs=("$work/d.log" "$work/fw.out")

"$fw" --ram "$work/ram.bin" --base 0x20000000 --size 65536 --rate 2000 --duration 60 \
  --long-irq-at 8000 > "$work/fw.out" &
pids+=($!)
wait_for "$work/fw.out" '^driver=' 20
"$tracetapd" --probe "file:$work/ram.bin" --base 0x20000000 --format nuttx --address 0x20000100 \
  --port 0 --web "$work" --stdout --trigger 'irq: irq max>1000' --trigger 'never: irq max>200000' \
  --trigger 'sc: syscall max>1000' \
  > "$work/stream.jsonl" 2> "$work/d.log" &
dpid=$!
pids+=($dpid)
daemon_port "$work/d.log" 30
# the long interrupt is written 4 s in: by then the analysis has seen many short ones
wait_for "$work/fw.out" '^long irq at=' 30
grep -q 'trigger irq fired\|trigger sc fired' "$work/d.log" && fail "fired before the long interrupt"
jump=$(sed -n 's/^long irq at=[0-9]* time=\([0-9]*\) .*/\1/p' "$work/fw.out")
wait_for "$work/d.log" 'trigger irq fired \(irq max>1000: interrupt 14 took 1000[0-9]{2} ticks\) at seq [0-9]+' 30
seq=$(sed -n 's/.*trigger irq fired .* at seq \([0-9]*\).*/\1/p' "$work/d.log")
t=$(jq -cR "fromjson? | select(.seq == $seq) | .time" "$work/stream.jsonl")
[ -n "$t" ] && [ "$t" -ge "$jump" ] || fail "fired at seq $seq (time $t), the long interrupt ended at time $jump"
wait_for "$work/d.log" 'trigger sc fired \(syscall max>1000: system call .* took [0-9]+ ticks\) at seq' 30
kill -TERM "$dpid"
rc=0; wait "$dpid" || rc=$?
[ "$rc" = 0 ] || fail "tracetapd exited $rc"
grep -q 'trigger never fired' "$work/d.log" && fail "irq max>200000 fired for a 100000-tick interrupt"
echo "ok: $(grep -o 'trigger irq fired.*' "$work/d.log"), after the long interrupt (time $jump); irq max>200000 never"
