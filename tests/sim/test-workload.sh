#!/bin/bash
# tests/sim/test-workload.sh: tt-fw-threadx writes a ThreadX trace into the simulator's RAM while
# a real OpenOCD reads it: the published header pointer, the TXTB header, the registry, entries
# advancing, registry churn (SIGUSR2), a target reset (SIGUSR1), and after the workload stops,
# the last user event's sequence number equals the one it reported.
# With MODE=pid the workload keeps its RAM in its own memory (--anon) and the simulator reads
# it by pid (process_vm_readv) instead of through a shared file.
# Usage: [MODE=pid] test-workload.sh SIMTARGET FW_THREADX OPENOCD_CFG
SIMTARGET=$1
FW_THREADX=$2
OPENOCD_CFG=$3
. "$(dirname "$0")/lib.sh"

BASE=0x20000000
SIZE=32768
ram="$TT_TMP/ram.bin"
MODE=${MODE:-file}

# 4 KiB buffer, 16 registry entries: 102 entries, small enough to read whole in a few ms
fw_args=(--base $BASE --size $SIZE --buf-size 4096 --rate 2000 --duration 60)
if [ "$MODE" = pid ]; then
	tt_spawn fw "$FW_THREADX" --anon "${fw_args[@]}"
	tt_expect fw '^header=(0x[0-9a-f]+) .*entries=([0-9]+) .*pid=([0-9]+)'
	HDR=${BASH_REMATCH[1]}
	NENT=${BASH_REMATCH[2]}
	tt_sim_start --pid "${BASH_REMATCH[3]}" --base $BASE --size $SIZE
else
	tt_sim_start --ram "$ram" --base $BASE --size $SIZE
	tt_spawn fw "$FW_THREADX" --ram "$ram" "${fw_args[@]}"
	tt_expect fw '^header=(0x[0-9a-f]+) .*entries=([0-9]+)'
	HDR=${BASH_REMATCH[1]}
	NENT=${BASH_REMATCH[2]}
fi
tt_ocd_start

# header (not word) compare: OpenOCD prints without leading zeros
tt_read $BASE 32 1
[ "$TT_RC" = 0 ] && [ "$TT_RPC" = "$(tt_hex $HDR)" ] || tt_die "_tx_trace_header_ptr: $TT_RPC"
tt_read "$HDR" 32 12
read -r -a h <<<"$TT_RPC"
[ "${h[0]}" = 0x54585442 ] || tt_die "header id: ${h[0]}"
[ "${h[2]}" = "$(tt_hex $HDR)" ] || tt_die "header base: ${h[2]}"
REG=${h[3]}
ENT=${h[6]}
ENT_END=${h[7]}
[ $(((ENT_END - ENT) / 32)) = "$NENT" ] || tt_die "entries: $ENT..$ENT_END vs $NENT"
tt_ok "header id 0x54585442 at the published pointer $HDR"

# registry slot 0: thread "sensor", priority 5 in reserved1/2
tt_read "$REG" 8 24
read -r -a r <<<"$TT_RPC"
name=""
for ((i = 16; i < 24 && r[i] != 0; i++)); do
	printf -v c "\\x${r[i]#0x}"
	name+=$c
done
[ "${r[0]}" = 0x0 ] && [ "${r[1]}" = 0x1 ] && [ "${r[2]}" = 0x80 ] && [ "${r[3]}" = 0x5 ] &&
	[ "$name" = sensor ] || tt_die "registry slot 0: $TT_RPC ($name)"
tt_ok "registry: thread 'sensor' priority 5"

tt_read $((HDR + 32)) 32 1
cur1=$TT_RPC
deadline=$((SECONDS + 10))
while :; do
	tt_read $((HDR + 32)) 32 1
	[ "$TT_RPC" != "$cur1" ] && break
	[ $SECONDS -lt $deadline ] || tt_die "current pointer stuck at $cur1"
done
[ $((TT_RPC)) -ge $((ENT)) ] && [ $((TT_RPC)) -lt $((ENT_END)) ] || tt_die "current $TT_RPC"
tt_ok "current pointer advances ($cur1 -> $TT_RPC)"

read_name() { # read_name SLOT -> NAME
	tt_read $((REG + $1 * 48 + 16)) 8 16
	read -r -a r <<<"$TT_RPC"
	NAME=""
	for ((i = 0; i < 16 && r[i] != 0; i++)); do
		printf -v c "\\x${r[i]#0x}"
		NAME+=$c
	done
}
kill -USR2 "$TT_PID_fw"
tt_expect fw '^churn n=1 name=worker-1$'
read_name 3
[ "$NAME" = worker-1 ] || tt_die "registry slot 3 after churn: '$NAME'"
tt_ok "registry churn renames slot 3 to worker-1"

kill -USR1 "$TT_PID_fw"
tt_expect fw '^reset n=1 seq=([0-9]+)$'
BASH_REMATCH_SEQ=${BASH_REMATCH[1]}
tt_read $((BASE + 4)) 32 1
[ "$TT_RPC" = 0x1 ] || tt_die "reset counter word: $TT_RPC"
read_name 3
[ "$NAME" = worker-1 ] || tt_die "registry slot 3 after reset: '$NAME'"
tt_ok "target reset re-enables the trace with objects re-registered"

# let it lap the 102-entry buffer after the reset (the last_seq word, polled with a deadline)
deadline=$((SECONDS + 20))
while :; do
	tt_read $((BASE + 8)) 32 1
	[ $((TT_RPC)) -ge $((BASH_REMATCH_SEQ + 60)) ] && break
	[ $SECONDS -lt $deadline ] || tt_die "workload stalled at seq $TT_RPC"
done
# Freeze the workload (SIGSTOP, possibly mid-entry) and check the ring from current + 1
# (the slot at current may be half rewritten) to current - 1 (the newest): the user events must
# carry consecutive sequence numbers, the newest equal to the last_seq word (which is stored
# just after its event, so it may lag by one). A file-backed run then checks the exit summary.
kill -STOP "$TT_PID_fw"
tt_read $((BASE + 8)) 32 1
word_seq=$((TT_RPC))
tt_read $((HDR + 32)) 32 1
cur=$(((TT_RPC - ENT) / 32))
tt_read "$ENT" 32 $((NENT * 8))
read -r -a e <<<"$TT_RPC"
kill -CONT "$TT_PID_fw"
last_seq=$word_seq
if [ "$MODE" != pid ]; then
	kill -TERM "$TT_PID_fw"
	tt_expect fw '^summary events=([0-9]+) user_events=([0-9]+) last_seq=([0-9]+)'
	last_seq=${BASH_REMATCH[3]}
fi
prev=""
users=0
for ((k = 1; k < NENT; k++)); do
	i=$(((cur + k) % NENT))
	[ "${e[i * 8 + 2]}" = 0x1000 ] || continue
	s=$((e[i * 8 + 4]))
	[ -z "$prev" ] || [ "$s" = $((prev + 1)) ] || tt_die "user seq $s after $prev"
	prev=$s
	users=$((users + 1))
done
[ "$users" -ge 10 ] && { [ "$prev" = "$word_seq" ] || [ "$prev" = $((word_seq + 1)) ]; } ||
	tt_die "$users user events, newest seq $prev, last_seq word $word_seq"
[ "$last_seq" -ge "$prev" ] || tt_die "workload summary last_seq $last_seq < $prev"
tt_ok "$users user events in ring order with consecutive seqs ending at $prev (word $word_seq)"
tt_ocd_stop
