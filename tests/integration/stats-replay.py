#!/usr/bin/env python3
"""tests/integration/stats-replay.py TRACETAPD TRACETAP: the live analysis of real ThreadX.

The threadx-cm3 fixture (../shared/fixtures/threadx-cm3: 39 snapshots of a real ThreadX trace
buffer on an emulated Cortex-M3, and the final dump, with the guest's true event counts) is
written snapshot by snapshot into the file `tracetapd --probe file:` follows; the next one only
when the daemon has delivered the newest entry of this one (a condition on its --stdout, with a
deadline). Then:
  - /api/stats?target=T equals `tracetap analyze --json --format threadx` of the records the
    daemon delivered (/api/export?format=jsonl of the same target), number for number; what only
    the live reader knows (the registry: stack bounds, threads with no event) is compared apart:
    a registered thread with no event has nothing counted;
  - the intervals where the writer lapped the ring (the fixture's truth: more than N - 1 entries
    written between two snapshots) are the gaps, and their time is unknown time: the sum over the
    gaps of the time from the event before to the event after, computed here from the delivered
    records, never a thread's;
  - a WebSocket client that subscribed with "stats": true, or asked with a `stats` message,
    gets `stats` messages of the target,
    about once a second (two arrive within a deadline), the last one equal to /api/stats once
    the stream is still; a client that did not ask gets none;
  - `tracetap top` in an 80-column pty, started after the first snapshot, shows the threads,
    fits 80 columns and updates: a later screen shows every delivered event;
  - /metrics has the analysis's families, one line per thread, the same numbers, and
    `promtool check metrics` finds nothing to say (when promtool is installed).
Exit 77 when the fixtures are not there."""
import fcntl
import json
import os
import pty
import re
import select
import shutil
import signal
import struct
import termios
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "security"))
import wire  # noqa: E402  (a WebSocket client of the project's tests)

TRACETAPD, TRACETAP = sys.argv[1], sys.argv[2]
WRAP = os.environ.get("TT_WRAP", "").split()  # valgrind, under meson test --setup valgrind
CLEAR = b"\x1b[H\x1b[2J"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from ttfix import fixture_dir  # noqa: E402
FIX = fixture_dir("threadx-cm3", "snapshots.tar.xz", "ThreadX")

BASE, SIZE, ENT_START, NENT = 0x21000000, 33024, 0x210006D0, 977
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg)


def ld32(b, o):
    return int.from_bytes(b[o:o + 4], "little")


def snapshots(tmp):
    with tarfile.open(os.path.join(FIX, "snapshots.tar.xz")) as t:
        t.extractall(tmp)
    out = []
    for line in open(os.path.join(FIX, "snapshots.jsonl")):
        j = json.loads(line)
        path = os.path.join(FIX if j.get("final") else tmp, j["file"])
        out.append((open(path, "rb").read(), j["events_total"], j["current_index"]))
    return out


def newest(mem, cur):
    """(address, raw words) of the newest entry of a snapshot."""
    s = (cur + NENT - 1) % NENT
    a = ENT_START + 32 * s
    return a, [ld32(mem, a - BASE + 4 * i) for i in range(8)]


class Lines:
    def __init__(self, f):
        self.f, self.buf, self.recs = f, b"", []

    def pump(self, timeout):
        r, _, _ = select.select([self.f], [], [], timeout)
        if not r:
            return
        chunk = os.read(self.f.fileno(), 1 << 20)
        if not chunk:
            raise SystemExit("FAIL: tracetapd exited")
        self.buf += chunk
        *lines, self.buf = self.buf.split(b"\n")
        self.recs += [json.loads(l) for l in lines if l.strip()]


def get(api, path):
    with urllib.request.urlopen(api + path, timeout=10) as r:
        return r.read().decode()


def main():
    tmp = tempfile.mkdtemp(prefix="tt-stats-")
    snaps = snapshots(tmp)
    ram = os.path.join(tmp, "ram.bin")

    def write(k):
        open(ram + ".new", "wb").write(snaps[k][0])
        os.replace(ram + ".new", ram)

    write(0)
    log = open(os.path.join(tmp, "d.log"), "w+")
    started = []  # tracetap top, stopped in the end whatever happened
    p = subprocess.Popen(WRAP + [TRACETAPD, "--port", "0", "--name", "cm3", "--probe", "file:" + ram,
                          "--base", "0x21000000", "--pointer", "0x21000000", "--tick-hz", "25M",
                          "--poll-min", "1", "--poll-max", "5", "--stdout"],
                         stdout=subprocess.PIPE, stderr=log)
    try:
        api, end = None, time.monotonic() + 20
        while not api and time.monotonic() < end and p.poll() is None:
            log.seek(0)
            m = re.search(r"dashboard at (\S+)", log.read())
            api = m.group(1) if m else None
            time.sleep(0.05)
        if not api:
            raise SystemExit("FAIL: tracetapd did not start")
        lines = Lines(p.stdout)
        lapped, prev_total = 0, snaps[0][1]
        for k in range(len(snaps)):
            if k == 1:
                top = started.append(Top(api)) or started[-1]
            if k:
                if snaps[k][1] - prev_total > NENT - 1:
                    lapped += 1
                prev_total = snaps[k][1]
                write(k)
            addr, raw = newest(snaps[k][0], snaps[k][2])
            end = time.monotonic() + 20
            while not any(r.get("type") == "event" and int(r["addr"], 16) == addr and
                          r["raw"] == raw for r in lines.recs[-64:]):
                if time.monotonic() > end:
                    raise SystemExit("FAIL: snapshot %d: its newest entry not delivered in "
                                     "20 s" % k)
                lines.pump(0.1)
        check(api, lines.recs, lapped, tmp)
        check_top(api, top)
        port = int(re.search(r":(\d+)/", api).group(1))
        asked = subscribe(port, False)  # asks with the stats message instead
        asked.send(json.dumps({"type": "stats", "targets": ["cm3"]}))
        check_stream(api, subscribe(port, True), subscribe(port, False), asked)
    finally:
        for t in started:
            if t.p.poll() is None:
                t.p.kill()
                t.p.wait()
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)
    if fails:
        sys.exit(1)
    print("ok")


