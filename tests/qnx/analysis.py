#!/usr/bin/env python3
"""tests/qnx/analysis.py TRACETAP: `tracetap analyze` of QNX kernel traces
(../shared/fixtures/qnx-openqnx: .kev files written the way QNX 6.4's kernel and tracelogger
write them) against a computation made here from QNX's own traceprinter text of the same files
(`traceprinter -n`), never from tracetap's output:
  - the running thread per CPU: THREAD :THRUNNING pid:P tid:T (thread (P << 16) | T);
  - time per thread (and per CPU: threads, interrupts): on each CPU, from each event to the
    CPU's next one, to the interrupts while
    one is open there (INT_ENTR .. INT_EXIT), else to the CPU's running thread (CONTROL lines
    carry no time of a thread: skipped; before a CPU's first THRUNNING: nobody's);
  - context switches: THRUNNING lines that change a CPU's thread;
  - kernel calls per thread: KER_CALL:NAME/NR enters, KER_EXIT:NAME/NR and INT_CALL:KER_NAME/NR
    (a call the kernel interrupted) leave; calls of a thread nest, a leave closes the innermost
    open call of its number; count, total and longest per (thread, NR) in cycles;
  - interrupts per IRQ: INT_ENTR:V (IRQ) to INT_EXIT:V (IRQ) on the same CPU, nesting;
  - lost buffers (a BUFFER sequence number skipped): the time across them is nobody's, and
    each CPU's thread is unknown until its next THRUNNING (the live semantics of a gap);
  - time per thread per state: THREAD :TH<STATE> pid:P tid:T is that thread entering the state
    (THCREATE enters none, THDESTROY ends the last); from one state line of a thread to its
    next, the time goes to the state the first named (a line stamped before it: nothing); a
    lost buffer makes every thread's state unknown until its next state line.
traceprinter's own fault (an errno with no line end: the next event glued on) is undone by
splitting lines at each "t:0x". One difference in what is there: a combine event still in flight
at the end of the file is a record flagged `incomplete` for tracetap (proto/README-qnx.md) and
nothing for traceprinter (ring_le_expected ends with an INT_HANDLER_ENTRY whose end part was
never written); such trailing records, taken from `tracetap decode --json` (whose every other
record equals traceprinter's, tests/qnx), end the text's events as events with no meaning of
their own: they only close the interval before them. Exit 77 when the fixtures are not there."""
import json
import os
import re
import subprocess
import sys

TRACETAP = sys.argv[1]
WRAP = os.environ.get("TT_WRAP", "").split()  # valgrind, under meson test --setup valgrind
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from ttfix import fixture_dir  # noqa: E402
FIX = fixture_dir("qnx-openqnx", "ring_le_expected.kev", "QNX")
fails = []
LINE = re.compile(r"t:0x([0-9a-f]{8}) CPU:(\d+) (\w+) *: *(\S+)(.*)")


def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg)


def events(text):
    body = text.split(" -- KERNEL EVENTS -- ", 1)[1]
    for part in re.split(r"(?=t:0x)", body):
        m = LINE.match(part.strip())
        if m:
            yield int(m.group(1), 16), int(m.group(2)), m.group(3), m.group(4), m.group(5)


def timed(text, trailing):
    """(time, cpu, class, event, rest) of every event, CONTROL ones apart (a buffer whose
    sequence number skips one or more: a GAP event), then trailing."""
    msb, seq = 0, None
    for lsb, cpu, cls, ev, rest in events(text):
        if cls == "CONTROL":
            m = re.search(r"msb:0x([0-9a-f]+)", rest)
            msb = int(m.group(1), 16) if m and ev == "TIME" else msb
            m = re.search(r"sequence = (\d+)", rest)
            if m and ev == "BUFFER":
                if seq is not None and int(m.group(1)) != seq + 1:
                    yield None, None, "GAP", "", ""
                seq = int(m.group(1))
        else:
            yield msb << 32 | lsb, cpu, cls, ev, rest
    yield from trailing


def from_text(text, trailing):
    cpus = {}
    ticks, isr, switches, calls, irqs, stacks, percpu = {}, 0, 0, {}, {}, {}, {}
    for t, cpu, cls, ev, rest in timed(text, trailing):
        if cls == "GAP":  # lost buffers: who runs, open calls and interrupts: unknown
            for c in cpus.values():
                c["cur"], c["irq"] = None, []
            stacks.clear()
            continue
        c = cpus.setdefault(cpu, {"prev": None, "cur": None, "irq": []})
        if c["cur"] is None and not cls.startswith("INT_") and ev != "THRUNNING":
            continue  # before the CPU's first THRUNNING: no context, no clock
        if c["prev"] is not None and t >= c["prev"]:
            k = percpu.setdefault(cpu, [0, 0])
            if c["irq"]:
                isr += t - c["prev"]
                k[1] += t - c["prev"]
            elif c["cur"] is not None:
                ticks[c["cur"]] = ticks.get(c["cur"], 0) + t - c["prev"]
                k[0] += t - c["prev"]
        if c["prev"] is None or t >= c["prev"]:
            c["prev"] = t
        if cls == "THREAD" and ev == "THRUNNING":
            m = re.search(r"pid:(\d+) tid:(\d+)", rest)
            th = int(m.group(1)) << 16 | int(m.group(2))
            switches += c["cur"] != th
            c["cur"] = th
        m = re.match(r"(?:KER_)?(\w+)/(\d+)$", ev)
        if cls in ("KER_CALL", "KER_EXIT", "INT_CALL") and m and c["cur"] is not None:
            nr, st = int(m.group(2)), stacks.setdefault(c["cur"], [])
            if cls == "KER_CALL":
                st.append((nr, t))
            elif nr in [n for n, _ in st]:
                i = max(k for k, (n, _) in enumerate(st) if n == nr)
                d = t - st[i][1]
                del st[i:]
                k = calls.setdefault((c["cur"], nr), [0, 0, 0])
                k[0], k[1], k[2] = k[0] + 1, k[1] + d, max(k[2], d)
        if cls in ("INT_ENTR", "INT_EXIT"):
            irq = int(re.match(r"\s*\((\d+)\)", rest).group(1))
            if cls == "INT_ENTR":
                c["irq"].append((irq, t))
            elif c["irq"]:
                n, s = c["irq"].pop()
                if n == irq:
                    k = irqs.setdefault(irq, [0, 0, 0])
                    k[0], k[1], k[2] = k[0] + 1, k[1] + t - s, max(k[2], t - s)
    return ticks, isr, switches, calls, irqs, percpu


