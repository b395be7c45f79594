#!/usr/bin/env node
// analysis.test.mjs: the dashboard's Analysis tab shows the live analysis of a known workload
// with the right numbers. tt-fw-threadx writes a finite ThreadX workload (time stamps +1 tick per
// event, 1,000 ticks a second for the daemon: an event is 1 ms) with a deliberate priority
// inversion (the sensor, priority 5, blocks on the bus mutex the worker, priority 20, holds) and
// a deep stack (the worker's stack pointer 100 bytes above its stack's start once); real tracetapd
// reads its RAM file (`--probe file:`) and streams the `stats` messages to real Chromium.
//
// The expected numbers come from the workload, not from the analysis: the stack depth and the
// thread priorities are its arguments and definitions (tests/sim/fw_threadx.c); the inversion's
// and the deep stack's events are found in the delivered records by their raw words (the
// sensor's MUTEX_GET naming the worker as owner; the MUTEX_PUT carrying that stack pointer);
// each thread's CPU time is the time up to each event written by it, and up to each ISR_ENTER
// that interrupted it (the workload's schedule: who writes an event is who runs; an interrupt
// runs from its entry to its exit). The same workload with painted stacks (--stacks: fixed
// depths it prints) shows the high-water marks read from RAM, labelled as such. A QNX target
// (tests/qnx/kev_gen) beside them shows what a format without stacks, inversions and
// preemptions gets: no such column, "not available".
//
//   node tests/browser/analysis.test.mjs   (TT_BUILD_ROOT=build)

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { freePort, Daemon, DAEMON, BUILD, WEB, skip } from './chain.mjs';
import { launch, runAll, waitFor, assert, artifactsDir } from './lib.mjs';

const FW = path.join(BUILD, 'tests', 'sim', 'tt-fw-threadx');
const KEV_GEN = path.join(BUILD, 'tests', 'qnx', 'kev_gen');
if (!fs.existsSync(DAEMON)) skip(`no tracetapd at ${DAEMON}`);
if (!fs.existsSync(FW)) skip(`no tt-fw-threadx at ${FW}`);
if (!fs.existsSync(KEV_GEN)) skip(`no kev_gen at ${KEV_GEN}`);

// The workload (tests/sim/fw_threadx.c): RAM at BASE of SIZE bytes; thread control blocks at
// BASE + 0x100 + i * 0x40; thread i's stack starts at BASE + SIZE - 0x400 * (i + 1).
const BASE = 0x20000000, SIZE = 0x10000, EVENTS = 1000, DEEP = 100;
const THREADS = { sensor: { i: 0, prio: 5, stack: 1024 }, control: { i: 1, prio: 8, stack: 2048 },
  comms: { i: 2, prio: 12, stack: 1024 }, 'worker-0': { i: 3, prio: 20, stack: 512 } };
const tcb = (name) => BASE + 0x100 + THREADS[name].i * 0x40;
const stackStart = (name) => BASE + SIZE - 0x400 * (THREADS[name].i + 1);

const ART = artifactsDir();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tt-analysis-'));
const ram = path.join(work, 'ram.bin'), kev = path.join(work, 'q.kev'), cfg = path.join(work, 'cfg.json');
const pram = path.join(work, 'painted.bin');
// finite: the whole run fits the trace buffer (1,894 entries), so every event is delivered
const out = execFileSync(FW, ['--ram', ram, '--base', '0x' + BASE.toString(16), '--size', String(SIZE), '--rate', '5000',
  '--count', String(EVENTS), '--time', 'counter', '--inversion-at', '20', '--deep-stack', String(DEEP)], { encoding: 'utf8' });
const userEvents = Number(/user_events=(\d+)/.exec(out)[1]);
execFileSync(KEV_GEN, [kev], { stdio: 'ignore' });
// the same workload with painted stacks used to known depths (it prints them:
// "stacks NAME=START:SIZE:DEPTH ..."; depth 0: never painted)
const pout = execFileSync(FW, ['--ram', pram, '--base', '0x' + BASE.toString(16), '--size', '0x20000', '--buf-size', '0x4000',
  '--stacks', '0x10000', '--rate', '5000', '--count', '400', '--time', 'counter'], { encoding: 'utf8' });
const painted = Object.fromEntries([...(/^stacks (.*)$/m.exec(pout)[1].matchAll(/(\S+)=0x[0-9a-f]+:(\d+):(\d+)/g))]
  .map(([, name, size, depth]) => [name, { size: Number(size), depth: Number(depth) }]));
