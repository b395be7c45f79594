#!/usr/bin/env python3
"""tests/mqtt/mqtt_test.py: tracetapd --publish against a real mosquitto broker.

A real broker (Debian's mosquitto) on an ephemeral loopback port, tests/live's live_writer as the
simulated target (a 32-bit process writing ThreadX trace entries, followed with --probe
process:PID), mosquitto_sub as the MQTT client that reads PREFIX/#. Every situation is forced
(SIGSTOP/SIGCONT of the writer and the daemon, SIGKILL of the broker), and every wait is on a
condition with a deadline.

usage: mqtt_test.py CASE TRACETAPD TRACETAP LIVE_WRITER CHECK_SEQ
CASE: stream     one daemon, every record once and in order on PREFIX/TARGET/events
      lab        two bench daemons publish, a central daemon subscribes (probe mqtt://.../+/+):
                 `tracetap tail` on it gets every record of both, as the benches have them;
                 malformed and oversized messages on the topic are dropped, counted, logged
      central    a central daemon fed crafted messages: seqs that never came, repeats, a gap
                 message, a publisher that restarted: exact gap records, nothing twice, a reset
      restart    broker killed and restarted mid-stream: the stream carries a gap message with
                 the exact seq range lost, the daemon's memory stays bounded meanwhile, and
                 a central daemon's gap records count exactly what it did not get
      offline    a daemon killed, another stopped: their retained status says "offline"
                 (at once, and within 1.5 keep-alives)
      auth       wrong credentials: a clear error; right ones: records flow
      reload     SIGHUP with another mqtt:// probe, one removed and --publish added: the new
                 probe is subscribed to and delivers; the log names the other two as needing a
                 restart, and the removed subscription still delivers, as it says
      dns        the broker by name while the resolver does not answer (a DNS server of the
                 test's own, in a network and mount namespace with its resolv.conf, holding
                 the query): the daemon keeps answering and reading its target; once the
                 name resolves, records reach the broker
      headless   a bench PC that only feeds the broker: --no-server --publish, no listener
                 of its own, every record on PREFIX/TARGET/events once and in order
      quiet      a central daemon whose probe has one topic level too few for the bench
                 (.../lab/+ for a bench publishing lab/b1/TARGET): it says what it subscribed
                 to and, 10 s later, that nothing has arrived and why that may be
      tls        a broker that speaks only TLS and asks for a client certificate (a CA made
                 with openssl for the run): a bench publishes over mqtts://, a central daemon
                 subscribes over mqtts://, and the central holds what the bench holds; a
                 daemon trusting another CA, and one without a client certificate, each log
                 a clear error, stay up and deliver nothing
      alerts     a trigger's alerts on PREFIX/TARGET/alerts, one per firing, each naming a
                 record of the events topic; none for a trigger whose event never comes
      stats      the live analysis on PREFIX/TARGET/stats: once the writer stopped, the last
                 message is /api/stats of the same daemon; published only when it changed;
                 retained, so a subscriber that comes later gets it at once
      remote-alerts  a bench's alerts reach a central daemon's clients like local ones (tail
                 --json and tail's text line, on the remote target BENCH/TARGET, naming the
                 record the bench named, marked remote); a malformed alert on the topic is
                 dropped, counted on the target and logged, and markup in one is text
"""
import json
import os
import pwd
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "security"))
import wire  # noqa: E402  (raw WebSocket client)

PREFIX = "lab"
KEEPALIVE = 10  # the publisher's default (publish_mqtt.h)


class Fail(Exception):
    pass


class Skip(Exception):
    pass


def wait_for(what, cond, secs):
    end = time.monotonic() + secs
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > end:
            raise Fail("timed out (%d s) waiting for %s" % (secs, what))
        time.sleep(0.05)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Lab:
    def __init__(self, tracetapd, tracetap, writer, check):
        self.tracetapd, self.tracetap, self.writer, self.check = tracetapd, tracetap, writer, check
        self.tmp = tempfile.mkdtemp(prefix="tt-mqtt.")
        self.procs = []
        self.port = None
        self.nbroker = 0
        self.nsub = 0

    def path(self, name):
        return os.path.join(self.tmp, name)

    def spawn(self, name, argv, stdin=None):
        out = open(self.path(name + ".out"), "w")
        err = open(self.path(name + ".err"), "w")
        p = subprocess.Popen(argv, stdout=out, stderr=err, stdin=stdin)
        self.procs.append(p)
        return p

    def read(self, name, ext=".err"):
        try:
            with open(self.path(name + ext)) as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def broker(self, passwd=None, tls=None):
        """Starts mosquitto on self.port (a free one the first time); tls: the listener's
        (cafile, certfile, keyfile), a client certificate required."""
        for _ in range(5):
            port = self.port or free_port()
            self.nbroker += 1
            name = "broker%d" % self.nbroker
            with open(self.path(name + ".conf"), "w") as f:
                f.write("listener %d 127.0.0.1\n" % port)
                # mosquitto queues 1000 QoS 1 messages per client and drops the rest: a burst
                # of a few thousand (the mutation run) would lose the test's own sentinel
                f.write("max_queued_messages 100000\n")
                # run as root, mosquitto would switch to its own user and not read our files
                f.write("user %s\n" % pwd.getpwuid(os.getuid()).pw_name)
                if passwd:
                    f.write("allow_anonymous false\npassword_file %s\n" % passwd)
                else:
                    f.write("allow_anonymous true\n")
                if tls:
                    f.write("cafile %s\ncertfile %s\nkeyfile %s\nrequire_certificate true\n"
                            % tls)
            p = self.spawn(name, ["mosquitto", "-v", "-c", self.path(name + ".conf")])
            ok = wait_for("the broker's start", lambda: "running" in self.read(name) or
                          p.poll() is not None, 10)
            if p.poll() is None and ok:
                self.port, self.broker_name, self.broker_proc = port, name, p
                return p
            if self.port:
                raise Fail("broker cannot listen on %d again: %s" % (port, self.read(name)))
        raise Fail("no port for the broker")

    def sub(self):
        """mosquitto_sub on PREFIX/#, ready once the broker logged its SUBSCRIBE."""
        self.nsub += 1
        name = "sub%d" % self.nsub
        cid = "checker%d" % self.nsub
        p = self.spawn(name, ["mosquitto_sub", "-p", str(self.port), "-V", "mqttv5", "-q", "1",
                              "-i", cid, "-t", PREFIX + "/#", "-v"])
        wait_for("the subscription", lambda: ("Received SUBSCRIBE from " + cid) in
                 self.read(self.broker_name), 10)
        return p

    def start_writer(self, rate, secs, entries=4096, name="writer", extra=()):
        fifo = self.path("hold-" + name)
        os.mkfifo(fifo)
        self.hold_fd = os.open(fifo, os.O_RDWR)
        p = self.spawn(name, [self.writer, str(rate), str(secs), str(entries)] + list(extra),
                       stdin=self.hold_fd)
        line = wait_for("the writer's pid line", lambda: self.read(name, ".out")
                        .partition("\n")[0] if "\n" in self.read(name, ".out") else "", 10)
        f = dict(kv.split("=") for kv in line.split())
        self.writer_proc, self.writer_pid, self.header = p, int(f["pid"]), f["header"]
        return p

    def start_daemon(self, name, args):
        p = self.spawn("d-" + name, [self.tracetapd, "--port", "0"] + args)
        line = wait_for("the daemon's port", lambda: [l for l in self.read("d-" + name)
                        .splitlines() if "dashboard at" in l] or p.poll() is not None, 10)
        if p.poll() is not None:
            raise Fail("tracetapd exited: %s" % self.read("d-" + name))
        p.api = line[0].split("dashboard at ")[1].strip()
        return p

    def central(self, levels, scheme="mqtt", extra=()):
        """A central daemon on PREFIX/LEVELS, once the broker logged its SUBSCRIBE."""
        return self.subscriber(["--probe", "%s://127.0.0.1:%d/%s/%s" %
                                (scheme, self.port, PREFIX, levels)] + list(extra))

    def subscriber(self, args):
        """The daemon "central" with args, once the broker logged its (first) SUBSCRIBE."""
        subs = self.read(self.broker_name).count("Received SUBSCRIBE")
        p = self.start_daemon("central", args)
        wait_for("the central daemon's subscription", lambda: self.read(self.broker_name)
                 .count("Received SUBSCRIBE") > subs, 10)
        return p

    def daemon(self, name, url, extra=()):
        p = self.start_daemon(name, ["--probe", "process:%d" % self.writer_pid, "--address",
                                     self.header, "--name", name, "--publish", url,
                                     "--poll-min", "1", "--poll-max", "10"] + list(extra))
        self.api = p.api
        return p

    def targets(self, api=None):
        with urllib.request.urlopen((api or self.api) + "api/targets", timeout=5) as r:
            return json.load(r)

    def last_seq(self, api=None):
        return self.targets(api)[0]["last_seq"]

    def export(self, api, target):
        url = api + "api/export?format=jsonl&target=" + urllib.parse.quote(target, safe="")
        with urllib.request.urlopen(url, timeout=10) as r:
            return [json.loads(l) for l in r.read().decode().splitlines()]

    def check_seq(self, recs, *args):
        """tests/live/check_seq on records: each event once, in order, or in an exact gap."""
        path = self.path("check-%d.jsonl" % id(recs))
        with open(path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in recs)
        out = subprocess.run([self.check] + list(args) + [path], capture_output=True, text=True)
        if out.returncode:
            raise Fail("check_seq: %s%s" % (out.stdout, out.stderr))
        return out.stdout.strip()

    def cleanup(self, keep):
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.kill(p.pid, signal.SIGCONT)
                    p.kill()
                except ProcessLookupError:
                    pass
                p.wait()
        if keep:
            print("logs kept in", self.tmp)
        else:
            subprocess.call(["rm", "-rf", self.tmp])


