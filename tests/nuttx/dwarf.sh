#!/usr/bin/env bash
# tests/nuttx/dwarf.sh: the NuttX note layout read from DWARF (fw/dwarf.c) on stand-in
# firmware ELFs (nx_fixture.c in several configurations).
# - each fixture prints its own offsetof/sizeof and release family; nx_dwarf must read the same;
# - bad inputs (a stripped ELF, an ELF without the driver type, not an ELF) give exact messages;
# - end to end: an image written by the test writer with the fixture's layout, at the address of
#   the fixture's g_noteram_driver, decodes with `tracetap decode --format nuttx --elf FIXTURE`
#   (layout and address from the ELF): every held record, in order; and live through tracetapd
#   (--probe file:IMAGE --format nuttx --elf FIXTURE).
# usage: dwarf.sh NX_DWARF TRACETAP TRACETAPD NX_MKIMAGE FIXTURE...
set -euo pipefail
nx_dwarf=$1 tracetap=$2 tracetapd=$3 mk=$4
shift 4
work=$(mktemp -d)
dpid=""
trap '[ -z "$dpid" ] || kill "$dpid" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/lib.sh"

none="" checked=0 tasks_checked=0
for fx in "$@"; do
  name=$(basename "$fx")
  "$fx" > "$work/$name.want"
  if grep -q '^layout none' "$work/$name.want"; then none=$fx; continue; fi
  want=$(sed -n 1p "$work/$name.want")
  got=$("$nx_dwarf" "$fx") || fail "$name: $got"
  [ "$(sed -n 1p <<< "$got")" = "$want" ] || fail "$name: read '$got', the compiler says '$want'"
  # task names from the target: g_pidhash, g_npidhash, struct tcb_s (FIX_TASKS), or none
  wtasks=$(grep "^tasks " "$work/$name.want") gtasks=$(sed -n 2p <<< "$got")
  [ "$gtasks" = "$wtasks" ] || fail "$name: read '$gtasks', the compiler says '$wtasks'"
  # NuttX's task name cache and the note structs' alignment (FIX_TASKS from 12.4), or none
  # the stack members and the colour of the ELF's architecture (FIX_TASKS), or none
  wstacks=$(grep "^stacks " "$work/$name.want") gstacks=$(sed -n 3p <<< "$got")
  [ "$gstacks" = "$wstacks" ] || fail "$name: read '$gstacks', the compiler says '$wstacks'"
  wnotes=$(grep "^notes " "$work/$name.want") gnotes=$(sed -n 4p <<< "$got")
  [ "$gnotes" = "$wnotes" ] || fail "$name: read '$gnotes', the compiler says '$wnotes'"
  echo "ok: $name: $got" | tr "\n" " "; echo
  [ "$wtasks" = "tasks none" ] || tasks_checked=$((tasks_checked + 1))

  # End to end: the image at the driver's link address, decoded with the ELF.
  drv=$(sed -n 's/^driver=//p' "$work/$name.want")
  "$mk" "$work/$name.bin" 500 "$drv" "$want" > "$work/$name.mk"
  held=$(sed -n 's/.* held=\([0-9]*\).*/\1/p' "$work/$name.mk")
  last=$(sed -n 's/.* last_time=\([0-9]*\).*/\1/p' "$work/$name.mk")
  [ "$held" -gt 10 ] || fail "$name: mkimage: $(cat "$work/$name.mk")"
  ${TT_WRAP-} "$tracetap" decode --json --format nuttx --elf "$fx" "$work/$name.bin" > "$work/$name.jsonl" ||
    fail "$name: decode --elf failed"
  n=$(grep -c '"type":"event"' "$work/$name.jsonl" || true)
  [ "$n" -eq "$held" ] || fail "$name: decoded $n events, the ring holds $held"
  times_ok "$work/$name.jsonl" "$last" || fail "$name: records out of order or missing"
  grep -q '"name":"NOTE_START".*"thread_name":"[a-z_]*"' "$work/$name.jsonl" ||
    fail "$name: no NOTE_START with a task name"
  echo "ok: $name: decode --elf: $n records in order, ending at time $last"
  # The layout file saved from the ELF decodes the same, without the ELF (and gives the format)
  ${TT_WRAP-} "$tracetap" layout --elf "$fx" > "$work/$name.layout.json" ||
    fail "$name: tracetap layout failed"
  # strict JSON (UTF-8), and its format strings are text with a conversion (not code bytes)
  python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
bad = [v for v in d["nuttx"]["strings"].values()
       if not re.fullmatch(r"[\x20-\x7e\n\t]+", v) or not re.search(r"%[-+ #0-9.*hlLjzt]*[diouxXcsfFeEgGaAp%]", v)]