def states_from_text(text):
    """{(thread, state): cycles} from the THREAD lines, every CPU on one clock."""
    now, out = {}, {}
    for t, cpu, cls, ev, rest in timed(text, []):
        if cls == "GAP":
            now.clear()
            continue
        if cls != "THREAD" or not ev.startswith("TH") or ev == "THCREATE":
            continue
        m = re.search(r"pid:(\d+) tid:(\d+)", rest)
        th = int(m.group(1)) << 16 | int(m.group(2))
        if th in now:
            st, since = now.pop(th)
            out[(th, st)] = out.get((th, st), 0) + max(0, t - since)
        if ev != "THDESTROY":
            now[th] = (ev[2:].lower(), t)
    return {k: v for k, v in out.items() if v}


def check(name):
    kev = os.path.join(FIX, name + ".kev")
    st = json.loads(subprocess.run(WRAP + [TRACETAP, "analyze", "--json", kev], check=True,
                                   capture_output=True).stdout)
    text = open(os.path.join(FIX, name + ".traceprinter-n.txt"), errors="replace").read()
    recs = [json.loads(l) for l in subprocess.run(
        [TRACETAP, "decode", "--json", kev], check=True, capture_output=True).stdout.splitlines()]
    n = len(recs)
    while n and recs[n - 1].get("args", {}).get("incomplete"):
        n -= 1
    trailing = [(r["time"], r["core"], "INCOMPLETE", r["name"], "") for r in recs[n:]]
    ticks, isr, switches, calls, irqs, percpu = from_text(text, trailing)
    got = {c["cpu"]: [c["thread_ticks"], c["interrupt_ticks"]] for c in st["cpus"]
           if c["thread_ticks"] or c["interrupt_ticks"]}
    if got != percpu:
        fail("%s: per CPU (thread, interrupt) time: traceprinter %s, tracetap %s" %
             (name, percpu, got))
    ours = {t["id"]: t["ticks"] for t in st["threads"] if t["ticks"]}
    if ours != ticks:
        fail("%s: time per thread: traceprinter %s, tracetap %s" % (name, ticks, ours))
    if st["execution"]["interrupt_ticks"] != isr:
        fail("%s: interrupt time: traceprinter %d, tracetap %d" %
             (name, isr, st["execution"]["interrupt_ticks"]))
    if st["performance"]["context_switches"] != switches:
        fail("%s: context switches: traceprinter %d, tracetap %d" %
             (name, switches, st["performance"]["context_switches"]))
    got = {(c["thread"], c["nr"]): [c["count"], c["total_ticks"], c["max_ticks"]]
           for c in st["calls"] if c["count"]}
    for k in sorted(set(got) | set(calls)):
        if got.get(k) != calls.get(k):
            fail("%s: thread 0x%08x call %d: traceprinter (count, total, max) %s, tracetap %s"
                 % (name, k[0], k[1], calls.get(k), got.get(k)))
    got = {q["irq"]: [q["count"], q["total_ticks"], q["max_ticks"]] for q in st["irqs"]}
    if got != irqs:
        fail("%s: interrupts: traceprinter %s, tracetap %s" % (name, irqs, got))
    states = states_from_text(text)
    got = {(t["id"], s): v["ticks"] for t in st["threads"]
           for s, v in t.get("states", {}).items() if v["ticks"]}
    for k in sorted(set(got) | set(states)):
        if got.get(k) != states.get(k):
            fail("%s: thread 0x%08x state %s: traceprinter %s cycles, tracetap %s" %
                 (name, k[0], k[1], states.get(k), got.get(k)))
    if not states:
        fail("%s: no thread state time in traceprinter's text: the check would be empty" % name)
    print("%s: %d threads' time, %d switches, %d (thread, call) pairs (%d calls), %d IRQs "
          "(%d interrupts), %d (thread, state) times agree with traceprinter" %
          (name, len(ticks), switches, len(calls), sum(c[0] for c in calls.values()), len(irqs),
           sum(q[0] for q in irqs.values()), len(states)))


# Not syn_inter_le: a combine event cut by its lost buffer is, before the gap, a record flagged
# incomplete for tracetap (stamped with its begin part's time) and nothing for traceprinter, so
# the time up to it is its thread's for tracetap only (302517 cycles of pid 202 tid 1).
for f in ("ring_le_expected", "syn_le_fast", "syn_be_wide"):
    check(f)
sys.exit(1 if fails else 0)
