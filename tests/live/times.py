#!/usr/bin/env python3
"""tests/live/times.py: event times against the writer's truth (tests/live/live_writer.c, narrow).

Every user event (id 4096) of the narrow or linux time source carries the source's wraps at its
time stamp in info 4, so its true time in ticks is info 4 * WRAP + ts (2^24, or 10^9). The daemon's mapped time,
`ns` (nanoseconds since the first event it saw, from the unwrapped time stamps and --tick-hz),
must keep the true distance to the first user event: error = (ns - ns0) - (T - T0) * 1e9 / hz.
Prints, for the events after the first gap (or all, when a gap comes before the first event),
how many, p50 and max of |error| in ms, and the worst; exits 1 when the max is over --bound-ms.

usage: times.py RECORDS.jsonl --hz HZ [--wrap N] [--bound-ms MS]
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("records")
    ap.add_argument("--hz", type=float, required=True)
    ap.add_argument("--wrap", type=int, default=1 << 24)
    ap.add_argument("--bound-ms", type=float)
    a = ap.parse_args()
    ref = None
    gap_seen = False
    errs = []  # (|error| ms, error ms, seq)
    with open(a.records) as f:
        for line in f:
            r = json.loads(line)
            if r.get("type") == "gap":
                gap_seen = True
                continue
            if r.get("type") == "reset":
                print("times: a reset: times restart, not comparable", file=sys.stderr)
                return 1
            if r.get("type") != "event" or r.get("id") != 4096 or "ns" not in r:
                continue
            raw = r["raw"]
            ticks = raw[7] * a.wrap + raw[3]
            if ref is None:
                ref = (r["ns"], ticks)
                after = gap_seen  # the first gap came before the first event
                continue
            after = after or gap_seen
            if not after:
                continue
            e = ((r["ns"] - ref[0]) - (ticks - ref[1]) * 1e9 / a.hz) / 1e6
            errs.append((abs(e), e, raw[4]))
    if not errs:
        print("times: no user event after the first gap")
        return 1
    errs.sort()
    p50 = errs[len(errs) // 2][0]
    worst = errs[-1]
    print("times: %d events after the first gap: |error| p50 %.3f ms, max %.3f ms (event %d: "
          "%+.3f ms)" % (len(errs), p50, worst[0], worst[2], worst[1]))
    if a.bound_ms is not None and worst[0] > a.bound_ms:
        print("times: event %d mapped %+.3f ms from its true time: over the %.0f ms bound"
              % (worst[2], worst[1], a.bound_ms), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