def messages(text):
    """(topic, payload object) for each line mosquitto_sub -v wrote."""
    out = []
    for line in text.splitlines():
        topic, _, payload = line.partition(" ")
        out.append((topic, json.loads(payload)))
    return out


def expect_same(what, got, want):
    """Fail naming the first item where got differs from want."""
    if got != want:
        n = max(len(got), len(want))
        i = next(i for i, (a, b) in enumerate(zip(got + [None] * n, want + [None] * n)) if a != b)
        raise Fail("%s at item %d: %s vs %s" % (what, i, got[i] if i < len(got) else None,
                                                 want[i] if i < len(want) else None))


def user_event(seq):
    """A USER_EVENT record of target t with seq, time and raw[0] = seq, as a publisher sends it."""
    return {"type": "event", "target": "t", "seq": seq, "id": 4096, "name": "USER_EVENT",
            "ctx": "thread", "core": 0, "ts": seq, "time": seq, "args": {},
            "raw": [seq, 0, 0, 0]}


def batch(seqs):
    """An events message of target t holding user_event(q) for each q of seqs."""
    return {"type": "events", "target": "t", "first": seqs[0], "last": seqs[-1],
            "records": [user_event(q) for q in seqs]}


def strip(r):
    """A record without what a central daemon numbers and names itself."""
    return {k: v for k, v in r.items() if k not in ("seq", "target")}


class Stream:
    """Checks one target's events topic: every seq exactly once, in order, or inside a gap
    message whose range is exact. QoS 1 is at-least-once: a batch sent again after a reconnect
    must repeat the records already seen, byte for byte (counted, not a failure)."""

    def __init__(self, target):
        self.target = target
        self.next = 1
        self.seen = {}
        self.repeats = 0
        self.gaps = []
        self.items = []  # what a subscriber makes of it: ("gap", seq, lost) or ("rec", seq, record)
        self.prev_time = None

    def feed(self, msg):
        if msg.get("target") != self.target:
            raise Fail("message of %r on %s's topic" % (msg.get("target"), self.target))
        if msg["type"] == "gap":
            if msg["from"] != self.next or msg["lost"] != msg["to"] - msg["from"] + 1:
                raise Fail("gap %s: expected it from seq %d" % (msg, self.next))
            self.gaps.append((msg["from"], msg["to"], msg["reason"]))
            self.items.append(("gap", msg["from"], msg["lost"]))
            self.next = msg["to"] + 1
            self.prev_time = None
            return
        if msg["type"] != "events":
            raise Fail("unexpected message type %r" % msg["type"])
        recs = msg["records"]
        if [r["seq"] for r in recs] != list(range(msg["first"], msg["last"] + 1)):
            raise Fail("batch %d..%d does not hold exactly those seqs" %
                       (msg["first"], msg["last"]))
        for r in recs:
            s = r["seq"]
            if s < self.next:
                if self.seen.get(s) != r:
                    raise Fail("seq %d again, different: %s" % (s, r))
                self.repeats += 1
                continue
            if s != self.next:
                raise Fail("seqs %d..%d missing without a gap" % (self.next, s - 1))
            self.seen[s] = r
            self.items.append(("rec", s, strip(r)))
            self.next = s + 1
            # the writer's clock counts events: consecutive events are consecutive times
            if r["type"] != "event":
                self.prev_time = None
                continue
            if self.prev_time is not None and r["time"] != self.prev_time + 1:
                raise Fail("seq %d: time %d after %d (an event invented or lost)" %
                           (s, r["time"], self.prev_time))
            self.prev_time = r["time"]


def check_stream(lab, target, subs, last):
    st = Stream(target)
    for name in subs:
        for topic, msg in messages(lab.read(name, ".out")):
            if topic == "%s/%s/events" % (PREFIX, target):
                st.feed(msg)
    if st.next != last + 1:
        raise Fail("stream ends before seq %d (next %d)" % (last, st.next))
    return st


def seen_up_to(lab, sub, target, seq):
    def cond():
        for topic, msg in messages(lab.read(sub, ".out")):
            if topic.endswith("/events") and msg["type"] == "events" and msg["last"] >= seq:
                return True
        return False
    return cond


