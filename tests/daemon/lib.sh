# tests/daemon/lib.sh: what the tracetapd test scripts share (sourced): a scratch directory,
# background processes stopped on exit, a failure that shows the logs, and waits with deadlines.
#
#   work             scratch directory, removed on exit
#   pids+=($!)       processes killed on exit
#   logs=(FILE ...)  files whose tails fail() prints
#   on_exit          a function the caller may define: runs first on exit
#   relay TO [PORT]  a TCP relay to 127.0.0.1:TO (socat) that a test kills to cut a client off
set -euo pipefail
work=$(mktemp -d)
pids=()
logs=()
relay_pid=""
relay_port=""

cleanup() {
  if declare -F on_exit > /dev/null; then on_exit || true; fi
  for p in "${pids[@]}" $relay_pid; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*"
  for f in "${logs[@]}"; do echo "--- $(basename "$f")"; tail -20 "$f" 2>/dev/null || true; done
  exit 1
}

# wait_for FILE REGEX SECONDS: until a line of FILE matches, or fail at the deadline.
wait_for() {
  local end=$((SECONDS + $3))
  until grep -qE "$2" "$1" 2>/dev/null; do
    [ $SECONDS -lt $end ] || fail "timed out waiting for /$2/ in $(basename "$1")"
    sleep 0.05
  done
}

# daemon_port LOG SECONDS: sets port from tracetapd's "dashboard at http(s)://..." line.
daemon_port() {
  wait_for "$1" 'dashboard at https?://127\.0\.0\.1:[0-9]+/' "$2"
  port=$(sed -n 's/.*dashboard at https\{0,1\}:\/\/127\.0\.0\.1:\([0-9]*\)\/.*/\1/p' "$1" | head -n1)
}

# relay TO [PORT]: (re)starts a TCP relay from 127.0.0.1:relay_port to 127.0.0.1:TO (socat; its
# pid in relay_pid, killed on exit), on PORT when given. The port is below the kernel's
# ephemeral range (so no outgoing connection holds it); if it is taken after all, socat fails
# to bind and another one is tried (the same one again, after a pause, when PORT is given).
relay() {
  local tries=0 end
  while :; do
    [ -n "${2:-}" ] || relay_port=$((20000 + RANDOM % 12000))
    socat "TCP-LISTEN:$relay_port,bind=127.0.0.1,reuseaddr" "TCP:127.0.0.1:$1" 2>> "$work/socat.err" &
    relay_pid=$!
    end=$((SECONDS + 5))
    while kill -0 "$relay_pid" 2>/dev/null; do
      ss -ltnp "sport = :$relay_port" 2>/dev/null | grep -q "pid=$relay_pid," && return 0
      [ $SECONDS -lt $end ] || break
      sleep 0.05
    done
    kill "$relay_pid" 2>/dev/null || true
    wait "$relay_pid" 2>/dev/null || true
    tries=$((tries + 1))
    [ "$tries" -lt 20 ] || fail "the relay could not listen (last port $relay_port)"
    [ -z "${2:-}" ] || sleep 0.2 # the same port: wait for it to come free
  done
}

# relay_cut: stops the relay (every connection through it drops).
relay_cut() {
  kill "$relay_pid" 2>/dev/null || true
  wait "$relay_pid" 2>/dev/null || true
  relay_pid=""
}
