#!/usr/bin/env bash
# tests/daemon/trigger-test.sh: triggers on a ThreadX workload (tt-fw-threadx writing a RAM file
# that tracetapd follows): each condition fires on the record that makes it true and never
# without it; a capture holds the stream's records seq for seq around the trigger and its .trx
# decodes to the same events; the count limit of captures removes the oldest ones and nothing
# else; a command sees the capture; SIGHUP reloads the triggers and refuses a bad one naming the
# file, the trigger and the key.
# usage: trigger-test.sh TRACETAPD TRACETAP FW_THREADX
tracetapd=$1 tracetap=$2 fw=$3
command -v jq > /dev/null || { echo "SKIP: jq not installed"; exit 77; }
. "$(dirname "$0")/lib.sh"
logs=("$work/d.log")

ram=$work/ram.bin caps=$work/caps
mkdir -p "$caps/keep-me" && echo "not a capture" > "$caps/keep-me/notes.txt" && echo x > "$caps/file.txt"
# the target's RAM, tracing not enabled yet: tracetapd waits for it, so it sees every record
# from the first however long it takes to start (valgrind, a loaded machine)
head -c 65536 /dev/zero > "$ram"
cat > "$work/cmd.sh" <<EOF
#!/bin/sh
env > "\$1.tmp" && mv "\$1.tmp" "\$1"
EOF
chmod +x "$work/cmd.sh"
maxb=
config() { # extra trigger objects
  local limit=
  [ -z "$maxb" ] || limit="\"capture_max_bytes\":$maxb,"
  cat > "$work/cfg.json" <<EOF
{"port":0,"capture_dir":"$caps","capture_max_files":3,$limit
 "targets":[{"name":"b1","probe":"file:$ram","file_base":"0x20000000","address":"0x20000000",
   "address_is_pointer":true,"tick_hz":1000000}],
 "triggers":[
  {"name":"seq500","when":"USER_EVENT id=4096 info1=500","capture":true,"before":200,"after":100,
   "command":["$work/cmd.sh","$work/cmd.env"]},
  {"name":"never","when":"USER_EVENT id=0x1000 info1=4000000000"},
  {"name":"rst","when":"reset","limit":1},
  {"name":"lost","when":"gap","capture":true,"before":50,"after":50},
  {"name":"hog","when":"cpu share>10 thread=control window=1s","limit":1},
  {"name":"nohog","when":"cpu share>90 thread=control window=1s"},
  {"name":"deep","when":"stack free<100 thread=sensor"},
  {"name":"shallow","when":"stack free<10"},
  {"name":"quiet","when":"silent thread=worker-0 for=2s"},
  {"name":"nquiet","when":"silent thread=control for=2s"},
  {"name":"inv","when":"inversion"},
  {"name":"ndet","when":"inversion bad"},
  {"name":"long","when":"inversion longer>5000"},
  {"name":"nolong","when":"inversion longer>20000"}$1]}
EOF
}
config ""
${TT_WRAP-} "$tracetapd" --config "$work/cfg.json" --web "$work" --stdout > "$work/stream.jsonl" \
  2> "$work/d.log" &
dpid=$!
pids+=($dpid)
daemon_port "$work/d.log" 30
wait_for "$work/d.log" 'tracing not enabled yet' 30
"$fw" --ram "$ram" --base 0x20000000 --size 65536 --rate 1000 --duration 120 --time counter \
  --deep-stack-at 150 --inversion-at 200 --inversion-ticks 10000 --bad-inversion-at 350 \
  --stall-worker-at 450 > "$work/fw.out" &
