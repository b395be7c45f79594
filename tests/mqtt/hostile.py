#!/usr/bin/env python3
"""tests/mqtt/hostile.py: a central daemon against a hostile publisher on its broker.

A real mosquitto on an ephemeral loopback port, a central tracetapd subscribed to lab/+/+, and
mosquitto_pub as the attacker. After every case the central daemon must be alive, answer
/healthz, and have written no sanitizer report (the CI runs these under ASan and UBSan too).

usage: hostile.py CASE TRACETAPD TRACETAP LIVE_WRITER CHECK_SEQ
CASE: seq-max    records 1..5, then one with seq 2^64-1: refused and counted; a live
                 WebSocket client, one resuming from 0 and /api/export all end with records 1..5
      names      an event name the hub kept pointed into the freed message: a subscribe with
                 a name filter gets exactly the records of that name
      poison     seq 1e19, a gap to 2^64-1 and a seq past the window: refused and counted, the
                 real records after them accepted; a repeat is counted; a restart after a
                 refused huge seq is a reset record followed by the new records
      targets    untyped, mistyped and malformed messages make no target; with --mqtt-bench
                 legit --mqtt-bench-targets 2, 64 retained status messages of other benches
                 and a third legit target make none either (counted in /metrics, the cap's
                 refusal logged after the flood), also after a restart; a malformed message
                 counts on its target in /api/targets; a quoted name is escaped in /metrics
      secrets    broker passwords in probe and publish URLs: after a reload and in URL errors,
                 no log line holds the password
      mutate     2000 mutated events, gap and status messages (a fixed seed) over loopback:
                 the daemon stays up and its records stay in order
"""
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mqtt_test import PREFIX, Fail, batch, run, tools_found, user_event, wait_for, wire  # noqa: E402

U64_MAX = 2 ** 64 - 1
SANITIZER = re.compile(r"ERROR: (Address|Leak|Memory)Sanitizer|runtime error:|SUMMARY: ")


def pub(lab, topic, msg, retain=False):
    """Publishes msg (an object, or a str as it is) on PREFIX/topic with QoS 1."""
    payload = msg if isinstance(msg, str) else json.dumps(msg)
    subprocess.check_call(["mosquitto_pub", "-p", str(lab.port), "-q", "1", "-t",
                           PREFIX + "/" + topic, "-m", payload] + (["-r"] if retain else []))


def get(api, path, timeout=5):
    with urllib.request.urlopen(api + path, timeout=timeout) as r:
        return r.read().decode()


def target(lab, d, name):
    t = [t for t in lab.targets(d.api) if t["name"] == name]
    return t[0] if t else None


def healthy(lab, d, name="d-central"):
    """Alive, /healthz within 5 s, no sanitizer report in the log."""
    if d.poll() is not None:
        raise Fail("the central daemon exited (%s):\n%s" % (d.returncode, lab.read(name)[-3000:]))
    t0 = time.monotonic()
    try:
        get(d.api, "healthz")
    except (OSError, urllib.error.URLError) as e:
        raise Fail("/healthz: %s after %.1f s" % (e, time.monotonic() - t0))
    m = SANITIZER.search(lab.read(name))
    if m:
        raise Fail("sanitizer report in the log:\n%s" % lab.read(name)[m.start():][:3000])


def export_bounded(d, name, limit=1 << 20, secs=10):
    """The jsonl export of name, failing when it is over limit bytes or takes over secs."""
    url = d.api + "api/export?format=jsonl&target=" + urllib.parse.quote(name, safe="")
    end, data = time.monotonic() + secs, b""
    with urllib.request.urlopen(url, timeout=secs) as r:
        while True:
            chunk = r.read(65536)
            if not chunk:
                break
            data += chunk
            if len(data) > limit or time.monotonic() > end:
                raise Fail("/api/export of %s: over %d bytes or %d s, still streaming" %
                           (name, limit, secs))
    # bytes as they are: whether names are valid UTF-8 is proto/json.c's row, not this one's
    return [json.loads(line) for line in data.decode(errors="surrogateescape").splitlines()]


def ws_records(port, sub, want, secs=10):
    """Records a WebSocket client subscribing with sub gets until want(records) holds."""
    ws, status, body = wire.ws_open(port)
    if not ws:
        raise Fail("WebSocket upgrade refused: %d %s" % (status, body[:200]))
    recs, end = [], time.monotonic() + secs
    try:
        ws.send(json.dumps(sub))
        while not want(recs):
            if time.monotonic() > end:
                raise Fail("WebSocket %s: %s after %d s" % (sub, recs, secs))
            try:
                op, payload = ws.recv(max(0.01, end - time.monotonic()))
            except OSError:
                continue  # the deadline above says what came
            m = json.loads(payload) if op == 1 else {}
            if m.get("type") == "events":
                recs += m["records"]
            elif m.get("type") == "gap":
                recs.append({"type": "gap-message", "from": m["from"], "to": m["to"]})
    finally:
        ws.close()
    return recs


