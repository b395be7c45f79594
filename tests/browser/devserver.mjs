#!/usr/bin/env node
// devserver.mjs: DEVELOPMENT-ONLY page driver for the dashboard.
//
// Serves web/ and speaks protocol v1 (proto/PROTOCOL.md) over a WebSocket, fed by a synthetic
// ThreadX-like workload (context switches, queue/semaphore traffic, ISRs, user events). It
// exists to develop and unit-test the UI without the real chain; the required browser tests
// (chain.test.mjs) run against the real tracetapd + OpenOCD + simulated target.
//
//   node devserver.mjs [--port 8765] [--rate 2000] [--targets 1] [--ticks] [--web DIR] [--replay FILE.jsonl]
//
// Options of startDevServer() for tests: names (target names), message (the status message),
// steady (target-time events/s: time stamps advance evenly at that rate, whatever the delivery),
// batchMs (how often records are sent), history (records made before the first client), fill
// (the buffer fill the status reports; random by default).
//
// Dev controls (HTTP POST): /dev/restart?down=MS[&seq=N] (drop every client, restart seq numbering
// like a restarted daemon, after N), /dev/gap?lost=N (a lapped-buffer gap record), /dev/reset (a reset
// record; time restarts), /dev/rate?r=N.

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';

const here = path.dirname(fileURLToPath(import.meta.url));
const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.json': 'application/json', '.png': 'image/png' };

const THREADS = [
  { name: 'main', ptr: 0x20000500, prio: 1 },
  { name: 'sensor', ptr: 0x20000600, prio: 4 },
  { name: 'producer', ptr: 0x20000700, prio: 8 },
  { name: 'consumer', ptr: 0x20000800, prio: 10 },
  { name: 'logger', ptr: 0x20000900, prio: 16 },
  { name: 'housekeeping', ptr: 0x20000a00, prio: 30 },
];
const OBJ = { queue: ['msg_queue', 0x20001100], sem: ['data_ready', 0x20001200], mutex: ['bus_lock', 0x20001300],
  pool: ['byte_pool', 0x20001400], flags: ['evt_flags', 0x20001500] };
const hex = (n) => '0x' + (n >>> 0).toString(16).padStart(8, '0');

/** Replays recorded records (JSONL from `tracetapd --stdout`) in a loop, time shifted so it
 * reads as live. Only the events after initialization are looped. */
class Replay {
  constructor(name, file) {
    this.name = name;
    const all = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.type === 'event');
    this.recs = all;
    this.loopFrom = Math.max(0, all.findIndex((r) => r.ctx !== 'init'));
    this.i = 0;
    this.dt = 0; this.dns = 0;
    const a = all[this.loopFrom], z = all[all.length - 1];
    this.period = z.time - a.time + 100; this.periodNs = (z.ns ?? 0) - (a.ns ?? 0) + 1000;
  }
  burst() {
    if (this.i >= this.recs.length) { this.i = this.loopFrom; this.dt += this.period; this.dns += this.periodNs; }
    const r = { ...this.recs[this.i++], target: this.name };
    r.time += this.dt;
    if (r.ns != null) r.ns += this.dns;
    return [r];
  }
  reset() {}
}

