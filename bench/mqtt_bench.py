#!/usr/bin/env python3
"""bench/mqtt_bench.py: the lab through a broker, for bench/run.sh (row "mqtt").

N bench daemons, each following its own tt-fw-threadx buffer (file probe) written at RATE
events/s, publish to one mosquitto on a loopback port; one central daemon subscribes
(mqtt://.../lab/+/+) with 10 WebSocket clients (tt-bench-clients). Measured over SECS:
- lossless: every event the benches read reached the central daemon, and every client of it
  (no gap record there, no gap message to a client);
- the broker hop: `tracetap tail --json` on bench 1 and on the central daemon, each line time
  stamped as it arrives; the same seq (equal while nothing was lost) arrives later through the
  broker by the hop's latency (p50/p99);
- CPU of the broker, the central daemon and the benches' daemons (mean), from /proc;
- the ratio of the two paths: deliveries to the 10 clients per CPU-second of the central path
  (broker + central daemon) against the same 10 clients directly on a bench daemon.

usage: mqtt_bench.py TRACETAPD TRACETAP FW_THREADX CLIENTS N RATE SECS
Prints `result KEY=VALUE` lines.
"""
import json
import os
import pwd
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "mqtt"))
from mqtt_test import free_port, wait_for  # noqa: E402 (one copy of the helpers)

HZ = os.sysconf("SC_CLK_TCK")


def ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        v = f.read().rsplit(")", 1)[1].split()
    return int(v[11]) + int(v[12])