def case_stream(lab):
    lab.broker()
    lab.sub()
    lab.start_writer(5000, 2)
    lab.daemon("b1", "mqtt://127.0.0.1:%d/%s" % (lab.port, PREFIX))
    wait_for("the writer's end", lambda: "done" in lab.read("writer", ".out"), 30)
    # the writer lingers: every record it wrote is in the hub once last_seq stops moving
    last = wait_stable(lab)
    wait_for("seq %d on the topic" % last, seen_up_to(lab, "sub1", "b1", last), 15)
    st = check_stream(lab, "b1", ["sub1"], last)
    # every record of the hub (those before the daemon attached are history the writer may
    # have overwritten first: how many depends on the machine) once, in order, no gap
    if st.gaps or len(st.seen) != last or last < 1000:
        raise Fail("expected seq 1..%d once each, no gap: %d seen, gaps %s" %
                   (last, len(st.seen), st.gaps))
    status = [m for t, m in messages(lab.read("sub1", ".out")) if t == PREFIX + "/b1/status"]
    if not status or status[-1]["state"] != "connected":
        raise Fail("no connected status on %s/b1/status" % PREFIX)
    print("ok: %d records, seq 1..%d, each once and in order (%d repeated by QoS 1)" %
          (len(st.seen), last, st.repeats))


def case_alerts(lab):
    """A trigger's alerts on PREFIX/TARGET/alerts: one message per firing (limit 3), each naming
    a record that the events topic carries; a trigger whose event never comes sends none."""
    lab.broker()
    lab.sub()
    lab.start_writer(2000, 2)
    lab.daemon("b1", "mqtt://127.0.0.1:%d/%s" % (lab.port, PREFIX),
               ["--trigger", "first: *; holdoff=0ms limit=3",
                "--trigger", "none: 65000 info1=7"])
    topic = PREFIX + "/b1/alerts"

    def alerts():
        return [m for t, m in messages(lab.read("sub1", ".out")) if t == topic]
    wait_for("3 alerts on %s" % topic, lambda: len(alerts()) >= 3, 20)
    last = wait_stable(lab)
    wait_for("seq %d on the topic" % last, seen_up_to(lab, "sub1", "b1", last), 15)
    got = alerts()
    if len(got) != 3 or any(m["type"] != "alert" or m["trigger"] != "first" or
                            m["target"] != "b1" for m in got):
        raise Fail("expected 3 alerts of trigger first: %s" % got)
    seqs = set()
    for t, m in messages(lab.read("sub1", ".out")):
        if t == PREFIX + "/b1/events":
            seqs.update(r["seq"] for r in m.get("records", []) if r["type"] == "event")
    missing = [m["seq"] for m in got if m["seq"] not in seqs]
    if missing:
        raise Fail("alerts name seqs the events topic never carried: %s" % missing)
    print("ok: 3 alerts on %s (seqs %s), each a record of the events topic; none for the "
          "trigger whose event never came" % (topic, [m["seq"] for m in got]))


def case_stats(lab):
    lab.broker()
    lab.sub()
    lab.start_writer(2000, 2)
    lab.daemon("b1", "mqtt://127.0.0.1:%d/%s" % (lab.port, PREFIX))
    topic = PREFIX + "/b1/stats"
    wait_for("the writer's end", lambda: "done" in lab.read("writer", ".out"), 30)
    wait_stable(lab)

    def api_stats():
        with urllib.request.urlopen(lab.api + "api/stats?target=b1", timeout=5) as r:
            return json.load(r)

    def stats():
        return [m for t, m in messages(lab.read("sub1", ".out")) if t == topic]

    def still(st):  # the stream's analysis: the stack reading's rate moves with the clock
        return {k: v for k, v in st.items() if k != "stack_scan"}

    def same():
        got = stats()
        return got and still(got[-1]["stats"]) == still(api_stats())
    wait_for("the topic's last stats to be /api/stats", same, 20)
    got = stats()
    last = got[-1]
    if last["type"] != "stats" or last["target"] != "b1":
        raise Fail("not a stats message of b1: %s" % json.dumps(last)[:200])
    threads = last["stats"].get("threads", [])
    if not threads or not last["stats"]["performance"]["context_switches"]:
        raise Fail("the analysis has no threads or no context switches: %s" %
                   json.dumps(last)[:400])
    repeats = [i for i in range(1, len(got)) if got[i] == got[i - 1]]
    if repeats:
        raise Fail("stats published again unchanged (messages %s of %d)" % (repeats, len(got)))
    late = subprocess.run(["mosquitto_sub", "-p", str(lab.port), "-V", "mqttv5", "-C", "1",
                           "-W", "10", "-t", topic], capture_output=True, text=True)
    if late.returncode or json.loads(late.stdout) != last:
        raise Fail("a later subscriber did not get the retained stats: rc %d %s" %
                   (late.returncode, (late.stdout + late.stderr)[:200]))
    print("ok: %d stats messages on %s, each different; the last equals /api/stats (%d threads, "
          "%d context switches) and is retained" % (len(got), topic, len(threads),
                                                   last["stats"]["performance"]["context_switches"]))


