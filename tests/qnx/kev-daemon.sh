#!/usr/bin/env bash
# tests/qnx/kev-daemon.sh: tracetapd --probe kev:PATH streams a .kev as tracelogger writes it:
# waits for the file and its whole header, holds a partial last event back, sends every event
# once and exactly as `tracetap decode` reads the whole file, gives a reset record when the file
# is replaced or cut shorter, reports a malformed file and keeps running, exits 0 on SIGTERM.
# Wrong option combinations are refused with a message.
# usage: kev-daemon.sh TRACETAPD TRACETAP KEV_GEN
tracetapd=$1 tracetap=$2 gen=$3
source "$(dirname "$0")/../daemon/lib.sh"

"$gen" "$work/le.kev" > /dev/null
"$gen" "$work/be.kev" be > /dev/null
strip() { sed 's/"target":"q",//;s/"seq":[0-9]*,//' "$@"; }
"$tracetap" decode --json "$work/le.kev" | strip > "$work/le.jsonl"
"$tracetap" decode --json "$work/be.kev" | strip > "$work/be.jsonl"
n_le=$(wc -l < "$work/le.jsonl")
[ "$n_le" -gt 10 ] || fail "kev_gen wrote only $n_le events"

kev=$work/live.kev
out=$work/out.jsonl log=$work/tracetapd.log
logs=("$log")
${TT_WRAP-} "$tracetapd" --no-server --stdout --name q --probe "kev:$kev" --poll-max 20 \
  > "$out" 2> "$log" &
pids+=($!)
dpid=$!
lines_reach() { # N: until the stream has N records
  local end=$((SECONDS + 10))
  until [ "$(wc -l < "$out")" -ge "$1" ]; do
    [ $SECONDS -lt $end ] || fail "stream has $(wc -l < "$out") records, waited for $1"
    sleep 0.05
  done
}

# no file yet, then the header in two pieces: waiting, nothing sent
wait_for "$log" "attaching: waiting for $kev" 10
hl=$(grep -abo 'TRACE_HEADER_END::' "$work/le.kev" | cut -d: -f1)
size=$(wc -c < "$work/le.kev")
head -c 60 "$work/le.kev" > "$kev"
sleep 0.3
tail -c +61 "$work/le.kev" | head -c $((hl + 18 + 300 - 60)) >> "$kev"
sleep 0.3
[ ! -s "$out" ] || fail "records sent before the header was whole"
# the events but the last 8 bytes: the partial event waits
tail -c +$((hl + 18 + 301)) "$work/le.kev" | head -c $((size - hl - 18 - 300 - 8)) >> "$kev"
lines_reach $((n_le - 1))
sleep 0.3
[ "$(wc -l < "$out")" -eq $((n_le - 1)) ] || fail "the partial last event was sent"
tail -c 8 "$work/le.kev" >> "$kev"
lines_reach "$n_le"
strip "$out" | cmp -s - "$work/le.jsonl" || fail "the stream differs from decoding the whole file"
grep -q "connected: following $kev" "$log" || fail "no 'following' state"
echo "ok: growing file: $n_le events, once each, as decode reads the whole file"

# replaced by another file (a new inode): a reset record, then the new file from its header
cp "$work/be.kev" "$kev.new" && mv "$kev.new" "$kev"
lines_reach $((2 * n_le + 1))
sed -n "$((n_le + 1))p" "$out" | grep -qF '"type":"reset"' || fail "no reset record when replaced"
sed -n "$((n_le + 2)),\$p" "$out" | strip | sed 's/,"raw":.*//' |
  cmp -s - <(sed 's/,"raw":.*//' "$work/be.jsonl") || fail "the replaced file decodes differently"
echo "ok: replaced file -> reset record, decoded again"

# cut shorter in place (same inode): another reset record
head -c $((hl + 18)) "$work/be.kev" > "$kev"
lines_reach $((2 * n_le + 2))
tail -n 1 "$out" | grep -qF '"type":"reset"' || fail "no reset record when the file was cut"
echo "ok: truncated file -> reset record"

# garbage: reported (the file named), the daemon keeps running; a good file again streams
head -c 4096 /dev/urandom > "$kev.new" && mv "$kev.new" "$kev"
wait_for "$log" "$kev: not a QNX .kev file" 10
kill -0 "$dpid" || fail "tracetapd died on a malformed file"
cp "$work/le.kev" "$kev.new" && mv "$kev.new" "$kev"
lines_reach $((3 * n_le + 3))
echo "ok: malformed file reported, then a good one streamed"

kill -TERM "$dpid"
rc=0
wait "$dpid" || rc=$?
[ "$rc" -eq 0 ] || fail "exit status $rc on SIGTERM"

bad() { # expected-text args...
  local want=$1; shift
  if ${TT_WRAP-} "$tracetapd" --no-server --name q "$@" > /dev/null 2> "$work/err"; then
    fail "accepted: $*"
  fi
  grep -qF -- "$want" "$work/err" || fail "for $*: unclear error: $(cat "$work/err")"
  echo "ok: $* -> $(grep -F -- "$want" "$work/err" | head -n1)"
}
bad "do not apply" --probe "kev:$kev" --address 0x1000
bad "is QNX's format, not threadx" --probe "kev:$kev" --format threadx
bad "kev: needs a path" --probe "kev:"