def main():
    tracetapd, tracetap, fw, clients = sys.argv[1:5]
    n, rate, secs = int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
    tmp = tempfile.mkdtemp(prefix="tt-mqtt-bench.")
    procs = []

    def spawn(name, argv, **kw):
        p = subprocess.Popen(argv, stdout=kw.pop("stdout", subprocess.DEVNULL),
                             stderr=open(os.path.join(tmp, name + ".err"), "w"), **kw)
        procs.append(p)
        return p

    def port_of(name, p):
        path = os.path.join(tmp, name + ".err")
        line = wait_for(name + "'s port", lambda: [l for l in open(path) if "dashboard at" in l]
                        or p.poll() is not None, 10)
        if p.poll() is not None:
            sys.exit("mqtt_bench: %s exited: %s" % (name, open(path).read()))
        return int(line[0].rsplit(":", 1)[1].strip("/\n"))

    def targets(port):
        with urllib.request.urlopen("http://127.0.0.1:%d/api/targets" % port, timeout=5) as r:
            return json.load(r)

    try:
        mport = free_port()
        conf = os.path.join(tmp, "broker.conf")
        with open(conf, "w") as f:
            f.write("listener %d 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\nuser %s\n" %
                    (mport, pwd.getpwuid(os.getuid()).pw_name))
        broker = spawn("broker", ["mosquitto", "-c", conf])
        wait_for("the broker", lambda: socket.socket().connect_ex(("127.0.0.1", mport)) == 0, 10)
        central = spawn("central", [tracetapd, "--probe", "mqtt://127.0.0.1:%d/lab/+/+" % mport,
                                    "--port", "0", "--log-level", "notice"])
        cport = port_of("central", central)
        benches, writers = [], []
        for i in range(n):
            ram = os.path.join(tmp, "ram%d.bin" % i)
            fwargs = [fw, "--ram", ram, "--base", "0x20000000", "--size", "0x200000",
                      "--buf-size", "0x80000", "--time", "counter"]
            subprocess.check_call(fwargs + ["--rate", "0", "--count", "20"],
                                  stdout=subprocess.DEVNULL)
            b = spawn("bench%d" % i, [tracetapd, "--probe", "file:" + ram, "--base", "0x20000000",
                                      "--pointer", "0x20000000", "--name", "pipe", "--port", "0",
                                      "--publish", "mqtt://127.0.0.1:%d/lab/bench%d" % (mport, i),
                                      "--log-level", "notice"])
            b.port = port_of("bench%d" % i, b)
            benches.append(b)
            writers.append(fwargs + ["--rate", str(rate)])
        wait_for("every remote target on the central daemon",
                 lambda: len(targets(cport)) == n, 20)

        # the hop: tail on bench 0 and on the central daemon, lines stamped on arrival
        stamps = {"bench": {}, "central": {}}

        def reader(key, argv):
            p = spawn("tail-" + key, argv, stdout=subprocess.PIPE)
            for line in p.stdout:
                t = time.monotonic()
                r = json.loads(line)
                if r.get("type") == "event":
                    stamps[key][r["seq"]] = t
        threads = [threading.Thread(target=reader, daemon=True, args=a) for a in (
            ("bench", [tracetap, "tail", "ws://127.0.0.1:%d" % benches[0].port, "--json"]),
            ("central", [tracetap, "tail", "ws://127.0.0.1:%d" % cport, "--json", "--target",
                         "bench0/pipe"]))]
        for t in threads:
            t.start()
        time.sleep(1)  # both tails subscribed (they start live)
        before = {b.pid: ticks(b.pid) for b in benches}
        c0, m0 = ticks(central.pid), ticks(broker.pid)
        wprocs = [spawn("writer%d" % i, w) for i, w in enumerate(writers)]
        cl = subprocess.run([clients, str(cport), "10", str(secs)], capture_output=True,
                            text=True)
        c1, m1 = ticks(central.pid), ticks(broker.pid)
        bcpu = sum(ticks(b.pid) - before[b.pid] for b in benches) / n / HZ / secs
        for w in wprocs:
            w.kill()
            w.wait()
        if cl.returncode:
            sys.exit("mqtt_bench: tt-bench-clients: " + cl.stdout + cl.stderr)
        res = dict(kv.split("=") for kv in cl.stdout.split() if "=" in kv)
        # lossless: once the benches' last records are through, the central holds them all
        time.sleep(0.5)
        want = {"bench%d/pipe" % i: targets(b.port)[0] for i, b in enumerate(benches)}
        # the central's gaps/lost count only its own gap records, each standing for `lost` of
        # the bench's seqs: caught up when every bench seq is a record or inside one of them
        wait_for("the central daemon to catch up", lambda: all(
            t["last_seq"] - t["gaps"] + t["lost"] >= want[t["name"]]["last_seq"]
            for t in targets(cport)), 60)
        got = {t["name"]: t for t in targets(cport)}
        lost_central = sum(t["lost"] for t in got.values())
        same = all(got[k]["events"] == w["events"] for k, w in want.items())
        lossless = same and lost_central == 0 and int(res.get("lost", 1)) == 0
        hop = sorted((stamps["central"][s] - t) * 1000 for s, t in stamps["bench"].items()
                     if s in stamps["central"])
        p = (lambda q: hop[min(len(hop) - 1, int(q * len(hop)))]) if hop else (lambda q: -1)
        deliveries = int(res.get("records_total", 0))
        path_cpu = (c1 - c0 + m1 - m0) / HZ
        print("result events=%d" % sum(w["events"] for w in want.values()))
        print("result lossless=%s" % ("yes" if lossless else
              "no (central events equal: %s, lost on the way: %d, lost by clients: %s)" %
              (same, lost_central, res.get("lost"))))
        print("result hop_ms=%.2f/%.2f (%d events matched)" % (p(0.5), p(0.99), len(hop)))
        print("result cpu=broker %.2f, central %.2f, bench daemon %.2f cores" %
              ((m1 - m0) / HZ / secs, (c1 - c0) / HZ / secs, bcpu))
        print("result clients=%s records/s per client (median), %d deliveries" %
              (res.get("rate_median"), deliveries))
        print("result path_per_cpu_s=%.0f" % (deliveries / path_cpu if path_cpu else 0))

        # the direct path: the same 10 clients on bench 0's daemon alone (others idle)
        for b in benches[1:]:
            b.kill()
        d0 = ticks(benches[0].pid)
        w = spawn("writer-direct", writers[0])
        cl = subprocess.run([clients, str(benches[0].port), "10", str(secs)],
                            capture_output=True, text=True)
        d1 = ticks(benches[0].pid)
        w.kill()
        r2 = dict(kv.split("=") for kv in cl.stdout.split() if "=" in kv)
        direct = int(r2.get("records_total", 0)) / ((d1 - d0) / HZ) if d1 > d0 else 0
        print("result direct_per_cpu_s=%.0f" % direct)
        print("result ratio=%.2f" % ((deliveries / path_cpu) / direct if direct and path_cpu
                                     else 0))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        subprocess.call(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