def case_remote_alerts(lab):
    """A bench's alerts at a central daemon: the tail of the central gets each as an alert of
    the remote target bench1/board, naming the record the bench named (its seq: the bench's,
    no restart), marked remote, without the bench's capture; bad ones are dropped, counted."""
    lab.broker()
    lab.sub()
    central = lab.central("+/+")
    # tracing off until SIGUSR1: the remote target exists (from the bench's status) and the
    # tails follow it before any event, so every alert comes after they subscribed
    lab.start_writer(2000, 2, extra=["counter", "late"])
    bench = lab.daemon("bench1", "mqtt://127.0.0.1:%d/%s/bench1" % (lab.port, PREFIX),
                       ["--name", "board", "--trigger", "first: *; holdoff=0ms limit=3",
                        "--trigger", "none: 65000 info1=7"])
    wait_for("the remote target", lambda: [t["name"] for t in lab.targets(central.api)]
             == ["bench1/board"], 15)
    ws = central.api.replace("http", "ws")
    lab.spawn("tailj", [lab.tracetap, "tail", ws, "--json"])
    lab.spawn("tailt", [lab.tracetap, "tail", ws, "--no-color"])
    wait_for("both tails subscribed", lambda: lab.targets(central.api)[0].get("clients", 0) >= 2, 10)
    os.kill(lab.writer_pid, signal.SIGUSR1)

    def alerts():
        out = []
        for line in lab.read("tailj", ".out").splitlines():
            try:
                m = json.loads(line)
            except ValueError:
                continue  # a line still being written
            if m.get("type") == "alert":
                out.append(m)
        return out
    got = wait_for("3 alerts at the central daemon", lambda: alerts() if len(alerts()) >= 3
                   else None, 20)
    topic = PREFIX + "/bench1/board/alerts"
    sent = wait_for("the bench's 3 alerts on the topic", lambda: [
        m for t, m in messages(lab.read("sub1", ".out")) if t == topic] or None, 10)
    for a, b in zip(got, sent):
        want = dict(b, target="bench1/board", remote=True)
        want.pop("capture", None)
        if a != want:
            raise Fail("central alert %s, the bench sent %s" % (a, b))
    lab.api = bench.api
    last = wait_stable(lab)
    mine = {r["seq"]: r for r in lab.export(bench.api, "board")}
    wait_for("the central's records up to %d" % last,
             lambda: lab.last_seq(central.api) >= last, 15)
    theirs = {r["seq"]: r for r in lab.export(central.api, "bench1/board")}
    for a in got:
        if a["seq"] not in theirs or dict(theirs[a["seq"]], target="board") != mine[a["seq"]]:
            raise Fail("alert seq %d: the central's record %s, the bench's %s" %
                       (a["seq"], theirs.get(a["seq"]), mine.get(a["seq"])))
    text = [l for l in lab.read("tailt", ".out").splitlines() if l.startswith("!!! alert")]
    if len(text) != 3 or not all(l.startswith("!!! alert first on bench1/board at seq %d: *"
                                              % a["seq"]) for l, a in zip(text, got)):
        raise Fail("tail's alert lines: %s" % text)
    # a malformed alert on the topic: dropped, counted on the target, logged; markup is text
    before = lab.targets(central.api)[0]["dropped"]
    for payload in ['{"type":"alert","trigger":"x","condition":"c","time":"t","seq":0,"count":1}',
                    '{"type":"alert","trigger":"' + "x" * 49 + '","condition":"c","time":"t",'
                    '"seq":1,"count":1}',
                    '{"type":"events","first":1,"last":1,"records":[]}']:
        subprocess.check_call(["mosquitto_pub", "-p", str(lab.port), "-q", "1", "-t", topic,
                               "-m", payload])
    subprocess.check_call(["mosquitto_pub", "-p", str(lab.port), "-q", "1", "-t", topic, "-m",
                           '{"type":"alert","trigger":"x","condition":"<b>c</b>\\u001b[31m",'
                           '"time":"t","seq":2,"count":1}'])
    wait_for("3 drops counted", lambda: lab.targets(central.api)[0]["dropped"] == before + 3, 10)
    bad = wait_for("the markup alert", lambda: [m for m in alerts() if m["trigger"] == "x"], 10)
    if bad[0]["condition"] != "<b>c</b>\x1b[31m" or len(alerts()) != 4:
        raise Fail("the alert with markup: %s (alerts %d)" % (bad[0], len(alerts())))
    line = wait_for("its tail line", lambda: [l for l in lab.read("tailt", ".out").splitlines()
                                              if l.startswith("!!! alert x ")], 10)
    if "\x1b" in line[0]:
        raise Fail("an escape reached the terminal: %r" % line[0])
    log = lab.read("d-central")
    if log.count("topic %s: message of" % topic) != 3:
        raise Fail("the drops are not logged with the topic: %s" % log[-600:])
    print("ok: the bench's 3 alerts at the central daemon as alerts of bench1/board (seqs %s: "
          "the records the bench named), marked remote; tail printed them; 3 bad ones dropped, "
          "counted and logged; markup stays text" % [a["seq"] for a in got])


def listening_sockets(pid):
    """The TCP sockets process pid listens on (its descriptors against /proc/net/tcp*)."""
    inodes = set()
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    listen = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                cols = line.split()
                if cols[3] == "0A" and cols[9] in inodes:  # 0A: LISTEN
                    listen.append(cols[1])
    return listen


def case_headless(lab):
    lab.broker()
    lab.sub()
    lab.start_writer(2000, 1)
    d = lab.spawn("d-bench", [lab.tracetapd, "--no-server", "--name", "bench", "--probe",
                              "process:%d" % lab.writer_pid, "--address", lab.header,
                              "--publish", "mqtt://127.0.0.1:%d/%s" % (lab.port, PREFIX),
                              "--poll-min", "1", "--poll-max", "10"])
    wait_for("the bench's status on %s/bench/status" % PREFIX, lambda: d.poll() is not None or
             any(t == PREFIX + "/bench/status" for t, m in messages(lab.read("sub1", ".out"))),
             10)
    if d.poll() is not None:
        raise Fail("tracetapd --no-server --publish exited: %s" % lab.read("d-bench"))
    if listening_sockets(d.pid):
        raise Fail("--no-server listens: %s" % listening_sockets(d.pid))
    line = wait_for("the writer's end", lambda: [l for l in lab.read("writer", ".out")
                    .splitlines() if l.startswith("done seq=")], 30)
    last_time = int(line[0].split()[1].split("=")[1])

    def tail_arrived():
        return any(r.get("time") == last_time for t, m in messages(lab.read("sub1", ".out"))
                   if t == PREFIX + "/bench/events" for r in m["records"])
    wait_for("the writer's last event (time %d) on the topic" % last_time, tail_arrived, 20)
    st = Stream("bench")
    for topic, msg in messages(lab.read("sub1", ".out")):
        if topic == PREFIX + "/bench/events":
            st.feed(msg)
    if st.gaps or len(st.seen) < 1000:
        raise Fail("expected seq 1..%d once each, no gap: %d seen, gaps %s" %
                   (st.next - 1, len(st.seen), st.gaps))
    print("ok: no listener; %d records, seq 1..%d, each once and in order, the last the "
          "writer's" % (len(st.seen), st.next - 1))


def case_quiet(lab):
    lab.broker()
    lab.start_writer(500, 30)
    lab.daemon("b1", "mqtt://127.0.0.1:%d/%s/b1" % (lab.port, PREFIX))
    c = lab.central("+")  # lab/+/events: the bench sends lab/b1/b1/events
    log = lambda: lab.read("d-central")
    line = wait_for("the central daemon's subscription line", lambda: [
        l for l in log().splitlines() if "subscribed to %s/+/events, %s/+/status and %s/+/alerts" %
        (PREFIX, PREFIX, PREFIX) in l], 15)
    quiet = wait_for("the central daemon saying nothing arrived", lambda: [
        l for l in log().splitlines() if "nothing has arrived on %s/+/events" % PREFIX in l], 40)
    if "PREFIX/+" not in quiet[0] or lab.targets(c.api):
        raise Fail("quiet subscription: %s; targets %s" % (quiet[0], lab.targets(c.api)))
    print("ok:", line[0].split("]: ")[1])
    print("ok:", quiet[0].split("]: ")[1][:160])


def wait_stable(lab):
    """The hub's last seq once it did not move for 0.5 s (the writer has stopped writing)."""
    prev = [-1, time.monotonic()]

    def cond():
        s = lab.last_seq()
        if s != prev[0]:
            prev[:] = [s, time.monotonic()]
            return None
        return s if time.monotonic() - prev[1] > 0.5 else None
    return wait_for("the daemon's last seq to settle", cond, 20)


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise Fail("no VmRSS")


