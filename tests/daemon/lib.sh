# tests/daemon/lib.sh: what the tracetapd test scripts share (sourced): a scratch directory,
# background processes stopped on exit, a failure that shows the logs, and waits with deadlines.
#
#   work             scratch directory, removed on exit
#   pids+=($!)       processes killed on exit
#   logs=(FILE ...)  files whose tails fail() prints
#   on_exit          a function the caller may define: runs first on exit
set -euo pipefail
work=$(mktemp -d)
pids=()
logs=()

cleanup() {
  if declare -F on_exit > /dev/null; then on_exit || true; fi
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
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
