#!/usr/bin/env python3
"""tracetap's `decode --traceprinter` text against QNX's own `traceprinter -n` (1.02, built from
QNX 6.4's published sources) of the same file, line for line (tests/qnx/traceprinter.sh).

Every line must be equal, except at the places named here, each counted and printed:
  no_line_end     traceprinter prints no line end after `errno:N` of a failed KER_EXIT, so the
                  next event is glued on; the two are compared as two lines.
  be_errno        big-endian files: traceprinter prints a failed call's errno unswapped.
  be_msg          big-endian files: message-byte words (`msg:"..." (0x...)`) unswapped.
  binary_user     a binary combine user event: traceprinter prints STR:"", tracetap its words.
  sigevent        traceprinter built off QNX prints an interrupt handler's sigevent as
                  `INTR EVENT`; tracetap decodes it.
  header_garbage  traceparser prints a header value from a copy without its terminating NUL
                  (memcpy of the value's length, then printed as a C string): bytes of whatever
                  follows in memory can come after the value.
  version_lines   traceprinter's `TRACEPRINTER version` / `TRACEPARSER LIBRARY version` lines:
                  tracetap is neither.
  incomplete      (tracetap only) a combine event with parts missing, which traceprinter drops.
  gap             (tracetap only) a ` -- GAP: ... -- ` line where kernel buffers were lost.
usage: tp_compare.py --be 0|1 [--image] EXPECTED.txt OURS.txt [KIND=N ...]
Each KIND=N says how often that place must occur (others: never).
"""
import re
import sys


def swap32(x):
    return int.from_bytes(x.to_bytes(4, "little"), "big")


def split_glued(lines):
    """(line, glued): a line that traceprinter ran on into the next event is split there."""
    out = []
    for ln in lines:
        while True:
            m = re.search(r"errno:-?\d+(?=t:0x[0-9a-f]{8} CPU:)", ln)
            if not m:
                break
            out.append((ln[:m.end()], True))
            ln = ln[m.end():]
        out.append((ln, False))
    return out


def main():
    args = sys.argv[1:]
    be = args[args.index("--be") + 1] == "1"
    image = "--image" in args
    rest = [a for a in args if a not in ("--be", "0", "1", "--image")]
    exp_path, ours_path = rest[0], rest[1]
    want = {k: int(v) for k, v in (a.split("=") for a in rest[2:])}
    exp = open(exp_path, encoding="latin-1").read().split("\n")
    ours = open(ours_path, encoding="latin-1").read().split("\n")
    if exp and exp[-1] == "":
        exp.pop()
    if ours and ours[-1] == "":
        ours.pop()
    count = {}

    def named(kind):
        count[kind] = count.get(kind, 0) + 1

    if exp[:2] and exp[0].startswith("TRACEPRINTER version") and exp[1].startswith("TRACEPARSER LIBRARY version"):
        exp = exp[2:]
        named("version_lines")
    if image:  # a RAM image has no .kev header: only the events are compared
        exp = exp[exp.index(" -- KERNEL EVENTS -- ") + 1:]
    kept = []
    for ln in ours:
        if ln.startswith(" -- GAP: "):
            named("gap")
        elif ln.endswith(" [incomplete: parts missing]"):
            named("incomplete")
        else:
            kept.append(ln)
    exp = split_glued(exp)
    bad = 0
    in_header = not image
    for i in range(max(len(exp), len(kept))):
        if i >= len(exp) or i >= len(kept):
            print(f"line {i + 1}: one side ends: ours {kept[i] if i < len(kept) else '(end)'!r}, "
                  f"traceprinter {exp[i][0] if i < len(exp) else '(end)'!r}")
            bad += 1
            break
        e, glued = exp[i]
        o = kept[i]
        if glued:
            named("no_line_end")
        if e == " -- KERNEL EVENTS -- ":
            in_header = False
        if e == o:
            continue
        if in_header and e.startswith(o) and o.rstrip() != "":
            named("header_garbage")
            continue
        m = re.search(r"errno:(-?\d+)$", e)
        if be and m and o == e[:m.start()] + "errno:%d" % swap32(int(m.group(1)) & 0xffffffff):
            named("be_errno")
            continue
        if be and "(0x" in e and re.sub(r"0x([0-9a-f]{8})", lambda mm: "0x%08x" % swap32(int(mm.group(1), 16)), e.split('"')[-1]) == o.split('"')[-1] and e.split('"')[:-1] == o.split('"')[:-1]:
            named("be_msg")
            continue
        mu = re.match(r"(t:0x[0-9a-f]{8} CPU:\d\d USREVENT:EVENT:\d+) STR:\"\"$", e)
        if mu and o.startswith(mu.group(1) + ", d0:0x"):
            named("binary_user")
            continue
        if e.endswith(" SIGEVENT:INTR EVENT") and o.startswith(e[: -len("INTR EVENT")]):
            named("sigevent")
            continue
        print(f"line {i + 1} differs:\n  traceprinter: {e}\n  tracetap:     {o}")
        bad += 1
        if bad > 10:
            break
    print(" ".join(f"{k}={v}" for k, v in sorted(count.items())) or "no named differences")
    for k in set(count) | set(want):
        if count.get(k, 0) != want.get(k, 0):
            print(f"named place {k}: {count.get(k, 0)} times, the test expects {want.get(k, 0)}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
