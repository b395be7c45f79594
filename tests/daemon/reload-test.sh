#!/usr/bin/env bash
# tests/daemon/reload-test.sh: tracetapd with a configuration file and several targets; SIGHUP
# reloads it: the unchanged target keeps streaming (same probe, no restart), the changed one
# restarts, a new one starts, a broken file is refused while everything keeps running; SIGTERM
# exits 0.
# usage: reload-test.sh TRACETAPD FW_THREADX
tracetapd=$1 fw=$2
. "$(dirname "$0")/lib.sh"
logs=("$work/d.log")

for t in a b c; do
  "$fw" --ram "$work/$t.bin" --base 0x20000000 --size 65536 --rate 300 --duration 60 \
    --time counter > "$work/$t.fw" &
  pids+=($!)
done
target() { # name, poll_max_ms
  printf '{"name":"%s","probe":"file:%s/%s.bin","file_base":"0x20000000","address":"0x20000000","address_is_pointer":true,"poll_max_ms":%s}' \
    "$1" "$work" "$1" "$2"
}
printf '{"port":0,"targets":[%s,%s]}\n' "$(target a 50)" "$(target b 50)" > "$work/cfg.json"
${TT_WRAP-} "$tracetapd" --config "$work/cfg.json" --web "$work" 2> "$work/d.log" &
dpid=$!
pids+=($dpid)

deadline() { echo $((SECONDS + $1)); }
daemon_port "$work/d.log" 30
api() { curl -sf "http://127.0.0.1:$port/api/targets"; }
field() { api | jq -r ".[] | select(.name == \"$1\") | .$2"; }
wait_until() { # description, seconds, command...
  local what=$1 end; end=$(deadline "$2"); shift 2
  until "$@"; do [ $SECONDS -lt "$end" ] || fail "timed out: $what"; sleep 0.1; done
}
streaming() { [ "$(field "$1" state)" = connected ] && [ "$(field "$1" events)" -gt "${2:-0}" ]; }
wait_until "a and b streaming" 30 streaming a
wait_until "b streaming" 30 streaming b
a_before=$(field a events)

# Change b, add c, keep a.
printf '{"port":0,"targets":[%s,%s,%s]}\n' "$(target a 50)" "$(target b 80)" "$(target c 50)" > "$work/cfg.json"
kill -HUP "$dpid"
wait_until "reload logged" 30 grep -q "configuration reloaded" "$work/d.log"
wait_until "c streaming" 30 streaming c
grep -q "target b: changed" "$work/d.log" || fail "b was not restarted"
grep -q "target a: changed\|target a: removed" "$work/d.log" && fail "a was restarted"
wait_until "a keeps streaming" 30 streaming a "$a_before"
[ "$(field a resets)" = 0 ] || fail "a reported a reset"
[ "$(api | jq length)" = 3 ] || fail "expected 3 targets"
echo "ok: reload: a kept streaming ($a_before -> $(field a events) events), b restarted, c added"

# A broken file is refused; the running configuration stays.
echo '{"port":0,"targets":[{"name":"a","probe":"file:x","bogus":1}]}' > "$work/cfg.json"
kill -HUP "$dpid"
wait_until "refusal logged" 30 grep -q "keeping the running configuration" "$work/d.log"
grep "keeping the running" "$work/d.log" | grep -q "bogus" || fail "the error does not name the key"
c_before=$(field c events)
wait_until "c keeps streaming" 30 streaming c "$c_before"
echo "ok: broken configuration refused: $(grep 'keeping the running' "$work/d.log" | sed 's/.*reload: //' | head -c 120)"

kill -TERM "$dpid"
rc=0; wait "$dpid" || rc=$?
[ "$rc" -eq 0 ] || fail "tracetapd exited with $rc"
echo "ok: SIGTERM: exit 0"
