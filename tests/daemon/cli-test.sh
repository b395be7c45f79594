#!/usr/bin/env bash
# tests/daemon/cli-test.sh: the `tracetap` client commands as a newcomer meets them, against a
# real tracetapd with two targets (file probes over RAM images a ThreadX workload writes):
# an unknown target or a daemon that is not there is one line and a non-zero exit at once
# (no empty output file), `status` prints human units in aligned columns with the clients,
# `--json` is JSON, each command's help lists only its own options, `export` needs a target
# when there are two, and `tail` fits an 80-column terminal (a real pty from script(1)) with
# no colour when NO_COLOR is set or stdout is not a terminal.
# usage: cli-test.sh TRACETAPD TRACETAP FW_THREADX
tracetapd=$1 tracetap=$2 fw=$3
. "$(dirname "$0")/lib.sh"
logs=("$work/d.log" "$work/err")

for t in board1 board2; do
  "$fw" --ram "$work/$t.bin" --base 0x20000000 --size 65536 --rate 300 --duration 60 \
    --time counter > "$work/$t.fw" &
  pids+=($!)
done
target() {
  printf '{"name":"%s","probe":"file:%s/%s.bin","file_base":"0x20000000","address":"0x20000000","address_is_pointer":true}' \
    "$1" "$work" "$1"
}
printf '{"port":0,"targets":[%s,%s]}\n' "$(target board1)" "$(target board2)" > "$work/cfg.json"
${TT_WRAP-} "$tracetapd" --config "$work/cfg.json" --web "$work" 2> "$work/d.log" &
dpid=$!
pids+=($dpid)
daemon_port "$work/d.log" 30
url="127.0.0.1:$port"
tt() { timeout 20 ${TT_WRAP-} "$tracetap" "$@"; } # a command that hangs fails at 20 s
one_line() { # FILE WHAT REGEX: exactly one line on stderr, matching
  [ "$(wc -l < "$1")" -eq 1 ] || fail "$2: expected one line on stderr, got: $(cat "$1")"
  grep -qE -e "$3" "$1" || fail "$2: stderr '$(cat "$1")' does not match /$3/"
}
expect_rc() { # RC WHAT CMD...: runs CMD (stdout to $work/out, stderr to $work/err)
  local want=$1 what=$2 rc=0; shift 2
  "$@" > "$work/out" 2> "$work/err" || rc=$?
  [ "$rc" -eq "$want" ] || fail "$what: exit $rc, expected $want (stderr: $(cat "$work/err"))"
}

# Unknown target: one line naming the targets there are, exit 1, nothing created.
for cmd in tail status "record -o $work/rec.jsonl" "export -o $work/exp.jsonl"; do
  expect_rc 1 "$cmd --target nope" tt $cmd "$url" --target nope
  one_line "$work/err" "$cmd --target nope" "no target named 'nope' at $url; its targets: board1, board2$"
done
[ ! -e "$work/rec.jsonl" ] && [ ! -e "$work/exp.jsonl" ] || fail "an output file was created for an unknown target"
echo "ok: unknown target: tail, status, record, export exit 1 with the target list"

# A token that cannot be one: refused before anything is sent, naming where it came from; the
# longest one (256 characters) is sent.
expect_rc 2 "--token with a space" tt status "$url" --token 'two words'
one_line "$work/err" "--token with a space" "^tracetap status: --token: character 4 is 0x20"
TRACETAP_TOKEN=$'ab\r\nX-Injected: 1' expect_rc 2 "\$TRACETAP_TOKEN with a line break" tt tail "$url"
one_line "$work/err" "\$TRACETAP_TOKEN with a line break" "^tracetap tail: \\\$TRACETAP_TOKEN: character 3 is 0x0d"
expect_rc 2 "a 257-character token" tt record -o "$work/tok.jsonl" "$url" --token "$(printf 'k%.0s' {1..257})"
one_line "$work/err" "a 257-character token" "--token: 257 characters: a token has 1 to 256$"
[ ! -e "$work/tok.jsonl" ] || fail "an output file was created for a bad token"
expect_rc 0 "a 256-character token" tt status "$url" --token "$(printf 'k%.0s' {1..256})"
echo "ok: a token with a space, a line break or 257 characters is refused (exit 2), 256 is sent"