def case_restart(lab):
    lab.broker()
    lab.sub()
    lab.start_writer(20000, 30, 16384)
    cfg = lab.path("d.json")
    with open(cfg, "w") as f:  # a small queue for the publisher (it is a hub client)
        json.dump({"client_queue_frames": 8, "client_queue_bytes": 262144,
                   "history": 5000}, f)
    central = lab.central("+")
    d = lab.daemon("b1", "mqtt://127.0.0.1:%d/%s" % (lab.port, PREFIX), ["--config", cfg])
    wait_for("records on the topic", seen_up_to(lab, "sub1", "b1", 5000), 15)
    # Pause the target; once all it wrote is on the topic, kill the broker.
    os.kill(lab.writer_pid, signal.SIGSTOP)
    before = wait_stable(lab)
    wait_for("seq %d on the topic" % before, seen_up_to(lab, "sub1", "b1", before), 15)
    lab.broker_proc.kill()
    lab.broker_proc.wait()
    sub1 = lab.procs[1]  # it would reconnect to the next broker: its part ends here
    sub1.kill()
    sub1.wait()
    os.kill(lab.writer_pid, signal.SIGCONT)
    # Far more records than the queue holds go by while the broker is gone.
    wait_for("20000 records with the broker gone",
             lambda: lab.last_seq() >= before + 20000, 30)
    rss1 = rss_kib(d.pid)
    wait_for("120000 more records", lambda: lab.last_seq() >= before + 140000, 60)
    rss2 = rss_kib(d.pid)
    if rss2 - rss1 > 8192:
        raise Fail("publisher memory grew by %d KiB with the broker gone (%d -> %d)" %
                   (rss2 - rss1, rss1, rss2))
    # Back: hold the daemon while the broker and a new subscriber come up.
    # (the writer too: records it wrote meanwhile would lap the buffer into gap records)
    os.kill(lab.writer_pid, signal.SIGSTOP)
    os.kill(d.pid, signal.SIGSTOP)
    lab.broker()
    lab.sub()
    wait_for("the central daemon's subscription", lambda: lab.read(lab.broker_name)
             .count("Received SUBSCRIBE") >= 2, 10)
    os.kill(d.pid, signal.SIGCONT)
    last = wait_stable(lab)
    wait_for("seq %d on the topic" % last, seen_up_to(lab, "sub2", "b1", last), 20)
    st = check_stream(lab, "b1", ["sub1", "sub2"], last)
    # (the queue of 8 frames may also overflow at the start, before the first CONNACK)
    slow = [g for g in st.gaps if g[2] == "slow client" and g[0] > before]
    if not slow:
        raise Fail("expected a slow-client gap after seq %d: %s" % (before, st.gaps))
    lost = sum(g[1] - g[0] + 1 for g in st.gaps)
    # The central daemon (subscribed on both brokers before the publisher was) holds what the
    # topic carried: the same records in the same order with the same seqs, each gap message
    # one exact gap record at the seq its range starts with.
    name = PREFIX + "/b1"
    wait_for("the central daemon's last record", lambda: [t for t in lab.targets(central.api)
             if t["name"] == name and t["events"] + t["lost"] >= last], 20)
    recs = lab.export(central.api, name)
    mine = [("gap", r["seq"], r["lost"]) if r["type"] == "gap" and
            r["reason"].startswith("the publisher") else ("rec", r["seq"], strip(r)) for r in recs]
    expect_same("central differs from the topic", mine, st.items)
    print("ok: central: %d records, gap records %s, as on the topic" %
          (len(recs), [r["lost"] for r in recs if r["type"] == "gap"]))
    print("ok: broker down from seq %d: gaps %s (%d lost, exact), seq 1..%d otherwise once "
          "and in order; RSS %d -> %d KiB over 120000 records" %
          (before, st.gaps, lost, last, rss1, rss2))


def case_lab(lab):
    lab.broker()
    central = lab.central("+/+")
    benches = []
    for b in ("bench1", "bench2"):
        lab.start_writer(5000, 2, name="writer-" + b)
        d = lab.daemon(b, "mqtt://127.0.0.1:%d/%s/%s" % (lab.port, PREFIX, b), ["--name", "board"])
        benches.append((b, d, lab.writer_proc))
    names = ["bench1/board", "bench2/board"]
    wait_for("both remote targets", lambda: sorted(t["name"] for t in lab.targets(central.api))
             == names, 10)
    # tail from the oldest record the central holds (the first ones came before tail started)
    tail = lab.spawn("tail", [lab.tracetap, "tail", central.api.replace("http", "ws"),
                              "--json", "--history", "100000"])
    # malformed messages among the records: dropped whole, counted, logged with the topic
    topic = PREFIX + "/bench1/board/events"
    big = lab.path("big")
    with open(big, "w") as f:
        f.write('{"type":"events","target":"board","first":1,"last":1,"records":[' +
                " " * (5 << 20) + "]}")
    # a remote whose BENCH/TARGET would be over 64 bytes: no target, each message dropped
    long_topic = PREFIX + "/" + "b" * 60 + "/board/events"
    good = ('{"type":"events","target":"board","first":1,"last":1,"records":[{"type":"event",'
            '"target":"board","seq":1,"id":4096,"name":"USER_EVENT","ctx":"thread","core":0,'
            '"ts":1,"time":1,"args":{},"raw":[1,0,0,0]}]}')
    bad = [(topic, ["-m", "not json"]),
           (topic, ["-m", '{"type":"events","records":[{"type":"event"}]}']),
           (topic, ["-m", '{"type":"status"}']), (topic, ["-f", big]),
           (long_topic, ["-m", good])]
    for t, args in bad:
        subprocess.check_call(["mosquitto_pub", "-p", str(lab.port), "-q", "1", "-t", t]
                              + args)
    for b, d, w in benches:
        wait_for(b + "'s writer to finish", lambda: "done" in lab.read("writer-" + b, ".out"), 30)
    want = {}
    for b, d, w in benches:
        lab.api = d.api
        last = wait_stable(lab)
        want[b + "/board"] = lab.export(d.api, "board")
        if len(want[b + "/board"]) != last:
            raise Fail("%s: export holds %d records, last seq %d" % (b, len(want[b + "/board"]), last))

    def tail_has_all():
        got = {}
        for line in lab.read("tail", ".out").splitlines():
            r = json.loads(line)
            got.setdefault(r["target"], []).append(r)
        return got if all(len(got.get(n, [])) >= len(want[n]) for n in names) else None
    got = wait_for("every record on tail", tail_has_all, 20)
    for n in names:
        mine = [dict(r, target="board") for r in got[n]]
        expect_same(n + ": tail differs from the bench", mine, want[n])
        print("ok: %s: %d records on tail as the bench has them (%s)" %
              (n, len(mine), lab.check_seq(got[n], "--lossless")))
    log = lab.read("d-central")
    dropped = [l for l in log.splitlines() if "dropped:" in l]
    whys = ["not a JSON object", "records[0]: not a record", "type \"status\" does not belong",
            "over 4194304 bytes", "its name (BENCH/TARGET) is over 64 bytes"]
    if len(dropped) != len(bad) or not all(t in l and w in l for l, (t, _), w in
                                           zip(dropped, bad, whys)):
        raise Fail("expected %d dropped messages naming the topic and why (%s): %s" %
                   (len(bad), whys, dropped))
    for l in dropped:
        print("ok:", l.split("tracetapd[warning]: ")[1])