class Top:
    """`tracetap top URL` in an 80x24 pty; returns once its first screen is drawn."""

    def __init__(self, api):
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.p = subprocess.Popen(WRAP + [TRACETAP, "top", api.replace("http://", "").rstrip("/")],
                                  stdin=slave, stdout=slave, stderr=slave)
        os.close(slave)
        self.out = b""
        self.wait_for(lambda sc: len(sc) >= 1, "its first screen")

    def screens(self):
        return [s for s in self.out.split(CLEAR) if s.strip()]

    def wait_for(self, cond, what, seconds=30):
        end = time.monotonic() + seconds
        while not cond(self.screens()[:-1]):  # the last one may be partly drawn
            if time.monotonic() > end:
                self.p.kill()
                raise SystemExit("FAIL: tracetap top: no %s in %d s: %r" %
                                 (what, seconds, self.out[-800:]))
            r, _, _ = select.select([self.master], [], [], 0.2)
            if r:
                try:
                    self.out += os.read(self.master, 65536)
                except OSError:
                    break

    def stop(self):
        self.p.send_signal(signal.SIGINT)
        rc = self.p.wait(10)
        os.close(self.master)
        return rc


def check_top(api, top):
    events = json.loads(get(api, "api/stats?target=cm3"))["events"]
    shown = lambda sc: int(re.search(rb"events (\S+)", sc).group(1).replace(b"k", b"000")
                           .split(b".")[0]) if re.search(rb"events (\d+)\b", sc) else -1
    top.wait_for(lambda scs: any(re.search(rb"events %d\b" % events, sc) or
                                 b"events %.1fk" % (events / 1000) in sc for sc in scs),
                 "screen with all %d events" % events)
    rc = top.stop()
    scs = top.screens()
    first = scs[0].decode(errors="replace")
    if rc != 0:
        fail("tracetap top exited %s on SIGINT" % rc)
    if not re.search(r"^thread 1 ", first, re.M) or "System Timer Thread" not in first:
        fail("tracetap top's first screen lacks the threads: %r" % first[:400])
    wide = [l for sc in scs for l in sc.decode(errors="replace").splitlines() if len(l) > 80]
    if wide:
        fail("tracetap top wrote lines wider than 80 columns: %r" % wide[:2])
    if scs[0] == scs[-2]:
        fail("tracetap top did not update")
    print("tracetap top: %d screens, first %r" % (len(scs), first.splitlines()[0]))


def subscribe(port, stats):
    ws, status, body = wire.ws_open(port)
    if not ws:
        raise SystemExit("FAIL: WebSocket refused: %s %r" % (status, body))
    ws.send(json.dumps({"type": "subscribe", "targets": ["cm3"], "stats": stats}))
    return ws


def messages(ws, seconds):
    """The text messages ws received within seconds."""
    out, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            op, payload = ws.recv(max(0.05, end - time.monotonic()))
        except OSError:
            break
        if op == 1:
            out.append(json.loads(payload))
    return out


def without_ram(stats):
    """The stats without what is read from target RAM as time goes on, whether or not the
    stream moves: the stacks' painted figures and what reading them costs."""
    s = json.loads(json.dumps(stats))
    s.pop("stack_scan", None)
    for t in s["threads"]:
        t.get("stack", {}).pop("painted", None)
    return s


