# tests/live/lib.sh: what the live process tests share (sourced). Sets work (a temporary
# folder), wpid and dpid (the writer's and tracetapd's pids, empty until started), a cleanup on
# exit that ends both (a stopped tracetapd is continued first) and closes fd 3 (the writer's
# hold), and wait_for. pacers: more processes of the test's own, ended too.
work=$(mktemp -d)
wpid="" dpid="" pacers=()
cleanup() {
  [ -n "$dpid" ] && kill -CONT "$dpid" 2>/dev/null || true
  [ -n "$dpid" ] && kill "$dpid" 2>/dev/null || true
  [ ${#pacers[@]} -gt 0 ] && kill "${pacers[@]}" 2>/dev/null || true
  [ -n "$wpid" ] && kill "$wpid" 2>/dev/null || true
  exec 3>&- 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# wait_for FILE REGEX SECONDS: wait until a line of FILE matches, or fail at the deadline.
wait_for() {
  local deadline=$((SECONDS + $3))
  until grep -qE "$2" "$1" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "${0##*/}: timed out waiting for /$2/ in $1"; tail -5 "$1" || true; return 1
    fi
    sleep 0.02
  done
}

# stop_when_drained CHECK_ARGS...: waits (20 s at most) until `$check CHECK_ARGS` passes on
# $work/records.jsonl (the writer's last event came out), then stops tracetapd with SIGTERM;
# exits 1 with its log when it did not exit 0.
stop_when_drained() {
  local deadline=$((SECONDS + 20)) rc=0
  until "$check" "$@" "$work/records.jsonl" > /dev/null 2>&1; do
    [ "$SECONDS" -ge "$deadline" ] && break
    sleep 0.1
  done
  kill -TERM "$dpid"
  wait "$dpid" || rc=$?
  dpid=""
  if [ "$rc" -ne 0 ]; then
    echo "${0##*/}: tracetapd exited with $rc"; cat "$work/daemon.log"; exit 1
  fi
}
