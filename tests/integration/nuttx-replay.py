#!/usr/bin/env python3
"""tests/integration/nuttx-replay.py TRACETAPD: real NuttX sim ring snapshots
(../shared/fixtures/nuttx-sim/{m64,m32}/snapshots, 14 each, taken every ~0.1 s while a workload
ran) replayed to `tracetapd --probe file:` one by one, as the target's memory moving on.

Each snapshot replaces the followed file (rename: never half written); the next is written only
when the daemon has delivered the newest note of this one (a condition, with a deadline). Then:
  - every delivered event equals a note of the rings byte for byte (raw words), nothing is
    invented, duplicated or reordered (times strictly increase);
  - each interval delivers every note written in it (those newer than the previous snapshot's
    newest) when the ring kept them all (the new snapshot still holds the previous one's newest
    note or an older one: no loss is possible), with no gap;
  - where notes were lost, one gap `exact: false` with a basis, within 25% of the count the
    snapshots prove: the lost bytes are exact from the ring indices (written = head advance +
    whole rings; the whole rings are 0 when even the fastest note rate of the series could not
    have filled another ring in the time between the two notes either side), in notes by the
    mean size of the notes around it.
The snapshots hold [g_noteram_driver, ring end): the layout comes from facts.json with the task
name cache (inside that range), without the TCB lookup (the heap is not in it).
Exit 77 when the fixtures are not there."""
import json
import lzma
import os
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time

TRACETAPD = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from ttfix import fixture_dir  # noqa: E402
FIX = fixture_dir("nuttx-sim", "facts.json", "NuttX")
FACTS = json.load(open(os.path.join(FIX, "facts.json")))
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg)


def layout(m, path):
    """facts.json -> layout file (tests/nuttx/fixture-layout.py), minus the TCB lookup."""
    out = subprocess.run([sys.executable, os.path.join(HERE, "..", "nuttx", "fixture-layout.py"),
                          os.path.join(FIX, "facts.json"), m], check=True,
                         capture_output=True, text=True).stdout
    lo = json.loads(out)
    for k in ("pidhash", "npidhash", "tcb_pid", "tcb_name", "tcb_name_size"):
        del lo["nuttx"]["options"][k]
    json.dump(lo, open(path, "w"))
    return int(lo["address"], 16)