def check_stream(api, ws_stats, ws_plain, ws_asked):
    """Two `stats` messages within 5 s for each client that asked (in its subscription, or
    with a `stats` message; the stream is still now: the last equals /api/stats); none for the
    other."""
    for ws in (ws_stats, ws_asked):
        got, end = [], time.monotonic() + 5
        while len(got) < 2 and time.monotonic() < end:
            got += [m for m in messages(ws, 0.5) if m["type"] in ("stats", "error")]
        if len(got) < 2 or any(m["type"] == "error" for m in got):
            fail("stats messages in 5 s: %s" % [m.get("type") for m in got])
            return
        live = json.loads(get(api, "api/stats?target=cm3"))
        if got[-1]["target"] != "cm3" or without_ram(got[-1]["stats"]) != without_ram(live):
            fail("the last stats message differs from /api/stats")
    other = [m for m in messages(ws_plain, 1.5) if m["type"] == "stats"]
    if other:
        fail("a client that did not ask got %d stats messages" % len(other))


def normalised(stats):
    """The stats without what only the live reader's registry and the target's RAM know: per
    thread, the stack bounds and figures read from RAM (kept: the lowest pointer and its event),
    the cost of reading the stacks, and threads with no record at all."""
    s = json.loads(json.dumps(stats))
    s.pop("stack_scan", None)  # the stacks read from target RAM: only live
    keep = []
    for t in s["threads"]:
        st = t.pop("stack", None)
        if st:
            t["lowest_sp"], t["lowest_sp_event"] = st.get("lowest_sp"), st.get("event")
        t.pop("priority")
        if t["events"] or t["ticks"] or t["context_switches"]:
            keep.append(t)
    s["threads"] = sorted(keep, key=lambda t: t["id"])
    return s


def check(api, recs, lapped, tmp):
    live = json.loads(get(api, "api/stats?target=cm3"))
    export = get(api, "api/export?format=jsonl&target=cm3")
    path = os.path.join(tmp, "delivered.jsonl")
    open(path, "w").write(export)
    off = json.loads(subprocess.run(WRAP + [TRACETAP, "analyze", path, "--format", "threadx", "--json"],
                                    check=True, capture_output=True, text=True).stdout)
    delivered = [json.loads(l) for l in export.splitlines()]
    if len(delivered) != len(recs):
        fail("export holds %d records, --stdout delivered %d" % (len(delivered), len(recs)))
    a, b = normalised(live), normalised(off)
    for key in a:
        if a[key] != b.get(key):
            fail("/api/stats %s differs from tracetap analyze: %s vs %s" %
                 (key, json.dumps(a[key])[:600], json.dumps(b.get(key))[:600]))
    # registered threads with no record: nothing counted for them live either
    for t in live["threads"]:
        if not t["events"] and (t["ticks"] or t["context_switches"] or t["preemptions"]):
            fail("thread %s has no event but counts: %s" % (t["name"], t))
    # gaps are the lapped intervals, and their time is unknown
    gaps = [i for i, r in enumerate(delivered) if r["type"] == "gap"]
    unknown = 0
    for i in gaps:
        before = [r for r in delivered[:i] if r["type"] == "event"][-1]
        after = next(r for r in delivered[i:] if r["type"] == "event")
        unknown += after["time"] - before["time"]
    print("events %d, gaps %d (lapped intervals %d), unknown ticks %d, threads %d" %
          (live["events"], live["gaps"], lapped, live["execution"]["unknown_ticks"],
           len(live["threads"])))
    if live["gaps"] != len(gaps) or len(gaps) != lapped:
        fail("gaps: /api/stats %d, delivered %d, lapped intervals %d" %
             (live["gaps"], len(gaps), lapped))
    if live["execution"]["unknown_ticks"] != unknown or not unknown:
        fail("unknown ticks %d, the gaps span %d" % (live["execution"]["unknown_ticks"], unknown))
    total = sum(t["ticks"] for t in live["threads"]) + sum(
        v for k, v in live["execution"].items() if k.endswith("_ticks"))
    if total != live["span_ticks"]:
        fail("ticks given out %d, span %d: time lost or given twice" % (total, live["span_ticks"]))
    metrics = get(api, "metrics")
    for fam in ("tracetap_thread_cpu_seconds_total", "tracetap_thread_context_switches_total",
                "tracetap_thread_preemptions_total", "tracetap_interrupts_total",
                "tracetap_priority_inversions_total", "tracetap_thread_stack_free_bytes"):
        if not re.search(r"^%s\{target=\"cm3\"" % fam, metrics, re.M):
            fail("/metrics has no %s line for the target" % fam)
    if shutil.which("promtool"):
        r = subprocess.run(["promtool", "check", "metrics"], input=metrics, text=True,
                           capture_output=True)
        if r.returncode or r.stdout.strip() or r.stderr.strip():
            fail("promtool check metrics: %s %s" % (r.stdout, r.stderr))
    else:
        print("promtool not installed: the metrics' lint not checked")
    for t in live["threads"][:3]:
        m = re.search(r'^tracetap_thread_context_switches_total\{target="cm3",thread="%s",'
                      r'id="0x%08x"\} (\d+)$' % (re.escape(t["name"] or ""), t["id"]), metrics,
                      re.M)
        if not m or int(m.group(1)) != t["context_switches"]:
            fail("/metrics context switches of %s: %s, /api/stats %d" %
                 (t["name"], m and m.group(1), t["context_switches"]))


main()