def live_client(port):
    """A dashboard-like client subscribed live to every target (kept open)."""
    ws, status, _ = wire.ws_open(port)
    if not ws:
        raise Fail("WebSocket upgrade refused: %d" % status)
    ws.send(json.dumps({"type": "subscribe", "targets": ["*"]}))
    return ws


def events_of(recs):
    return [(r["type"], r.get("time", r.get("lost"))) for r in recs]


def case_seq_max(lab):
    lab.broker()
    d = lab.central("+/+")
    port = urllib.parse.urlparse(d.api).port
    pub(lab, "w/t/events", batch([1, 2, 3, 4, 5]))
    wait_for("records 1..5", lambda: (target(lab, d, "w/t") or {}).get("last_seq") == 5, 10)
    live = live_client(port)
    try:
        pub(lab, "w/t/events", batch([U64_MAX]))
        pub(lab, "w/s/events", batch([1]))  # handled after it: the same connection, in order
        wait_for("the message after it", lambda: target(lab, d, "w/s"), 10)
        healthy(lab, d)
        t = target(lab, d, "w/t")
        if t["last_seq"] != 5 or t.get("dropped") != 1:
            raise Fail("after seq 2^64-1: last_seq %d (expected 5), dropped %s (expected 1)"
                       % (t["last_seq"], t.get("dropped")))
        recs = ws_records(port, {"type": "subscribe", "targets": ["w/t"],
                                 "since": {"w/t": 0}}, lambda r: len(r) >= 5)
        if [r["seq"] for r in recs] != [1, 2, 3, 4, 5]:
            raise Fail("resume from 0: %s" % recs)
        got = [r["seq"] for r in export_bounded(d, "w/t")]
        if got != [1, 2, 3, 4, 5]:
            raise Fail("export: seqs %s, expected 1..5" % got)
        pub(lab, "w/t/events", batch([6]))
        wait_for("record 6 after the refused one",
                 lambda: target(lab, d, "w/t")["last_seq"] == 6, 10)
        healthy(lab, d)
    finally:
        live.close()
    if "w/t/events: message of" not in lab.read("d-central") or "out of range" not in \
            lab.read("d-central"):
        raise Fail("no log line for the refused seq:\n%s" % lab.read("d-central"))
    print("ok: seq 2^64-1 refused (dropped 1), resume and export end at 5, record 6 follows")


def named(seq, name):
    r = user_event(seq)
    r["name"] = name
    return r


def case_names(lab):
    lab.broker()
    d = lab.central("+/+")
    port = urllib.parse.urlparse(d.api).port
    # each message's cJSON tree is freed after it: names of the same length in the next ones
    # take the freed memory a borrowed name would still point into
    msgs = [[named(1, "NAME_AAAA")]] + [[named(q, "NAME_BBBB")] for q in range(2, 40)]
    for recs in msgs:
        pub(lab, "n/t/events", {"type": "events", "target": "t", "first": recs[0]["seq"],
                                "last": recs[-1]["seq"], "records": recs})
    wait_for("39 records", lambda: (target(lab, d, "n/t") or {}).get("last_seq") == 39, 10)
    for name, want in (("NAME_AAAA", [1]), ("NAME_BBBB", list(range(2, 40)))):
        recs = ws_records(port, {"type": "subscribe", "targets": ["n/t"], "since": {"n/t": 0},
                                 "filter": {"names": [name]}},
                          lambda r: r and r[-1]["seq"] >= want[-1])
        got = [r["seq"] for r in recs]
        if got != want:
            raise Fail("filter on %s: seqs %s, expected %s" % (name, got, want))
        print("ok: filter on %s: seqs %s" % (name, got[:5]))
    healthy(lab, d)