def case_central(lab):
    lab.broker()
    central = lab.central("+/+")

    msgs = [("events", batch([1, 2, 3])),
            ("events", batch([7, 8])),            # 4..6 never came: a gap of 3
            ("events", batch([2, 3])),            # a repeat: dropped
            ("events", {"type": "gap", "target": "t", "from": 9, "to": 12, "lost": 4,
                        "reason": "slow client"}),  # the publisher's queue: a gap of 4
            ("events", batch([13])),
            ("status", {"type": "status", "target": "t", "state": "offline"}),
            ("events", batch([1, 2])),            # the bench daemon restarted: a reset
            ("events", batch([4]))]               # 3 never came: a gap of 1
    topic = PREFIX + "/bench9/t/"
    for kind, m in msgs:
        subprocess.check_call(["mosquitto_pub", "-p", str(lab.port), "-q", "1", "-t",
                               topic + kind, "-m", json.dumps(m)])
    wait_for("the last record", lambda: [t for t in lab.targets(central.api)
                                         if t["name"] == "bench9/t" and t["last_seq"] >= 18], 10)
    recs = lab.export(central.api, "bench9/t")
    if not all(r["exact"] for r in recs if r["type"] == "gap"):
        raise Fail("central gap records not exact: %s" % recs)
    # the origin's seqs; a gap record at the first seq it stands for; after the restart the
    # origin's seq plus the seq of the reset record (14)
    got = [(r["seq"], r["type"], r.get("time", r.get("lost", r.get("reason")))) for r in recs]
    want = [(1, "event", 1), (2, "event", 2), (3, "event", 3), (4, "gap", 3), (7, "event", 7),
            (8, "event", 8), (9, "gap", 4), (13, "event", 13),
            (14, "reset", "the publishing daemon restarted"),
            (15, "event", 1), (16, "event", 2), (17, "gap", 1), (18, "event", 4)]
    if got != want:
        raise Fail("central records %s, expected %s" % (got, want))
    print("ok: central: %s" % got)
    # A WebSocket client resuming across a hole gets the records after it and no loss report
    # (the gap record it saw before stood for the hole); one resuming before the gap record
    # gets that record once.
    port = urllib.parse.urlparse(central.api).port
    for since, seqs in ((4, [7, 8, 9, 13, 14, 15, 16, 17, 18]), (5, [7, 8, 9, 13, 14, 15, 16, 17, 18]),
                        (9, [13, 14, 15, 16, 17, 18]), (3, [4, 7, 8, 9, 13, 14, 15, 16, 17, 18])):
        got = ws_resume(port, "bench9/t", since, 18)
        if got != [("rec", q) for q in seqs]:
            raise Fail("resume after %d: %s, expected records %s and nothing else" %
                       (since, got, seqs))
        print("ok: resume after seq %d: records %s, no gap message" % (since, seqs))


def ws_resume(port, target, since, last):
    """What a WebSocket client resuming on target after seq `since` receives up to seq `last`:
    ("rec", seq) per record, ("gap", from, to, lost) per gap message."""
    ws, status, body = wire.ws_open(port)
    if not ws:
        raise Fail("WebSocket upgrade refused: %d %s" % (status, body[:200]))
    out = []
    try:
        ws.send(json.dumps({"type": "subscribe", "targets": [target], "since": {target: since}}))
        deadline = time.monotonic() + 10
        while not out or out[-1][:2] != ("rec", last) and out[-1][2:3] != (last,):
            if time.monotonic() > deadline:
                raise Fail("resume after %d: no seq %d within 10 s: %s" % (since, last, out))
            op, payload = ws.recv(max(0.01, deadline - time.monotonic()))
            if op != 1:
                continue
            m = json.loads(payload)
            if m["type"] == "events":
                out += [("rec", r["seq"]) for r in m["records"]]
            elif m["type"] == "gap":
                out.append(("gap", m["from"], m["to"], m["lost"]))
    finally:
        ws.close()
    return out


def case_offline(lab):
    """b"1\\ killed (its socket closes: the broker sends the will at once; the name is JSON-escaped
    in it); b2 stopped with SIGSTOP (the socket stays open and silent: the will comes after 1.5
    keep-alives). A target named with a wildcard is not published, and the log says why."""
    lab.broker()
    lab.sub()
    lab.start_writer(1000, 60)
    url = "mqtt://127.0.0.1:%d/%s" % (lab.port, PREFIX)
    b1 = 'b"1\\'
    d1 = lab.daemon(b1, url)
    d2 = lab.daemon("b2", url)
    for t in (b1, "b2"):
        wait_for("records of " + t, seen_up_to(lab, "sub1", t, 10), 15)
    lab.daemon("b+3", url)
    wait_for("the wildcard name refused", lambda: "target b+3: not published: its name cannot "
             "be in a topic" in lab.read("d-b+3"), 10)

    def offline(target):
        def cond():
            for topic, msg in messages(lab.read("sub1", ".out")):
                if topic == "%s/%s/status" % (PREFIX, target) and msg.get("state") == "offline" \
                        and msg.get("target") == target:
                    return True
            return False
        return cond
    for target, d, how in ((b1, d1, signal.SIGKILL), ("b2", d2, signal.SIGSTOP)):
        t0 = time.monotonic()
        os.kill(d.pid, how)
        wait_for("the offline status of " + target, offline(target), KEEPALIVE * 1.5 + 10)
        took = time.monotonic() - t0
        # the broker sends the will when 1.5 keep-alives pass without a packet (mosquitto
        # looks at keep-alives every few seconds)
        if took > KEEPALIVE * 1.5 + 5:
            raise Fail("%s offline after %.1f s, keep-alive %d s" % (target, took, KEEPALIVE))
        # retained: a client that comes later sees it first
        out = subprocess.run(["mosquitto_sub", "-p", str(lab.port), "-t",
                              "%s/%s/status" % (PREFIX, target), "-C", "1", "-W", "5"],
                             capture_output=True, text=True)
        if json.loads(out.stdout or "{}").get("state") != "offline":
            raise Fail("retained status of %s is not offline: %r" % (target, out.stdout))
        print("ok: %s offline %.1f s after %s (keep-alive %d s), retained" %
              (target, took, signal.Signals(how).name, KEEPALIVE))


