#!/usr/bin/env python3
"""A tracetap layout file (daemon/layout.h) from a NuttX fixture's facts.json: what
`tracetap layout --elf` would write from the ELF, which the fixture set does not hold.
usage: fixture-layout.py FACTS.json m64|m32 > layout.json"""
import json
import sys

facts = json.load(open(sys.argv[1]))
b = facts["builds"][sys.argv[2]]
st = b["structs_from_dwarf"]


def off(struct, member):
    for f in st[struct]["fields"]:
        if f["name"] == member:
            return f["offset"]
    raise SystemExit("facts.json: %s has no member %s" % (struct, member))


common = {f["name"]: f for f in st["note_common_s"]["fields"]}
types = b["enum note_type_e"]
# fw/dwarf.c's rule: nc_systime present -> 12.13 when NOTE_DUMP_BINARY is 34, else 12.8
release = "12.13" if types.get("NOTE_DUMP_BINARY") == 34 else "12.8"
tcb = st["tcb_s (selected members)"]
sym = b["symbols"]
opts = {
    "release": release,
    "ptr_size": str(b["sizeof"]["uintptr_t"]),
    "smp": "0",
    "time64": "1" if common["nc_systime"]["size"] == 8 else "0",
    "header_size": str(st["note_common_s"]["size"]),
    "off_buffer": str(off("noteram_driver_s", "ni_buffer")),
    "off_bufsize": str(off("noteram_driver_s", "ni_bufsize")),
    "off_head": str(off("noteram_driver_s", "ni_head")),
    "off_tail": str(off("noteram_driver_s", "ni_tail")),
    "off_overwrite": str(off("noteram_driver_s", "ni_overwrite")),
    "sys_reserved": str(b["syscalls"]["CONFIG_SYS_RESERVED (value of SYS__exit)"]),
    "pidhash": sym["g_pidhash"]["address"],
    "npidhash": sym["g_npidhash"]["address"],
    "tcb_pid": str(tcb["pid"]["offset"]),
    "tcb_name": str(tcb["name"]["offset"]),
    "tcb_name_size": str(tcb["name"]["size"]),
    "taskname": sym["g_note_taskname"]["address"],
    "taskname_size": b["config"]["CONFIG_DRIVERS_NOTE_TASKNAME_BUFSIZE"],
    # the ELF's machine: x86-64 (EM_X86_64) for the native sim, i386 (EM_386) with -m32
    "long_double": "x87" if b["word_size_bits"] == 64 else "x87-12",
}
# i386 aligns 8-byte members to 4: the note structs' alignment from their DWARF sizes
ev = st["note_event_s"]
if ev["size"] % 8:
    opts["struct_align"] = "4"
names = b["syscalls"]["nr_to_name"]
fmts = b["printf_formats (npt_fmt -> text, from the ELF .rodata)"]
json.dump({
    "format": "nuttx",
    "address": sym["g_noteram_driver"]["address"],
    "nuttx": {
        "options": opts,
        "syscalls": [names.get(str(i)) for i in range(b["syscalls"]["count"])],
        "strings": fmts,
    },
}, sys.stdout, indent=1)
print()
