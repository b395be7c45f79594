#!/usr/bin/env python3
"""tests/nuttx/analysis.py TRACETAP: `tracetap analyze` of real NuttX (sim, 64- and 32-bit,
../shared/fixtures/nuttx-sim) against a computation made here from NuttX's own `trace dump` text
of the same records (dump.txt), never from tracetap's output:
  - CPU per task: from each sched_switch on, the time up to the next entry goes to the task
    switched to (the time before the first switch is nobody's: tracetap's unknown time);
  - context switches: the sched_switch lines; per task, preemptions (prev_state=R: it stopped
    still ready to run) and suspensions (prev_state=S) of the task switched from;
  - task lifetimes: a task's start at its sched_wakeup_new line (NuttX prints nothing for a
    task's end, NOTE_STOP: tests/unit/test_analysis checks ends);
  - system calls per task: `sys_NAME(...)` enters, `sys_NAME -> R` leaves; calls nest (a call
    from a call), so a leave closes the innermost open call of that name and drops the ones
    inside it; count, total and longest duration in ns, per (task, name);
  - interrupts per IRQ (irq_handler_entry/exit lines): none were traced in these windows, and
    tracetap must report none.
The layout file comes from facts.json (fixture-layout.py), as in fixtures.sh. Exit 77 when the
fixtures are not there."""
import json
import lzma
import os
import re
import subprocess
import sys
import tempfile

TRACETAP = sys.argv[1]
WRAP = os.environ.get("TT_WRAP", "").split()  # valgrind, under meson test --setup valgrind
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from ttfix import fixture_dir  # noqa: E402
FIX = fixture_dir("nuttx-sim", "facts.json", "NuttX")
fails = []

# an entry's header; NuttX glues a printf note's next entry onto its line, so headers are found
# anywhere, by "-PID [CPU] S.NNNNNNNNN: " (the task name before it may contain anything)
HDR = re.compile(r"-(\d+) +\[(\d+)\] +(\d+)\.(\d{9}): ")


def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg)


def dump_entries(text):
    """(pid, time ns, text) of each entry, in order."""
    ms = list(HDR.finditer(text))
    out = []
    for m, nxt in zip(ms, ms[1:] + [None]):
        body = text[m.end():nxt.start() if nxt else len(text)]
        out.append((int(m.group(1)), int(m.group(3)) * 10**9 + int(m.group(4)), body))
    return out


def from_dump(entries):
    cpu, switches, calls, irqs, stops, starts = {}, 0, {}, [], {}, {}
    cur, prev_t, stacks = None, None, {}
    for pid, t, body in entries:
        if cur is not None and prev_t is not None:
            cpu[cur] = cpu.get(cur, 0) + (t - prev_t)
        prev_t = t
        m = re.match(r"sched_switch: .*prev_pid=(\d+) .*prev_state=(\w)", body)
        if m:
            k = stops.setdefault(int(m.group(1)), {"R": 0, "S": 0, "X": 0})
            k[m.group(2)] += 1
        m = re.match(r"sched_wakeup_new: comm=.* pid=(\d+) ", body)
        if m:
            starts[int(m.group(1))] = t
        m = re.match(r"sched_switch: .*next_pid=(\d+)", body)
        if m:
            switches += cur != int(m.group(1))
            cur = int(m.group(1))
        m = re.match(r"sys_(\w+)\(", body)
        if m:
            stacks.setdefault(pid, []).append((m.group(1), t))
        m = re.match(r"sys_(\w+) -> ", body)
        if m:
            st = stacks.get(pid, [])
            names = [n for n, _ in st]
            if m.group(1) in names:
                i = len(names) - 1 - names[::-1].index(m.group(1))
                d = t - st[i][1]
                del st[i:]
                c = calls.setdefault((pid, m.group(1)), [0, 0, 0])
                c[0], c[1], c[2] = c[0] + 1, c[1] + d, max(c[2], d)
        if body.startswith("irq_handler_"):
            irqs.append(body)
    return cpu, switches, calls, irqs, stops, starts


def check(m, tmp):
    layout = os.path.join(tmp, m + ".layout.json")
    img = os.path.join(tmp, m + ".img")
    with open(layout, "w") as f:
        subprocess.run([sys.executable, os.path.join(HERE, "fixture-layout.py"),
                        os.path.join(FIX, "facts.json"), m], check=True, stdout=f)
    with open(img, "wb") as f:
        f.write(lzma.open(os.path.join(FIX, m, "image.bin.xz")).read())
    base = open(os.path.join(FIX, m, "image-base.txt")).read().strip()
    st = json.loads(subprocess.run(WRAP + [TRACETAP, "analyze", "--json", "--layout", layout, "--base",
                                    base, img], check=True, capture_output=True).stdout)
    text = open(os.path.join(FIX, m, "dump.txt"), errors="replace").read()
    cpu, switches, calls, irqs, stops, starts = from_dump(dump_entries(text))
    ours = {t["id"]: t["ticks"] for t in st["threads"]}
    for pid, ns in sorted(cpu.items()):
        if ours.get(pid) != ns:
            fail("%s: task %d ran %d ns by NuttX's dump, tracetap says %s" % (m, pid, ns,
                                                                             ours.get(pid)))
    extra = {p: v for p, v in ours.items() if v and p not in cpu}
    if extra:
        fail("%s: tracetap gives time to tasks the dump never switched to: %s" % (m, extra))
    if st["performance"]["context_switches"] != switches:
        fail("%s: context switches: dump %d, tracetap %d" %
             (m, switches, st["performance"]["context_switches"]))
    got = {(c["thread"], c["name"]): [c["count"], c["total_ticks"], c["max_ticks"]]
           for c in st["calls"] if c["count"]}
    if got != calls:
        for k in sorted(set(got) | set(calls)):
            if got.get(k) != calls.get(k):
                fail("%s: task %d sys_%s: dump (count, total, max) %s, tracetap %s" %
                     (m, k[0], k[1], calls.get(k), got.get(k)))
    th = {t["id"]: t for t in st["threads"]}
    for pid, k in sorted(stops.items()):
        got = th.get(pid, {})
        if [got.get("preemptions"), got.get("suspensions")] != [k["R"], k["S"]]:
            fail("%s: task %d stopped running: dump %d preempted (R), %d suspended (S); "
                 "tracetap %s, %s" % (m, pid, k["R"], k["S"], got.get("preemptions"),
                                      got.get("suspensions")))
    if st["performance"]["preemptions"] != sum(k["R"] for k in stops.values()):
        fail("%s: preemptions: dump %d, tracetap %d" % (
            m, sum(k["R"] for k in stops.values()), st["performance"]["preemptions"]))
    lives = {p: t["life"]["start"] for p, t in th.items() if "start" in t.get("life", {})}
    if lives != starts:
        fail("%s: task starts: dump %s, tracetap %s" % (m, starts, lives))
    if irqs or st["irqs"]:
        fail("%s: interrupts: dump %d lines, tracetap %s" % (m, len(irqs), st["irqs"]))
    print("%s: %d tasks' CPU, %d switches (%d preemptions), %d (task, call) pairs (%d calls), "
          "%d task starts agree with NuttX's dump" % (
              m, len(cpu), switches, sum(k["R"] for k in stops.values()), len(calls),
              sum(c[0] for c in calls.values()), len(starts)))


def main():
    with tempfile.TemporaryDirectory(prefix="tt-nx-analysis-") as tmp:
        for m in ("m64", "m32"):
            check(m, tmp)
    sys.exit(1 if fails else 0)


main()
