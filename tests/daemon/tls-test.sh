#!/usr/bin/env bash
# tests/daemon/tls-test.sh: given a certificate and key, tracetapd serves HTTPS and WSS on its
# one port (and plain HTTP no longer answers there); a missing key file is a clear error.
# usage: tls-test.sh TRACETAPD TRACETAP FW_THREADX
tracetapd=$1 tracetap=$2 fw=$3
. "$(dirname "$0")/lib.sh"
logs=("$work/d.log")

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
"$fw" --ram "$work/ram.bin" --base 0x20000000 --size 65536 --rate 200 --duration 30 \
  > "$work/fw.out" 2>&1 &
pids+=($!)
${TT_WRAP-} "$tracetapd" --probe "file:$work/ram.bin" --base 0x20000000 --pointer 0x20000000 --port 0 \
  --web "$work" --tls-cert "$work/cert.pem" --tls-key "$work/key.pem" 2> "$work/d.log" &
dpid=$!
pids+=($dpid)
daemon_port "$work/d.log" 30
body=$(curl -sS --cacert "$work/cert.pem" "https://127.0.0.1:$port/healthz") || fail "HTTPS request failed"
[ "$body" = ok ] || fail "/healthz over HTTPS said '$body'"
echo "ok: HTTPS /healthz with the given certificate"
if curl -sS -m 3 "http://127.0.0.1:$port/healthz" > /dev/null 2>&1; then
  fail "plain HTTP answered on the TLS port"
fi
echo "ok: plain HTTP refused on the TLS port"
# A client that offers HTTP/2 first, as browsers and curl do, is answered in HTTP/1.1, and gets
# the dashboard's files and whole exports (over HTTP/2 an export came with an empty body).
printf '<!doctype html><title>tracetap</title>\n' > "$work/index.html"
got=$(curl -sS --http2 --cacert "$work/cert.pem" -o "$work/index.got" -w '%{http_version} %{http_code}' \
  "https://127.0.0.1:$port/") || fail "GET / offering HTTP/2 failed"
[ "$got" = "1.1 200" ] && cmp -s "$work/index.html" "$work/index.got" ||
  fail "GET / offering HTTP/2: '$got', body $(head -c 80 "$work/index.got")"
got=$(curl -sS --http2 --cacert "$work/cert.pem" -o "$work/x.trx" -w '%{http_version} %{http_code}' \
  "https://127.0.0.1:$port/api/export?format=trx") || fail "an export offering HTTP/2 failed"
[ "$got" = "1.1 200" ] || fail "an export offering HTTP/2: '$got'"
"$tracetap" decode "$work/x.trx" > "$work/x.txt" 2>&1 && [ -s "$work/x.txt" ] ||
  fail "the export offering HTTP/2 does not decode: $(head -c 200 "$work/x.txt")"
echo "ok: a client offering HTTP/2 gets HTTP/1.1, the web folder's files and a whole export ($(wc -l < "$work/x.txt") events)"
# No --name: the target is named after the probe's file ("ram"), in the API and the log.
curl -sS --cacert "$work/cert.pem" "https://127.0.0.1:$port/api/targets" | jq -e '.[0].name == "ram"' > /dev/null ||
  fail "/api/targets over HTTPS, with the target named ram"
grep -q 'target ram: ' "$work/d.log" || fail "the log does not name the target ram"
echo "ok: /api/targets over HTTPS; the default target name is the probe's file name"
kill -TERM "$dpid"; rc=0; wait "$dpid" || rc=$?
[ "$rc" -eq 0 ] || fail "tracetapd exited with $rc"

rc=0
${TT_WRAP-} "$tracetapd" --probe "file:$work/ram.bin" --port 0 --tls-cert "$work/cert.pem" \
  --tls-key "$work/none.pem" > /dev/null 2> "$work/err" || rc=$?
[ "$rc" -ne 0 ] || fail "a missing key file was accepted"
grep -q "none.pem" "$work/err" || fail "the error does not name the key file: $(cat "$work/err")"
echo "ok: missing key: $(head -c 200 "$work/err")"

# A file that is not a PEM certificate: refused at start, not served deaf.
echo garbage > "$work/bad.pem"
rc=0
timeout 10 ${TT_WRAP-} "$tracetapd" --probe "file:$work/ram.bin" --port 0 --tls-cert "$work/bad.pem" \
  --tls-key "$work/key.pem" > /dev/null 2> "$work/err" || rc=$?
[ "$rc" -eq 1 ] || fail "a garbage certificate: exit status $rc, expected 1"
grep -q "cannot serve" "$work/err" || fail "no clear error for a garbage certificate"
echo "ok: garbage certificate refused: $(grep 'cannot serve' "$work/err" | head -c 160)"