def case_poison(lab):
    lab.broker()
    d = lab.central("+/+")

    def t():
        return target(lab, d, "legit/b1") or {}
    pub(lab, "legit/b1/events", batch([1, 2, 3, 4, 5]))
    wait_for("records 1..5", lambda: t().get("last_seq") == 5, 10)
    pub(lab, "legit/b1/events", batch([10 ** 19]))
    pub(lab, "legit/b1/events", {"type": "gap", "target": "t", "from": 1, "to": U64_MAX,
                                 "lost": U64_MAX, "reason": "slow client"})
    pub(lab, "legit/b1/events", batch([6 + 2 ** 32 + 1]))  # past the window
    pub(lab, "legit/s/events", batch([1]))  # handled after them (same connection, in order)
    wait_for("the message after them", lambda: target(lab, d, "legit/s"), 10)
    if t().get("dropped") != 3 or t().get("last_seq") != 5:
        raise Fail("after seq 1e19, a gap to 2^64-1 and a seq past the window: %s (expected "
                   "last_seq 5, dropped 3)" % t())
    for q in range(6, 106):
        pub(lab, "legit/b1/events", batch([q]))
    wait_for("the next 100 real records", lambda: t().get("last_seq") == 105, 20)
    st = t()
    if st["events"] != 105 or st["gaps"] or st["lost"] or st["repeats"]:
        raise Fail("after the poison: %s" % st)
    print("ok: seq 1e19, gap to 2^64-1, seq past the window refused; 100 real records after")
    pub(lab, "legit/b1/events", batch([100]))
    wait_for("a repeat counted", lambda: t().get("repeats") == 1, 10)
    if "remote target legit/b1: seq 100 already had (next expected 106)" not in \
            lab.read("d-central"):
        raise Fail("no log line for the repeat")
    # a huge seq, then the bench restarts: a reset record and its records
    pub(lab, "legit/b1/events", batch([U64_MAX]))
    pub(lab, "legit/b1/status", {"type": "status", "target": "t", "state": "offline"})
    pub(lab, "legit/b1/events", batch([1, 2]))
    wait_for("the restart's records", lambda: t().get("last_seq") == 108, 10)
    tail = events_of(export_bounded(d, "legit/b1")[-3:])
    if tail != [("reset", None), ("event", 1), ("event", 2)] or t()["dropped"] != 4:
        raise Fail("after a restart: %s, %s" % (tail, t()))
    print("ok: repeat counted; restart after a refused 2^64-1: reset, records 1, 2 at 107, 108")
    healthy(lab, d)


def metric(text, name, labels=""):
    m = re.search(r"^%s%s (\S+)$" % (re.escape(name), re.escape(labels)), text, re.M)
    return float(m.group(1)) if m else None


def case_targets(lab):
    lab.broker()
    # any bench allowed: a message is still checked before it makes a target
    d = lab.central("+/+")
    pub(lab, "zz/q/status", {})
    pub(lab, "zz/r/events", {"type": "bogus"})
    pub(lab, "zz/s/events", {"type": "events", "records": [{"type": "event"}]})
    pub(lab, "zz/t/events", batch([1]))  # after them (same connection, in order)
    wait_for("zz/t", lambda: target(lab, d, "zz/t"), 10)
    names = sorted(t["name"] for t in lab.targets(d.api))
    if names != ["zz/t"]:
        raise Fail("targets %s: untyped, mistyped and malformed messages made targets" % names)
    print("ok: untyped, mistyped and malformed messages made no target")
    d.kill()
    d.wait()
    for n in range(64):  # retained: they reach every daemon that subscribes later too
        pub(lab, "r%d/t/status" % n, {"type": "status", "target": "t", "state": "running"},
            retain=True)
    d = lab.central("+/+", extra=["--mqtt-bench", "legit", "--mqtt-bench-targets", "2"])
    pub(lab, "legit/zz/status", {})                        # no type: makes no target
    pub(lab, "legit/zy/events", {"type": "bogus"})
    pub(lab, "legit/b1/events", batch([1]))
    pub(lab, "legit/b\"2\\/events", batch([1]))          # a name that is no label as it is
    pub(lab, "legit/b3/events", batch([1]))                # over the cap of 2
    pub(lab, "legit/b1/events", "not json")               # counted on legit/b1
    wait_for("legit/b1's drop", lambda: (target(lab, d, "legit/b1") or {}).get("dropped") == 1,
             10)
    names = sorted(t["name"] for t in lab.targets(d.api))
    if names != ["legit/b\"2\\", "legit/b1"]:
        raise Fail("targets %s, expected legit/b1 and legit/b\"2\\" % names)
    m = get(d.api, "metrics")
    refused = metric(m, "tracetap_remote_refused_total")
    dropped = metric(m, "tracetap_remote_dropped_total", '{target="legit/b1"}')
    quoted = metric(m, "tracetap_remote_dropped_total", '{target="legit/b\\"2\\\\"}')
    if refused != 67 or dropped != 1 or quoted != 0:
        raise Fail("/metrics: refused %s (expected 64 retained + 2 untyped + 1 over the cap), "
                   "legit/b1 dropped %s, legit/b\"2\\ (escaped) %s:\n%s" % (refused, dropped, quoted, m))
    log = lab.read("d-central")
    for w in ("bench 'r0' is not in mqtt_benches", "bench 'legit' has 2 remote targets",
              "does not belong on this topic"):
        if w not in log:
            raise Fail("no %r in the log" % w)
    print("ok: targets %s; refused %d, legit/b1 dropped %d" % (names, refused, dropped))
    healthy(lab, d)
    # a restarted central daemon gets the retained messages again: still no target of theirs
    d.kill()
    d.wait()
    d = lab.central("+/+", extra=["--mqtt-bench", "legit"])
    pub(lab, "legit/b1/events", batch([1]))  # after the retained ones (sent at SUBSCRIBE)
    wait_for("legit/b1 again", lambda: target(lab, d, "legit/b1"), 10)
    names = sorted(t["name"] for t in lab.targets(d.api))
    refused = metric(get(d.api, "metrics"), "tracetap_remote_refused_total")
    if names != ["legit/b1"] or refused != 64:
        raise Fail("after a restart: targets %s, refused %s (expected legit/b1, 64)" %
                   (names, refused))
    print("ok: restarted: targets %s, the 64 retained messages refused again" % names)
    healthy(lab, d)