fs.writeFileSync(cfg, JSON.stringify({ targets: [
  { name: 'tx', probe: 'file:' + ram, file_base: '0x' + BASE.toString(16), address: '0x' + BASE.toString(16), address_is_pointer: true, tick_hz: 1000 },
  { name: 'qnx', probe: 'kev:' + kev, format: 'qnx' },
  { name: 'painted', probe: 'file:' + pram, file_base: '0x' + BASE.toString(16), address: '0x' + BASE.toString(16), address_is_pointer: true, stack_budget: 16384 },
] }));
const port = await freePort();
const daemon = await new Daemon(port, {
  logFile: path.join(ART, 'tracetapd-analysis.log'),
  args: ['--config', cfg, '--listen', '127.0.0.1', '--port', String(port), '--web', WEB],
}).start();
const b = await launch({ width: 1400, height: 900 });
const page = b.page;

/** The workload's facts, from the records tracetapd delivered (its /api/export). */
async function expected() {
  const text = await (await fetch(daemon.url + 'api/export?target=tx&format=jsonl')).text();
  const recs = text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  assert(recs.length === EVENTS && recs.every((r) => r.type === 'event'), `all ${EVENTS} events, no gap: ${recs.length}`);
  const ticks = {}, suspensions = {};
  for (let i = 1; i < recs.length; i++) {
    const e = recs[i], dt = e.time - recs[i - 1].time;
    const who = e.ctx === 'thread' ? e.thread_name : e.name === 'ISR_ENTER' ? e.interrupted_name : e.ctx === 'isr' ? 'interrupts' : e.ctx;
    ticks[who] = (ticks[who] || 0) + dt;
  }
  for (const r of recs) if (r.name === 'THREAD_SUSPEND') suspensions[r.thread_name] = (suspensions[r.thread_name] || 0) + 1;
  const inv = recs.filter((r) => r.name === 'MUTEX_GET' && r.thread_name === 'sensor' && r.raw[6] === tcb('worker-0'));
  const deep = recs.filter((r) => r.thread_name === 'worker-0' && r.raw[7] === stackStart('worker-0') + DEEP);
  assert(inv.length === 1 && deep.length === 1, `one inversion and one deep stack event: ${inv.length}, ${deep.length}`);
  // what the worker wrote, most first (ties by event id)
  const ws = {};
  for (const r of recs) if (r.ctx === 'thread' && r.thread_name === 'worker-0') ws[r.id] = { name: r.name, count: (ws[r.id]?.count || 0) + 1 };
  const workerServices = Object.fromEntries(Object.entries(ws).sort((a, b) => b[1].count - a[1].count || a[0] - b[0]).map(([, v]) => [v.name, v.count]));
  return { ticks, suspensions, workerServices, span: recs[recs.length - 1].time - recs[0].time, inv: inv[0], deep: deep[0] };
}

const threadRow = (name) => page.$eval(`#an-threads tr[data-thread="${name}"]`, (tr) => {
  const cpu = tr.querySelector('td[data-ticks]'), st = tr.querySelector('.an-stack');
  const k = Object.fromEntries([...tr.querySelectorAll('td[data-k]')].map((td) => [td.dataset.k, td.textContent]));
  return { cpu: cpu.textContent, ticks: Number(cpu.dataset.ticks), ns: Number(cpu.dataset.ns), k,
    stack: st && { free: Number(st.dataset.free), size: Number(st.dataset.size), source: st.dataset.source, text: st.textContent } };
});
const selected = () => page.evaluate(() => {
  const a = window.tracetap, r = a.current.get(a.table.selected);
  return r && { seq: r.seq, shown: r._t >= a.timeline.t0 && r._t <= a.timeline.t1, tab: a.tab, t: r._t, t0: a.timeline.t0, t1: a.timeline.t1, follow: a.timeline.follow };
});
let want;

