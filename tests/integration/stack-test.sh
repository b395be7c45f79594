#!/usr/bin/env bash
# tests/integration/stack-test.sh: the stacks' true high-water marks, read from target RAM
# through a real OpenOCD, against depths this test knows on its own (the firmware's constants,
# never tracetap's output).
#   sim:  tt-fw-threadx --stacks on tt-simtarget --cortex-m (stock-style sim-cm3.cfg): sensor
#         used to 320 of 1024 bytes, control to 2040 of 2048, comms to 512 of 1024, the worker
#         unpainted (no fill pattern); registry churn creates the worker anew on a new painted
#         stack used to 96 bytes.
#   qemu: tt-fw-mps2.elf on QEMU's mps2-an385 (each thread really runs on its own painted stack
#         in PSRAM, and digs to a fixed depth: sensor 384, control 992 of 1024, comms 512).
# Checks: each painted figure exactly (/api/stats, labelled "painted stack"; /metrics with
# source="painted"; `tracetap top`'s "N p"), the traced figure beside it with its own label, "no
# fill pattern" with no number ("nofill" in top), the re-created thread starting over, and the budget: the stack bytes the daemon counts
# over a span the test times stay within budget * span + one second's bucket, and the bytes/s
# it reports within the budget; then, the core halted, `tracetap analyze` of the RAM gives the
# same painted figures.
# usage: stack-test.sh CASE INTERFACE_CFG TARGET_CFG [FIRMWARE_ELF]
# env (meson): TRACETAPD TRACETAP SIMTARGET FW_THREADX; TT_KEEP=1 keeps the logs; TT_WRAP (the
# valgrind setup) runs tracetapd and tracetap under it.
set -u
CASE=$1
OPENOCD_CFG=$2
OPENOCD_TARGET_CFG=$3
FW_ELF=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../sim/lib.sh
. "$here/../sim/lib.sh"
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }

DLOG=$TT_TMP/daemon.err
REC=$TT_TMP/records.jsonl
BUDGET=1500

case $CASE in
sim)
	# the 16 KiB trace buffer at 0x1000, the stacks at 0x10000 (5 KiB)
	sim --cortex-m
	fw 300 0x4000 --stacks 0x10000
	tt_ctl "core $TT_PID_fw"
	NAME=sim
	TARGET_ARGS=(--pointer $BASE)
	DEPTHS="sensor=320/1024 control=2040/2048 comms=512/1024"
	LOW=16 # control's painted free (8) is below; its traced figure is not
	;;
qemu)
	[ -f "$FW_ELF" ] || {
		echo "skipped: the firmware was not built (gcc-arm-none-eabi, libnewlib-arm-none-eabi)"; exit 77; }
	command -v qemu-system-arm >/dev/null || { echo "skipped: qemu-system-arm not installed"; exit 77; }
	PSRAM=$TT_TMP/psram.bin
	QMP=$TT_TMP/qmp.sock
	qemu-system-arm -machine mps2-an385,memory-backend=ram \
		-object memory-backend-file,id=ram,size=16M,mem-path="$PSRAM",share=on \
		-kernel "$FW_ELF" -nographic -monitor none -serial none \
		-qmp "unix:$QMP,server=on,wait=off" 2>"$TT_TMP/qemu.err" &
	TT_PIDS+=("$!")
	tt_wait_for 20 "QEMU's QMP socket" test -S "$QMP"
	tt_sim_start --qmp "$QMP" --ram "$PSRAM" --base 0x21000000 --size 0x1000000
	NAME=qemu
	TARGET_ARGS=(--elf "$FW_ELF" --tick-hz 25M)
	DEPTHS="sensor=384/1024 control=992/1024 comms=512/1024"
	LOW=40 # control's painted free (32) is below; its traced figure is not
	;;
*) tt_die "unknown case $CASE" ;;
esac
tt_board_ocd_start
T_START=$(date +%s%N)
${TT_WRAP-} "$TRACETAPD" --port 0 --web "$here" --stdout --log-level info --name $NAME "${TARGET_ARGS[@]}" \
	--stack-budget $BUDGET --trigger "low: stack free<$LOW thread=control; limit=1" \
	--probe "openocd:127.0.0.1:$OCD_PORT" >"$REC" 2>"$DLOG" &
DPID=$!
TT_PIDS+=("$DPID")
wait_log 'dashboard at http://127\.0\.0\.1:[0-9]+/'
HTTP_PORT=$(sed -n 's/.*dashboard at http:\/\/127\.0\.0\.1:\([0-9]*\)\/.*/\1/p' "$DLOG" | head -n 1)