def case_auth(lab):
    pw = lab.path("passwd")
    open(pw, "w").close()
    subprocess.check_call(["mosquitto_passwd", "-b", pw, "bench", "right"])
    lab.broker(passwd=pw)
    lab.start_writer(1000, 30)
    d = lab.daemon("b1", "mqtt://bench:wrong@127.0.0.1:%d/%s" % (lab.port, PREFIX))
    wait_for("the refusal in the log", lambda: "refused the connection: Not authorized" in
             lab.read("d-b1"), 10)
    if d.poll() is not None:
        raise Fail("the daemon stopped on a refused connection")
    d.kill()
    d.wait()
    print("ok: wrong credentials:", [l for l in lab.read("d-b1").splitlines()
                                     if "refused" in l][0])
    # the right ones: records flow
    p = lab.spawn("subauth", ["mosquitto_sub", "-p", str(lab.port), "-u", "bench", "-P",
                              "right", "-t", PREFIX + "/#", "-v", "-i", "checkerauth"])
    wait_for("the subscription", lambda: "Received SUBSCRIBE from checkerauth" in
             lab.read(lab.broker_name), 10)
    lab.daemon("b2", "mqtt://bench:right@127.0.0.1:%d/%s" % (lab.port, PREFIX))
    wait_for("records with the right credentials", seen_up_to(lab, "subauth", "b2", 10), 15)
    if "refused" in lab.read("d-b2"):
        raise Fail("refused with the right credentials")
    print("ok: right credentials: records flow")


def case_reload(lab):
    lab.broker()
    url = "mqtt://127.0.0.1:%d/%s/+/+" % (lab.port, PREFIX)
    other = "mqtt://127.0.0.1:%d/other/+" % lab.port
    cfg = lab.path("tracetapd.json")
    with open(cfg, "w") as f:
        json.dump({"targets": [{"name": "lab", "probe": url}]}, f)
    d = lab.subscriber(["--config", cfg])
    with open(cfg, "w") as f:
        json.dump({"publish": "mqtt://127.0.0.1:%d/%s" % (lab.port, PREFIX),
                   "targets": [{"name": "other", "probe": other}]}, f)
    os.kill(d.pid, signal.SIGHUP)
    wait_for("the reload", lambda: "configuration reloaded" in lab.read("d-central"), 10)
    want = ["reload: publish changed: not applied until tracetapd restarts",
            "reload: target other: subscribed to %s" % other,
            "reload: probe %s: no longer configured, still subscribed until tracetapd restarts"
            % url]
    log = lab.read("d-central")
    for w in want:
        if w not in log:
            raise Fail("no %r in the log after the reload:\n%s" % (w, log))
        print("ok:", w)
    # both subscriptions deliver: the one the reload added, and the one made at start (as the
    # log says)
    msg = json.dumps(batch([1]))
    for topic in ("other/x/events", PREFIX + "/bench9/t/events"):
        subprocess.check_call(["mosquitto_pub", "-p", str(lab.port), "-q", "1", "-t", topic,
                               "-m", msg])
    for name in ("other/x", "bench9/t"):
        wait_for(name + " on the central daemon", lambda: [
            t for t in lab.targets(d.api) if t["name"] == name and t["last_seq"] == 1], 10)
    print("ok: records from the added subscription and from the removed one")


class HeldDns:
    """A DNS server on 127.0.0.1:53 (UDP) that holds every query until release(), then answers
    A queries for NAME with 127.0.0.1 and any other with no record."""

    def __init__(self, name):
        import threading
        self.name, self.held, self.answering = name, [], False
        self.lock = threading.Lock()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 53))
        threading.Thread(target=self.serve, daemon=True).start()

    def qname(self, q):
        labels, i = [], 12
        while i < len(q) and q[i]:
            labels.append(q[i + 1:i + 1 + q[i]].decode(errors="replace"))
            i += 1 + q[i]
        return ".".join(labels), i + 1

    def answer(self, q, peer):
        name, end = self.qname(q)
        qtype = int.from_bytes(q[end:end + 2], "big")
        hit = name == self.name and qtype == 1
        r = q[:2] + b"\x81\x80" + b"\x00\x01" + (b"\x00\x01" if hit else b"\x00\x00") + \
            b"\x00\x00\x00\x00" + q[12:end + 4]
        if hit:
            r += b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04\x7f\x00\x00\x01"
        self.sock.sendto(r, peer)

    def serve(self):
        while True:
            q, peer = self.sock.recvfrom(4096)
            with self.lock:
                if not self.answering:
                    self.held.append((q, peer))
                    continue
            self.answer(q, peer)

    def asked(self):
        with self.lock:
            return [self.qname(q)[0] for q, _ in self.held]

    def release(self):
        with self.lock:
            self.answering = True
            held, self.held = self.held, []
        for q, peer in held:
            self.answer(q, peer)


def case_dns(lab):
    if not os.environ.get("TT_MQTT_NETNS"):
        raise Fail("case dns runs in its own namespaces (main() puts it there)")
    subprocess.check_call(["ip", "link", "set", "lo", "up"])
    conf = lab.path("resolv.conf")
    with open(conf, "w") as f:
        f.write("nameserver 127.0.0.1\noptions timeout:30 attempts:1\n")
    subprocess.check_call(["mount", "--bind", conf, "/etc/resolv.conf"])
    name = "broker.tracetap-test"
    dns = HeldDns(name)
    lab.broker()
    lab.sub()
    lab.start_writer(1000, 30)
    lab.daemon("b1", "mqtt://%s:%d/%s" % (name, lab.port, PREFIX))
    try:
        wait_for("the daemon's query for %s" % name, lambda: name in dns.asked(), 10)
    except Fail:
        raise Skip("this machine's resolver does not ask DNS for %s (nsswitch.conf): %s" %
                   (name, lab.read("d-b1")))
    # the query is held: the resolver waits (30 s); the daemon must not
    def seq_now():
        try:
            with urllib.request.urlopen(lab.api + "healthz", timeout=5) as r:
                r.read()
            return lab.last_seq()
        except OSError as e:
            raise Fail("the daemon did not answer while %s was being looked up: %s" % (name, e))
    for i in range(3):
        seq = seq_now()
        wait_for("records read while the name is looked up", lambda: seq_now() > seq, 5)
    if name not in dns.asked():
        raise Fail("the query was answered meanwhile: the check proves nothing")
    print("ok: while the resolver held the query for %s, /healthz answered and the target "
          "was read (seq %d)" % (name, lab.last_seq()))
    # a daemon told to stop while its lookup is held waits for it, then exits cleanly
    asked, api1 = len(dns.asked()), lab.api
    b2 = lab.daemon("b2", "mqtt://%s:%d/%s" % (name, lab.port, PREFIX))
    lab.api = api1
    wait_for("b2's query", lambda: len(dns.asked()) > asked, 10)
    b2.send_signal(signal.SIGTERM)
    dns.release()
    try:
        rc = b2.wait(timeout=15)
    except subprocess.TimeoutExpired:
        raise Fail("b2 did not exit within 15 s of SIGTERM once its lookup was answered")
    if rc != 0:
        raise Fail("b2 exited with %d after SIGTERM during its lookup: %s" % (rc, lab.read("d-b2")))
    print("ok: SIGTERM during a held lookup: exit 0 once the resolver answered")
    wait_for("records on the broker once the name resolves",
             seen_up_to(lab, "sub1", "b1", lab.last_seq()), 15)
    print("ok: once %s resolved, records up to seq %d on %s/b1/events" %
          (name, lab.last_seq(), PREFIX))