SECRET = "S3CRET-PW"


def case_secrets(lab):
    passwd = lab.path("passwd")
    subprocess.check_call(["mosquitto_passwd", "-c", "-b", passwd, "central", SECRET])
    lab.broker(passwd=passwd)
    url = "mqtt://central:%s@127.0.0.1:%d/%s/+/+" % (SECRET, lab.port, PREFIX)
    other = "mqtt://central:%s@127.0.0.1:%d/other/+/+" % (SECRET, lab.port)
    cfg = lab.path("tracetapd.json")
    with open(cfg, "w") as f:
        json.dump({"targets": [{"name": "lab", "probe": url}]}, f)
    d = lab.subscriber(["--config", cfg])
    with open(cfg, "w") as f:
        json.dump({"targets": [{"name": "other", "probe": other}]}, f)
    os.kill(d.pid, signal.SIGHUP)
    wait_for("the reload", lambda: "configuration reloaded" in lab.read("d-central"), 10)
    wait_for("the reload's lines", lambda: "no longer configured" in lab.read("d-central") and
             "subscribed to" in lab.read("d-central"), 10)
    subprocess.check_call(["mosquitto_pub", "-p", str(lab.port), "-u", "central", "-P", SECRET,
                           "-q", "1", "-t", PREFIX + "/b/t/events", "-m", json.dumps(batch([1]))])
    wait_for("b/t through the authenticated subscription",
             lambda: (target(lab, d, "b/t") or {}).get("last_seq") == 1, 10)
    healthy(lab, d)
    logs = {"central": lab.read("d-central")}
    # each an error naming the URL: probe and publish checks (mqtt_uv.c, subscribe, publish)
    bad = [(f, u % SECRET) for f in ("--probe", "--publish") for u in (
        "mqtt://central:%s@127.0.0.1:1",                 # no topic
        "mqtt://central:%s@127.0.0.1:99999/lab/+/+",     # bad port
        "mqtt://central:%s@/lab/+/+")] + [               # no host
        ("--probe", "mqtt://central:%s@127.0.0.1/lab" % SECRET),         # no TARGET level
        ("--publish", "mqtt://central:%s@127.0.0.1/lab/+" % SECRET),     # + in the prefix
        ("--publish", "mqtt://central:%s@127.0.0.1/lab" % SECRET)]
    for i, (flag, u) in enumerate(bad):
        name = "bad%d" % i
        extra = ["--probe", "file:/dev/null"] if flag == "--publish" else []
        if i == len(bad) - 1:
            extra += ["--mqtt-ca", lab.path("passwd")]  # CA options need mqtts://
        p = lab.spawn(name, [lab.tracetapd, "--port", "0", flag, u] + extra)
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        logs[name] = lab.read(name)
        if SECRET in logs[name]:
            raise Fail("%s %s: the error holds the password:\n%s" % (flag, u, logs[name]))
        if "central:***@" not in logs[name]:
            raise Fail("%s %s: no error naming the URL:\n%s" % (flag, u, logs[name]))
    for name, text in logs.items():
        if SECRET in text:
            line = [l for l in text.splitlines() if SECRET in l][0]
            raise Fail("%s's log holds the broker password: %s" % (name, line))
    shown = [l for l in logs["central"].splitlines() if "reload:" in l and "mqtt://" in l]
    if len(shown) < 2 or not all("central:***@" in l for l in shown):
        raise Fail("reload lines do not name the URL with its password hidden: %s" % shown)
    print("ok: no password in %d logs; e.g. %s" % (len(logs), shown[0].split("]: ")[-1]))


