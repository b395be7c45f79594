"""tests/security/harness.py: what every attack row of attacks.py stands on.

A tracetapd on an ephemeral 127.0.0.1 port fed from a RAM file (Daemon), a live WebSocket
client checking every seq (Live), the checks after each row (aftermath: alive, no sanitizer
report, descriptors back, RSS bound, /healthz, the live client), and the row registry and runner.
"""
import json
import os
import re
import resource
import signal
import socket
import subprocess
import tempfile
import threading
import time

import wire

TRACETAPD = os.environ.get("TRACETAPD", "")
FW = os.environ.get("FW_THREADX", "")
WORK = tempfile.mkdtemp(prefix="tt-security-")
RAM = os.path.join(WORK, "ram.bin")
WEB = os.path.join(WORK, "web")
SECRET = "tt-secret-3f9a1c"
results = []


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def wait_until(cond, seconds, what):
    end = time.monotonic() + seconds
    while not cond():
        if time.monotonic() > end:
            raise Fail("timed out: " + what)
        time.sleep(0.05)


class Daemon:
    """tracetapd on an ephemeral port with the RAM file as its target."""

    def __init__(self, name, args=(), config=None, nofile=None, tls=False, target=True):
        self.name, self.tls = name, tls
        self.logpath = os.path.join(WORK, name + ".log")
        cmd = [TRACETAPD, "--port", "0", "--web", WEB, "--log-level", "info"]
        if config is not None:
            self.config = os.path.join(WORK, name + ".json")
            self.write_config(config)
            cmd += ["--config", self.config]
        if target:
            cmd += ["--name", "target", "--probe", "file:" + RAM, "--base", "0x20000000", "--pointer", "0x20000000"]
        cmd += list(args)

        def limits():
            if nofile:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
        self.log = open(self.logpath, "w")
        self.p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.log,
                                  preexec_fn=limits)
        self.port = None
        wait_until(self._port, 30, name + " listening")
        self.live = None

    def write_config(self, obj):
        tmp = self.config + ".tmp"
        with open(tmp, "w") as f:
            f.write(obj if isinstance(obj, str) else json.dumps(obj))
        os.chmod(tmp, 0o600)
        os.replace(tmp, self.config)

    def _port(self):
        if self.p.poll() is not None:
            raise Fail("%s exited (%s): %s" % (self.name, self.p.returncode, self.text()[-800:]))
        m = re.search(r"dashboard at https?://127\.0\.0\.1:(\d+)/", self.text())
        if m:
            self.port = int(m.group(1))
        return self.port

    def text(self):
        with open(self.logpath, errors="replace") as f:
            return f.read()

    def alive(self):
        return self.p.poll() is None

    def sanitized(self):
        """An ASan build: freed memory sits in quarantine, so RSS says nothing about leaks;
        LeakSanitizer checks at exit instead (exit status, see ended())."""
        with open("/proc/%d/maps" % self.p.pid) as f:
            return "libasan" in f.read()

    def rss_kib(self):
        with open("/proc/%d/status" % self.p.pid) as f:
            return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))

    def fds(self):
        return len(os.listdir("/proc/%d/fd" % self.p.pid))

    def cpu_s(self):
        with open("/proc/%d/stat" % self.p.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def healthz_ms(self):
        t = time.monotonic()
        st, _, body = wire.http(self.port, "/healthz", tls=self.tls, timeout=5)
        check(st == 200 and body == b"ok\n", "/healthz answered %s %r" % (st, body[:80]))
        return (time.monotonic() - t) * 1000

    def start_live(self, headers=None):
        self.live = Live(self, headers)
        return self.live

    def stop(self):
        if self.live:
            self.live.stop()
        if self.alive():
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(20)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.log.close()
        sanitizer = re.search(r"(AddressSanitizer|LeakSanitizer|runtime error:).*", self.text())
        return self.p.returncode, sanitizer.group(0) if sanitizer else None


class Live:
    """A subscribed WebSocket client on its own thread, checking every seq."""

    def __init__(self, d, headers=None):
        self.ws, st, body = wire.ws_open(d.port, headers=headers, tls=d.tls)
        check(self.ws, "live client refused: %s %r" % (st, body[:200]))
        self.ws.send(json.dumps({"type": "subscribe", "targets": "*"}))
        self.last, self.records, self.errors, self.stopping = None, 0, [], False
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()
        wait_until(lambda: self.records > 0 or self.errors, 30, "live client's first events")
        check(not self.errors, "live client: %s" % self.errors)

    def run(self):
        while not self.stopping:
            try:
                op, payload = self.ws.recv(timeout=1.0)
            except socket.timeout:
                continue
            except Exception as e:
                if not self.stopping:
                    self.errors.append("connection: %r" % e)
                return
            if op == 8:
                if not self.stopping:
                    self.errors.append("closed with %s" % self.ws.close_code)
                return
            if op != 1:
                continue
            m = json.loads(payload)
            if m["type"] == "gap":
                self.errors.append("gap message: %s" % payload[:200])
            elif m["type"] == "events":
                if self.last is not None and m["first"] != self.last + 1:
                    self.errors.append("seq %d after %d" % (m["first"], self.last))
                self.last = m["last"]
                self.records += len(m["records"])

    def receiving(self, seconds=10):
        """The stream moves on, and nothing was lost so far."""
        n = self.records
        wait_until(lambda: self.records > n or self.errors, seconds, "live client receiving")
        check(not self.errors, "live client lost something: %s" % self.errors[:3])
        return self.records

    def stop(self):
        self.stopping = True
        self.ws.close()


def aftermath(d, base, rss_kib=4096, fd_slack=0, fd_wait=20):
    """What every row checks on its daemon after the attack: alive, no sanitizer report,
    descriptors back, RSS within the bound, /healthz, the live client. base = (fds, rss)."""
    check(d.alive(), "daemon died: " + d.text()[-600:])
    bad = re.search(r"(AddressSanitizer|LeakSanitizer|runtime error:).*", d.text())
    check(not bad, "sanitizer: %s" % (bad.group(0) if bad else ""))
    wait_until(lambda: d.fds() <= base[0] + fd_slack, fd_wait,
               "descriptors back to %d (now %d)" % (base[0], d.fds()))
    grown = d.rss_kib() - base[1]
    check(grown <= rss_kib or d.sanitized(), "RSS grew %d KiB (bound %d)" % (grown, rss_kib))
    ms = d.healthz_ms()
    live = ""
    if d.live:
        live = ", live client %d records, none lost" % d.live.receiving()
    return "fds %d, RSS %+d KiB%s, /healthz %.1f ms%s" % (
        d.fds(), grown, " (ASan: not compared, LeakSanitizer at exit)" if d.sanitized() else "",
        ms, live)


def ended(d):
    """Stops a row's own daemon: exit 0 on SIGTERM, no sanitizer report (leaks included)."""
    rc, bad = d.stop()
    check(rc == 0 and not bad, "exit %s on SIGTERM%s" % (rc, ", " + bad if bad else ""))
    return "exit 0"


def snapshot(d):
    return (d.fds(), d.rss_kib())


ROWS = []


def row(name, on_main=True, rss_kib=4096, fd_wait=20, known=None):
    """Registers an attack. on_main: it runs against the shared daemon (passed in), which the
    runner checks afterwards; otherwise it starts its own and calls aftermath itself.
    known: why the daemon cannot yet answer as it should; the row then prints KNOWN instead of
    failing the suite (and ok once it answers right), the daemon's health still checked."""
    def wrap(fn):
        ROWS.append((name, fn, on_main, rss_kib, fd_wait, known))
        return fn
    return wrap


def run_rows(main, only):
    for name, fn, on_main, rss_kib, fd_wait, known in ROWS:
        if only and name not in only:
            continue
        t0 = time.monotonic()
        verdict = "ok"
        try:
            base = snapshot(main) if on_main else None
            try:
                seen = fn(main) if on_main else fn()
            except Fail as e:
                if not known:
                    raise
                verdict, seen = "KNOWN", "%s (%s)" % (e, known)
            if on_main:
                seen = "%s; %s" % (seen, aftermath(main, base, rss_kib, fd_wait=fd_wait))
        except Exception as e:  # an exception in the attack itself is a failure too
            verdict, seen = "FAIL", "%s: %s" % (type(e).__name__, e)
        results.append((name, verdict != "FAIL", seen))
        print("ROW %-18s %-5s %s (%.1f s)" % (name, verdict, seen, time.monotonic() - t0),
              flush=True)


