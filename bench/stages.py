#!/usr/bin/env python3
"""bench/stages.py: where each event's latency went, stage by stage, in the rtt item's tracetap
trials (bench/rtt.sh). Joins tracetapd's "stage" lines (--log-level debug; every time is the
daemon's CLOCK_MONOTONIC, the workload's and the client's clock too) with the client's arrivals
(tt-e2e-latency's ARRIVALS file: "seq time arrival_ns"):

  wait     written (workload start + time / tick_hz) -> the read that carried it was sent
           (negative: written while that read was on its way, and still caught)
  link     read sent -> OpenOCD's reply parsed (the link's round trips)
  decode   reply -> the batch decoded and JSON-encoded into the hub
  publish  decoded -> the hub's batch flushed to the clients' queues
  socket   flushed -> written to the client's WebSocket
  client   written -> the client (tracetap tail --json) printed it

An event belongs to the first read batch whose newest event time is >= its own (times are
monotonic), and to the first flush / write whose last seq is >= its seq.

usage: stages.py DAEMON_LOG ARRIVALS START_NS TICK_HZ
Prints one line: stages n=N wait=P50/P99 link=... client=... (ms)
"""
import bisect
import re
import sys

STAGES = ("wait", "link", "decode", "publish", "socket", "client")


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * q))] if v else float("nan")


def main():
    if len(sys.argv) != 5:
        print(__doc__.split("\n\n")[-2], file=sys.stderr)
        return 2
    log, arrivals, start, hz = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    reads, flushes, writes = [], [], []
    rd = re.compile(r"stage read sent=(\d+) done=(\d+) decoded=(\d+) events=\d+ last_time=(\d+)")
    fw = re.compile(r"stage (flush|write) to=(\d+) t=(\d+)")
    with open(log, errors="replace") as f:
        for line in f:
            m = rd.search(line)
            if m:
                reads.append((int(m[4]), int(m[1]), int(m[2]), int(m[3])))
                continue
            m = fw.search(line)
            if m:
                (flushes if m[1] == "flush" else writes).append((int(m[2]), int(m[3])))
    reads.sort()
    flushes.sort()
    writes.sort()
    rkeys = [r[0] for r in reads]
    fkeys = [x[0] for x in flushes]
    wkeys = [x[0] for x in writes]
    out = {s: [] for s in STAGES}
    n = 0
    with open(arrivals) as f:
        for line in f:
            seq, t, arr = (int(x) for x in line.split())
            i = bisect.bisect_left(rkeys, t)
            j = bisect.bisect_left(fkeys, seq)
            k = bisect.bisect_left(wkeys, seq)
            if i == len(reads) or j == len(flushes) or k == len(writes):
                continue
            w = start + t / hz * 1e9
            _, sent, done, dec = reads[i]
            fl, wr = flushes[j][1], writes[k][1]
            for s, a, b in (("wait", w, sent), ("link", sent, done), ("decode", done, dec),
                            ("publish", dec, fl), ("socket", fl, wr), ("client", wr, arr)):
                out[s].append((b - a) / 1e6)
            n += 1
    if not n:
        print("stages.py: nothing joined: %d read, %d flush, %d write lines in %s" %
              (len(reads), len(flushes), len(writes), log), file=sys.stderr)
    print("stages n=%d %s" % (n, " ".join("%s=%.2f/%.2f" % (s, pct(out[s], 0.5), pct(out[s], 0.99))
                                           for s in STAGES)))
    return 0 if n else 1


if __name__ == "__main__":
    sys.exit(main())