def mutate(rng, msg):
    """One mutation of a valid message's text: a number made extreme, a field dropped or
    retyped, bytes flipped, cut or repeated. Never a newline (mosquitto_pub -l splits there)."""
    s = json.dumps(msg)
    k = rng.randrange(6)
    if k == 0:
        nums = list(re.finditer(r"-?\d+(\.\d+)?(e[+-]?\d+)?", s))
        m = rng.choice(nums)
        v = rng.choice(["18446744073709551615", "9007199254740993", "-1", "1e308", "0",
                        "4294967296", "281474976710657", "0.5", "-1e308"])
        return s[:m.start()] + v + s[m.end():]
    if k == 1:
        keys = list(re.finditer(r'"(\w+)":', s))
        m = rng.choice(keys)
        return s[:m.start()] + '"%s":%s,' % (m.group(1), rng.choice(
            ['null', '[]', '{}', '"x"', 'true', '"\\u0000"', '"\\u001b[2J"'])) + s[m.start():]
    if k == 2:
        b = bytearray(s.encode())
        for _ in range(rng.randrange(1, 8)):
            i = rng.randrange(len(b))
            b[i] = rng.choice([c for c in range(1, 256) if c not in (10, 13)])
        return b.decode("latin-1")
    if k == 3:
        return s[:rng.randrange(1, len(s))]
    if k == 4:
        i, j = sorted(rng.randrange(len(s)) for _ in range(2))
        return s[:j] + s[i:j] * rng.randrange(1, 4) + s[j:]
    return s.replace('"events"', '"gap"', 1) if rng.random() < 0.5 else \
        s.replace('"status"', '"events"', 1)


def case_mutate(lab):
    lab.broker()
    d = lab.central("+/+")
    rng = random.Random(20261127)
    seeds = {"events": [batch([q, q + 1, q + 3]) for q in range(1, 400, 4)] +
             [{"type": "gap", "target": "t", "from": q, "to": q + 9, "lost": 10,
               "reason": "slow client"} for q in range(500, 600, 10)],
             "status": [{"type": "status", "target": "t", "state": "running", "rate": 10.5,
                         "fill": 0.25, "bytes_read": 4096, "message": "ok"}]}
    n, procs = 0, []
    for bench in ("f1", "f2"):
        for kind in ("events", "status"):
            lines = [mutate(rng, rng.choice(seeds[kind])) for _ in range(500)]
            n += len(lines)
            path = lab.path("mut-%s-%s" % (bench, kind))
            with open(path, "w", encoding="latin-1") as f:
                f.write("\n".join(lines) + "\n")
            procs.append(subprocess.Popen(["mosquitto_pub", "-p", str(lab.port), "-q", "1",
                                           "-t", "%s/%s/t/%s" % (PREFIX, bench, kind), "-l"],
                                          stdin=open(path, "rb")))
    for p in procs:
        if p.wait(timeout=60):
            raise Fail("mosquitto_pub -l failed")
    # a sentinel after the mutations: once it is there, every mutated message was handled
    pub(lab, "sentinel/t/events", batch([1]))
    wait_for("the sentinel", lambda: (target(lab, d, "sentinel/t") or {}).get("last_seq") == 1,
             30)
    healthy(lab, d)
    for t in lab.targets(d.api):
        recs = export_bounded(d, t["name"], limit=64 << 20, secs=20)
        seqs = [r["seq"] for r in recs]
        if seqs != sorted(set(seqs)) or (seqs and seqs[-1] > 2 ** 53 - 1):
            raise Fail("%s: seqs not ascending or over 2^53-1: %s" % (t["name"], seqs[-5:]))
    m = get(d.api, "metrics")
    print("ok: %d mutated messages; targets %s; dropped %s" % (
        n, sorted(t["name"] for t in lab.targets(d.api)),
        re.findall(r'tracetap_remote_dropped_total\{target="([^"]+)"\} (\S+)', m)))


def main():
    if len(sys.argv) != 6:
        print(__doc__)
        return 2
    if not tools_found(("mosquitto", "mosquitto_sub", "mosquitto_pub", "mosquitto_passwd")):
        return 77
    case = {"seq-max": case_seq_max, "names": case_names, "poison": case_poison,
            "targets": case_targets, "secrets": case_secrets, "mutate": case_mutate}[sys.argv[1]]
    return run(case, sys.argv[2:6], (Fail, OSError, subprocess.SubprocessError))


if __name__ == "__main__":
    sys.exit(main())
