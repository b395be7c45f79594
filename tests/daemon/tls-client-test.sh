#!/usr/bin/env bash
# tests/daemon/tls-client-test.sh: every `tracetap` command that talks to a daemon (tail,
# record, targets, status, export, captures, top) against a real tracetapd serving TLS with a
# certificate from a test CA made here (openssl; SAN IP:127.0.0.1 and DNS:localhost), trusted
# with --ca, or through SSL_CERT_FILE (the system-store path, OpenSSL's default); the token
# sent; a tail resumes after its connection is cut. Refused, with one line naming what failed
# and a non-zero exit: a CA that did not sign the certificate (--ca, or the system store), a
# self-signed certificate, a certificate for another name (by IP and by DNS name), a CA file
# that is not one. A hostile plain server that answers the upgrade with a wrong
# Sec-WebSocket-Accept is refused; the same server with the right one is not.
# usage: tls-client-test.sh TRACETAPD TRACETAP FW_THREADX
tracetapd=$1 tracetap=$2 fw=$3
. "$(dirname "$0")/lib.sh"
logs=("$work/err")
token=tls-client-test-token

# The PKI: a CA, a certificate it signs for 127.0.0.1/localhost, one it signs for another
# name; a second CA; a self-signed certificate for 127.0.0.1/localhost.
ca() { # NAME
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj "/CN=tracetap test $1" -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$work/$1.key" -out "$work/$1.pem" 2>> "$work/openssl.log" || fail "openssl: CA $1"
}
leaf() { # NAME CA SAN
  printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$3" > "$work/$1.ext"
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$1" \
    -keyout "$work/$1.key" -out "$work/$1.csr" 2>> "$work/openssl.log" &&
  openssl x509 -req -in "$work/$1.csr" -CA "$work/$2.pem" -CAkey "$work/$2.key" \
    -CAcreateserial -days 2 -extfile "$work/$1.ext" -out "$work/$1.pem" 2>> "$work/openssl.log" ||
    fail "openssl: certificate $1"
}
ca ca
ca otherca
leaf good ca "IP:127.0.0.1,DNS:localhost"
leaf elsewhere ca "DNS:elsewhere.invalid"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=selfsigned \
  -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" -keyout "$work/self.key" -out "$work/self.pem" \
  2>> "$work/openssl.log" || fail "openssl: self-signed certificate"

"$fw" --ram "$work/ram.bin" --base 0x20000000 --size 65536 --rate 300 --duration 900 \
  --time counter > "$work/fw.out" 2>&1 &
pids+=($!)
daemon() { # N CERT [ARGS...]: tracetapd N serving TLS with CERT; its port in port, pid in dpid
  local n=$1 cert=$2; shift 2
  ${TT_WRAP-} "$tracetapd" --name board1 --probe "file:$work/ram.bin" --base 0x20000000 \
    --pointer 0x20000000 --port 0 --web "$work" --token "$token" --history 2000 \
    --tls-cert "$work/$cert.pem" --tls-key "$work/$cert.key" "$@" 2> "$work/d$n.log" &
  dpid=$!
  pids+=($dpid)
  logs+=("$work/d$n.log")
  daemon_port "$work/d$n.log" 60
}
stop_daemon() { # the last one started: one at a time (under valgrind each takes a core)
  kill -TERM "$dpid"
  local rc=0; wait "$dpid" || rc=$?
  [ "$rc" -eq 0 ] || fail "tracetapd exited with $rc"
}
mkdir "$work/caps"
daemon 1 good --capture-dir "$work/caps" \
  --trigger 'first: USER_EVENT id=4096 info1>=5; limit=1 capture before=5 after=5'