const tests = [
  ['the Analysis tab shows the statistics of every delivered event', async () => {
    await page.goto(daemon.url);
    await waitFor('the statistics of all events', () => page.evaluate((n) => {
      const s = window.tracetap.stores.get('tx');
      return s && s.stats && s.stats.events === n && s.size === n;
    }, EVENTS), 30000);
    // the page asks only for the statistics of the target it shows (tx, the first)
    assert(await page.evaluate(() => !window.tracetap.stores.get('qnx').stats), 'no statistics of a target not shown');
    want = await expected();
    await page.selectOption('#target-select', 'tx');
    await page.click('#tab-analysis');
    await waitFor('the threads table', () => page.$('#an-threads tr[data-thread="sensor"]'), 5000);
    assert(await page.$eval('#table', (e) => e.hidden), 'the analysis takes the events table\'s place');
  }],

  ['CPU per thread: the time up to each of its events, in ms of the span', async () => {
    for (const name of Object.keys(THREADS)) {
      const r = await threadRow(name), t = want.ticks[name];
      assert(r.ticks === t && r.ns === t * 1e6, `${name}: ${t} ticks = ${t} ms, shown ${JSON.stringify(r)}`);
      assert(Number(/([\d.]+) ms/.exec(r.cpu)?.[1]) === t, `${name}: the cell says ${t} ms: ${r.cpu}`);
      const pct = parseFloat(r.cpu);
      assert(Math.abs(pct - t / want.span * 100) <= 0.5, `${name}: ${r.cpu} is ${(t / want.span * 100).toFixed(2)}% of ${want.span} ms`);
      assert(Number(r.k.suspensions) === want.suspensions[name], `${name}: ${want.suspensions[name]} suspensions, shown ${r.k.suspensions}`);
      assert('preemptions' in r.k && 'resumptions' in r.k, `${name}: ThreadX has preemptions and resumptions: ${JSON.stringify(r.k)}`);
    }
    const isr = await threadRow('interrupts');
    assert(isr.ticks === want.ticks.interrupts, `interrupts ${want.ticks.interrupts} ms, shown ${isr.cpu}`);
  }],

  ['CPU load over time: each thread and the interrupts a band of their own', async () => {
    const s = JSON.parse(await page.$eval('#load-chart', (c) => c.dataset.series));
    const sum = (name) => { const band = s.bands.find((x) => x.name === name); return band ? band.ns.reduce((a, v) => a + v, 0) : null; };
    for (const name of Object.keys(THREADS)) assert(sum(name) === want.ticks[name] * 1e6, `${name}: ${sum(name)} ns in the chart, ${want.ticks[name]} ms ran`);
    assert(sum('interrupts') === want.ticks.interrupts * 1e6, `interrupts: ${sum('interrupts')} ns`);
    // nothing ran before the threads but initialisation, which the chart's idle band holds
    assert(sum('idle') === want.ticks.init * 1e6 && sum('unknown (gaps)') === 0, `idle ${sum('idle')}, unknown ${sum('unknown (gaps)')}`);
    assert(s.bucket_ns === 100e6 && s.bands[0].ns.length === Math.ceil(want.span / 100), `100 ms bars over the ${want.span} ms: ${s.bands[0].ns.length}`);
  }],

  ['stack margin: the workload\'s depth, its source, the worst event one click away', async () => {
    const w = await threadRow('worker-0');
    assert(w.stack && w.stack.free === DEEP && w.stack.size === 512 && w.stack.source === 'traced stack pointer',
      `worker-0: ${DEEP} bytes never used of 512 (traced): ${JSON.stringify(w.stack)}`);
    assert(w.stack.text.includes(`${DEEP} B free of 512`) && w.stack.text.includes('traced stack pointer'), w.stack.text);
    const s = await threadRow('sensor');
    assert(s.stack.free === 0x3C0 && s.stack.size === 1024, `sensor: 960 free of 1024: ${JSON.stringify(s.stack)}`);
    await page.click('#an-threads tr[data-thread="worker-0"] .an-stack button');
    const sel = await waitFor('the deep stack event selected', async () => { const x = await selected(); return x && x.seq === want.deep.seq ? x : null; }, 5000);
    assert(sel.shown && sel.tab === 'events', `seq ${want.deep.seq} in the table and on the timeline: ${JSON.stringify(sel)}`);
  }],

  ['popular services: calls per event id, of all threads and of one', async () => {
    await page.click('#detail-close'); // the jump opened it: the whole width for the screenshot
    await page.click('#tab-analysis');
    const n = await page.$eval('#an-services tr[data-id="4096"]', (tr) => tr.children[2].textContent);
    assert(Number(n) === userEvents, `USER_EVENT ${userEvents} times (the workload's count), shown ${n}`);
    await page.selectOption('#an-svc-thread', { label: 'worker-0' });
    const rows = await waitFor('the worker\'s services', () => page.$$eval('#an-services tr[data-id]', (trs) =>
      trs.length ? Object.fromEntries(trs.map((tr) => [tr.children[0].textContent, Number(tr.children[2].textContent)])) : null), 5000);
    assert(JSON.stringify(rows) === JSON.stringify(want.workerServices), `worker-0's services ${JSON.stringify(want.workerServices)}, shown ${JSON.stringify(rows)}`);
    await page.selectOption('#an-svc-thread', '');
  }],

  ['the inversion: who waited for whom, one click from its events on the timeline', async () => {
    const items = await page.$$eval('#an-inversions li', (ls) => ls.map((l) => l.textContent));
    assert(items.length === 1 && items[0].startsWith('deterministic') &&
      items[0].includes('sensor (prio 5) waited for worker-0 (prio 20)'), `one inversion: ${JSON.stringify(items)}`);
    // the interrupts of a ThreadX target have no numbers: that panel says so, rather than 0
    assert((await page.$eval('#an-irqs', (e) => e.textContent)).includes('not available for this format'), 'no IRQ numbers in ThreadX');
    await page.screenshot({ path: path.join(ART, 'analysis-panels.png') });
    await page.click('#an-inversions li button');
    const sel = await waitFor('the inversion\'s event selected', async () => { const x = await selected(); return x && x.seq === want.inv.seq ? x : null; }, 5000);
    assert(sel.shown && sel.tab === 'events', `seq ${want.inv.seq} (the sensor's MUTEX_GET) on the timeline: ${JSON.stringify(sel)}`);
    await page.screenshot({ path: path.join(ART, 'analysis-inversion-jump.png') });
  }],

  ['painted stacks: the high-water mark read from RAM, labelled, first; no fill pattern said so', async () => {
    await page.selectOption('#target-select', 'painted');
    await page.click('#tab-analysis');
    const want = Object.entries(painted).filter(([, p]) => p.depth > 0);
    const cells = await waitFor('every painted stack scanned', async () => {
      const c = await page.$$eval('#an-threads tr[data-thread]', (trs) => Object.fromEntries(trs.map((tr) => {
        const st = tr.querySelector('.an-stack');
        return [tr.dataset.thread, st ? { free: st.dataset.free, source: st.dataset.source, text: st.textContent } : null];
      })));
      return want.every(([name]) => c[name] && c[name].source === 'painted stack') ? c : null;
    }, 30000);
    for (const [name, p] of want) {
      assert(Number(cells[name].free) === p.size - p.depth && cells[name].text.includes(`${p.size - p.depth} B free of ${p.size}`),
        `${name}: ${p.size - p.depth} of ${p.size} bytes never used (painted): ${JSON.stringify(cells[name])}`);
      assert(cells[name].text.includes('traced stack pointer'), `${name}: the traced figure beside it: ${cells[name].text}`);
    }
    const unpainted = Object.keys(painted).find((n) => painted[n].depth === 0);
    assert(cells[unpainted].text.includes('painted stack: no fill pattern'), `${unpainted}: no fill pattern, no number: ${cells[unpainted].text}`);
    await page.screenshot({ path: path.join(ART, 'analysis-painted.png') });
  }],

  ['a format without stacks, inversions or preemptions: absent, not zero', async () => {
    await page.selectOption('#target-select', 'qnx');
    await page.click('#tab-analysis');
    await waitFor('the QNX statistics', () => page.$('#an-threads tbody tr'), 15000);
    const heads = await page.$$eval('#an-threads th', (t) => t.map((x) => x.textContent));
    for (const k of ['preemptions', 'suspensions', 'resumptions', 'inversions', 'stack margin']) assert(!heads.includes(k), `no ${k} column for QNX: ${heads}`);
    assert(heads.includes('switches'), `switches are QNX's: ${heads}`);
    assert((await page.$eval('#an-inversions', (e) => e.textContent)).includes('not available for this format'), 'inversions: not available');
    assert(!(await page.$eval('#an-irqs', (e) => e.textContent)).includes('not available'), 'QNX traces interrupt numbers');
    await page.screenshot({ path: path.join(ART, 'analysis-qnx.png') });
  }],
];

await runAll(tests, b, async () => {
  await daemon.kill('SIGTERM');
  fs.rmSync(work, { recursive: true, force: true });
});
