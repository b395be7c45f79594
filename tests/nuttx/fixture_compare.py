#!/usr/bin/env python3
"""tracetap's reading of real NuttX notes against NuttX's own `trace dump` (fixtures.sh).

image mode:  fixture_compare.py --facts F --build m64 OURS.jsonl OURS.ftrace DUMP.txt
  OURS.ftrace (tracetap's ftrace export of OURS.jsonl) must equal DUMP.txt entry for entry,
  every field. The places where NuttX's own text is wrong are the rules below, each checked
  for exactly the entries it explains (never a blanket tolerance):
  R1 printf line end: NuttX prints an untyped printf note's text with no line end (the next
     entry follows on the same line); tracetap ends every entry with one.
  R2 last syscall argument: NuttX stores SIZEOF_NOTE_SYSCALL_ENTER(argc) = header + 2 +
     argc * sizeof(uintptr_t) bytes, which leaves out the padding before nsc_args, so the
     last argument's upper bytes are not in the note; NuttX prints what was left in its
     buffer there. tracetap shows those bytes as '?': the bytes it has must equal NuttX's.
  R3 %hhd / %hd: NuttX's packer stores every integer argument of width below int as an int
     (C's default promotion); its printer then reads 1 (%hhd) or 2 (%hd) bytes and goes on
     from there, so it prints the wrong values from there on. NuttX's text must equal the
     packed bytes read with the printer's widths, tracetap's with the packer's.
  R4 %Le: a long double is stored as the ABI's long double (x87 80-bit extended, in 16 bytes
     on x86-64, 12 on i386); NuttX's printer does not read it as one. tracetap prints the
     number the bytes hold (decoded here by hand, sign/exponent/64-bit mantissa).
binary mode: fixture_compare.py --facts F --build m64 --binary OURS.jsonl DUMP-B.bin
  `trace dump -b` has no text: every note in the file (nc_length bytes each, back to back)
  must be one record with its type, pid, priority, cpu, time and raw bytes, and each syscall
  note named from the firmware's table."""
import argparse
import math
import json
import re
import struct
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--facts", required=True)
ap.add_argument("--build", required=True)
ap.add_argument("--binary", action="store_true")
ap.add_argument("files", nargs="+")
a = ap.parse_args()
facts = json.load(open(a.facts))["builds"][a.build]
PTR = facts["sizeof"]["uintptr_t"]
fails = []


def fail(msg):
    fails.append(msg)


def records(path):
    out = []
    for line in open(path):
        r = json.loads(line)
        if r.get("type") != "event":
            fail("%s: a %s record (%s) in a fixture with no loss" % (path, r.get("type"), line.strip()))
        out.append(r)
    return out


def raw_bytes(r):
    b = b"".join(struct.pack("<I", w) for w in r["raw"])
    return b[:b[0]]


if a.binary:
    recs, data = records(a.files[0]), open(a.files[1], "rb").read()
    names = facts["syscalls"]["nr_to_name"]
    o, i = 0, 0
    while o < len(data):
        n = data[o]
        note = data[o:o + n]
        if i >= len(recs):
            fail("note %d at file offset %d: no record" % (i, o))
            break
        r = recs[i]
        typ, prio, cpu, pid, t = struct.unpack_from("<BBBi", note, 1) + struct.unpack_from("<Q", note, 8)
        if raw_bytes(r) != note:
            fail("note %d: raw bytes differ" % i)
        if (r["id"], r["prio"], r["core"], int(r["thread"], 16), r["time"]) != (typ, prio, cpu, pid, t):
            fail("note %d: id/prio/core/thread/time %s != %s" % (
                i, (r["id"], r["prio"], r["core"], r["thread"], r["time"]), (typ, prio, cpu, pid, t)))
        if typ in (18, 19) and r["args"].get("nr") != names.get(str(note[16])):
            fail("note %d: syscall %s, not %s" % (i, r["args"].get("nr"), names.get(str(note[16]))))
        o += n
        i += 1
    if i != len(recs):
        fail("%d records for %d notes" % (len(recs), i))
    if fails:
        print("\n".join(fails[:40]))
        sys.exit(1)
    print("%s -b: %d notes, %d bytes: every one decoded" % (a.build, i, len(data)))
    sys.exit(0)

recs = records(a.files[0])
ours = open(a.files[1]).read()
nuttx = open(a.files[2]).read()
fmts = {int(k, 16): v for k, v in facts["printf_formats (npt_fmt -> text, from the ELF .rodata)"].items()}
by_time = {}
for r in recs:
    by_time.setdefault(r["time"], []).append(r)

HDR = re.compile(r" *(\S+)-(\d+) +\[(\d+)\] +(\d+)\.(\d{9}): ")


