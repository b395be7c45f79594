"""tests/security/wire.py: raw HTTP and WebSocket on loopback sockets for the attack suite.

Nothing here is lenient: a client that an attacker would write, byte for byte (unmasked frames,
lying lengths, missing FIN), with every read under a deadline.
"""
import base64
import os
import socket
import ssl
import struct
import time


def connect(port, tls=False, timeout=5.0):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    if tls:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        s = ctx.wrap_socket(s)
    return s


def read_response(s, deadline):
    """(status, headers dict, body) of one HTTP response: Content-Length or until EOF."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        s.settimeout(max(0.01, deadline - time.monotonic()))
        chunk = s.recv(65536)
        if not chunk:
            raise ConnectionError("closed before a response (%r)" % buf[:200])
        buf += chunk
    head, body = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for ln in lines[1:]:
        k, _, v = ln.partition(":")
        headers[k.strip().lower()] = v.strip()
    if status == 101:
        return status, headers, body
    n = int(headers.get("content-length", -1))
    while n < 0 or len(body) < n:
        s.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            if n >= 0:
                raise
            break
        if not chunk:
            break
        body += chunk
    return status, headers, body


def http(port, path="/healthz", headers=None, extra=b"", tls=False, timeout=5.0):
    """One request on its own connection: (status, headers, body)."""
    hdrs = {"Host": "127.0.0.1:%d" % port}
    hdrs.update(headers or {})
    req = "GET %s HTTP/1.1\r\n" % path
    req += "".join("%s: %s\r\n" % (k, v) for k, v in hdrs.items() if v is not None)
    with connect(port, tls, timeout) as s:
        s.sendall(req.encode("latin-1") + b"\r\n" + extra)
        return read_response(s, time.monotonic() + timeout)


def ws_open(port, path="/ws", headers=None, tls=False, timeout=5.0):
    """WebSocket upgrade: (socket or None, status, body of a refusal)."""
    key = base64.b64encode(os.urandom(16)).decode()
    hdrs = {"Host": "127.0.0.1:%d" % port, "Upgrade": "websocket", "Connection": "Upgrade",
            "Sec-WebSocket-Key": key, "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Protocol": "tracetap.v1"}
    hdrs.update(headers or {})
    req = "GET %s HTTP/1.1\r\n" % path
    req += "".join("%s: %s\r\n" % (k, v) for k, v in hdrs.items() if v is not None)
    s = connect(port, tls, timeout)
    s.sendall(req.encode("latin-1") + b"\r\n")
    try:
        status, _, rest = read_response(s, time.monotonic() + timeout)
    except Exception:
        s.close()
        raise
    if status != 101:
        s.close()
        return None, status, rest
    return WS(s, rest), status, b""


def frame(opcode, payload, mask=True, fin=True, rsv=0, claim=None):
    """A client frame; claim: the length written in the header (a lie when it differs)."""
    n = len(payload) if claim is None else claim
    b0 = (0x80 if fin else 0) | rsv << 4 | opcode
    m = 0x80 if mask else 0
    if n < 126:
        head = struct.pack("!BB", b0, m | n)
    elif n < 65536:
        head = struct.pack("!BBH", b0, m | 126, n)
    else:
        head = struct.pack("!BBQ", b0, m | 127, n)
    if not mask:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(c ^ key[i % 4] for i, c in enumerate(payload))


class WS:
    def __init__(self, sock, pending=b""):
        self.s = sock
        self.buf = pending
        self.close_code = None

    def send(self, data, opcode=1, **kw):
        if isinstance(data, str):
            data = data.encode()
        self.s.sendall(frame(opcode, data, **kw))

    def _need(self, n, deadline):
        while len(self.buf) < n:
            self.s.settimeout(max(0.01, deadline - time.monotonic()))
            chunk = self.s.recv(262144)
            if not chunk:
                raise EOFError("connection closed")
            self.buf += chunk

    def recv(self, timeout=5.0):
        """(opcode, payload) of the next frame; a close frame sets close_code. EOFError when
        the TCP connection ends, socket.timeout at the deadline."""
        deadline = time.monotonic() + timeout
        self._need(2, deadline)
        b0, b1 = self.buf[0], self.buf[1]
        n, off = b1 & 0x7F, 2
        if n == 126:
            self._need(4, deadline)
            n, off = struct.unpack("!H", self.buf[2:4])[0], 4
        elif n == 127:
            self._need(10, deadline)
            n, off = struct.unpack("!Q", self.buf[2:10])[0], 10
        self._need(off + n, deadline)
        payload, self.buf = self.buf[off:off + n], self.buf[off + n:]
        op = b0 & 0x0F
        if op == 8:
            self.close_code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
        return op, payload

    def until_close(self, timeout=5.0):
        """Reads until a close frame (its code) or EOF (None: closed without a close frame)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                op, _ = self.recv(max(0.01, deadline - time.monotonic()))
            except (EOFError, ConnectionError):
                return self.close_code
            if op == 8:
                return self.close_code

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass
