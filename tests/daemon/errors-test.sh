#!/usr/bin/env bash
# tests/daemon/errors-test.sh: a probe that fails says so once, in one line (what failed,
# where, why, what to try), not the same cause nested or repeated: tracetapd with an OpenOCD
# TCL port nothing listens on (the port of a daemon stopped here), and with an OpenOCD that
# cannot start (a missing config file). Repeats while the link stays down are counted into a
# line at most every 10 s.
# usage: errors-test.sh TRACETAPD
tracetapd=$1
. "$(dirname "$0")/lib.sh"
logs=("$work/d.log")

# A free loopback port: the one a tracetapd had before it stopped.
head -c 4096 /dev/zero > "$work/ram.bin"
${TT_WRAP-} "$tracetapd" --probe "file:$work/ram.bin" --address 0x20000000 --base 0x20000000 --port 0 --web "$work" 2> "$work/d0.log" &
p0=$!
daemon_port "$work/d0.log" 30
kill "$p0"; wait "$p0" 2>/dev/null || true
dead=$port

check_once() { # WHAT CAUSE_REGEX HINT_REGEX TRACETAPD_ARGS...
  local what=$1 cause=$2 hint=$3; shift 3
  : > "$work/d.log"
  ${TT_WRAP-} "$tracetapd" --port 0 --web "$work" "$@" 2> "$work/d.log" &
  local pid=$!
  pids+=($pid)
  daemon_port "$work/d.log" 30
  # The error as the target's state, then some more failed polls (2 s) before counting.
  local end=$((SECONDS + 20))
  until curl -sf "http://127.0.0.1:$port/api/targets" | jq -e '.[0].state == "disconnected"' > /dev/null; do
    [ $SECONDS -lt $end ] || fail "$what: the target never showed disconnected"; sleep 0.1
  done
  sleep 2
  kill "$pid"; wait "$pid" 2>/dev/null || true
  local n
  n=$(grep -cE -e "$cause" "$work/d.log" || true)
  [ "$n" -eq 1 ] || fail "$what: the cause is logged $n times in 2 s, expected once: $(grep -E -e "$cause" "$work/d.log")"
  local line
  line=$(grep -E -e "$cause" "$work/d.log")
  [ "$(grep -oE -e "$cause" <<< "$line" | wc -l)" -eq 1 ] || fail "$what: the cause is nested in its line: $line"
  grep -qE -e "$hint" <<< "$line" || fail "$what: the line does not say what to try: $line"
  echo "ok: $what: one line: $line"
}

check_once "OpenOCD TCL port closed" "connection refused" "is OpenOCD running with tcl_port $dead\?" \
  --probe "openocd:127.0.0.1:$dead" --address 0x20000000
check_once "OpenOCD cannot start" "Can't find $work/missing.cfg" "run openocd with the same -f/-c arguments" \
  --probe openocd-spawn -f "$work/missing.cfg" --address 0x20000000

# --help names every kind of probe.
"$tracetapd" --help > "$work/help"
for p in file:PATH kev:PATH process:PID openocd:HOST:PORT openocd-spawn; do
  grep -q -e "$p" "$work/help" || fail "tracetapd --help does not name the $p probe"
done
echo "ok: tracetapd --help names every probe"
