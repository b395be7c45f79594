#!/usr/bin/env python3
"""tests/e2e/telnet_watch.py PORT OUT ASK_FILE: a user's telnet session on OpenOCD.

Connects to OpenOCD's telnet port on 127.0.0.1 and writes every byte it receives to OUT until
ASK_FILE exists; then types `expr 6*7` and waits (10 s) for the answer 42. Exit 0 when it came,
1 when not, 2 when the connection failed or closed."""
import os
import socket
import sys
import time

port, out_path, ask = int(sys.argv[1]), sys.argv[2], sys.argv[3]
try:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
except OSError as e:
    print(f"telnet_watch: connect 127.0.0.1:{port}: {e}", file=sys.stderr)
    sys.exit(2)
s.settimeout(0.1)
with open(out_path, "wb") as out:
    while not os.path.exists(ask):
        try:
            d = s.recv(65536)
        except socket.timeout:
            continue
        if not d:
            sys.exit(2)
        out.write(d)
        out.flush()
s.sendall(b"expr 6*7\r\n")
got, end = b"", time.monotonic() + 10
while time.monotonic() < end:
    try:
        d = s.recv(65536)
    except socket.timeout:
        continue
    if not d:
        break
    got += d
    if b"42" in got:
        sys.exit(0)
print(f"telnet_watch: no 42 in the answer: {got[-200:]!r}", file=sys.stderr)
sys.exit(1)