p1=$port
tt() { timeout 60 ${TT_WRAP-} "$tracetap" "$@"; } # a command that hangs fails at 60 s
expect_rc() { # RC WHAT CMD...: runs CMD (stdout to $work/out, stderr to $work/err)
  local want=$1 what=$2 rc=0; shift 2
  "$@" > "$work/out" 2> "$work/err" || rc=$?
  [ "$rc" -eq "$want" ] || fail "$what: exit $rc, expected $want (stderr: $(cat "$work/err"))"
}
one_line() { # WHAT REGEX: exactly one line on stderr, matching
  [ "$(wc -l < "$work/err")" -eq 1 ] || fail "$1: expected one line on stderr, got: $(cat "$work/err")"
  grep -qE -e "$2" "$work/err" || fail "$1: stderr '$(cat "$work/err")' does not match /$2/"
}
ok() { expect_rc 0 "$1" tt "${@:2}" --ca "$work/ca.pem" --token "$token"; }

# Every command, trusting the test CA with --ca.
# Ready: the target attached (asked with curl: a daemon under valgrind takes seconds over its
# first TLS answer, which is not the client's to wait for).
end=$((SECONDS + 60))
until curl -sf --cacert "$work/ca.pem" -H "Authorization: Bearer $token" \
    "https://127.0.0.1:$p1/api/targets" | jq -e '.[0].state == "connected"' > /dev/null; do
  [ $SECONDS -lt $end ] || fail "the target never connected"; sleep 0.2
done
ok "targets" targets "https://127.0.0.1:$p1"
grep -qE '^board1 +threadx +connected' "$work/out" || fail "targets over TLS: $(cat "$work/out")"
ok "status" status "wss://127.0.0.1:$p1"
grep -qE '^board1 +threadx +connected +[0-9.]+[kMG]? ' "$work/out" || fail "status over TLS: $(cat "$work/out")"
ok "status --json" status --json --target board1 "wss://127.0.0.1:$p1"
jq -e '.name == "board1" and .events > 0' "$work/out" > /dev/null || fail "status --json over TLS: $(cat "$work/out")"
ok "tail" tail --json --history 20 --count 20 "wss://127.0.0.1:$p1"
[ "$(jq -s 'map(select(.target == "board1" and (.seq | type == "number"))) | length' "$work/out")" = 20 ] ||
  fail "tail over TLS: $(head -c 300 "$work/out")"
ok "record" record -o "$work/rec.jsonl" --history 50 --count 50 "wss://127.0.0.1:$p1"
expect_rc 0 "decode the recording" "$tracetap" decode "$work/rec.jsonl"
[ "$(grep -cE '^board1 +[0-9]+ +[0-9]+  ' "$work/out")" -eq 50 ] || fail "the recording decodes to: $(head -c 300 "$work/out")"
ok "export trx" export -o "$work/exp.trx" --format trx "https://127.0.0.1:$p1"
expect_rc 0 "decode the export" "$tracetap" decode "$work/exp.trx"
grep -qE 'THREAD_RESUME|USER_EVENT' "$work/out" || fail "the .trx export decodes to: $(head -c 300 "$work/out")"
ok "export jsonl" export -o "$work/exp.jsonl" "https://127.0.0.1:$p1"
jq -e -s 'length >= 50 and all(.target == "board1")' "$work/exp.jsonl" > /dev/null ||
  fail "the jsonl export: $(head -c 300 "$work/exp.jsonl")"
end=$((SECONDS + 30))
until ok "captures --json" captures --json "wss://127.0.0.1:$p1" && jq -e 'length == 1' "$work/out" > /dev/null; do
  [ $SECONDS -lt $end ] || fail "no capture listed over TLS: $(cat "$work/out")"; sleep 0.2
done
ok "captures" captures "wss://127.0.0.1:$p1"
grep -qE ' board1 +first +[0-9]+ ' "$work/out" || fail "captures over TLS: $(cat "$work/out")"
ok "top" top --count 1 --target board1 "wss://127.0.0.1:$p1"
grep -qE '^THREAD ' "$work/out" && grep -qE '^sensor ' "$work/out" || fail "top over TLS: $(cat "$work/out")"
ok "status by DNS name" status "wss://localhost:$p1"
grep -q '^board1 ' "$work/out" || fail "status wss://localhost: $(cat "$work/out")"
echo "ok: tail, record, targets, status, export, captures, top over TLS with --ca and the token"

