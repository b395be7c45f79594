#!/usr/bin/env node
// threadx-cm3.test.mjs: the dashboard on real ThreadX. The buffer ThreadX (upstream, Cortex-M3
// port on QEMU) left in RAM (../shared/fixtures/threadx-cm3/final.bin) is served by the real
// tracetapd (`--probe file:`) to Debian's headless Chromium. The timeline must show running bars
// for the threads, and the CPU shares it draws must be the ones this test computes itself from
// the snapshot's bytes: it parses the trace buffer, orders the entries as TraceX does and applies
// TraceX's next-context rules with full look-ahead (as TraceX does offline), independently of the
// daemon's reader, which derives the same thing live with one event of look-ahead. A page that
// took only the newest 100 records fetches the rest of the daemon's history on demand.
//
//   node tests/browser/threadx-cm3.test.mjs    (TT_BUILD_ROOT=build; TT_FIXTURES: the fixtures
//                                                folder, default <source>/../shared/fixtures)

import fs from 'node:fs';
import path from 'node:path';
import { freePort, Daemon, DAEMON, SRC, WEB, skip } from './chain.mjs';
import { launch, runAll, waitFor, assert, artifactsDir } from './lib.mjs';

const FIX = process.env.TT_FIXTURES || path.join(SRC, '..', 'shared', 'fixtures');
const IMAGE = path.join(FIX, 'threadx-cm3', 'final.bin');
if (!fs.existsSync(IMAGE)) skip(`${IMAGE} not found (set TT_FIXTURES)`);
if (!fs.existsSync(DAEMON)) skip(`no tracetapd at ${DAEMON}`);
const BASE = 0x21000000, HEADER = 0x21000100, HZ = 25e6, NS_PER_TICK = 1e9 / HZ;
const ISR = 0xFFFFFFFF, INIT = 0xF0F0F0F0;

/** The trace buffer in the image, oldest entry first, and the registry's names. */
function parseImage(buf) {
  const u32 = (a) => buf.readUInt32LE(a - BASE);
  assert(u32(HEADER) === 0x54585442, 'TXTB header');
  const mask = u32(HEADER + 4), regStart = u32(HEADER + 12), nameSize = buf.readUInt16LE(HEADER + 18 - BASE);
  const regEnd = u32(HEADER + 20), start = u32(HEADER + 24), end = u32(HEADER + 28), cur = u32(HEADER + 32);
  const names = new Map();
  for (let a = regStart; a + 16 + nameSize <= regEnd; a += 16 + nameSize) {
    if (buf[a - BASE + 1] === 0) continue;
    const raw = buf.subarray(a + 16 - BASE, a + 16 + nameSize - BASE);
    names.set(u32(a + 4), raw.subarray(0, raw.indexOf(0) < 0 ? nameSize : raw.indexOf(0)).toString('latin1'));
  }
  const ev = [];
  const n = (end - start) / 32;
  for (let k = 0; k < n; k++) {
    const a = start + ((cur - start) / 32 + k) % n * 32;
    const w = Array.from({ length: 8 }, (_, i) => u32(a + 4 * i));
    if (w[0] !== 0) ev.push({ w, ctx: w[0], id: w[2] & 0xFFFFFF, ts: w[3] & mask });
  }
  return { ev, names, mask };
}

const isThread = (c) => c !== ISR && c !== INIT;