fwpid=$!
pids+=($fwpid)
metric() { curl -sf "http://127.0.0.1:$port/metrics" | sed -n "s/^$1 //p"; }
fired() { metric "tracetap_trigger_fired_total{trigger=\"$1\"}"; }
wait_until() { # description, seconds, command...
  local what=$1 end=$((SECONDS + $2)); shift 2
  until "$@"; do [ $SECONDS -lt $end ] || fail "timed out: $what"; sleep 0.1; done
}
captures() { curl -sf "http://127.0.0.1:$port/api/captures"; }
has_capture() { [ "$(captures | jq "[.[] | select(.trigger == \"$1\")] | length")" -ge "${2:-1}" ]; }

# 1. an event: fires once on info1 = 500, its capture holds seq-200 .. seq+100
wait_until "capture of seq500" 60 has_capture seq500
name=$(captures | jq -r '.[] | select(.trigger == "seq500") | .name')
meta=$(captures | jq -c '.[] | select(.trigger == "seq500")')
seq=$(jq -r .seq <<< "$meta")
[ "$(jq -r '.first, .last, .records, .gaps' <<< "$meta" | tr '\n' ' ')" = "$((seq - 200)) $((seq + 100)) 301 0 " ] ||
  fail "capture window: $meta (trigger at $seq)"
grep -q "trigger seq500 fired (USER_EVENT id=4096 info1=500) at seq $seq" "$work/d.log" || fail "no log line"
[ "$(fired seq500)" = 1 ] && [ "$(fired never)" = 0 ] || fail "fired: seq500 $(fired seq500), never $(fired never)"
for f in capture.jsonl capture.trx capture.perfetto.json meta.json; do
  curl -sf "http://127.0.0.1:$port/api/captures/$name/$f" -o "$work/$f" || fail "download $f"
done
cmp "$work/meta.json" "$caps/$name/meta.json" || fail "meta.json differs from the file"
# the record that fired it is the one with info1 = 500
[ "$(jq -c "select(.seq == $seq) | [.name, .id, .args.info1]" "$work/capture.jsonl")" = '["USER_EVENT",4096,500]' ] ||
  fail "seq $seq is not the user event 500"
# seq for seq what the stream had (--stdout prints the records the hub numbered)
last_seq() { tail -n 3 "$work/stream.jsonl" | jq -R 'fromjson? | .seq' | tail -n1; }
wait_until "stream past the window" 30 eval '[ "$(last_seq)" -gt $((seq + 100)) ]'
stream() { jq -cR "fromjson? | $1" "$work/stream.jsonl"; } # the last line may be half written
stream "select(.seq >= $((seq - 200)) and .seq <= $((seq + 100)))" > "$work/want.jsonl"
diff "$work/want.jsonl" "$work/capture.jsonl" > "$work/cap.diff" || { head -4 "$work/cap.diff"; fail "capture differs from the stream"; }
# its .trx decodes to the same events (the time unwrapping starts again in the file)
"$tracetap" decode "$work/capture.trx" --json > "$work/back.jsonl" || fail "decode of capture.trx"
strip='del(.seq, .addr, .target, .time, .ns) | del(.run, .run_thread, .run_name)'
jq -c "select(.type == \"event\") | $strip" "$work/capture.jsonl" > "$work/a"
jq -c "$strip" "$work/back.jsonl" > "$work/b"
diff "$work/a" "$work/b" > "$work/trx.diff" || { head -4 "$work/trx.diff"; fail ".trx events differ"; }
jq -e '.traceEvents | length > 300' "$work/capture.perfetto.json" > /dev/null || fail "perfetto"
# the command ran with the capture in its environment
wait_until "command ran" 30 test -f "$work/cmd.env"
grep -qx "TT_TRIGGER=seq500" "$work/cmd.env" && grep -qx "TT_CAPTURE=$caps/$name" "$work/cmd.env" &&
  grep -qx "TT_SEQ=$seq" "$work/cmd.env" && grep -qx "TT_TARGET=b1" "$work/cmd.env" || fail "command env: $(cat "$work/cmd.env")"
echo "ok: event trigger at seq $seq: capture $(jq -r .records <<< "$meta") records equal to the stream, .trx decodes to the same $(wc -l < "$work/b") events, command ran"

# 1b. statistics from the live analysis, each forced by the workload at a known record and
# checked to fire at or after it (a firing before would name an earlier seq): control's CPU
# share over a second (about 30%); the sensor's stack, 960 of 1024 bytes never used until an
# event from 40 bytes above its start (--deep-stack-at: once a cycle from then on)
first_seq() { stream "$1 | .seq" | sed -n 1p; } # reads it all: no SIGPIPE under pipefail
fired_at() { sed -n "s/.*trigger $1 fired .* at seq \([0-9]*\).*/\1/p" "$work/d.log" | sed -n 1p; }
wait_until "hog and deep" 30 eval '[ "$(fired hog)" = 1 ] && [ "$(fired deep)" = 1 ]'
grep -q "trigger hog fired (cpu share>10 thread=control window=1s: thread control: [0-9.]*% of the CPU over [0-9]* ms" "$work/d.log" ||
  fail "hog: $(grep 'trigger hog' "$work/d.log")"
grep -q "trigger deep fired (stack free<100 thread=sensor: thread sensor: 40 bytes of stack never used (below 100; traced stack pointer))" "$work/d.log" ||
  fail "deep: $(grep 'trigger deep' "$work/d.log")"
deep=$(first_seq 'select(.id == 112 and .thread_name == "sensor")')
[ -n "$deep" ] && [ "$(fired_at deep)" -ge "$deep" ] || fail "deep fired at seq $(fired_at deep), the deep stack came at $deep"
# the workload's deliberate inversion (--inversion-at): the sensor blocks on the mutex the
# worker owns; inversion fires, first at or after that record (not at the hundreds of mutex
# gets before it, which found the mutex free); inversion bad (non-deterministic) not for it
wait_until "the workload's inversion" 30 grep -q '^inversion cycle=' "$work/fw.out"
wait_until "inv" 30 eval '[ "$(fired inv)" -ge 1 ]'
blocked=$(first_seq 'select(.name == "MUTEX_GET" and .thread_name == "sensor")')
iseq=$(fired_at inv)
[ -n "$blocked" ] && [ "$iseq" -ge "$blocked" ] || fail "inv at seq $iseq, the sensor blocked at $blocked"
# its duration (--inversion-ticks 10000: the worker holds the mutex 10000 ticks more): from the
# sensor's MUTEX_GET to the sensor's first event after the worker's MUTEX_PUT, by the stream's
# time stamps; /api/stats names both events and the duration; longer>5000 fires once for it,
# longer>20000 never
put=$(first_seq "select(.seq > $blocked and .name == \"MUTEX_PUT\" and .thread_name == \"worker-0\")")
end=$(first_seq "select(.seq > $put and .type == \"event\" and .thread_name == \"sensor\")")
t0=$(stream "select(.seq == $blocked) | .time") t1=$(stream "select(.seq == $end) | .time")
dur=$((t1 - t0))
[ "$dur" -gt 10000 ] && [ "$dur" -lt 10100 ] || fail "the inversion lasted $dur ticks in the stream (seq $blocked to $end)"
wait_until "long" 30 eval '[ "$(fired long)" = 1 ]'
grep -qE "trigger long fired \(inversion longer>5000: inversion 0: thread sensor \(blocked at seq $blocked\) on mutex 0x[0-9a-f]+ of thread worker-0 (lasted $dur|open for [0-9]+) ticks \(longer than 5000\)\)" "$work/d.log" ||
  fail "long: $(grep 'trigger long' "$work/d.log")"
inv=$(curl -sf "http://127.0.0.1:$port/api/stats?target=b1" | jq -c '.inversions[0] | [.state, .start_seq, .start_time, .end_seq, .end_time, .duration_ticks, .deterministic]')
[ "$inv" = "[\"closed\",$blocked,$t0,$end,$t1,$dur,true]" ] || fail "/api/stats inversion: $inv (stream: $blocked at $t0 to $end at $t1)"
# the second one (--bad-inversion-at): control (priority 8, between the sensor's 5 and the
# worker's 20) runs while the sensor waits: inversion bad fires, at or after control's event,
# and only then (once: the first one, 3 s before, did not make it fire)
wait_until "the workload's bad inversion" 30 grep -q '^bad inversion cycle=' "$work/fw.out"
wait_until "ndet" 30 eval '[ "$(fired ndet)" -ge 1 ]'
blocked2=$(first_seq "select(.seq > $end and .name == \"MUTEX_GET\" and .thread_name == \"sensor\")")
third=$(first_seq "select(.seq > $blocked2 and .type == \"event\" and .thread_name == \"control\")")
[ -n "$third" ] && [ "$(fired_at ndet)" -ge "$third" ] || fail "ndet fired at seq $(fired_at ndet), control ran in the window at $third"
grep -q "trigger ndet fired (inversion bad: a non-deterministic priority inversion (1 so far))" "$work/d.log" ||
  fail "bad: $(grep 'trigger ndet' "$work/d.log")"
# a stalled thread (--stall-worker-at): worker-0 writes nothing more while the others go on:
# quiet fires 2 s after, once, at a record after worker-0's last; nquiet (control, still
# writing) never
wait_until "the worker's stall" 30 grep -q '^stall cycle=' "$work/fw.out"
wait_until "quiet" 30 eval '[ "$(fired quiet)" = 1 ]'
wlast=$(stream 'select(.thread_name == "worker-0") | .seq' | tail -n 1)
[ "$(fired_at quiet)" -gt "$wlast" ] || fail "quiet fired at seq $(fired_at quiet), worker-0 wrote until $wlast"
grep -q "trigger quiet fired (silent thread=worker-0 for=2s: thread worker-0: no event for [0-9]* ms)" "$work/d.log" || fail "quiet: $(grep 'trigger quiet' "$work/d.log")"
[ "$(fired nohog)" = 0 ] && [ "$(fired shallow)" = 0 ] && [ "$(fired nquiet)" = 0 ] &&
  [ "$(fired ndet)" = 1 ] &&
  [ "$(fired nolong)" = 0 ] && [ "$(fired long)" = 1 ] ||
  fail "nohog $(fired nohog), shallow $(fired shallow), nquiet $(fired nquiet), ndet $(fired ndet), nolong $(fired nolong), long $(fired long)"
echo "ok: statistics: $(grep -o 'thread control: [0-9.]*% of the CPU' "$work/d.log" | head -n1) fired hog (not nohog >90%); the sensor's stack 40 bytes from full (seq $deep) fired deep (not shallow <10); the sensor blocked on the worker's mutex (seq $blocked) fired inv, not ndet (inversion bad); it lasted $dur ticks (seq $blocked to $end, as /api/stats says): fired long (>5000), not nolong (>20000); control running in the second one's window (seq $third) fired ndet; worker-0 stalled fired quiet after 2 s, not nquiet (control)"

# 2. a reset: none before SIGUSR1, one after
[ "$(fired rst)" = 0 ] && [ "$(fired lost)" = 0 ] || fail "rst/lost fired without a reset/gap"
kill -USR1 "$fwpid"
wait_until "reset trigger" 30 eval '[ "$(fired rst)" = 1 ]'
rs=$(stream 'select(.type == "reset") | .seq' | head -n1)
grep -q "trigger rst fired (reset) at seq $rs" "$work/d.log" || fail "rst fired, not at the reset record $rs"
echo "ok: reset trigger at seq $rs"

# 3. a gap: the daemon stopped while the writer laps the buffer
[ "$(fired lost)" = 0 ] || fail "lost fired without a gap"
u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
s0=$(u32 "$ram" 8)
kill -STOP "$dpid"
wait_until "writer lapped the buffer" 60 eval '[ $(( $(u32 "$ram" 8) - s0 )) -gt 3000 ]'
kill -CONT "$dpid"
wait_until "gap trigger" 30 eval '[ "$(fired lost)" -ge 1 ]'
gs=$(stream 'select(.type == "gap") | .seq' | head -n1)
grep -q "trigger lost fired (gap) at seq $gs" "$work/d.log" || fail "lost fired, not at the gap record $gs"
# its capture spans the gap and says so: the gap record inside, meta.json's gaps and lost, and
# the .trx's gap marker (TraceX user event 65535), so TraceX does not join across it
wait_until "the gap's capture" 30 has_capture lost
gmeta=$(captures | jq -c '.[] | select(.trigger == "lost")')
gname=$(jq -r .name <<< "$gmeta")
glost=$(stream "select(.seq == $gs) | .lost")
[ "$(jq -r '.gaps, .lost, .trx_gap_markers' <<< "$gmeta" | tr '\n' ' ')" = "1 $glost 1 " ] ||
  fail "the gap's capture: $gmeta (gap record lost $glost)"
[ "$(jq -c "select(.seq == $gs) | .type" "$caps/$gname/capture.jsonl")" = '"gap"' ] || fail "no gap record in capture.jsonl: $(head -c 300 "$caps/$gname/capture.jsonl"), meta $gmeta"
[ -n "$("$tracetap" decode "$caps/$gname/capture.trx" --json | jq -c 'select(.id == 65535 and .args.info1 > 0)')" ] ||
  fail "no gap marker in capture.trx"
echo "ok: gap trigger at seq $gs; its capture holds the gap ($glost lost) in meta.json, the JSONL and the .trx's marker"

# 4. reload: a trigger added; a bad one refused naming file, trigger and key
"$tracetap" tail "http://127.0.0.1:$port" --target b1 --no-color > "$work/tail.out" 2> "$work/tail.err" &
pids+=($!)
"$tracetap" tail "http://127.0.0.1:$port" --target b1 --json > "$work/tailj.out" 2> /dev/null &
pids+=($!)
wait_until "tail streaming" 30 eval '[ "$(wc -l < "$work/tail.out")" -gt 10 ] && [ "$(wc -l < "$work/tailj.out")" -gt 10 ]'
config ',{"name":"many","when":"USER_EVENT id=4096 info1>=1","holdoff":"50ms","limit":5,"capture":true,"before":5,"after":5}'
kill -HUP "$dpid"
wait_until "5 captures of many" 60 eval '[ "$(metric tracetap_captures_total)" -ge 7 ]'
[ "$(fired many)" = 5 ] || fail "many fired $(fired many) times, limit 5"
[ "$(fired seq500)" = 1 ] || fail "seq500's count was not kept across the reload"
n=$(find "$caps" -mindepth 1 -maxdepth 1 -type d ! -name 'keep-me' ! -name '.*' | wc -l)
[ "$n" = 3 ] || fail "$n captures kept, capture_max_files 3"
[ -f "$caps/keep-me/notes.txt" ] && [ -f "$caps/file.txt" ] || fail "something else was removed"
[ "$(metric tracetap_captures_removed_total)" = 4 ] || fail "removed $(metric tracetap_captures_removed_total)"
[ "$(grep -c 'removed: capture_max_files reached' "$work/d.log")" = 4 ] || fail "removals not logged"
[ -d "$caps/$name" ] && fail "the oldest capture ($name) was kept"
echo "ok: reload added a trigger; its limit held (5); captures kept 3, removed the 4 oldest, nothing else"
# tail shows each firing as a line among the records (--json: the alert message)
wait_until "alerts in tail" 30 eval '[ "$(grep -c "^!!! alert many on b1 at seq [0-9]*: USER_EVENT id=4096 info1>=1 (capture b1_many_" "$work/tail.out")" = 5 ]'
wait_until "alerts in tail --json" 30 eval '[ "$(jq -R "fromjson? | select(.type == \"alert\" and .trigger == \"many\") | .seq" "$work/tailj.out" | wc -l)" = 5 ]'
aseq=$(jq -R 'fromjson? | select(.type == "alert") | .seq' "$work/tailj.out" | head -n1)
[ "$(jq -R "fromjson? | select(.type == \"event\" and .seq == $aseq) | .args.info1 >= 1" "$work/tailj.out")" = true ] ||
  fail "the alert's seq $aseq is not a user event the tail saw before it"
"$tracetap" captures "http://127.0.0.1:$port" > "$work/caps.txt" || fail "tracetap captures"
[ "$(grep -c ' b1 .* many ' "$work/caps.txt")" = 3 ] || { cat "$work/caps.txt"; fail "tracetap captures does not list the 3 captures"; }
echo "ok: tail printed 5 alerts (first at seq $aseq); tracetap captures lists 3"
# the size limit: 1000 bytes; the next capture (larger) stays, every older one goes, the
# foreign directory and file stay
maxb=1000
config ',{"name":"size","when":"USER_EVENT id=4096 info1>=1","limit":1,"capture":true,"before":5,"after":5}'
kill -HUP "$dpid"
wait_until "the size capture" 60 has_capture size
wait_until "3 more removals" 30 eval '[ "$(metric tracetap_captures_removed_total)" = 7 ]'
n=$(find "$caps" -mindepth 1 -maxdepth 1 -type d ! -name 'keep-me' ! -name '.*' | wc -l)
[ "$n" = 1 ] && [ "$(captures | jq -r '.[0].trigger')" = size ] || fail "$n captures after the size limit"
[ -f "$caps/keep-me/notes.txt" ] && [ -f "$caps/file.txt" ] || fail "the size limit removed something else"
# the first of the three also exceeded the count (4 captures, 3 allowed) and is logged so
[ "$(grep -c 'removed: capture_max_bytes reached' "$work/d.log")" = 2 ] &&
  [ "$(grep -c 'removed: capture_max_' "$work/d.log")" = 7 ] || fail "size removals not logged"
maxb=
echo "ok: capture_max_bytes 1000: the 3 older captures removed (logged), the newest and nothing else kept"
config ',{"name":"bad","when":"USER_EVENT","holdoff":"5"}'
kill -HUP "$dpid"
wait_until "refusal" 30 grep -q "keeping the running configuration" "$work/d.log"
grep "keeping the running" "$work/d.log" | grep -q "cfg.json: triggers\[14\] (bad): holdoff: '5'" ||
  fail "the refusal does not name file, trigger and key: $(grep 'keeping the running' "$work/d.log")"
echo "ok: $(grep 'keeping the running' "$work/d.log" | sed 's/.*reload: //' | head -c 140)"

# 5. a bad trigger at start stops the daemon with the same message; --trigger too
rc=0; "$tracetapd" --config "$work/cfg.json" --check-config > /dev/null 2> "$work/chk" || rc=$?
[ "$rc" = 2 ] && grep -q "triggers\[14\] (bad): holdoff" "$work/chk" || fail "check-config: rc $rc, $(cat "$work/chk")"
rc=0; "$tracetapd" --probe "file:$ram" --trigger 'x: USER_EVENT info1=>5' --check-config 2> "$work/chk" || rc=$?
[ "$rc" = 2 ] && grep -q -- "--trigger: trigger x: 'info1=>5'" "$work/chk" || fail "--trigger: rc $rc, $(cat "$work/chk")"
rc=0; "$tracetapd" --probe "file:$ram" --trigger 'x: reset; capture' --check-config 2> "$work/chk" || rc=$?
[ "$rc" = 2 ] && grep -q "capture needs a capture directory" "$work/chk" || fail "capture without dir: rc $rc"

# 6. path traversal: nothing outside the capture directory
for p in "..%2F..%2Fetc/passwd" "keep-me/notes.txt" "$name/../../cfg.json" ".x/meta.json" "$name/cmd.env"; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/captures/$p")
  [ "$code" = 404 ] || fail "/api/captures/$p answered $code"
done
echo "ok: /api/captures refuses names outside the captures"

kill -TERM "$dpid"
rc=0; wait "$dpid" || rc=$?
[ "$rc" = 0 ] || fail "tracetapd exited $rc"
grep -q 'trigger never fired' "$work/d.log" && fail "never fired"
echo "ok: the trigger whose event never came never fired"