# The system-store path: OpenSSL's default, which SSL_CERT_FILE moves (no --ca).
SSL_CERT_FILE=$work/ca.pem expect_rc 0 "status, SSL_CERT_FILE" tt status --token "$token" "wss://127.0.0.1:$p1"
grep -q '^board1 ' "$work/out" || fail "status with SSL_CERT_FILE: $(cat "$work/out")"
echo "ok: the trust store's CAs (SSL_CERT_FILE) are trusted without --ca"

# The token is still needed over TLS; --ca is refused with a plain URL.
expect_rc 1 "tail without the token" tt tail --ca "$work/ca.pem" "wss://127.0.0.1:$p1"
one_line "tail without the token" "^tracetap tail: wss://127\.0\.0\.1:$p1: server refused the WebSocket: HTTP/1\.[01] 401"
expect_rc 2 "--ca with ws://" tt status --ca "$work/ca.pem" "ws://127.0.0.1:$p1"
one_line "--ca with ws://" "^tracetap status: --ca .*: the daemon's URL is not TLS"
echo "ok: no token, no stream over TLS either; --ca with a plain URL is a usage error"

# A tail cut off (a relay killed) reconnects over TLS and resumes after its last record.
relay "$p1"
${TT_WRAP-} "$tracetap" tail --json --ca "$work/ca.pem" --token "$token" \
  "wss://127.0.0.1:$relay_port" > "$work/tail.jsonl" 2> "$work/tail.err" &
tpid=$!
pids+=($tpid)
lines() { wc -l < "$work/tail.jsonl"; }
wait_lines() { # N: at least N lines within 30 s
  local end=$((SECONDS + 30))
  until [ "$(lines)" -ge "$1" ]; do [ $SECONDS -lt $end ] || fail "tail stalled at $(lines) lines"; sleep 0.1; done
}
wait_lines 100
relay_cut
wait_for "$work/tail.err" 'connection to tracetapd lost' 30
relay "$p1" "$relay_port"
wait_for "$work/tail.err" 'reconnected to 127\.0\.0\.1' 30
wait_lines $(( $(lines) + 100 ))
kill "$tpid"; wait "$tpid" 2>/dev/null || true
jq -r .seq "$work/tail.jsonl" | awk 'NR > 1 && $1 != prev + 1 { print "seq " $1 " after " prev; bad = 1 } { prev = $1 } END { exit bad }' ||
  fail "the TLS tail skipped or repeated records across the reconnection"
echo "ok: tail over TLS reconnects and resumes: $(lines) records, each seq once"

# Refused, with one line that says why: a CA that did not sign the certificate, by every
# command (--ca); then by tail (the WebSocket path) and status (HTTP): through the system
# store, a self-signed certificate, another name.
every=(tail "record -o $work/no.jsonl" targets status "export -o $work/no.trx" captures "top --count 1")
cmds=("${every[@]}")
refused() { # WHAT URL REGEX [ARGS...]: each of cmds exits 1 with one line matching REGEX
  local what=$1 url=$2 re=$3 c; shift 3
  for c in "${cmds[@]}"; do
    expect_rc 1 "$c, $what" tt $c --token "$token" "$@" "$url"
    one_line "$c, $what" "^tracetap ${c%% *}: $re"
  done
  [ ! -e "$work/no.jsonl" ] && [ ! -e "$work/no.trx" ] || fail "$what: an output file was created"
}
refused "another CA" "wss://127.0.0.1:$p1" \
  "(wss|https)://127\.0\.0\.1:$p1: certificate verify failed: unable to get local issuer certificate \(trusting the CAs in .*otherca\.pem\)$" \
  --ca "$work/otherca.pem"