/** TraceX's next context of every event (0 idle, ISR, INIT or a thread), full look-ahead. */
function nextContexts(ev) {
  let cur = 0, nest = 0;
  const next = new Array(ev.length);
  const firstThread = (from) => { for (let j = from; j < ev.length; j++) if (isThread(ev[j].ctx)) return j; return -1; };
  for (let i = 0; i < ev.length; i++) {
    const e = ev[i], w = e.w, n = ev[i + 1];
    if (isThread(e.ctx)) { cur = e.ctx; nest = 0; }
    if (!isThread(e.ctx)) {
      if (e.ctx === ISR && w[1] && w[1] !== ISR && i > 1 && ev[i - 1].ctx !== ISR) { next[i - 1] = w[1]; cur = w[1]; }
      next[i] = e.ctx;
      if (e.id === 3) nest++;
      else if (e.id === 2) cur = w[7];
      else if (e.id === 5) cur = w[4];
      else if (e.id === 1) {
        if (w[7]) cur = w[7];
        else { const j = firstThread(i + 1); if (j >= 0 && ev[j].ctx !== cur && ev[j].ctx === w[4]) cur = w[4]; }
      } else if (e.id === 4 && nest) nest--;
      if (nest === 0) {
        if (!n) next[i] = cur;
        else if (n.ctx === ISR && n.id !== 1) next[i] = n.w[1] ? n.w[1] : cur;
        else next[i] = n.ctx;
      }
    } else if (e.id === 2) {
      next[i] = w[7];
      if (n && e.ctx === w[4] && n.ctx === w[4]) next[i] = e.ctx;
      cur = next[i];
    } else if (e.id === 1) {
      next[i] = w[7] || e.ctx;
      if (!w[7]) { const j = firstThread(i + 1); if (j >= 0 && ev[j].ctx === w[4]) next[i] = w[4]; }
      cur = next[i];
    } else if (e.id === 109) {
      next[i] = w[5] || e.ctx;
      if (!w[5]) { const j = firstThread(i + 1); if (j >= 0 && ev[j].ctx !== e.ctx) next[i] = ev[j].ctx; }
      cur = next[i];
    } else {
      next[i] = n && isThread(n.ctx) ? n.ctx : e.ctx;
      cur = next[i];
    }
  }
  return next;
}

const img = parseImage(fs.readFileSync(IMAGE));
const NEXT = nextContexts(img.ev);
// unwrapped tick of each event (a 32-bit up-counter)
const TICK = [];
img.ev.forEach((e, i) => { TICK.push(i ? TICK[i - 1] + ((e.ts - img.ev[i - 1].ts) >>> 0) : 0); });
const ownerName = (c) => (c === 0 ? 'idle' : c === ISR ? 'ISR' : c === INIT ? 'init' : img.names.get(c) || '0x' + c.toString(16).padStart(8, '0'));

const ART = artifactsDir();
const port = await freePort();
const daemon = new Daemon(port, {
  logFile: path.join(ART, 'tracetapd-cm3.log'),
  args: ['--probe', 'file:' + IMAGE, '--base', '0x21000000', '--address', '0x21000100', '--tick-hz', '25M',
    '--name', 'cm3', '--listen', '127.0.0.1', '--port', String(port), '--web', WEB],
});
await daemon.start();
const b = await launch({ width: 1400, height: 900 });
const page = b.page;

