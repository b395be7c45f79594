"""tests/security/rows_text.py: hostile text and hostile answers (the rows attacks.py imports).

What another bench's broker, a target or a server can put in front of a person: bytes that are
not UTF-8 in a name (they must not break the dashboards' WebSocket), control characters in names
and reasons (they must not reach the terminal of `tracetap tail`), and a server that never stops
answering (`tracetap status` must give up within its bounds). The served dashboard's headers too.
The MQTT rows run a real mosquitto on an ephemeral loopback port and a central tracetapd
subscribed to it; the hostile publisher is mosquitto_pub.
"""
import json
import os
import pwd
import re
import shutil
import socket
import subprocess
import threading
import time

import wire
from harness import WORK, Daemon, Fail, aftermath, check, ended, row, snapshot, wait_until

TRACETAP = os.environ.get("TRACETAP", "")
SANITIZER = re.compile(r"(AddressSanitizer|LeakSanitizer|runtime error:).*")


def clean_exit(what, p, stderr):
    """The client's own health: no sanitizer report (a leak included) in an ASan build."""
    bad = SANITIZER.search(stderr)
    check(not bad, "%s: %s" % (what, bad.group(0) if bad else ""))


class Broker:
    """mosquitto on 127.0.0.1, an ephemeral port (bound by the broker itself: retried on a
    race), anonymous, its log in WORK."""

    def __init__(self, name):
        if not shutil.which("mosquitto") or not shutil.which("mosquitto_pub"):
            raise Fail("mosquitto and mosquitto_pub are needed (tests/setup.sh installs them)")
        self.log = os.path.join(WORK, name + ".broker.log")
        for _ in range(5):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
            s.close()
            conf = os.path.join(WORK, name + ".broker.conf")
            with open(conf, "w") as f:
                f.write("listener %d 127.0.0.1\nallow_anonymous true\nuser %s\n"
                        % (self.port, pwd.getpwuid(os.getuid()).pw_name))
            with open(self.log, "w") as out:
                self.p = subprocess.Popen(["mosquitto", "-v", "-c", conf], stdout=out,
                                          stderr=subprocess.STDOUT)
            try:
                wait_until(lambda: "running" in self.text() or self.p.poll() is not None, 10,
                           "mosquitto's start")
            except Fail:
                self.stop()
                raise
            if self.p.poll() is None:
                return
        raise Fail("mosquitto did not start: " + self.text()[-300:])

    def text(self):
        with open(self.log, errors="replace") as f:
            return f.read()

    def publish(self, topic, payload):
        """payload: bytes, sent as they are (a hostile publisher's)."""
        path = os.path.join(WORK, "payload.bin")
        with open(path, "wb") as f:
            f.write(payload)
        subprocess.run(["mosquitto_pub", "-p", str(self.port), "-q", "1", "-t", topic, "-f",
                        path], check=True, timeout=10)

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


def central(name, broker):
    """A tracetapd subscribed to lab/+/+ on broker, holding the remote target w/t with record
    1 (so the target's history exists before the row's snapshot, and a WebSocket client's
    subscription to "*" includes it)."""
    d = Daemon(name, ["--probe", "mqtt://127.0.0.1:%d/lab/+/+" % broker.port], target=False)
    wait_until(lambda: "Received SUBSCRIBE" in broker.text(), 10, "the central's subscription")
    broker.publish("lab/w/t/events", events_message([event(1)]))
    held(d, 1)
    return d


def held(d, seq):
    """Waits until the central holds w/t's records up to seq."""
    wait_until(lambda: [t for t in json.loads(wire.http(d.port, "/api/targets")[2])
                        if t["name"] == "w/t" and t["last_seq"] >= seq], 10,
               "the central holds w/t up to %d" % seq)


def event(seq, name="USER_EVENT", thread_name="main", args=None):
    """An event record as a bench daemon publishes it (names as given: str, or bytes raw)."""
    return {"type": "event", "target": "t", "seq": seq, "id": 4096, "name": name, "ctx": "thread",
            "core": 0, "thread": "0x20001000", "thread_name": thread_name, "prio": 4, "ts": seq,
            "time": seq * 1000, "args": args or {}, "raw": [seq, 0, 0, 0]}


def events_message(recs):
    """The bytes of an events message; a bytes value of a record's str field goes in raw,
    not as UTF-8 (what json.dumps cannot write: a publisher's invalid UTF-8)."""
    raw = {}

    def mark(v):
        if isinstance(v, bytes):
            key = "@@raw%d@@" % len(raw)
            raw[key] = v
            return key
        return v
    recs = [{k: mark(v) for k, v in r.items()} for r in recs]
    text = json.dumps({"type": "events", "target": "t", "first": recs[0]["seq"],
                       "last": recs[-1]["seq"], "records": recs}).encode()
    for key, v in raw.items():
        text = text.replace(key.encode(), v)
    return text


