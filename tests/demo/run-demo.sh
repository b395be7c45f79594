#!/usr/bin/env bash
# tests/demo/run-demo.sh: the live demo, from a fresh Debian 12 machine to a dashboard (see usage).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

usage() {
  cat <<'USAGE'
usage: tests/demo/run-demo.sh [--qemu] [--rate EVENTS_PER_S] [--port N] [--no-setup] [--no-browser]

The live demo: installs what is missing (Debian 12; sudo when not root), builds what the demo
runs, then streams a simulated microcontroller's ThreadX trace to the dashboard at
http://127.0.0.1:7733/. Ctrl-C stops everything.

  (default)     a simulated Cortex-M (tt-simtarget: JTAG TAP, ADIv5 DP, AHB-AP) whose RAM a
                ThreadX workload writes; a real OpenOCD drives it over remote_bitbang, spawned
                and owned by tracetapd
  --qemu        the project's own firmware on QEMU's mps2-an385 (a real Cortex-M3 CPU) instead;
                OpenOCD keeps its telnet (4444) and GDB (3333) ports for you: halt, resume and
                reset the core and watch the dashboard's status
  --rate N      the workload's events per second (default 1000; not with --qemu)
  --port N      the dashboard's port (default 7733)
  --no-setup    install nothing (the packages are there)
  --no-browser  do not open a browser
USAGE
}

rate=1000 port=7733 setup=1 browser=1 qemu=0
while [ $# -gt 0 ]; do
  case $1 in
    --rate) rate=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --no-setup) setup=0; shift ;;
    --no-browser) browser=0; shift ;;
    --qemu) qemu=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run-demo.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
if [ "$setup" = 1 ]; then
  tests/setup.sh --demo
fi
if [ ! -d build ]; then
  echo "demo: configuring build/ (meson)"
  meson setup build >/dev/null
fi
# only what the demo runs (the test programs are built by tests/run-all.sh)
targets=(daemon/tracetapd client/tracetap tests/sim/tt-simtarget tests/sim/tt-fw-threadx)
[ "$qemu" = 1 ] && targets+=(tests/firmware/tt-fw-mps2.elf)
echo "demo: building ${targets[*]}"
# ninja's [done/total] progress on one line; its full output only when it fails
if ! NINJA_STATUS='[%f/%t] ' ninja -C build "${targets[@]}" > "${TMPDIR:-/tmp}/tracetap-demo-build.log" 2>&1 < /dev/null; then
  cat "${TMPDIR:-/tmp}/tracetap-demo-build.log"
  echo "demo: the build failed (above)"
  exit 1
fi
echo "demo: built ($(grep -c '^\[' "${TMPDIR:-/tmp}/tracetap-demo-build.log") steps)"

work=$(mktemp -d "${TMPDIR:-/tmp}/tracetap-demo.XXXXXX")
pids=()
cleanup() {
  # newest first, each gone before the next: the daemon, then OpenOCD, then the simulator it
  # reads through (an OpenOCD whose simulator went first dies on an assertion)
  local p t
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    p=${pids[i]}
    kill "$p" 2>/dev/null || true
    for ((t = 0; t < 100; t++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true # 10 s after SIGTERM
    wait "$p" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

# wait_for FILE REGEX: until a line of FILE matches (5 s), or say what went wrong and stop.
wait_for() {
  for _ in $(seq 100); do grep -qs "$2" "$1" && return 0; sleep 0.05; done
  echo "demo: no '$2' in $1:"; cat "$1"; exit 1
}

open_browser() {
  if [ "$browser" = 1 ] && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && command -v xdg-open >/dev/null; then
    (sleep 1; xdg-open "http://127.0.0.1:$port/" >/dev/null 2>&1 || true) &
  fi
}

if [ "$qemu" = 1 ]; then
  fw=build/tests/firmware/tt-fw-mps2.elf
  [ -f "$fw" ] || { echo "demo: $fw was not built (needs gcc-arm-none-eabi and libnewlib-arm-none-eabi)"; exit 1; }
  # the target's side (QEMU, the simulator) in a session of its own: Ctrl-C reaches the
  # terminal's process group at once, and an OpenOCD whose simulator went first dies on an
  # assertion; cleanup stops them last
  setsid qemu-system-arm -machine mps2-an385,memory-backend=ram \
    -object memory-backend-file,id=ram,size=16M,mem-path="$work/psram.bin",share=on \
    -kernel "$fw" -nographic -monitor none -serial none \
    -qmp "unix:$work/qmp.sock,server=on,wait=off" > "$work/qemu.out" 2>&1 &
  pids+=($!)
  setsid build/tests/sim/tt-simtarget --qmp "$work/qmp.sock" --ram "$work/psram.bin" --base 0x21000000 \
    --size 0x1000000 > "$work/sim.out" 2>&1 &
  pids+=($!)
  wait_for "$work/sim.out" '^listening port='
  sim_port=$(sed -n 's/^listening port=\([0-9]*\)/\1/p' "$work/sim.out")
  openocd -f tests/sim/remote-bitbang.cfg -c "remote_bitbang port $sim_port" -f tests/sim/sim-cm3.cfg \
    -c "bindto 127.0.0.1" -l "$work/openocd.log" &
  pids+=($!)
  wait_for "$work/openocd.log" 'Listening on port 6666'
  echo "demo: QEMU mps2-an385 running tests/firmware, debug port 127.0.0.1:$sim_port"
  echo "demo: halt and reset it through OpenOCD and watch the dashboard's status:"
  echo "        telnet 127.0.0.1 4444   then: halt / resume / reset run / reset halt"
  echo "        gdb-multiarch $fw -ex 'target extended-remote :3333'"
  echo "demo: dashboard at http://127.0.0.1:$port/"
  open_browser
  build/daemon/tracetapd --name qemu --port "$port" --web "$root/web" \
    --probe openocd:127.0.0.1:6666 --elf "$fw" --tick-hz 25M &
  pids+=($!)
  wait "${pids[-1]}"
  exit
fi

ram=$work/ram.bin
setsid build/tests/sim/tt-simtarget --base 0x20000000 --size 131072 --ram "$ram" > "$work/sim.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q '^listening port=' "$work/sim.out" && break; sleep 0.05; done
sim_port=$(sed -n 's/^listening port=\([0-9]*\)/\1/p' "$work/sim.out")
[ -n "$sim_port" ] || { echo "demo: the simulated target did not start:"; cat "$work/sim.out"; exit 1; }

build/tests/sim/tt-fw-threadx --ram "$ram" --base 0x20000000 --size 131072 --rate "$rate" \
  --tick-hz 100000000 > "$work/fw.out" 2>&1 &
pids+=($!)

echo "demo: simulated target on 127.0.0.1:$sim_port, ThreadX workload at $rate events/s"
echo "demo: dashboard at http://127.0.0.1:$port/   (in another terminal: build/client/tracetap tail)"
open_browser
build/daemon/tracetapd --name sim --port "$port" --web "$root/web" \
  --probe openocd-spawn -f "$root/tests/sim/openocd-sim.cfg" -c "remote_bitbang port $sim_port" \
  --openocd-log "$work/openocd.log" --pointer 0x20000000 --tick-hz 100M &
pids+=($!)
wait "${pids[-1]}"