const tests = [
  ['real ThreadX from the file: the records arrive', async () => {
    await page.goto(daemon.url);
    await waitFor('WebSocket open', () => page.$eval('#conn', (e) => e.dataset.state === 'open'), 10000);
    await waitFor('the buffer\'s events', () => page.evaluate((n) => (window.tracetap.current?.size ?? 0) >= n, img.ev.length - 1), 20000);
  }],

  ['running bars for every thread that ran', async () => {
    const ran = new Set(NEXT.slice(0, -1).filter((c) => isThread(c) && c !== 0).map(ownerName));
    assert(ran.size >= 8, 'the sample has several threads running: ' + [...ran]);
    const segs = await page.evaluate(() => Object.fromEntries([...window.tracetap.current.timeline.lanes.values()].map((l) => [l.name, l.segs.length])));
    for (const name of ran) assert(segs[name] > 0, `${name} has running bars: ${JSON.stringify(segs)}`);
  }],

  ['CPU shares equal the ones computed from the snapshot', async () => {
    await page.click('#tl-fit');
    const span = TICK[TICK.length - 1] * NS_PER_TICK;
    const drawn = await waitFor('the shares over the whole trace', async () => {
      const d = await page.$eval('#cpu-chart', (c) => ({ shares: JSON.parse(c.dataset.shares || '[]'), win: JSON.parse(c.dataset.window || '[0,0]') }));
      return d.win[1] - d.win[0] >= span / 2 && d.shares.length ? d : null; // most of it in view
    }, 10000);
    // where the dashboard put the first event it received, and which one it was
    const first = await page.evaluate(() => { const s = window.tracetap.current; for (let i = s.head; i < s.tail; i++) { const r = s.get(i); if (r.type === 'event') return { t: r._t, ts: r.raw[3] }; } return null; });
    const k0 = img.ev.findIndex((e) => e.w[3] === first.ts);
    assert(k0 >= 0 && k0 <= 1, 'the dashboard starts at the oldest entry (or the one after): ' + k0);
    const T = (k) => first.t + (TICK[k] - TICK[k0]) * NS_PER_TICK;
    const [t0, t1] = drawn.win;
    const want = new Map();
    for (let k = k0 + 1; k < img.ev.length; k++) {
      const d = Math.min(T(k), t1) - Math.max(T(k - 1), t0);
      if (d > 0) want.set(ownerName(NEXT[k - 1]), (want.get(ownerName(NEXT[k - 1])) || 0) + d);
    }
    const total = t1 - t0;
    const rows = new Map(drawn.shares.map((r) => [r.name, r]));
    let threads = 0;
    for (const r of drawn.shares) {
      if (r.name === 'unknown' || r.name === 'idle / unknown') continue;
      const exp = (want.get(r.name) || 0) / total;
      assert(Math.abs(r.frac - exp) <= 1e-9 + exp * 1e-6, `${r.name}: drawn ${r.frac} (${r.text}), computed ${exp}`);
      if (r.name !== 'idle' && r.name !== 'ISR') {
        threads++;
        assert(exp > 0 && !/^0(\.0+)?%$/.test(r.text), `${r.name} shows ${r.text} for a share of ${exp}`);
      }
    }
    assert(threads >= 7, 'the seven busiest threads are drawn: ' + JSON.stringify(drawn.shares));
    assert(rows.has('ISR') && rows.has('idle'), 'ISR and idle rows: ' + JSON.stringify(drawn.shares));
    assert(rows.get('idle').frac < 0.9999 && rows.get('idle').text !== '100%', 'not all idle: ' + rows.get('idle').text);
    console.log('# shares: ' + drawn.shares.map((r) => `${r.name} ${r.text}`).join(', '));
    await page.screenshot({ path: path.join(ART, 'threadx-cm3-fit.png') });
  }],

  ["the daemon's whole history on demand: a page that took the newest 100 records fetches the rest from /api/export", async () => {
    await page.goto(daemon.url + '?history=100');
    await waitFor('the newest 100', () => page.evaluate(() => window.tracetap.current?.size === 100), 20000);
    const last = await page.evaluate(() => window.tracetap.current.lastSeq);
    await page.click('#tl-older');
    await waitFor('all the daemon holds', () => page.evaluate(() => /from seq 1 .*: all the daemon holds/.test(document.getElementById('tl-history').textContent)), 20000);
    const s = await page.evaluate(() => { const s = window.tracetap.current; const seqs = []; for (let i = s.head; i < s.tail; i++) seqs.push(s.get(i).seq); return { seqs, last: s.lastSeq }; });
    assert(s.last === last && s.seqs.length === last && s.seqs.every((q, i) => q === i + 1), `seq 1 to ${last}, each once: ${s.seqs.length} records, ${s.seqs.slice(0, 3)}...`);
    assert(s.seqs.length >= img.ev.length - 1, `the buffer's ${img.ev.length} entries: ${s.seqs.length}`);
    await page.screenshot({ path: path.join(ART, 'threadx-cm3-history.png') });
  }],
];

await runAll(tests, b, async () => {
  await daemon.kill('SIGTERM');
});