def ws_records(d, want, seconds=15):
    """Subscribes from the oldest record and returns (records, undecodable frames) once want
    records came; every text frame's bytes are decoded as UTF-8 (what a browser does)."""
    ws, st, _ = wire.ws_open(d.port)
    check(ws, "WebSocket refused: %s" % st)
    recs, bad = [], []
    try:
        ws.send(json.dumps({"type": "subscribe", "targets": "*", "history": 1000}))
        end = time.monotonic() + seconds
        while len(recs) < want and not bad:
            if time.monotonic() > end:
                raise Fail("timed out: %d of %d records on the WebSocket" % (len(recs), want))
            op, payload = ws.recv(max(0.05, end - time.monotonic()))
            if op != 1:
                continue
            try:
                m = json.loads(payload.decode("utf-8"))
            except UnicodeDecodeError as e:
                bad.append("%s in %r" % (e.reason, payload[max(0, e.start - 20):e.end + 20]))
                continue
            if m.get("type") == "events":
                recs += m["records"]
    finally:
        ws.close()
    return recs, bad


# ---- the dashboard's headers ----

@row("dashboard-headers")
def dashboard_headers(d):
    """The dashboard and the API are served with a Content-Security-Policy that allows no
    inline script and no framing, and nosniff."""
    seen = []
    for path in ("/", "/api/targets", "/nosuch.js"):
        st, h, _ = wire.http(d.port, path)
        csp = h.get("content-security-policy", "")
        rules = {r.split()[0]: r.split()[1:] for r in csp.split(";") if r.strip()}
        scripts = rules.get("script-src", rules.get("default-src"))
        check(scripts and "'unsafe-inline'" not in scripts and "'unsafe-eval'" not in scripts
              and "*" not in scripts, "%s (%s): script-src %s in %r" % (path, st, scripts, csp))
        check(rules.get("frame-ancestors") == ["'none'"], "%s: frame-ancestors in %r" % (path, csp))
        check(h.get("x-content-type-options") == "nosniff", "%s: nosniff: %r" % (path, h))
        seen.append("%s %d" % (path, st))
    return "CSP (script-src 'self', frame-ancestors 'none') and nosniff on " + ", ".join(seen)


# ---- bytes that are not UTF-8 from a broker ----

@row("utf8-names", on_main=False)
def utf8_names():
    """A remote record named Caf\\xe9 (Latin-1), one whose name is cut at 64 bytes inside a
    character, a thread name of bytes that are no UTF-8 at all: every WebSocket frame and the
    export stay valid UTF-8 (a browser drops the connection on the first bad byte), each bad
    byte U+FFFD, the cut between characters; the good records around them arrive too."""
    b = Broker("utf8")
    d = None
    try:
        d = central("utf8", b)
        base = snapshot(d)
        long_name = b"x" * 63 + "\u00e9".encode()  # 65 bytes: 64 ends inside the e-acute
        b.publish("lab/w/t/events", events_message([
            event(2, b"Caf\xe9"), event(3, long_name), event(4, "ok", b"\xff\xfe\xc0\xaf"),
            event(5, "Gr\u00fc\u00dfe \u2713")]))
        held(d, 5)
        recs, bad = ws_records(d, 5)
        check(not bad, "a WebSocket frame that is not UTF-8: %s" % bad[:2])
        names = [r["name"] for r in recs]
        check(names[1] == "Caf\ufffd", "Caf\\xe9 arrived as %r" % names[1])
        check(names[2] == "x" * 63, "the 64-byte cut: %r" % names[2])
        check(recs[3]["thread_name"] == "\ufffd" * 4, "thread name: %r" % recs[3]["thread_name"])
        check(names[4] == "Gr\u00fc\u00dfe \u2713", "valid UTF-8 kept: %r" % names[4])
        st, _, body = wire.http(d.port, "/api/export?format=jsonl&target=w/t")
        check(st == 200, "export: %s" % st)
        try:
            lines = body.decode("utf-8").splitlines()
        except UnicodeDecodeError as e:
            raise Fail("the export is not UTF-8: %s" % e)
        check(len(lines) == 5, "export: %d lines" % len(lines))
        return "5 records, every frame and the export UTF-8 (Caf\\xe9 -> Caf U+FFFD, cut " \
            "before the 65th byte's character); " + aftermath(d, base) + "; " + ended(d)
    finally:
        if d:
            d.stop()
        b.stop()


# ---- control characters for the terminal ----

HOSTILE = "\x1b]0;owned\x07\x1b[2J\x9b31m"  # set the title, ring, clear the screen, 8-bit CSI