sys.exit("not format strings: %r" % bad[:3] if bad else 0)' "$work/$name.layout.json" ||
    fail "$name: the layout file's strings are not all format strings"
  ${TT_WRAP-} "$tracetap" decode --json --layout "$work/$name.layout.json" "$work/$name.bin" \
    > "$work/$name.lay.jsonl" || fail "$name: decode --layout failed"
  cmp -s "$work/$name.jsonl" "$work/$name.lay.jsonl" ||
    fail "$name: decode --layout differs from decode --elf: $(diff "$work/$name.jsonl" "$work/$name.lay.jsonl" | head -4)"
  # `trace dump -b` of the same notes (back to back, nc_length bytes each, no ring): with the
  # ELF or the layout file, whose address is not in it, every note as in the image
  python3 -c '
import json, struct, sys
with open(sys.argv[2], "wb") as out:
    for line in open(sys.argv[1]):
        r = json.loads(line)
        b = b"".join(struct.pack("<I", w) for w in r["raw"])
        out.write(b[:b[0]])' "$work/$name.jsonl" "$work/$name.dumpb"
  for how in "--format nuttx --elf $fx" "--layout $work/$name.layout.json"; do
    # shellcheck disable=SC2086
    ${TT_WRAP-} "$tracetap" decode --json $how "$work/$name.dumpb" > "$work/$name.b.jsonl" ||
      fail "$name: decode $how of a trace dump -b file failed"
    [ "$(sed 's/"addr":"[^"]*",//; s/"seq":[0-9]*,//' "$work/$name.b.jsonl")" = \
      "$(sed 's/"addr":"[^"]*",//; s/"seq":[0-9]*,//' "$work/$name.jsonl")" ] ||
      fail "$name: the trace dump -b file decoded with $how differs from the image"
  done
  echo "ok: $name: tracetap layout + decode --layout = decode --elf; trace dump -b with either"
  checked=$((checked + 1))
done
[ "$checked" -ge 2 ] || fail "only $checked fixtures checked"
[ "$tasks_checked" -ge 1 ] || fail "no fixture with a task table (FIX_TASKS) checked"

# Without the ELF the default layout (13.x, 32-bit, no filter) cannot read the 64-bit SMP one.
for fx in "$@"; do
  case "$(basename "$fx")" in nxfx_1208_smp64) ;; *) continue ;; esac
  name=$(basename "$fx")
  drv=$(sed -n 's/^driver=//p' "$work/$name.want")
  if ${TT_WRAP-} "$tracetap" decode --json --format nuttx --address "$drv" "$work/$name.bin" \
    > "$work/nodw.jsonl" 2>/dev/null &&
    [ "$(grep -c '"type":"event"' "$work/nodw.jsonl")" -gt 0 ]; then
    fail "$name: decoded without the ELF's layout"
  fi
  echo "ok: $name: the default layout does not decode it (the ELF's layout is what works)"
done

# Syscall names from the ELF's g_funcnames[] (nxfx_1208_smp64 has CONFIG_SYS_RESERVED 4 as the
# enumerator SYS__exit): the same records decoded with names shown as numbers (sys_reserved=255
# puts every nr below the table) and with names; line by line nr=N becomes nr=names[N - 4] of
# the list below (NuttX's order, written here by hand), and with sys_reserved=0, names[N].
names=(_exit exit get_errno getpid sched_getparam sched_getscheduler sched_lock sched_lockcount
  sched_rr_get_interval sched_setparam sched_setscheduler sched_unlock sched_yield set_errno
  uname sem_destroy sem_post sem_timedwait sem_trywait sem_wait task_create task_delete
  task_restart up_assert vfork atexit on_exit waitpid wait waitid kill sigaction sigpending
  sigprocmask sigqueue sigsuspend sigtimedwait sigwaitinfo nanosleep clock_systimer
  clock_getres clock_gettime clock_settime timer_create timer_delete timer_getoverrun
  timer_gettime timer_settime close ioctl read write pread pwrite poll select boardctl closedir
  dup dup2)
for fx in "$@"; do
  case "$(basename "$fx")" in nxfx_1208_smp64) ;; *) continue ;; esac
  name=$(basename "$fx")
  nrs() { ${TT_WRAP-} "$tracetap" decode --no-color --format nuttx --elf "$fx" "$@" "$work/$name.bin" |
    sed -n 's/.*NOTE_SYSCALL_[A-Z]* *nr=\([^ ]*\).*/\1/p'; }
  nrs --format-opt sys_reserved=255 > "$work/sc.num"
  nrs > "$work/sc.names"
  nrs --format-opt sys_reserved=0 > "$work/sc.names0"
  n=$(wc -l < "$work/sc.num")
  [ "$n" -ge 10 ] || fail "$name: only $n syscall records"
  paste "$work/sc.num" "$work/sc.names" "$work/sc.names0" > "$work/sc.all"
  while read -r num nm nm0; do
    [[ $num =~ ^[0-9]+$ ]] || fail "$name: nr '$num' is not a number with sys_reserved=255"
    [ "$nm" = "${names[num - 4]}" ] || fail "$name: nr $num shown as '$nm', want ${names[num - 4]}"
    [ "$nm0" = "${names[num]}" ] || fail "$name: nr $num with sys_reserved=0 shown as '$nm0'"
  done < "$work/sc.all"
  echo "ok: $name: $n syscall records named from g_funcnames (e.g. nr $(head -c 3 "$work/sc.num" | tr -d '\n') = $(head -n 1 "$work/sc.names"))"