stats() { curl -sf "http://127.0.0.1:$HTTP_PORT/api/stats?target=$NAME" >"$TT_TMP/stats.json"; }
# painted FIELD THREAD: one field of a thread's painted figure ("" when absent)
painted() { jq -r --arg t "$2" '.threads[] | select(.name == $t) | .stack.painted.'"$1"' // ""' \
	"$TT_TMP/stats.json"; }
all_painted() {
	stats || return 1
	local d t
	for d in $DEPTHS; do
		t=${d%%=*}
		[ "$(painted state "$t")" = painted ] || return 1
	done
}
tt_wait_for 60 "every painted stack's figure in /api/stats" all_painted
for d in $DEPTHS; do
	t=${d%%=*}
	used=${d#*=}
	size=${used#*/}
	used=${used%/*}
	got_used=$(painted used "$t")
	got_free=$(painted free "$t")
	[ "$got_used" = "$used" ] && [ "$got_free" = $((size - used)) ] ||
		tt_die "$t: painted used $got_used free $got_free, the firmware used $used of $size"
	[ "$(painted source "$t")" = "painted stack" ] || tt_die "$t: painted figure not labelled"
	traced=$(jq -r --arg t "$t" '.threads[] | select(.name == $t) | .stack |
		"\(.source) \(.min_free // "none")"' "$TT_TMP/stats.json")
	[[ $traced =~ ^traced\ stack\ pointer\ ([0-9]+)$ ]] ||
		tt_die "$t: the traced figure is not beside the painted one: $traced"
	[ "${BASH_REMATCH[1]}" -ge "$got_free" ] ||
		tt_die "$t: traced free ${BASH_REMATCH[1]} below the painted $got_free (the painted mark is the deepest)"
done
tt_ok "painted high-water marks equal the firmware's depths: $DEPTHS (traced figures beside them)"

metrics=$(curl -sf "http://127.0.0.1:$HTTP_PORT/metrics") || tt_die "/metrics failed"
t=control
size=${DEPTHS#*control=}
size=${size%% *}
free=$((${size#*/} - ${size%/*}))
grep -qE "^tracetap_thread_stack_free_bytes\{target=\"$NAME\",thread=\"$t\",id=\"0x[0-9a-f]+\",source=\"painted\"\} $free\$" \
	<<<"$metrics" || tt_die "no painted metric for $t = $free: $(grep stack_free <<<"$metrics")"
grep -qE "^tracetap_thread_stack_free_bytes\{target=\"$NAME\",thread=\"$t\",id=\"0x[0-9a-f]+\",source=\"traced_stack_pointer\"\} " \
	<<<"$metrics" || tt_die "no traced metric for $t"
tt_ok "/metrics: $t's stack_free_bytes with source=\"painted\" ($free) and source=\"traced_stack_pointer\""
# the stack trigger takes the painted figure (control's traced one is far above LOW)
alert_low() { grep -q 'trigger low fired' "$DLOG"; }
tt_wait_for 20 "the trigger low (stack free<$LOW, control)" alert_low
grep -q "trigger low fired (.*thread control: $free bytes of stack never used (below $LOW; painted stack))" \
	"$DLOG" || tt_die "the alert of low: $(grep 'trigger low' "$DLOG" | head -c 400)"
[ "$(jq -r --arg t control '.threads[] | select(.name == $t) | .stack.min_free' "$TT_TMP/stats.json")" -ge $LOW ] ||
	tt_die "control's traced figure is below $LOW too: the test proves nothing"
tt_ok "trigger 'stack free<$LOW thread=control' fired on the painted figure ($free)"

if [ "$CASE" = sim ]; then
	[ "$(painted state worker-0)" = "no fill pattern" ] && [ -z "$(painted used worker-0)" ] &&
		[ -z "$(painted free worker-0)" ] ||
		tt_die "worker-0 (unpainted): $(jq -c '.threads[] | select(.name == "worker-0") | .stack' "$TT_TMP/stats.json")"
	! grep -q 'thread="worker-0".*source="painted"' <<<"$metrics" ||
		tt_die "a painted metric for the unpainted worker"
	tt_ok "the unpainted worker: \"no fill pattern\", no number (API and metrics)"
	# tracetap top, screens written one after another to a file (not a terminal)
	${TT_WRAP-} "$TRACETAP" top "127.0.0.1:$HTTP_PORT" >"$TT_TMP/top.out" 2>&1 &
	TOP=$!
	TT_PIDS+=("$TOP")
	top_shows() { grep -qE '^control .* 8 p ' "$TT_TMP/top.out" &&
		grep -qE '^worker-0 .* nofill ' "$TT_TMP/top.out"; }
	tt_wait_for 20 "tracetap top: control '8 p' (painted), worker-0 'nofill'" top_shows
	kill -INT "$TOP"
	wait "$TOP" || tt_die "tracetap top exited with status $? on SIGINT"
	tt_ok "tracetap top: control's stack free '8 p' (painted), worker-0 'nofill'"
	kill -USR2 "$TT_PID_fw"
	tt_expect fw '^churn n=1 name=worker-1'
	worker_new() { stats && [ "$(painted state worker-1)" = painted ]; }
	tt_wait_for 30 "the re-created worker's painted figure" worker_new
	[ "$(painted used worker-1)" = 96 ] || tt_die "worker-1 on its new stack: used $(painted used worker-1), not 96"
	tt_ok "the worker created anew on a new stack (same control block) starts over: used 96"
fi

# the budget: stack bytes over a span the test times (from before the first reading to after
# the second), at most budget * span + the bucket (one second of budget)
scan_bytes() { jq -r '.stack_scan.bytes' "$TT_TMP/stats.json"; }
t0=$(date +%s%N)
stats || tt_die "/api/stats failed"
b0=$(scan_bytes)
enough() { stats && [ "$(scan_bytes)" -gt $((b0 + 2000)) ]; }
tt_wait_for 60 "2000 more stack bytes read" enough
b1=$(scan_bytes)
t1=$(date +%s%N)
span_ms=$(((t1 - t0) / 1000000))
max=$((BUDGET * span_ms / 1000 + BUDGET))
[ $((b1 - b0)) -le $max ] || tt_die "$((b1 - b0)) stack bytes in $span_ms ms: over the budget ($max)"
# the reported rate is over the last 10 to 20 s (or since the start): within the budget plus
# the bucket spread over that span
rate=$(jq -r '.stack_scan.bytes_per_s' "$TT_TMP/stats.json")
up_ms=$(((t1 - T_START) / 1000000))
[ $up_ms -lt 10000 ] || up_ms=10000
awk -v r="$rate" -v b=$BUDGET -v ms=$up_ms 'BEGIN { exit !(r > 0 && r <= b + b * 1000 / ms) }' ||
	tt_die "reported $rate stack bytes/s, budget $BUDGET"
[ "$(jq -r '.stack_scan.budget_bytes_per_s' "$TT_TMP/stats.json")" = $BUDGET ] || tt_die "budget not reported"
tt_ok "budget $BUDGET B/s: $((b1 - b0)) stack bytes in $span_ms ms (at most $max), reported $rate B/s"

# offline: `tracetap analyze` of the RAM, the core halted through OpenOCD, gives the same
# painted figures (the image holds the stacks)
ocd_cmd halt
[ "$CASE" = sim ] && tt_wait_for 10 "the workload stopped by the halt" \
	eval '[ "$(tt_proc_state "$TT_PID_fw")" = T ]'
if [ "$CASE" = sim ]; then
	IMG=(--pointer $BASE --base $BASE "$TT_TMP/ram.bin")
else
	IMG=(--format threadx --elf "$FW_ELF" --base 0x21000000 "$PSRAM")
fi
${TT_WRAP-} "$TRACETAP" analyze --json "${IMG[@]}" >"$TT_TMP/stats.json" 2>"$TT_TMP/analyze.err" ||
	tt_die "tracetap analyze of the RAM failed: $(cat "$TT_TMP/analyze.err")"
for d in $DEPTHS; do
	t=${d%%=*}
	used=${d#*=}
	used=${used%/*}
	[ "$(painted used "$t")" = "$used" ] ||
		tt_die "offline: $t painted used $(painted used "$t"), the firmware used $used"
done
${TT_WRAP-} "$TRACETAP" analyze "${IMG[@]}" >"$TT_TMP/analyze.txt" 2>&1 || tt_die "tracetap analyze (text) failed"
grep -qE '^ +[0-9]+ +[0-9]+ +[0-9]+ +control$' <(sed -n '/High-Water (painted stack, read from RAM)/,/^$/p;/High-Water/,/^\*/p' "$TT_TMP/analyze.txt") ||
	tt_die "no painted table in tracetap analyze's text: $(grep -A6 High-Water "$TT_TMP/analyze.txt")"
tt_ok "offline: tracetap analyze of the halted RAM gives the same painted figures (JSON and text)"
kill -TERM "$DPID"
wait "$DPID" || tt_die "tracetapd exited with status $? on SIGTERM"