@row("tail-escapes", on_main=False)
def tail_escapes():
    """ESC, BEL and C1 in a remote event name, thread name, argument key and value, a gap's
    reason and a state message: `tracetap tail` prints each as a visible escape (\\x1b), never
    the byte, on stdout and stderr."""
    if not TRACETAP or not os.access(TRACETAP, os.X_OK):
        raise Fail("TRACETAP must name the client (meson sets it)")
    b = Broker("tail")
    d = None
    try:
        d = central("tail", b)
        base = snapshot(d)
        b.publish("lab/w/t/events", events_message([
            event(2, "N" + HOSTILE, "T" + HOSTILE, {"k" + HOSTILE: "v" + HOSTILE})]))
        b.publish("lab/w/t/events", json.dumps(
            {"type": "gap", "target": "t", "from": 3, "to": 4, "lost": 2,
             "reason": "R" + HOSTILE}).encode())
        b.publish("lab/w/t/events", events_message([event(5)]))
        held(d, 5)
        outs = []
        for extra in ([], ["--wide"], ["--json"]):
            p = subprocess.run([TRACETAP, "tail", "ws://127.0.0.1:%d/" % d.port, "--history",
                                "100", "--duration", "2"] + extra, capture_output=True,
                               timeout=30)
            out = p.stdout + p.stderr
            clean_exit("tail %s" % extra, p, p.stderr.decode("utf-8", "replace"))
            check(p.returncode == 0, "tail %s: exit %s" % (extra, p.returncode))
            for c in (b"\x1b", b"\x07", b"\xc2\x9b"):
                check(c not in out, "tail %s printed %r raw: %r" % (extra, c, out[:600]))
            outs.append(out)
        text = outs[0].decode("utf-8", "replace")
        # (the gap's reason is the central daemon's own: only its bytes are checked)
        for what in ("N\\x1b]0;owned\\x07", "T\\x1b", "k\\x1b", "v\\x1b", "\\u009b"):
            check(what in text, "tail does not show %r literally: %r" % (what, text[:800]))
        return "name, thread, argument key and value: escapes shown as \\x1b, \\x07, \\u009b; " \
            "no ESC, BEL or C1 byte in %d bytes of output; " % sum(map(len, outs)) + \
            aftermath(d, base) + "; " + ended(d)
    finally:
        if d:
            d.stop()
        b.stop()


# ---- a server that never stops answering ----

class Flood:
    """A TCP server on 127.0.0.1 answering each request with a 200 whose body never ends:
    fast (as fast as the client reads) or slow (one byte every 20 ms: only time bounds it)."""

    def __init__(self, slow):
        self.s = socket.socket()
        self.s.bind(("127.0.0.1", 0))
        self.s.listen(4)
        self.port, self.slow, self.sent, self.stopping = self.s.getsockname()[1], slow, 0, False
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        try:
            c, _ = self.s.accept()
        except OSError:
            return
        with c:
            c.settimeout(1)
            try:
                c.recv(4096)
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n[")
                chunk = b"1" if self.slow else b'{"name":"x","state":"y"},' * 2600
                while not self.stopping:
                    try:
                        c.sendall(chunk)
                    except socket.timeout:
                        continue
                    self.sent += len(chunk)
                    if self.slow:
                        time.sleep(0.02)  # pacing the drip: the row is about the total time
            except OSError:
                pass

    def stop(self):
        self.stopping = True
        self.s.close()
        self.t.join(5)


@row("status-bounds", on_main=False)
def status_bounds():
    """`tracetap status` against a server whose answer never ends: it stops after its bounds
    (16 MiB, 5 s) with a line saying which, whether the server floods or drips."""
    if not TRACETAP or not os.access(TRACETAP, os.X_OK):
        raise Fail("TRACETAP must name the client (meson sets it)")
    seen = []
    for slow, want in ((False, "went past 16 MiB"), (True, "took over 5 s")):
        f = Flood(slow)
        try:
            t0 = time.monotonic()
            try:
                p = subprocess.run([TRACETAP, "status", "http://127.0.0.1:%d/" % f.port],
                                   capture_output=True, text=True, timeout=20)
            except subprocess.TimeoutExpired:
                raise Fail("tracetap status still reading after 20 s (%d MiB sent)"
                           % (f.sent >> 20))
            took = time.monotonic() - t0
        finally:
            f.stop()
        clean_exit("status", p, p.stderr)
        check(p.returncode == 1 and want in p.stderr,
              "exit %s, stderr %r" % (p.returncode, p.stderr[-300:]))
        check(took < 10, "it took %.1f s" % took)
        check(f.sent < 24 << 20, "%d MiB read" % (f.sent >> 20))
        seen.append("%s: stopped after %.1f s, %.1f MiB sent" % (
            "drip" if slow else "flood", took, f.sent / (1 << 20)))
    return "; ".join(seen)