def entries(text):
    """tracetap's text: entries start at a header at a line start."""
    starts = [m.start() for m in re.finditer(r"^ *\S+-\d+ +\[\d+\] +\d+\.\d{9}: ", text, re.M)]
    return [text[s:e] for s, e in zip(starts, starts[1:] + [len(text)])]


def ints(data, widths):
    o, out = 0, []
    for w in widths:
        out.append(int.from_bytes(data[o:o + w], "little", signed=True))
        o += w
    return "  ".join(str(v) for v in out)


def printf_rec(head):
    m = HDR.match(head)
    t = int(m.group(4)) * 10**9 + int(m.group(5))
    return [r for r in by_time.get(t, []) if r["name"] == "NOTE_DUMP_PRINTF"]


ents = entries(ours[ours.index("\n#\n") + 3:])
pos = nuttx.index("\n#\n") + 3
rules = {"R1": 0, "R2": 0, "R3": 0, "R4": 0}
for k, e in enumerate(ents):
    m = HDR.match(e)
    head, body = e[:m.end()], e[m.end():]
    if not nuttx.startswith(head, pos):
        fail("entry %d: NuttX has %r where tracetap has %r" % (k, nuttx[pos:pos + 80], head))
        break
    pos += len(head)
    pr = printf_rec(head)
    if pr:  # R1: no line end in NuttX's text; the next header follows
        body = body[:-1]
        rules["R1"] += 1
    nxt = ents[k + 1] if k + 1 < len(ents) else None
    end = nuttx.find(HDR.match(nxt).group(0).lstrip(), pos) if nxt else len(nuttx)
    if nxt and not pr:
        end = nuttx.find("\n", pos)
        while end >= 0 and not nuttx.startswith(HDR.match(nxt).group(0), end + 1):
            end = nuttx.find("\n", end + 1)
        end = end + 1 if end >= 0 else -1
    if nxt and pr:
        # the next header follows right after the text; its name is padded as NuttX pads
        nh = HDR.match(nxt).group(0)
        end = nuttx.find(nh.lstrip(), pos)
        end -= len(nh) - len(nh.lstrip())
    theirs = nuttx[pos:end] if end >= 0 else nuttx[pos:]
    pos = end if end >= 0 else len(nuttx)
    if body == theirs:
        continue
    if body.startswith("sys_") and "(" in body:  # R2
        mo, mt = re.match(r"(sys_\w+)\((.*)\)\n$", body), re.match(r"(sys_\w+)\((.*)\)\n$", theirs)
        if mo and mt and mo.group(1) == mt.group(1):
            ao, at = mo.group(2).split(", "), mt.group(2).split(", ")
            if ao[:-1] == at[:-1] and len(ao) == len(at):
                ko, kt = ao[-1].split(": "), at[-1].split(": ")
                known = ko[1][2:].lstrip("?")
                if "?" in ko[1] and ko[0] == kt[0] and known and \
                        int(kt[1], 16) & ((1 << 4 * len(known)) - 1) == int(known, 16):
                    rules["R2"] += 1
                    continue
    if pr:
        r = pr[0]
        data = bytes.fromhex(r["args"]["data"])
        fmt = fmts.get(int(r["args"]["fmt"], 16), "")
        if fmt == "%hhd  %hd  %d  %ld  %lld  %jd  %zd  %td":  # R3
            packer = ints(data, [4, 4, 4, PTR, 8, 8, PTR, PTR])
            printer = ints(data, [1, 2, 4, PTR, 8, 8, PTR, PTR])
            if body == "tracing_mark_write: " + packer and theirs == "tracing_mark_write: " + printer:
                rules["R3"] += 1
                continue
        if fmt == "%Le":  # R4
            ld = 16 if PTR == 8 else 12
            mant = int.from_bytes(data[:8], "little")
            se = int.from_bytes(data[8:10], "little")
            val = math.ldexp(mant, (se & 0x7FFF or 1) - 16383 - 63) * (-1 if se & 0x8000 else 1)
            if len(data) == ld and body == "tracing_mark_write: %e" % val \
                    and re.fullmatch(r"tracing_mark_write: -?\d\.\d{6}e[-+]\d+", theirs) \
                    and theirs != body:
                rules["R4"] += 1
                continue
    fail("entry %d %s\n  tracetap: %r\n  NuttX:    %r" % (k, head.strip(), body, theirs))
if not fails and nuttx[pos:].strip():
    fail("NuttX has more after the last entry: %r" % nuttx[pos:pos + 200])
if fails:
    print("\n".join(fails[:40]))
    print("%d differences" % len(fails))
    sys.exit(1)
print("%s image: %d entries equal NuttX's trace dump (explained: %s)" % (
    a.build, len(ents), ", ".join("%s %d" % kv for kv in rules.items())))