# export with two targets and no --target: an error naming them.
expect_rc 1 "export without --target" tt export -o "$work/exp.jsonl" "$url"
one_line "$work/err" "export without --target" "has 2 targets \(board1, board2\): name one with --target NAME"
expect_rc 0 "export --target board1" tt export -o "$work/exp.jsonl" --target board1 "$url"
jq -e -s 'length > 0 and all(.target == "board1")' "$work/exp.jsonl" > /dev/null || fail "export --target board1 wrote $(head -c 200 "$work/exp.jsonl")"
echo "ok: export names the targets when it needs one, writes the one asked for"

# status: clients shown (a tail client held open), human units, aligned, --json is JSON.
tt tail --json --target board1 "$url" > "$work/tail.jsonl" 2> "$work/tail.err" &
tail_pid=$!
pids+=($tail_pid)
end=$((SECONDS + 20))
until [ "$(curl -sf "http://$url/api/targets" | jq '.[] | select(.name == "board1") | .clients')" = 1 ]; do
  [ $SECONDS -lt $end ] || fail "the tail client never showed in /api/targets"; sleep 0.1
done
expect_rc 0 "status" tt status "$url"
grep -qE 'e\+[0-9]' "$work/out" && fail "status prints exponents: $(cat "$work/out")"
head -n 3 "$work/out" | grep -qE '^TARGET +FORMAT +STATE +EVENTS +RATE +LOST +GAPS +PROBE +CLIENTS +FILL$' ||
  fail "status has no column header: $(cat "$work/out")"
row=$(grep -E '^board1 ' "$work/out") || fail "no board1 row: $(cat "$work/out")"
echo "$row" | grep -qE '^board1 +threadx +connected +[0-9.]+[kMG]? +[0-9.]+[kMG]?/s +[0-9.]+[kMG]? +[0-9.]+[kMG]? +[0-9.]+ (B|KiB|MiB|GiB) +1 +[0-9]+%$' ||
  fail "board1 row not in human units with 1 client: '$row'"
[ "$(awk '/^(TARGET|board[12]) / { print length($0) }' "$work/out" | sort -u | wc -l)" -eq 1 ] ||
  fail "status rows are not aligned: $(cat "$work/out")"
expect_rc 0 "status --json" tt status --json --target board1 "$url"
jq -e '.name == "board1" and .clients == 1 and (.events | type == "number")' "$work/out" > /dev/null ||
  fail "status --json --target board1: $(cat "$work/out")"
# in an 80-column terminal (a pty) every line fits, the rows still aligned, nothing dropped
# but the format column (named in the first line)
script -qc "stty cols 80; ${TT_WRAP-} $tracetap status $url" /dev/null | tr -d '\r' > "$work/out80" ||
  fail "status in a pty: $(cat "$work/out80")"
long=$(sed 's/…/./g' "$work/out80" | awk 'length($0) > 80') # columns, not bytes
[ -z "$long" ] || fail "status lines over 80 columns in an 80-column terminal: $long"
head -n 1 "$work/out80" | grep -q 'up, 2 targets (threadx)$' || fail "status (80 columns) header: $(cat "$work/out80")"
grep -qE '^TARGET +STATE +EVENTS +RATE +LOST +GAPS +PROBE +CL +FILL$' "$work/out80" &&
  grep -qE '^board1 +connected +[0-9.]+[kMG]? +[0-9.]+[kMG]?/s +[0-9.]+[kMG]? +[0-9.]+[kMG]? +[0-9.]+ (B|KiB|MiB|GiB) +1 +[0-9]+%$' "$work/out80" ||
  fail "status (80 columns) columns: $(cat "$work/out80")"
[ "$(awk '/^(TARGET|board[12]) / { print length($0) }' "$work/out80" | sort -u | wc -l)" -eq 1 ] ||
  fail "status rows (80 columns) are not aligned: $(cat "$work/out80")"
kill "$tail_pid"; wait "$tail_pid" 2>/dev/null || true
echo "ok: status: human units, aligned rows, clients, --json; fits an 80-column terminal"

# Help: each command's own options, each with a line of explanation; examples.
for cmd in tail record targets status export; do
  expect_rc 0 "$cmd --help" tt $cmd --help
  grep -q "^usage: tracetap $cmd " "$work/out" || fail "$cmd --help: no usage line"
  grep -q '^examples:' "$work/out" || fail "$cmd --help: no examples"
  awk '/^options:/ { o = 1; next } /^$/ { o = 0 } o && !/^  --[a-z-]+( [A-Z]+)? +[A-Za-z(]/ { bad = 1; print } END { exit bad }' "$work/out" ||
    fail "$cmd --help: an option line without its explanation"
done
tt status --help > "$work/out"
grep -qE -- '--(duration|count|history|output|wide)' "$work/out" && fail "status --help lists options of other commands: $(cat "$work/out")"
expect_rc 2 "status --duration" tt status --duration 3 "$url"
one_line "$work/err" "status --duration" "unknown option '--duration'"
expect_rc 2 "record --count x" tt record -o "$work/r" --count x "$url"
one_line "$work/err" "record --count x" "--count x: expected a number"
echo "ok: per-command help and options"

# tail on an 80-column terminal: no line wider than 80 columns; --wide keeps everything;
# NO_COLOR and a pipe give no escapes.
esc=$'\x1b'
pty_tail() { # COLS ENV ARGS: tail --history 200 in a pty of COLS columns, its record lines in $work/pty.lines
  local cols=$1; shift
  script -qec "stty cols $cols rows 50; env $1 timeout 5 $tracetap tail --history 200 $url ${2:---target board1}" \
    "$work/pty" > /dev/null 2>&1 || true
  # record lines: [target] [seq] time, then two spaces (colour escapes aside)
  tr -d '\r' < "$work/pty" | awk '{ p = $0; gsub(/\033\[[0-9;]*m/, "", p) }
    p ~ /^(board[12] +)?( *[0-9]+)+(\.[0-9]+)?  / { print }' > "$work/pty.lines"
  [ -s "$work/pty.lines" ] ||
    fail "tail printed no records in a pty: $(head -c 300 "$work/pty")"
}
plain() { sed 's/\x1b\[[0-9;]*m//g; s/…/./g' "$work/pty.lines"; }
pty_tail 80 TERM=xterm
max=$(plain | awk '{ if (length($0) > m) m = length($0) } END { print m }')
[ "$max" -le 80 ] || fail "tail lines up to $max columns on an 80-column terminal"
grep -q $'\x1b\[' "$work/pty.lines" || fail "tail on a terminal printed no colour"
# one target asked for: its name is no column (the room goes to the arguments); two: a column
# as wide as the longer name
plain > "$work/pty.plain"
grep -q '^board1' "$work/pty.plain" && fail "tail --target board1 in 80 columns still names the target: $(head -n 2 "$work/pty.plain")"
pty_tail 80 TERM=xterm " "
plain > "$work/pty.plain"
grep -qE '^board[12] [ 0-9]{12}[0-9]  ' "$work/pty.plain" ||
  fail "tail of two targets in 80 columns: no 6-column target column: $(head -n 2 "$work/pty.plain")"
pty_tail 80 TERM=xterm "--target board1 --wide"
max=$(plain | awk '{ if (length($0) > m) m = length($0) } END { print m }')
[ "$max" -gt 80 ] || fail "tail --wide cut its lines to $max columns"
pty_tail 80 NO_COLOR=1 "--target board1"
grep -q $'\x1b\[' "$work/pty.lines" && fail "tail printed colour with NO_COLOR set"
timeout 5 "$tracetap" tail --history 50 --target board1 "$url" > "$work/pipe" 2>/dev/null || true
[ -s "$work/pipe" ] || fail "tail into a pipe printed nothing"
grep -q $'\x1b\[' "$work/pipe" && fail "tail into a pipe printed colour"
echo "ok: tail fits 80 columns (no target column for one target, a 6-column one for board1/board2), --wide does not cut, no colour with NO_COLOR or a pipe"

# The HTTP API: errors are JSON with their status, an export is a named file, /metrics is
# what a real Prometheus parser accepts, without binary float noise.
api() { # PATH: status, content type and body into $work/api.*
  curl -s -D "$work/api.hdr" -o "$work/api.body" -w '%{http_code}' "http://$url$1" > "$work/api.code"
}
api_error() { # PATH STATUS REGEX
  api "$1"
  [ "$(cat "$work/api.code")" = "$2" ] || fail "$1: status $(cat "$work/api.code"), expected $2"
  grep -qi '^content-type: application/json' "$work/api.hdr" || fail "$1: not JSON: $(cat "$work/api.hdr")"
  jq -e --argjson st "$2" --arg re "$3" '.status == $st and (.error | test($re))' "$work/api.body" > /dev/null ||
    fail "$1: body $(cat "$work/api.body")"
}
api_error "/api/export" 400 'target=NAME is required: this daemon has 2 targets \(board1, board2\)'
api_error "/api/export?target=nope" 404 "no target named 'nope' \\(targets: board1, board2\\)"
api_error "/api/export?target=board1&format=xml" 400 'format must be'
api_error "/api/nothing" 404 'no such API path'
for f in perfetto:json trx:trx ftrace:txt jsonl:jsonl; do
  api "/api/export?target=board1&format=${f%%:*}"
  [ "$(cat "$work/api.code")" = 200 ] || fail "export ${f%%:*}: status $(cat "$work/api.code")"
  grep -qiE "^content-disposition: attachment; filename=\"board1-[0-9]{8}-[0-9]{6}\.${f#*:}\"" "$work/api.hdr" ||
    fail "export ${f%%:*}: no file name: $(cat "$work/api.hdr")"
done
api "/no-such-file.css"
[ "$(cat "$work/api.code")" = 404 ] && grep -qi '^content-type: text/plain' "$work/api.hdr" &&
  ! grep -qi '<html' "$work/api.body" || fail "a missing static file: $(cat "$work/api.code") $(cat "$work/api.hdr" "$work/api.body")"
curl -sf "http://$url/metrics" > "$work/metrics" || fail "/metrics"
promtool check metrics < "$work/metrics" > "$work/promtool.out" 2>&1 ||
  fail "promtool check metrics: $(cat "$work/promtool.out")"
grep -E '^[a-z_]+(\{[^}]*\})? [0-9.]*[0-9]{12,}' "$work/metrics" && fail "/metrics prints float noise"
echo "ok: API errors as JSON with the status, static ones plain, exports named TARGET-TIME.EXT, /metrics passes promtool"

# A daemon that is not there: the port of the one stopped here.
kill "$dpid"; wait "$dpid" 2>/dev/null || true
dead=$port
for cmd in tail status targets "record -o $work/rec.jsonl" "export -o $work/exp.jsonl"; do
  expect_rc 1 "$cmd on no daemon" tt $cmd "127.0.0.1:$dead"
  one_line "$work/err" "$cmd on no daemon" "cannot reach tracetapd at 127.0.0.1:$dead \(Connection refused\): is it running\?"
done
[ ! -e "$work/rec.jsonl" ] || fail "record created its file with no daemon"
echo "ok: no daemon: one line, exit 1"