/** Synthetic ThreadX workload for one target. */
class Workload {
  constructor(name, { ticks = false, steady = 0 } = {}) {
    this.name = name;
    this.ticks = ticks;
    this.step = steady ? Math.round(1e8 / steady) : 0; // ticks per event at a steady target rate
    this.time = 1000;       // target ticks (1 tick = 10 ns: a 100 MHz cycle counter)
    this.run = THREADS[0];
    this.cur = null;        // who runs now, as the daemon's reader would derive it (`run`)
    this.addr = 0x20002000;
    this.k = 0;
  }
  rec(id, evname, fields, args, raw) {
    this.time += this.step || 20 + Math.floor(Math.random() * 400);
    this.addr = 0x20002000 + ((this.addr - 0x20002000 + 32) % (32 * 1024));
    const r = { type: 'event', target: this.name, seq: 0, id, name: evname, ...fields,
      ts: this.time >>> 0, time: this.time };
    if (!this.ticks) r.ns = (this.time - 1000) * 10;
    r.addr = hex(this.addr);
    if (this.cur) { // who ran since the previous record
      r.run = this.cur.run;
      if (this.cur.t) { r.run_thread = hex(this.cur.t.ptr); r.run_name = this.cur.t.name; }
    }
    r.args = args;
    r.raw = raw || [fields.thread ? parseInt(fields.thread, 16) : 0xffffffff, 0x80000000 | (fields.prio || 0), id, this.time >>> 0, 0, 0, 0, 0];
    if (!this.cur) this.cur = { run: 'thread', t: this.run }; // known from the second record on
    return r;
  }
  th(t) { return { ctx: 'thread', core: 0, thread: hex(t.ptr), thread_name: t.name, prio: t.prio, threshold: t.prio }; }
  /** Next few events: some services from the running thread, maybe an ISR, then a switch. */
  burst() {
    const out = [];
    const t = this.run;
    const f = this.th(t);
    const running = (x) => { this.cur = x ? { run: 'thread', t: x } : { run: 'idle' }; };
    if (this.cur) running(t);
    const n = 1 + Math.floor(Math.random() * 4);
    for (let i = 0; i < n; i++) {
      const x = Math.random();
      if (x < 0.25) out.push(this.rec(69, 'QUEUE_SEND', f, { queue: OBJ.queue[0], source: hex(0x20003000 + i * 16), wait_option: 'TX_WAIT_FOREVER', enqueued: i }));
      else if (x < 0.45) out.push(this.rec(68, 'QUEUE_RECEIVE', f, { queue: OBJ.queue[0], destination: hex(0x20003100), wait_option: 100, enqueued: i }));
      else if (x < 0.6) out.push(this.rec(83, 'SEMAPHORE_GET', f, { semaphore: OBJ.sem[0], wait_option: 'TX_WAIT_FOREVER', current_count: 0, stack_ptr: hex(0x20004000 - i * 8) }));
      else if (x < 0.7) out.push(this.rec(88, 'SEMAPHORE_PUT', f, { semaphore: OBJ.sem[0], current_count: 1, suspended_count: 0, stack_ptr: hex(0x20004000) }));
      else if (x < 0.78) out.push(this.rec(52, 'MUTEX_GET', f, { mutex: OBJ.mutex[0], wait_option: 0, owning_thread: t.name, own_count: 1 }));
      else if (x < 0.84) out.push(this.rec(20, 'BYTE_ALLOCATE', f, { pool: OBJ.pool[0], memory: hex(0x20008000 + (this.k++ % 64) * 64), size_requested: 64, wait_option: 0 }));
      else if (x < 0.9) out.push(this.rec(36, 'EVENT_FLAGS_SET', f, { group: OBJ.flags[0], flags_to_set: '0x00000004', set_option: 'TX_OR', suspended_count: 0 }));
      else {
        const uid = 4096 + Math.floor(Math.random() * 3);
        const u = this.rec(uid, 'USER_EVENT', f, { info1: this.k++, info2: 42, info3: 0, info4: 7 });
        out.push(u);
      }
    }
    if (Math.random() < 0.2) {
      const isr = { ctx: 'isr', core: 0, interrupted: hex(t.ptr), interrupted_name: t.name };
      const irq = 15 + Math.floor(Math.random() * 3);
      out.push(this.rec(3, 'ISR_ENTER', isr, { stack_ptr: hex(0x20004f00), isr_number: irq, system_state: 1, preempt_disable: 0 }));
      this.cur = { run: 'isr' };
      out.push(this.rec(88, 'SEMAPHORE_PUT', isr, { semaphore: OBJ.sem[0], current_count: 1, suspended_count: 1, stack_ptr: hex(0x20004f00) }));
      out.push(this.rec(4, 'ISR_EXIT', isr, { stack_ptr: hex(0x20004f00), isr_number: irq, system_state: 0, preempt_disable: 0 }));
      running(t);
    }
    // Context switch: suspend the running thread (or resume another one).
    let next = THREADS[Math.floor(Math.random() * THREADS.length)];
    if (next === t) next = THREADS[(THREADS.indexOf(t) + 1) % THREADS.length];
    const idle = Math.random() < 0.08;
    if (Math.random() < 0.6) {
      out.push(this.rec(2, 'THREAD_SUSPEND', f, { thread: t.name, new_state: 'queue', stack_ptr: hex(0x20004000), next_thread: idle ? '0x00000000' : next.name }));
    } else {
      out.push(this.rec(1, 'THREAD_RESUME', f, { thread: next.name, previous_state: 'semaphore', stack_ptr: hex(0x20004000), next_thread: next.name }));
    }
    running(idle ? null : next);
    if (idle) { if (!this.step) this.time += 2000; out.push(this.rec(1, 'THREAD_RESUME', { ctx: 'isr', core: 0, interrupted: '0x00000000' }, { thread: next.name, previous_state: 'sleep', stack_ptr: hex(0x20004000), next_thread: next.name })); running(next); }
    this.run = next;
    return out;
  }
  reset() { this.time = 1000; this.cur = null; } // time (and ns) restart from 0
}

