#!/usr/bin/env python3
"""tests/security/attacks.py: hostile clients and careless operators against a real tracetapd.

Every attack runs against tracetapd on 127.0.0.1 (ephemeral ports), fed by tt-fw-threadx
writing a ThreadX trace into a RAM file (--probe file:), with a live WebSocket client reading
all along. Each row asserts the daemon's answer, then that the daemon is alive, its descriptors
came back to where they were, its RSS did not grow beyond the row's bound, and that the live
client lost nothing (consecutive seqs, no gap message) and kept receiving. One line per row:

    ROW <name> <ok|FAIL|KNOWN> <what was seen>

usage: attacks.py [--openocd-cfg FILE] [ROW ...]   (no ROW: every row)
env: TRACETAPD FW_THREADX SIMTARGET (meson sets them); TT_KEEP=1 keeps the
     scratch directory. Exit 0 when every row passed, 1 otherwise, 77 when a tool is missing.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wire  # noqa: E402
from harness import (FW, RAM, SECRET, TRACETAPD, WEB, WORK, Daemon, Fail, aftermath,  # noqa: E402
                     check, ended, results, row, run_rows, snapshot, wait_until)
import rows_text  # noqa: E402,F401  (registers the rows of hostile text and answers)


# ---- the holes ----

@row("request-body", rss_kib=1024)
def request_body(d):
    """A GET with a body: refused with 413 and closed, never left hanging with its response
    frame leaked. RSS after N and after 4N requests: no growth per request."""
    def once():
        st, _, _ = wire.http(d.port, "/healthz", {"Content-Length": "5"}, b"hello", timeout=3)
        check(st == 413, "GET with a body: %s, expected 413" % st)
    n, t0 = 300, time.monotonic()
    for _ in range(n):
        once()
    r1 = d.rss_kib()
    for _ in range(3 * n):
        once()
    r4 = d.rss_kib()
    st, _, _ = wire.http(d.port, "/api/targets", {"Transfer-Encoding": "chunked"},
                         b"5\r\nhello\r\n0\r\n\r\n", timeout=3)
    check(st == 413, "chunked body: %s" % st)
    check(r4 - r1 < 512 or d.sanitized(),
          "RSS %d KiB after %d requests, %d KiB after %d" % (r1, n, r4, 4 * n))
    lines = d.text().count("refused a request with a body")
    check(lines <= 10 * (time.monotonic() - t0 + 1),
          "%d log lines for %d refusals: not rate-limited" % (lines, 4 * n + 1))
    return "413 x %d; RSS %d KiB after %d, %d KiB after %d" % (4 * n + 1, r1, n, r4, 4 * n)


@row("dns-rebinding")
def dns_rebinding(d):
    p = d.port
    evil = {"Host": "evil.example:%d" % p, "Origin": "http://evil.example:%d" % p}
    seen = []
    for path in ("/api/export", "/metrics", "/api/targets"):
        st, _, _ = wire.http(p, path, evil)
        check(st == 403, "%s with a rebound Host and Origin: %s" % (path, st))
        st, _, _ = wire.http(p, path, {"Host": evil["Host"]})
        check(st == 403, "%s with a rebound Host (same-origin fetch): %s" % (path, st))
    ws, st, _ = wire.ws_open(p, headers=evil)
    check(ws is None and st == 403, "WebSocket from a rebound page: %s" % st)
    seen.append("evil Host/Origin 403")
    for hdrs, want in (({"Origin": "https://127.0.0.1:%d" % p}, 403),   # scheme differs
                       ({"Origin": "http://127.0.0.1:1"}, 403),           # another local site
                       ({"Host": "localhost:9000", "Origin": "http://localhost:9000"}, 200),  # ssh -L
                       ({"Host": "127.0.0.1"}, 200),
                       ({"Origin": "null"}, 403),
                       ({"Host": "localhost:%d" % p, "Origin": "http://localhost:%d" % p}, 200),
                       ({"Host": "[::1]:%d" % p, "Origin": "http://[::1]:%d" % p}, 200),
                       ({"Origin": "http://allowed.example:8080"}, 200),
                       ({"Host": "allowed.example:8080"}, 200)):
        st, _, _ = wire.http(p, "/api/targets", hdrs)
        check(st == want, "%s: %s, expected %s" % (hdrs, st, want))
    seen.append("loopback names (any port, a tunnel's) 200; another scheme, another local "
                "site's Origin, null 403; --origin 200")
    return ", ".join(seen)


@row("long-headers")
def long_headers(d):
    p = d.port
    for origin in ("http://127.0.0.1:%d" % p + "/" + "a" * 600, "http://evil.example" + "a" * 600):
        st, _, _ = wire.http(p, "/api/targets", {"Origin": origin})
        check(st == 403, "Origin of %d bytes: %s, expected 403" % (len(origin), st))
        ws, st, _ = wire.ws_open(p, headers={"Origin": origin})
        check(ws is None and st == 403, "WebSocket, Origin of %d bytes: %s" % (len(origin), st))
    st, _, _ = wire.http(p, "/api/targets", {"Host": "h" * 300})
    check(st in (400, 403), "Host of 300 bytes: %s" % st)
    return "Origin of 600+ bytes 403 (HTTP and WebSocket), Host of 300 %s" % st


@row("export-params")
def export_params(d):
    out = []
    for q, want in (("target=" + "a" * 200, 400), ("format=" + "f" * 100, 400),
                    ("target=nosuch", 404), ("format=bogus", 400)):
        st, _, body = wire.http(d.port, "/api/export?" + q)
        check(st == want, "export ?%s...: %s, expected %s" % (q[:20], st, want))
        out.append("%s %d" % (q[:9], st))
    return ", ".join(out)


@row("empty-message")
def empty_message(d):
    ws, st, _ = wire.ws_open(d.port)
    check(ws, "upgrade: %s" % st)
    ws.recv()  # hello
    ws.send(b"")
    got = []
    while not got or got[-1].get("type") != "error":
        op, pl = ws.recv()
        got.append(json.loads(pl) if op == 1 else {})
    check(got[-1]["code"] == "bad_request", "empty message: %s" % got[-1])
    ws.send(json.dumps({"type": "ping", "id": 7}))
    while True:
        op, pl = ws.recv()
        if op == 1 and json.loads(pl).get("type") == "pong":
            break
    ws.close()
    return "error bad_request, connection kept (pong)"


@row("html-escape")
def html_escape(d):
    st, _, body = wire.http(d.port, "/api/targets", {"Origin": "http://<script>alert(1)</script>"})
    check(st == 403, "status %s" % st)
    check(b"<script>" not in body and (b"&lt;script&gt;" in body or b"\\u003cscript\\u003e" in body),
          "403 answer: %r" % body[-200:])
    return "403 answer quotes the Origin escaped"


@row("long-api-path")
def long_api_path(d):
    st, _, _ = wire.http(d.port, "/api/" + "x" * 300)
    check(st == 414, "/api/ + 300 bytes: %s, expected 414" % st)
    st, _, _ = wire.http(d.port, "/api/nosuch")
    check(st == 404, "/api/nosuch: %s" % st)
    return "414 (not 405); /api/nosuch 404"


@row("symlink-escape")
def symlink_escape(d):
    for path in ("/leak.txt", "/outside/secret.txt", "/outside/"):
        st, _, body = wire.http(d.port, path)
        check(SECRET.encode() not in body and st != 200, "%s: %s %r" % (path, st, body[:80]))
    st, _, body = wire.http(d.port, "/alias.html")
    check(st == 200 and b"tracetap test page" in body, "a symlink inside the folder: %s" % st)
    return "links out of the web folder 404, a link inside it 200"


@row("unmasked-frame", known="libwebsockets 4.1 does not check the mask bit of client frames")
def unmasked_frame(d):
    ws, st, _ = wire.ws_open(d.port)
    ws.recv()
    ws.send(json.dumps({"type": "ping", "id": 1}), mask=False)
    try:
        code = ws.until_close(3)
    except socket.timeout:
        code = "none in 3 s (answered: connection open)"
    ws.close()
    check(code == 1002, "unmasked client frame: close %s, expected 1002" % code)
    return "close 1002"


@row("oversized-ping", known="libwebsockets 4.1 drops the connection without a close frame")
def oversized_ping(d):
    ws, st, _ = wire.ws_open(d.port)
    ws.recv()
    ws.send(b"p" * 200, opcode=9)
    code = ws.until_close(5)
    ws.close()
    check(code == 1002, "ping of 200 bytes: close %s, expected a close frame 1002" % code)
    return "close 1002"


@row("export-flood", rss_kib=65536)
def export_flood(d):
    """Many .trx exports whose readers never read: at most max_exports run (the rest 503),
    /healthz and the live client go on."""
    socks, codes = [], []
    for _ in range(20):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", d.port))
        s.sendall(("GET /api/export?format=trx HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n"
                   % d.port).encode())
        socks.append(s)
    refusals = []
    for s in socks:
        s.settimeout(5)
        head = s.recv(200)
        codes.append(int(head.split()[1]))
        if codes[-1] == 503:  # the whole small answer: it says how many ran then
            while b"\r\n\r\n" not in head or not head.rstrip().endswith(b"}"):
                more = s.recv(400)
                if not more:
                    break
                head += more
            refusals.append(head)
    worst = max(d.healthz_ms() for _ in range(10))
    d.live.receiving(5)
    busy, ok = codes.count(503), codes.count(200)
    # An export whose history fits the socket buffers can finish while the others stall, and
    # free its place: then more than 4 of 20 get 200 in all. What the bound guarantees is that
    # each refusal came with 4 running: every 503 says so.
    check(busy == 20 - ok and busy > 0, "20 stalled exports: %d got 200, %d 503" % (ok, busy))
    check(all(b"4 exports in progress" in r for r in refusals),
          "a refusal with other than 4 running: %r" % [r[-120:] for r in refusals])
    # /healthz answered (healthz_ms fails after 5 s); its latency is reported, not judged:
    # it depends on the machine, the bound on running exports does not
    for s in socks:
        s.close()
    wait_until(lambda: wire.http(d.port, "/api/export?format=jsonl")[0] == 200, 10,
               "an export once the stalled ones are gone")
    return "%d ran, %d got 503; /healthz at worst %.1f ms meanwhile" % (ok, busy, worst)


@row("fd-limit", on_main=False)
def fd_limit():
    """60 WebSocket clients under a limit of 64 descriptors: the daemon refuses the surplus with
    503 instead of spinning on accept() (EMFILE), its log stays small, /healthz answers."""
    d = Daemon("fdlimit", ["--max-clients", "1000"], nofile=64)
    try:
        m = re.search(r"at most (\d+) clients instead of 1000", d.text())
        check(m, "no warning that max_clients was lowered: " + d.text()[-400:])
        wait_until(lambda: api_state(d, "target")[0] == "connected", 30, "target connected")
        base = snapshot(d)
        conns, codes, hung = [], [], 0
        for _ in range(60):
            try:
                ws, st, _ = wire.ws_open(d.port, timeout=5)
                codes.append(st)
                if ws:
                    conns.append(ws)
            except (socket.timeout, OSError):
                hung += 1
                break  # a daemon that stopped answering: no need to feed its spin longer
        cpu0 = d.cpu_s()
        time.sleep(2)  # measuring: what the daemon burns while nothing happens
        cpu = d.cpu_s() - cpu0
        ms = d.healthz_ms()
        logsize = os.path.getsize(d.logpath)
        for ws in conns:
            ws.close()
        check(hung == 0, "%d of 60 connections got no answer" % hung)
        check(codes.count(101) == int(m.group(1)) and codes.count(503) == 60 - int(m.group(1)),
              "answers: %d x 101, %d x 503 (limit %s)" % (codes.count(101), codes.count(503),
                                                      m.group(1)))
        check(cpu < 0.5, "%.2f s of CPU in 2 s while idle at the limit" % cpu)
        check(logsize < 100000, "log of %d bytes" % logsize)
        seen = "%d x 101, %d x 503, 0 hung; %.2f s CPU in 2 s; log %d bytes; /healthz %.1f ms" % (
            codes.count(101), codes.count(503), cpu, logsize, ms)
        try:
            return seen + "; " + aftermath(d, base) + "; " + ended(d)
        except Fail as e:
            raise Fail("%s; daemon log: %s" % (e, d.text()[-600:]))
    finally:
        d.stop()


def child_pids(pid):
    out = []
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                with open("/proc/%s/stat" % e) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(e))
            except OSError:
                pass
    return out


def api_state(d, target):
    st, _, body = wire.http(d.port, "/api/targets", d.auth if hasattr(d, "auth") else None)
    for t in json.loads(body):
        if t["name"] == target:
            return t["state"], t["events"]
    return None, 0


@row("sighup-stopping", on_main=False)
def sighup_stopping():
    """Three SIGHUPs, each changing a target that is still stopping (its OpenOCD held with
    SIGSTOP, so the stop takes the spawn grace period): the slot's configuration must not be
    freed under it (ASan: use-after-free in cfg_equal). It restarts with the last one."""
    cfg_file, sim_port = os.environ.get("OPENOCD_CFG"), None
    sim = subprocess.Popen([os.environ["SIMTARGET"], "--base", "0x20000000", "--size", "65536",
                            "--ram", RAM], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
    try:
        m = re.match(r"listening port=(\d+)", sim.stdout.readline())
        check(m, "simulator did not start")
        sim_port = m.group(1)

        def conf(poll):
            return {"port": 0, "targets": [{
                "name": "sim", "probe": "openocd-spawn", "address": "0x20000000",
                "address_is_pointer": True, "poll_max_ms": poll,
                "openocd_args": ["-f", cfg_file, "-c", "remote_bitbang port " + sim_port]}]}
        d = Daemon("hup", config=conf(50), target=False)
        try:
            wait_until(lambda: api_state(d, "sim")[0] == "connected", 30, "sim connected")
            d.start_live()
            base = snapshot(d)
            ocd = child_pids(d.p.pid)
            check(len(ocd) == 1, "OpenOCD children: %s" % ocd)
            os.kill(ocd[0], signal.SIGSTOP)
            try:
                for i, poll in enumerate((40, 30, 20)):
                    d.write_config(conf(poll))
                    d.p.send_signal(signal.SIGHUP)
                    wait_until(lambda: d.text().count("configuration reloaded") == i + 1, 10,
                               "reload %d logged" % (i + 1))
            finally:
                os.kill(ocd[0], signal.SIGCONT)
            wait_until(lambda: "configuration changed: restarting" in d.text(), 20,
                       "the target restarted")
            wait_until(lambda: api_state(d, "sim")[0] == "connected", 30, "sim connected again")
            restarts = d.text().count("configuration changed: restarting")
            check(restarts == 1, "%d restarts" % restarts)
            # removed, then back unchanged while it still stops: it must come back
            ocd = child_pids(d.p.pid)
            check(len(ocd) == 1, "OpenOCD children: %s" % ocd)
            os.kill(ocd[0], signal.SIGSTOP)
            try:
                for i, c in enumerate(({"port": 0, "targets": []}, conf(20))):
                    d.write_config(c)
                    d.p.send_signal(signal.SIGHUP)
                    wait_until(lambda: d.text().count("configuration reloaded") == i + 4, 10,
                               "reload %d logged" % (i + 4))
            finally:
                os.kill(ocd[0], signal.SIGCONT)
            wait_until(lambda: d.text().count("configuration changed: restarting") == 2, 20,
                       "the target removed and put back came back")
            wait_until(lambda: api_state(d, "sim")[0] == "connected", 30, "sim connected again")
            return "3 reloads while stopping, 1 restart; removed and put back while stopping: " \
                "restarted; " + aftermath(d, base, fd_slack=0) + "; " + ended(d)
        finally:
            d.stop()
    finally:
        sim.terminate()
        sim.wait()


@row("sighup-access", on_main=False)
def sighup_access():
    """A leaked token rotated by SIGHUP: clients admitted with it are closed (1008), it no
    longer opens anything, the new one does; keys that need a restart are named."""
    conf = {"port": 0, "token": "first-token-AAAA"}
    d = Daemon("access", config=conf)
    try:
        old = {"Authorization": "Bearer first-token-AAAA"}
        new = {"Authorization": "Bearer second-token-BBBB"}
        d.auth = old
        victim, st, _ = wire.ws_open(d.port, headers=old)
        check(victim, "admitted with the first token: %s" % st)
        victim.recv()
        base = snapshot(d)
        conf.update(token="second-token-BBBB", origins=["http://bench.example"],
                    listen="localhost", max_message=1000)
        d.write_config(conf)
        d.p.send_signal(signal.SIGHUP)
        code = victim.until_close(10)
        victim.close()
        check(code == 1008, "a client of the old token: close %s, expected 1008" % code)
        ws, st, _ = wire.ws_open(d.port, headers=old)
        check(ws is None and st == 401, "the old token after rotation: %s" % st)
        st2, _, _ = wire.http(d.port, "/api/targets", new)
        st3, _, _ = wire.http(d.port, "/api/targets", dict(new, Origin="http://bench.example"))
        check(st2 == 200 and st3 == 200, "the new token: %s, new origin: %s" % (st2, st3))
        d.auth = new
        check(re.search(r"reload: listen, max_message changed: not applied until tracetapd "
                        r"restarts", d.text()), "listener keys not named: " + d.text()[-500:])
        live = d.start_live(new)
        # an Origin taken off the list: its clients go, the others stay
        browser, st, _ = wire.ws_open(d.port, headers=dict(new, Origin="http://bench.example"))
        check(browser, "a client from the listed Origin: %s" % st)
        browser.recv()
        del conf["origins"]
        d.write_config(conf)
        d.p.send_signal(signal.SIGHUP)
        code = browser.until_close(10)
        browser.close()
        check(code == 1008, "a client from an Origin taken off the list: close %s" % code)
        return "old token's client closed 1008, old token 401, new 200; listen and " \
               "max_message named as needing a restart; a client from an Origin taken off " \
               "the list closed 1008, the live one kept; " + aftermath(d, base, fd_slack=1) + "; " + ended(d)
    finally:
        d.stop()


@row("config-files", on_main=False)
def config_files():
    """Careless operators: a config path that is /dev/zero (or links to it), a FIFO, a file of
    2 MiB: refused at once, naming the file; a token readable by others: a warning."""
    seen = []
    link = os.path.join(WORK, "zero.json")
    os.symlink("/dev/zero", link)
    fifo = os.path.join(WORK, "fifo.json")
    os.mkfifo(fifo)
    big = os.path.join(WORK, "big.json")
    with open(big, "w") as f:
        f.write('{"listen":"127.0.0.1",' + " " * (2 << 20) + '"port":0}')
    for path, want in (("/dev/zero", "not a regular file"), (link, "not a regular file"),
                       (fifo, "not a regular file"), (big, "more than the")):
        p = subprocess.Popen([TRACETAPD, "--config", path, "--check-config"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        end, peak = time.monotonic() + 10, 0
        while p.poll() is None and time.monotonic() < end:
            try:
                with open("/proc/%d/status" % p.pid) as f:
                    peak = max(peak, int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)))
            except (OSError, AttributeError):
                pass
            if peak > 300000:
                break
            time.sleep(0.02)
        if p.poll() is None:
            p.kill()
            p.wait()
            raise Fail("--config %s: still reading after %s (RSS %d KiB)" % (
                path, "10 s" if peak <= 300000 else "300 MiB", peak))
        err = p.stderr.read()
        check(p.returncode != 0 and want in err and path in err,
              "--config %s: status %s, %r" % (path, p.returncode, err[:200]))
        seen.append(os.path.basename(path))
    loose = os.path.join(WORK, "loose.json")
    with open(loose, "w") as f:
        f.write('{"port":0,"token":"t0ken-xyz","targets":[{"name":"x","probe":"file:%s"}]}' % RAM)
    os.chmod(loose, 0o644)
    p = subprocess.run([TRACETAPD, "--config", loose, "--check-config"], capture_output=True,
                       text=True, timeout=10)
    check(p.returncode == 0 and "anyone on this machine may read it" in p.stderr,
          "a token readable by others: %r" % p.stderr[:300])
    return "refused at once: %s; world-readable token warned" % ", ".join(seen)


@row("sighup-broken", on_main=False)
def sighup_broken():
    """Broken configurations on SIGHUP: the running one stays, the log names file and key."""
    conf = {"port": 0, "token": "keep-this-token"}
    d = Daemon("broken", config=conf)
    try:
        d.auth = {"Authorization": "Bearer keep-this-token"}
        d.start_live(d.auth)
        base = snapshot(d)
        cases = (('{"port":0,,}', "syntax error near line 1"),
                 ('{"port":0,"bogus_key":1}', "unknown key 'bogus_key'"),
                 ('{"port":"x"}', "port: expected"),
                 ("/dev/zero", "not a regular file"))
        for i, (text, want) in enumerate(cases):
            if text.startswith("/"):
                os.remove(d.config)
                os.symlink(text, d.config)
            else:
                d.write_config(text)
            d.p.send_signal(signal.SIGHUP)
            wait_until(lambda: d.text().count("keeping the running configuration") == i + 1,
                       10, "refusal %d logged" % (i + 1))
            line = [ln for ln in d.text().splitlines() if "keeping the running" in ln][-1]
            check(want in line and d.config in line, "refusal: %r" % line)
        st, _, _ = wire.http(d.port, "/api/targets")
        check(st == 401, "token no longer required after a refused reload: %s" % st)
        return "4 broken files refused (file and key named), token kept; " + aftermath(d, base) + "; " + ended(d)
    finally:
        d.stop()


@row("token-bounds", on_main=False)
def token_bounds():
    """What a token may be: the longest (256 characters, every kind of visible ASCII) works as
    a header, as ?token= percent-encoded and on a WebSocket; a space, a line break or 257
    characters are refused at start (flag and file, named) and on SIGHUP (the old one kept)."""
    from urllib.parse import quote
    punct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
    tok = (punct + "AZaz09") * 7
    tok = (tok + "x" * 256)[:256]
    for bad, want in (("a b", "--token: character 2 is 0x20"),
                      ("x" * 257, "--token: 257 characters: a token has 1 to 256")):
        p = subprocess.run([TRACETAPD, "--token", bad, "--probe", "file:" + RAM, "--check-config"],
                           capture_output=True, text=True, timeout=10)
        check(p.returncode == 2 and want in p.stderr, "--token %r: %s %r" % (bad[:10], p.returncode, p.stderr[:200]))
    path = os.path.join(WORK, "badtoken.json")
    with open(path, "w") as f:
        json.dump({"port": 0, "token": "line\r\nX-Injected: 1"}, f)
    os.chmod(path, 0o600)
    p = subprocess.run([TRACETAPD, "--config", path, "--check-config"], capture_output=True,
                       text=True, timeout=10)
    check(p.returncode != 0 and path + ": token: character 5 is 0x0d" in p.stderr,
          "a token with a line break in the file: %s %r" % (p.returncode, p.stderr[:200]))
    d = Daemon("token-bounds", config={"port": 0, "token": tok})
    try:
        good = {"Authorization": "Bearer " + tok}
        d.auth = good
        d.start_live(good)
        base = snapshot(d)
        for hdrs, path_, want in ((good, "/api/targets", 200),
                                  ({}, "/api/targets?token=" + quote(tok, safe=""), 200),
                                  ({"Authorization": "Bearer " + tok[:-1]}, "/api/targets", 401)):
            st, _, _ = wire.http(d.port, path_, hdrs)
            check(st == want, "%s: %s, expected %s" % (path_[:40], st, want))
        ws, st, _ = wire.ws_open(d.port, headers=good)
        check(ws, "WebSocket with the 256-character token: %s" % st)
        ws.close()
        d.write_config({"port": 0, "token": tok + "y"})
        d.p.send_signal(signal.SIGHUP)
        wait_until(lambda: "keeping the running configuration" in d.text(), 10, "refusal logged")
        line = [ln for ln in d.text().splitlines() if "keeping the running" in ln][-1]
        check("token: 257 characters" in line, "reload refusal: %r" % line)
        st, _, _ = wire.http(d.port, "/api/targets", good)
        check(st == 200, "the old token after a refused reload: %s" % st)
        return "256 characters of visible ASCII: header, ?token= and WebSocket 200; space, " \
            "line break, 257 refused (flag, file, reload); " + aftermath(d, base) + "; " + ended(d)
    finally:
        d.stop()


@row("token", on_main=False)
def token():
    d = Daemon("token", ["--token", "s3cret-token"])
    try:
        p = d.port
        good = {"Authorization": "Bearer s3cret-token"}
        d.auth = good
        d.start_live(good)
        base = snapshot(d)
        for hdrs, path, want in (({}, "/api/targets", 401),
                                 ({"Authorization": "Bearer wrong"}, "/api/targets", 401),
                                 ({"Authorization": "Bearer s3cret-tokenX"}, "/metrics", 401),
                                 ({"Authorization": "Bearer " + "s" * 600}, "/api/targets", 401),
                                 ({}, "/api/targets?token=" + "s" * 600, 401),
                                 ({}, "/api/targets?token=s3cret-token", 200),
                                 (good, "/metrics", 200),
                                 (dict(good, Origin="http://evil.example"), "/api/targets", 403),
                                 ({}, "/healthz", 200)):
            st, _, _ = wire.http(p, path, hdrs)
            check(st == want, "%s %s: %s, expected %s" % (path[:30], hdrs, st, want))
        ws, st, _ = wire.ws_open(p)
        check(ws is None and st == 401, "WebSocket without token: %s" % st)
        ws, st, _ = wire.ws_open(p, path="/ws?token=s3cret-token")
        check(ws, "WebSocket with ?token=: %s" % st)
        ws.close()
        return "401 without/wrong/long token, 200 with it, 403 foreign Origin; " + \
            aftermath(d, base) + "; " + ended(d)
    finally:
        d.stop()


@row("tls-garbage", on_main=False)
def tls_garbage():
    if not shutil.which("openssl"):
        raise Fail("openssl is needed (tests/setup.sh installs it)")
    key, crt = os.path.join(WORK, "key.pem"), os.path.join(WORK, "crt.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", crt, "-days", "1", "-subj", "/CN=127.0.0.1"], check=True,
                   capture_output=True)
    d = Daemon("tls", ["--tls-cert", crt, "--tls-key", key], tls=True)
    try:
        d.start_live()
        base = snapshot(d)
        hello = bytes.fromhex("16030100a1010000") + os.urandom(40)
        for payload in (os.urandom(4096), b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", hello,
                        b"\x16\x03\x01\xff\xff" + os.urandom(100), b"\x80" * 3000):
            for _ in range(10):
                s = socket.create_connection(("127.0.0.1", d.port), timeout=5)
                try:
                    s.sendall(payload)
                    s.shutdown(socket.SHUT_WR)
                    while s.recv(4096):
                        pass
                except OSError:  # the daemon closed first: what it should do
                    pass
                s.close()
        return "50 garbage handshakes closed; " + aftermath(d, base, fd_wait=30) + "; " + ended(d)
    finally:
        d.stop()


# ---- what the audit found sound (kept sound) ----

@row("path-traversal")
def path_traversal(d):
    forms = ["/../secret.txt", "/..%2fsecret.txt", "/%2e%2e/secret.txt", "/%2e%2e%2fsecret.txt",
             "/..%5csecret.txt", "/..\\secret.txt", "/.%2e/secret.txt", "/%252e%252e/secret.txt",
             "//../secret.txt", "/./../secret.txt", "/a/../../secret.txt", "/../../../etc/passwd",
             "/..;/secret.txt", "/%c0%ae%c0%ae/secret.txt", "/secret.txt%00.html",
             "/..%00/secret.txt", "/" + "../" * 20 + "secret.txt", "/%2e%2e%5csecret.txt",
             "/api/../../secret.txt", "/healthz/../../secret.txt", "/..%252fsecret.txt",
             "/..%2F..%2Fsecret.txt", "/%2E%2E/secret.txt", "/..%c0%afsecret.txt",
             "/.../secret.txt", "/..././secret.txt", "/%5c..%5csecret.txt", "/..%255csecret.txt",
             "/index.html/../../secret.txt", "/..//secret.txt", "/.%00./secret.txt",
             "/%2e%2e%2f%2e%2e%2fetc/passwd", "/./.././secret.txt"]
    codes = {}
    for f in forms:
        try:
            st, _, body = wire.http(d.port, f)
        except ConnectionError:  # closed without an answer: not served either
            st, body = "closed", b""
        check(SECRET.encode() not in body and b"root:" not in body, "%s served the file" % f)
        codes[st] = codes.get(st, 0) + 1
    return "%d forms, none served the file (%s)" % (len(forms), codes)


@row("slowloris", fd_wait=40)
def slowloris(d):
    socks = []
    for i in range(400):
        s = socket.create_connection(("127.0.0.1", d.port), timeout=5)
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-a: ")
        socks.append(s)
    worst = max(d.healthz_ms() for _ in range(20))  # answered; the latency is reported
    # the daemon drops them by its own timeout: the fd check waits for it
    t = time.monotonic()
    wait_until(lambda: all(closed(s) for s in socks), 40, "half-sent requests dropped")
    for s in socks:
        s.close()
    return "400 half-sent requests dropped after %.0f s; /healthz at worst %.1f ms" % (
        time.monotonic() - t, worst)


def closed(s):
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


@row("malformed-frames")
def malformed_frames(d):
    out = []
    for name, raw, want in (("reserved opcode", wire.frame(3, b"x"), (1002, None)),
                            ("RSV bits", wire.frame(1, b"{}", rsv=4), (1002, None)),
                            ("continuation first", wire.frame(0, b"x"), (1002, None)),
                            ("fragmented ping", wire.frame(9, b"x", fin=False), (1002, None)),
                            ("binary", wire.frame(2, b"\x00\x01"), (1003,))):
        ws, st, _ = wire.ws_open(d.port)
        ws.recv()
        ws.s.sendall(raw)
        code = ws.until_close(5)
        ws.close()
        check(code in want, "%s: close %s, expected %s" % (name, code, want))
        out.append("%s %s" % (name, code or "TCP close"))
    return ", ".join(out)


@row("oversized-frame")
def oversized_frame(d):
    ws, st, _ = wire.ws_open(d.port)
    ws.recv()
    ws.s.sendall(wire.frame(1, b"{", claim=1 << 30))  # claims 1 GiB, sends 1 byte
    code = ws.until_close(5)
    ws.close()
    check(code == 1009, "a frame claiming 1 GiB: close %s" % code)
    ws, st, _ = wire.ws_open(d.port)
    ws.recv()
    for i in range(5):
        ws.send(b"a" * 16000, opcode=0 if i else 1, fin=False)
    code2 = ws.until_close(5)
    ws.close()
    check(code2 == 1009, "80 kB in fragments: close %s" % code2)
    return "1 GiB header 1009, 80 kB in fragments 1009"


@row("invalid-utf8")
def invalid_utf8(d):
    ws, st, _ = wire.ws_open(d.port)
    ws.recv()
    ws.send(b'{"type":"ping","id":"\xff\xfe"}')
    code = ws.until_close(5)
    ws.close()
    check(code == 1007, "invalid UTF-8: close %s" % code)
    return "close 1007"


def pong(ws, ident, timeout=10):
    end = time.monotonic() + timeout
    while True:
        op, pl = ws.recv(max(0.01, end - time.monotonic()))
        if op == 1:
            m = json.loads(pl)
            if m.get("type") == "pong" and m.get("id") == ident:
                return
            if m.get("type") == "error":
                errors.append(m)


errors = []


@row("deep-json")
def deep_json(d):
    ws, st, _ = wire.ws_open(d.port)
    ws.recv()
    del errors[:]
    ws.send("[" * 60000)
    ws.send('{"type":"subscribe","targets":' + '{"a":' * 10000 + "1" + "}" * 10000 + "}")
    ws.send(json.dumps({"type": "ping", "id": "after"}))
    pong(ws, "after")
    ws.close()
    check(len(errors) == 2 and all(e["code"] == "bad_request" for e in errors),
          "errors: %s" % errors)
    return "60,000 and 10,000 deep: error bad_request x2, connection kept"


@row("ping-flood", rss_kib=8192)
def ping_flood(d):
    ws, st, _ = wire.ws_open(d.port)
    ws.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    one = wire.frame(1, json.dumps({"type": "ping", "id": 0}).encode())
    sent = 0
    ws.s.settimeout(5)
    for _ in range(40):
        ws.s.sendall(one * 500)
        sent += 500
    ws.send(json.dumps({"type": "ping", "id": "last"}))
    pong(ws, "last", 30)
    ws.close()
    return "%d pings unread then read: the last one answered" % sent


@row("absurd-subscribe")
def absurd_subscribe(d):
    ws, st, _ = wire.ws_open(d.port)
    ws.recv()
    del errors[:]
    for m in ({"type": "subscribe", "targets": "*", "since": {"target": 1e300}},
              {"type": "subscribe", "targets": "*", "history": 1e300},
              {"type": "subscribe", "targets": "*", "history": -5},
              {"type": "subscribe", "targets": "*", "since": {"target": -1}},
              {"type": "subscribe", "targets": "*", "since": "x"},
              {"type": "resume", "target": "target", "last": 1.8e19},
              {"type": "subscribe", "targets": ["target"] * 1000,
               "filter": {"ids": list(range(65))}}):
        ws.send(json.dumps(m))
    ws.send(json.dumps({"type": "ping", "id": "after"}))
    pong(ws, "after", 20)
    ws.close()
    return "7 absurd subscribes: %d errors, connection kept" % len(errors)


def setup_web():
    os.makedirs(WEB)
    with open(os.path.join(WEB, "index.html"), "w") as f:
        f.write("<p>tracetap test page</p>\n")
    with open(os.path.join(WORK, "secret.txt"), "w") as f:
        f.write(SECRET + "\n")
    os.symlink(os.path.join(WORK, "secret.txt"), os.path.join(WEB, "leak.txt"))
    os.symlink(WORK, os.path.join(WEB, "outside"))
    os.symlink("index.html", os.path.join(WEB, "alias.html"))


def main():
    args = sys.argv[1:]
    if args[:1] == ["--openocd-cfg"]:
        os.environ["OPENOCD_CFG"], args = args[1], args[2:]
    only = set(args)
    for tool in (TRACETAPD, FW):
        if not tool or not os.access(tool, os.X_OK):
            print("SKIP: TRACETAPD and FW_THREADX must name the programs (meson sets them)")
            return 77
    setup_web()
    fw = subprocess.Popen([FW, "--ram", RAM, "--base", "0x20000000", "--size", "65536",
                           "--rate", "300", "--duration", "900", "--time", "counter"],
                          stdout=subprocess.DEVNULL)
    main_d = None
    try:
        wait_until(lambda: os.path.exists(RAM) and os.path.getsize(RAM) >= 65536, 10, "RAM file")
        main_d = Daemon("main", ["--origin", "http://allowed.example:8080"])
        main_d.start_live()
        run_rows(main_d, only)
        rc, bad = main_d.stop()
        check_exit = rc == 0 and not bad and not main_d.live.errors
        print("ROW %-18s %-5s exit %s%s" % ("main-daemon-exit", "ok" if check_exit else "FAIL",
                                            rc, ", " + bad if bad else ""))
        results.append(("main-daemon-exit", check_exit, ""))
    finally:
        if main_d and main_d.alive():
            main_d.p.kill()
        fw.terminate()
        fw.wait()
        if os.environ.get("TT_KEEP") != "1":
            shutil.rmtree(WORK, ignore_errors=True)
        else:
            print("kept", WORK)
    failed = [n for n, ok, _ in results if not ok]
    print("%d rows, %d failed%s" % (len(results), len(failed),
                                    ": " + " ".join(failed) if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