def ring_of(m, data, base):
    """The notes of one snapshot, oldest first: (ring offset, time, bytes)."""
    b = FACTS["builds"][m]
    off = {f["name"]: f["offset"] for f in b["structs_from_dwarf"]["noteram_driver_s"]["fields"]}
    ptr = b["sizeof"]["uintptr_t"]
    get = lambda o, n: int.from_bytes(data[o:o + n], "little")
    buf, size = get(off["ni_buffer"], ptr), get(off["ni_bufsize"], ptr)
    head, tail = get(off["ni_head"], 4), get(off["ni_tail"], 4)
    ring = data[buf - base:buf - base + size]
    notes, o = [], tail
    while o != head:
        n = ring[o]
        note = bytes(ring[(o + i) % size] for i in range(n))
        notes.append((o, struct.unpack_from("<Q", note, 8)[0], note))
        o = (o + (n + ptr - 1) // ptr * ptr) % size
    return notes, head, tail, size, ptr


def write_atomic(path, data):
    tmp = path + ".new"
    with open(tmp, "wb") as f:
        f.write(data)
    os.rename(tmp, path)


def replay(m, tmp):
    idx = json.load(open(os.path.join(FIX, m, "snapshots", "index.json")))
    snaps = [lzma.open(os.path.join(FIX, m, "snapshots", s["file"])).read() for s in idx["snapshots"]]
    lpath = os.path.join(tmp, m + ".layout.json")
    base = layout(m, lpath)
    rings = [ring_of(m, d, base) for d in snaps]
    target = os.path.join(tmp, m + ".ram")
    write_atomic(target, snaps[0])
    d = subprocess.Popen([TRACETAPD, "--no-server", "--stdout", "--log-level", "info", "--name", m,
                          "--probe", "file:" + target, "--layout", lpath, "--base", hex(base),
                          "--poll-max", "10"], stdout=subprocess.PIPE,
                         stderr=open(os.path.join(tmp, m + ".log"), "w"))
    recs, pending = [], b""

    def read_until(t_newest, deadline):
        nonlocal pending
        while True:
            for r in recs:
                if r.get("type") == "event" and r["time"] == t_newest:
                    return True
            left = deadline - time.monotonic()
            if left <= 0 or d.poll() is not None:
                return False
            if select.select([d.stdout], [], [], left)[0]:
                chunk = os.read(d.stdout.fileno(), 65536)
                if not chunk:
                    return False
                pending += chunk
                *lines, pending = pending.split(b"\n")
                recs.extend(json.loads(x) for x in lines if x.strip())

    marks = []
    try:
        for k, (notes, head, tail, size, ptr) in enumerate(rings):
            if k:
                write_atomic(target, snaps[k])
            if not read_until(notes[-1][1], time.monotonic() + 30):
                fail("%s snapshot %d: its newest note (time %d) never came out" % (m, k, notes[-1][1]))
                return
            marks.append(len(recs))
    finally:
        d.send_signal(signal.SIGTERM)
        d.wait(timeout=30)
    check(m, rings, recs, marks)


def check(m, rings, recs, marks):
    known = {}
    for notes, *_ in rings:
        for _, t, b in notes:
            known[t] = b
    last_t, start = -1, 0
    max_rate = 0.0  # bytes per time unit over any snapshot's ring (its whole span)
    for notes, head, tail, size, ptr in rings:
        span = notes[-1][1] - notes[0][1]
        used = sum((len(b) + ptr - 1) // ptr * ptr for _, _, b in notes)
        if span:
            max_rate = max(max_rate, used / span)
    for k, end in enumerate(marks):
        notes, head, tail, size, ptr = rings[k]
        got = recs[start:end]
        start = end
        gaps = [r for r in got if r["type"] == "gap"]
        evs = [r for r in got if r["type"] == "event"]
        for r in got:
            if r["type"] == "reset":
                fail("%s interval %d: a reset (%s) in a ring that was never cleared" % (m, k, r))
        for r in evs:
            b = known.get(r["time"])
            raw = b"".join(struct.pack("<I", w) for w in r["raw"])[:len(b) if b else 0]
            if b is None or raw != b:
                fail("%s interval %d: event at time %d is not a note of the rings" % (m, k, r["time"]))
            if r["time"] <= last_t:
                fail("%s interval %d: time %d after %d (duplicate or out of order)" % (m, k, r["time"], last_t))
            last_t = max(last_t, r["time"])
        if k == 0:
            want = [t for _, t, _ in notes]
            if [r["time"] for r in evs] != want or gaps:
                fail("%s snapshot 0: %d events, %d gaps; the ring holds %d notes" % (m, len(evs), len(gaps), len(want)))
            continue
        prev, phead = rings[k - 1][0], rings[k - 1][1]
        newest = prev[-1][1]
        new = [t for _, t, _ in notes if t > newest]
        if notes[0][1] <= newest:  # the ring kept everything written since: no loss possible
            if [r["time"] for r in evs] != new or gaps:
                fail("%s interval %d: %d events, %d gaps; %d notes were written, none lost" % (
                    m, k, len(evs), len(gaps), len(new)))
            continue
        # lost: bytes from the previous head to the oldest note kept, plus whole rings
        lost_bytes = (notes[0][0] - phead) % size
        dt = notes[0][1] - newest
        if max_rate * dt >= lost_bytes + size:
            fail("%s interval %d: whole rings not provable from the rates (test data?)" % (m, k))
            continue
        sizes = [len(b) for _, _, b in notes[:200]] + [len(b) for _, _, b in prev[-200:]]
        mean = sum((s + ptr - 1) // ptr * ptr for s in sizes) / len(sizes)
        truth = lost_bytes / mean
        if len(gaps) != 1 or gaps[0]["exact"] or not gaps[0].get("basis") or evs and got.index(gaps[0]) > got.index(evs[0]):
            fail("%s interval %d: want one estimated gap before the events, got %s" % (m, k, gaps))
        elif not 0.75 * truth <= gaps[0]["lost"] <= 1.25 * truth:
            fail("%s interval %d: %d lost reported, %.0f proven (%d bytes)" % (m, k, gaps[0]["lost"], truth, lost_bytes))
        else:
            print("%s interval %d: %d lost (estimate, %s), %.0f proven from %d bytes" % (
                m, k, gaps[0]["lost"], gaps[0]["basis"], truth, lost_bytes))
        if [r["time"] for r in evs] != new:
            fail("%s interval %d: %d events, the ring kept %d new notes" % (m, k, len(evs), len(new)))
    print("%s: %d snapshots replayed, %d records" % (m, len(rings), len(recs)))


with tempfile.TemporaryDirectory() as tmp:
    for m in ("m64", "m32"):
        replay(m, tmp)
if fails:
    sys.exit(1)
print("PASS: NuttX snapshot replay (m64, m32)")