export async function startDevServer({ port = 0, rate = 2000, targets = 1, ticks = false, replay = null, web = path.join(here, '..', '..', 'web'), batchMs = 20, quiet = true,
  names = null, message = '', steady = 0, history = 0, fill = null } = {}) {
  const state = { rate, seq: new Map(), hist: new Map(), counters: new Map(), clients: new Set(), down: false, epoch: 0, message };
  names = names || Array.from({ length: targets }, (_, i) => (i === 0 ? 'board1' : 'board' + (i + 1)));
  const loads = new Map(names.map((n) => [n, replay ? new Replay(n, replay) : new Workload(n, { ticks, steady })]));
  const HIST = 100000;
  function resetSeq(start = 0) {
    for (const n of names) { state.seq.set(n, start); state.hist.set(n, []); state.counters.set(n, { events: 0, gaps: 0, lost: 0, resets: 0 }); }
  }
  resetSeq();
  function summary(n) {
    const c = state.counters.get(n);
    return { name: n, format: 'threadx', probe: 'devserver (synthetic)', state: 'connected', message: state.message, last_seq: state.seq.get(n),
      events: c.events, gaps: c.gaps, lost: c.lost, rate: state.rate, fill: fill ?? 0.2 + Math.random() * 0.1 };
  }
  function push(n, recs) {
    const h = state.hist.get(n);
    let s = state.seq.get(n);
    const c = state.counters.get(n);
    for (const r of recs) {
      r.seq = ++s;
      h.push(r);
      if (r.type === 'event') c.events++; else if (r.type === 'gap') { c.gaps++; c.lost += r.lost; } else c.resets++;
    }
    if (h.length > HIST * 1.2) h.splice(0, h.length - HIST);
    state.seq.set(n, s);
    const msg = JSON.stringify({ type: 'events', target: n, first: recs[0].seq, last: s, records: recs });
    for (const cl of state.clients) {
      if (cl.paused) { if (!cl.skip.has(n)) cl.skip.set(n, recs[0].seq); continue; }
      if (!cl.live) continue;
      cl.ws.send(msg);
    }
  }
  for (const n of names) { // history made before any client came
    const w = loads.get(n);
    for (let k = 0; k < history; k += 1000) { const recs = []; while (recs.length < Math.min(1000, history - k)) recs.push(...w.burst()); push(n, recs); }
  }
  let carry = 0;
  const gen = setInterval(() => {
    if (state.down) return;
    carry += state.rate * batchMs / 1000;
    for (const n of names) {
      const w = loads.get(n);
      const recs = [];
      while (recs.length < carry) recs.push(...w.burst());
      push(n, recs);
    }
    carry -= Math.floor(carry);
    carry = Math.max(0, carry - 0);
  }, batchMs);
  const stat = setInterval(() => {
    if (state.down) return;
    for (const n of names) {
      const c = state.counters.get(n);
      const msg = JSON.stringify({ type: 'status', target: n, state: 'connected', probe: 'devserver (synthetic)', format: 'threadx',
        message: state.message, rate: state.rate, fill: fill ?? 0.2 + Math.random() * 0.15, events: c.events, gaps: c.gaps, lost: c.lost,
        resets: c.resets, bytes_read: c.events * 32, last_seq: state.seq.get(n) });
      for (const cl of state.clients) cl.ws.send(msg);
    }
  }, 1000);

  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    if (req.method === 'POST' && u.pathname.startsWith('/dev/')) {
      const cmd = u.pathname.slice(5);
      if (cmd === 'restart') {
        state.down = true;
        for (const cl of state.clients) cl.ws.close(1001, 'daemon shutting down');
        state.clients.clear();
        // seq=N: the restarted daemon starts numbering after N (it may be past the client's last seq).
        setTimeout(() => {
          resetSeq();
          const pre = +(u.searchParams.get('seq') || 0);
          for (const n of names) { const w = loads.get(n); for (let k = 0; k < pre; k += 1000) { const recs = []; while (recs.length < Math.min(1000, pre - k)) recs.push(...w.burst()); push(n, recs); } }
          state.epoch++; state.down = false;
        }, +(u.searchParams.get('down') || 1000));
      } else if (cmd === 'gap') {
        const basis = u.searchParams.get('basis');
        for (const n of names) push(n, [{ type: 'gap', target: n, seq: 0, lost: +(u.searchParams.get('lost') || 120), exact: false, ...(basis ? { basis } : {}), reason: 'lapped' }]);
      } else if (cmd === 'reset') {
        for (const n of names) { push(n, [{ type: 'reset', target: n, seq: 0, reason: 'tracing re-enabled: thread pointers cleared' }]); loads.get(n).reset(); }
      } else if (cmd === 'rate') {
        state.rate = +(u.searchParams.get('r') || state.rate);
      }
      res.writeHead(204); res.end(); return;
    }
    if (u.pathname === '/api/targets') {
      res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify(names.map(summary))); return;
    }
    if (u.pathname === '/api/export') {
      const n = u.searchParams.get('target'), f = u.searchParams.get('format');
      if (!state.hist.has(n)) { res.writeHead(404); res.end('unknown target'); return; }
      const body = f === 'jsonl' ? state.hist.get(n).map((r) => JSON.stringify(r)).join('\n') + '\n'
        : f === 'perfetto' ? JSON.stringify({ traceEvents: [] }) : `devserver: ${f} export not implemented\n`;
      res.writeHead(200, { 'content-type': 'application/octet-stream' }); res.end(body); return;
    }
    if (u.pathname === '/api/captures') { // no trigger here: no capture
      res.writeHead(200, { 'content-type': 'application/json' }); res.end('[]\n'); return;
    }
    if (u.pathname === '/healthz') { res.writeHead(200); res.end('ok'); return; }
    let p = decodeURIComponent(u.pathname);
    if (p.endsWith('/')) p += 'index.html';
    const file = path.normalize(path.join(web, p));
    if (!file.startsWith(path.normalize(web))) { res.writeHead(403); res.end(); return; }
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404); res.end('not found'); return; }
      res.writeHead(200, { 'content-type': MIME[path.extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(data);
    });
  });

  const wss = new WebSocketServer({ server, path: '/ws', handleProtocols: (ps) => (ps.has('tracetap.v1') ? 'tracetap.v1' : false) });
  wss.on('connection', (ws, req) => {
    if (state.down) { ws.close(1001); return; }
    const cl = { ws, live: false, paused: false, skip: new Map(), token: new URL(req.url, 'http://x').searchParams.get('token') };
    state.clients.add(cl);
    ws.on('close', () => state.clients.delete(cl));
    ws.send(JSON.stringify({ type: 'hello', protocol: 1, daemon: 'devserver', targets: names.map(summary), max_message: 65536 }));
    ws.on('message', (data) => {
      let m;
      try { m = JSON.parse(String(data)); } catch { ws.send(JSON.stringify({ type: 'error', code: 'bad_request', message: 'malformed JSON' })); return; }
      if (m.type === 'subscribe') {
        for (const n of names) {
          const h = state.hist.get(n);
          let from = null;
          if (m.since && m.since[n] != null) from = m.since[n] + 1;
          else if (m.history) from = Math.max(1, state.seq.get(n) - m.history + 1);
          if (from == null) continue;
          const oldest = h.length ? h[0].seq : state.seq.get(n) + 1;
          if (from < oldest && from <= state.seq.get(n)) {
            ws.send(JSON.stringify({ type: 'gap', target: n, from, to: oldest - 1, lost: oldest - from, reason: 'history' }));
            from = oldest;
          }
          const i0 = h.findIndex((r) => r.seq >= from);
          if (i0 >= 0) for (let i = i0; i < h.length; i += 2000) {
            const b = h.slice(i, i + 2000);
            ws.send(JSON.stringify({ type: 'events', target: n, first: b[0].seq, last: b[b.length - 1].seq, records: b }));
          }
        }
        cl.live = true;
      } else if (m.type === 'pause') {
        cl.paused = true;
      } else if (m.type === 'resume-live') {
        cl.paused = false;
        for (const [n, from] of cl.skip) {
          const to = state.seq.get(n);
          ws.send(JSON.stringify({ type: 'gap', target: n, from, to, lost: to - from + 1, reason: 'paused' }));
        }
        cl.skip.clear();
      } else if (m.type === 'ping') {
        ws.send(JSON.stringify({ type: 'pong', id: m.id }));
      } else {
        ws.send(JSON.stringify({ type: 'error', code: 'bad_request', message: 'unknown type ' + m.type }));
      }
    });
  });

  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  const addr = server.address();
  const url = `http://127.0.0.1:${addr.port}/`;
  if (!quiet) console.log(`devserver: ${url}  (rate ${rate}/s, ${targets} target(s))`);
  return {
    url, port: addr.port, state,
    async control(cmd, q = '') { await fetch(`${url}dev/${cmd}${q ? '?' + q : ''}`, { method: 'POST' }); },
    close() { clearInterval(gen); clearInterval(stat); for (const c of state.clients) c.ws.terminate(); wss.close(); server.close(); },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const a = process.argv.slice(2);
  const opt = (k, d) => { const i = a.indexOf('--' + k); return i >= 0 ? a[i + 1] : d; };
  startDevServer({ port: +opt('port', 8765), rate: +opt('rate', 2000), targets: +opt('targets', 1), ticks: a.includes('--ticks'), replay: opt('replay', null),
    web: opt('web', path.join(here, '..', '..', 'web')), quiet: false });
}