done

# Live: tracetapd follows the image through the file probe with the layout from the ELF; wait
# (10 s deadline) until it has streamed every held record. 12.3: g_noteram_info, found by the
# ELF symbol the layout names.
for fx in "$@"; do
  case "$(basename "$fx")" in
  nxfx_1208_smp64) want_log="release family 1208, 64-bit, little-endian, SMP" ;;
  nxfx_1203_64) want_log="release family 1203, 64-bit, little-endian" ;;
  *) continue ;;
  esac
  name=$(basename "$fx")
  drv=$(sed -n 's/^driver=//p' "$work/$name.want")
  held=$(sed -n 's/.* held=\([0-9]*\).*/\1/p' "$work/$name.mk")
  ${TT_WRAP-} "$tracetapd" --no-server --stdout --probe "file:$work/$name.bin" --base "$drv" \
    --format nuttx --elf "$fx" > "$work/live.jsonl" 2> "$work/live.err" &
  dpid=$!
  n=0
  for _ in $(seq 100); do
    n=$(grep -c '"type":"event"' "$work/live.jsonl" || true)
    [ "$n" -lt "$held" ] || break
    kill -0 "$dpid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$dpid" 2>/dev/null || true
  wait "$dpid" 2>/dev/null || true
  dpid=""
  [ "$n" -eq "$held" ] || fail "$name: tracetapd streamed $n events of $held: $(cat "$work/live.err")"
  grep -q "NuttX layout from .*$want_log" "$work/live.err" ||
    fail "$name: tracetapd did not log the layout: $(cat "$work/live.err")"
  echo "ok: $name: tracetapd --elf streamed all $n records"
done

# Bad input: the exact messages.
expect() { # expect WHAT MESSAGE CMD...
  local what=$1 msg=$2 out
  shift 2
  if out=$("$@" 2>&1); then fail "$what: accepted: $out"; fi
  [ "$out" = "$msg" ] || fail "$what: got '$out', want '$msg'"
  echo "ok: $what -> $out"
}
fx=$1
cp "$fx" "$work/firmware.elf"
strip -o "$work/stripped.elf" "$work/firmware.elf"
expect "stripped ELF" "error -61: $work/stripped.elf: no DWARF debug information (stripped, or built without -g): cannot read the NuttX note layout; give the unstripped firmware ELF" \
  "$nx_dwarf" "$work/stripped.elf"
[ -n "$none" ] || fail "no fixture without the driver"
cp "$none" "$work/nodriver.elf"
expect "ELF without the driver" "error -3: $work/nodriver.elf: no DWARF type 'struct noteram_driver_s' (build with -g and CONFIG_DRIVERS_NOTERAM)" \
  "$nx_dwarf" "$work/nodriver.elf"
printf 'not an elf\n' > "$work/text.elf"
expect "not an ELF" "error -8: $work/text.elf: not an ELF file (looking for the NuttX note layout)" \
  "$nx_dwarf" "$work/text.elf"
expect "missing file" "error -2: $work/missing.elf: cannot open: No such file or directory" \
  "$nx_dwarf" "$work/missing.elf"
# The same messages through tracetap decode (exit status 1).
expect "decode --elf stripped" "tracetap decode: $work/stripped.elf: no DWARF debug information (stripped, or built without -g): cannot read the NuttX note layout; give the unstripped firmware ELF" \
  "$tracetap" decode --format nuttx --elf "$work/stripped.elf" "$work/text.elf"
expect "decode --elf without the driver" "tracetap decode: $work/nodriver.elf: no DWARF type 'struct noteram_driver_s' (build with -g and CONFIG_DRIVERS_NOTERAM)" \
  "$tracetap" decode --format nuttx --elf "$work/nodriver.elf" "$work/text.elf"
expect "decode --elf without --format" "tracetap decode: --elf needs --format (the reader whose symbols and types to look up)" \
  "$tracetap" decode --elf "$work/firmware.elf" "$work/text.elf"