cmds=(tail status)
mkdir "$work/nocerts"
SSL_CERT_FILE=$work/otherca.pem SSL_CERT_DIR=$work/nocerts refused "the system store" "wss://127.0.0.1:$p1" \
  "(wss|https)://127\.0\.0\.1:$p1: certificate verify failed: unable to get local issuer certificate \(trusting the system's CAs\)$"
expect_rc 1 "a CA file that is none" tt status --ca "$work/good.key" "wss://127.0.0.1:$p1"
one_line "a CA file that is none" "^tracetap status: https://127\.0\.0\.1:$p1: CA file .*good\.key: "
echo "ok: a certificate from another CA is refused by every command (--ca), and through the system store"
stop_daemon

daemon 2 self
refused "self-signed" "wss://127.0.0.1:$port" \
  "(wss|https)://127\.0\.0\.1:$port: certificate verify failed: self[- ]signed certificate" --ca "$work/ca.pem"
echo "ok: a self-signed certificate is refused (tail, status)"
stop_daemon

daemon 3 elsewhere
refused "another name (IP)" "wss://127.0.0.1:$port" \
  "(wss|https)://127\.0\.0\.1:$port: certificate verify failed: IP address mismatch \(the certificate does not name 127\.0\.0\.1\)$" \
  --ca "$work/ca.pem"
refused "another name (DNS)" "wss://localhost:$port" \
  "(wss|https)://localhost:$port: certificate verify failed: [Hh]ostname mismatch \(the certificate does not name localhost\)$" \
  --ca "$work/ca.pem"
echo "ok: a certificate for another name is refused (tail, status), by IP and by DNS name"
stop_daemon

# A hostile plain server: 101 with a Sec-WebSocket-Accept that does not answer the key
# (/wrong), or that does (/right: the control, so the refusal is the check's doing).
cat > "$work/fake.py" <<'EOF'
import base64, hashlib, socket, sys
s = socket.socket()
s.bind(('127.0.0.1', 0))
s.listen(4)
print(s.getsockname()[1], flush=True)
s.settimeout(60)
while True:
    c, _ = s.accept()
    c.settimeout(60)
    req = b''
    while b'\r\n\r\n' not in req:
        d = c.recv(4096)
        if not d:
            break
        req += d
    head = req.decode('latin-1')
    key = [l.split(':', 1)[1].strip() for l in head.split('\r\n') if l.lower().startswith('sec-websocket-key:')][0]
    if ' /wrong ' in head.split('\r\n')[0]:
        key = base64.b64encode(b'not the client key').decode()
    acc = base64.b64encode(hashlib.sha1((key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').encode()).digest()).decode()
    c.sendall(('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n'
               'Sec-WebSocket-Protocol: tracetap.v1\r\nSec-WebSocket-Accept: ' + acc + '\r\n\r\n').encode())
    while c.recv(4096):
        pass
    c.close()
EOF
python3 "$work/fake.py" > "$work/fake.port" 2> "$work/fake.err" &
pids+=($!)
wait_for "$work/fake.port" '^[0-9]+$' 30
fport=$(cat "$work/fake.port")
expect_rc 0 "the right Sec-WebSocket-Accept" tt tail --duration 1 "ws://127.0.0.1:$fport/right"
[ ! -s "$work/err" ] || fail "the right Sec-WebSocket-Accept: $(cat "$work/err")"
expect_rc 1 "a wrong Sec-WebSocket-Accept" tt tail --duration 5 "ws://127.0.0.1:$fport/wrong"
one_line "a wrong Sec-WebSocket-Accept" "^tracetap tail: ws://127\.0\.0\.1:$fport: Sec-WebSocket-Accept is '[A-Za-z0-9+/=]+', expected '[A-Za-z0-9+/=]+' \(not an answer to this handshake\)$"
echo "ok: a wrong Sec-WebSocket-Accept is refused: $(cat "$work/err")"