def make_ca(lab, name):
    """A CA of the run's own: NAME.pem and NAME.key."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj",
                    "/CN=tracetap test " + name, "-keyout", lab.path(name + ".key"),
                    "-out", lab.path(name + ".pem")], check=True, capture_output=True)


def make_cert(lab, ca, name, ext):
    """NAME.pem/NAME.key signed by CA, with the X.509 extensions EXT."""
    key, csr, extf = lab.path(name + ".key"), lab.path(name + ".csr"), lab.path(name + ".ext")
    with open(extf, "w") as f:
        f.write(ext + "\n")
    subprocess.run(["openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-subj", "/CN=" + name, "-keyout", key, "-out", csr],
                   check=True, capture_output=True)
    subprocess.run(["openssl", "x509", "-req", "-in", csr, "-CA", lab.path(ca + ".pem"),
                    "-CAkey", lab.path(ca + ".key"), "-CAcreateserial", "-days", "2",
                    "-extfile", extf, "-out", lab.path(name + ".pem")],
                   check=True, capture_output=True)
    return lab.path(name + ".pem"), key


def case_tls(lab):
    make_ca(lab, "ca")
    make_ca(lab, "other-ca")
    srv = make_cert(lab, "ca", "server", "subjectAltName=IP:127.0.0.1,DNS:localhost")
    cli = make_cert(lab, "ca", "client", "extendedKeyUsage=clientAuth")
    ca = lab.path("ca.pem")
    lab.broker(tls=(ca,) + srv)
    mine = ["--mqtt-ca", ca, "--mqtt-cert", cli[0], "--mqtt-key", cli[1]]
    central = lab.central("+/+", "mqtts", mine)
    lab.start_writer(5000, 2)
    url = "mqtts://127.0.0.1:%d/%s/bench1" % (lab.port, PREFIX)
    d = lab.daemon("b1", url, ["--name", "board"] + mine)
    wait_for("the writer's end", lambda: "done" in lab.read("writer", ".out"), 30)
    last = wait_stable(lab)
    want = lab.export(d.api, "board")
    if len(want) != last or last < 1000:
        raise Fail("bench: export holds %d records, last seq %d" % (len(want), last))
    wait_for("seq %d on the central daemon" % last, lambda: [
        t for t in lab.targets(central.api) if t["name"] == "bench1/board" and
        t["last_seq"] >= last], 20)
    got = [dict(r, target="board") for r in lab.export(central.api, "bench1/board")]
    expect_same("central differs from the bench", got, want)
    print("ok: %d records over TLS both ways, the central's equal to the bench's (%s)" %
          (len(got), lab.check_seq(got, "--lossless")))
    # a daemon that trusts another CA, one without a client certificate: each says why, stays
    # up, and nothing of theirs reaches the broker
    wrong = {"b2": ["--mqtt-ca", lab.path("other-ca.pem"), "--mqtt-cert", cli[0],
                    "--mqtt-key", cli[1]],
             "b3": ["--mqtt-ca", ca]}
    daemons = {}
    for name, extra in wrong.items():
        daemons[name] = lab.daemon(name, "mqtts://127.0.0.1:%d/%s/%s" % (lab.port, PREFIX, name),
                                   extra)
    # b3: OpenSSL's reason when libmosquitto reads the broker's alert, the daemon's own words
    # when the alert ends a write (libmosquitto passes only EPROTO on): which one is timing
    for name, whys in (("b2", ["certificate verify failed"]),
                       ("b3", ["certificate required", "want a client certificate"])):
        line = wait_for(name + "'s error in its log", lambda: [
            l for l in lab.read("d-" + name).splitlines() if "mqtt 127.0.0.1:%d" % lab.port in l
            and any(w in l for w in whys)], 15)[0]
        print("ok: %s: %s" % (name, line.split("]: ", 1)[1]))
    for name, p in daemons.items():
        if p.poll() is not None:
            raise Fail("%s stopped on a refused TLS connection" % name)
        if lab.last_seq(p.api) == 0:
            raise Fail("%s read nothing from its target" % name)
    names = sorted(t["name"] for t in lab.targets(central.api))
    if names != ["bench1/board"]:
        raise Fail("the central daemon has targets %s: only bench1/board came over TLS" % names)
    print("ok: nothing of b2 and b3 on the broker; both daemons up and reading their target")


def main():
    if len(sys.argv) != 6:
        print(__doc__)
        return 2
    if not tools_found(("mosquitto", "mosquitto_sub", "mosquitto_passwd", "openssl")):
        return 77
    case = {"stream": case_stream, "lab": case_lab, "central": case_central, "restart": case_restart, "offline": case_offline,
            "auth": case_auth, "reload": case_reload, "tls": case_tls, "dns": case_dns,
            "headless": case_headless, "quiet": case_quiet, "alerts": case_alerts,
            "stats": case_stats, "remote-alerts": case_remote_alerts}[sys.argv[1]]
    if sys.argv[1] == "dns" and not os.environ.get("TT_MQTT_NETNS"):
        # a network namespace (port 53 and loopback of its own) and a mount namespace (its
        # resolv.conf), as root of a user namespace
        if subprocess.call(["unshare", "-rmn", "true"], stderr=subprocess.DEVNULL):
            print("SKIP: no user, mount and network namespace (unshare -rmn)")
            return 77
        os.environ["TT_MQTT_NETNS"] = "1"
        os.execvp("unshare", ["unshare", "-rmn", sys.executable] + sys.argv)
    return run(case, sys.argv[2:6])


def tools_found(progs):
    """Whether every program is installed; says SKIP with the first missing one if not."""
    for prog in progs:
        if subprocess.call(["sh", "-c", "command -v " + prog], stdout=subprocess.DEVNULL):
            print("SKIP: %s not installed (Debian: mosquitto, mosquitto-clients, openssl)" % prog)
            return False
    return True


def run(case, args, errors=(Fail,)):
    """Runs case on a Lab made of args: 0 passed, 1 failed (the daemons' last log lines
    printed; the scratch folder kept), 77 skipped."""
    lab = Lab(*args)
    fail = False
    skip = False
    try:
        case(lab)
    except Skip as e:
        skip = True
        print("SKIP:", e)
    except errors as e:
        fail = True
        print("FAIL:", e)
        for name in sorted(os.listdir(lab.tmp)):
            if name.endswith(".err") and not name.startswith("sub"):
                print("---", name)
                print("\n".join(lab.read(name[:-4]).splitlines()[-12:]))
    finally:
        lab.cleanup(fail or os.environ.get("TT_KEEP"))
    return 1 if fail else 77 if skip else 0


if __name__ == "__main__":
    sys.exit(main())
