#!/usr/bin/env node
// chain.test.mjs: the dashboard's required tests against the REAL chain: tt-simtarget +
// tt-fw-threadx (ThreadX workload) + OpenOCD (via tests/sim/run-chain.sh) + tracetapd serving
// web/, in Debian's headless Chromium. Screenshots of each view go to the artifacts directory
// ($TT_ARTIFACTS, else $MESON_BUILD_ROOT/artifacts/browser).
//
//   node tests/browser/chain.test.mjs          (TT_BUILD_ROOT=build; see chain.mjs for options)
//
// The workload's threads (tests/sim/README.md): sensor, control, comms, worker-0; override with
// TT_EXPECT_THREADS=a,b,c for another workload.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureInsideChain, freePort, Daemon } from './chain.mjs';
import { launch, run, waitFor, assert, artifactsDir } from './lib.mjs';

await ensureInsideChain(fileURLToPath(import.meta.url), '--rate 500');

const ART = artifactsDir();
const THREADS = (process.env.TT_EXPECT_THREADS || 'sensor,control,comms,worker-0').split(',');
const port = await freePort();
const daemon = new Daemon(port, { logFile: path.join(ART, 'tracetapd.log') });
await daemon.start();

const b = await launch({ colorScheme: 'light' });
const page = b.page;
const st = () => page.evaluate(() => {
  const s = window.tracetap.current;
  return s && { size: s.size, filtered: s.filtered.length, lastSeq: s.lastSeq, epoch: s.epoch, counts: { ...s.counts },
    state: s.status && s.status.state, markers: s.timeline.markers.map((m) => m.kind) };
});
const lanes = () => page.evaluate(() => JSON.parse(document.getElementById('timeline').dataset.lanes || '[]'));
const rows = () => page.$$eval('#table-rows .row:not([hidden])', (rs) => rs.map((r) => ({
  type: r.dataset.type, cells: [...r.children].map((c) => c.textContent) })));
const shot = (name) => page.screenshot({ path: path.join(ART, name + '.png') });

const tests = [
  ['page loads from tracetapd and connects (hello, status)', async () => {
    await page.goto(daemon.url);
    await waitFor('WebSocket open', () => page.$eval('#conn', (e) => e.dataset.state === 'open'), 10000);
    await waitFor('a target with status', async () => (await st())?.state, 10000);
  }],

  ['the table fills with the workload\'s events', async () => {
    await waitFor('300 records', async () => (await st())?.size >= 300, 30000);
    const rs = (await rows()).filter((r) => r.type === 'event');
    assert(rs.length >= 15, `visible event rows: ${rs.length}`);
    const names = new Set(rs.map((r) => r.cells[5]));
    const threads = new Set(rs.map((r) => r.cells[3]).filter((t) => t && !t.startsWith('↯')));
    assert([...threads].every((t) => THREADS.includes(t)), `rows name workload threads: ${[...threads]}`);
    // What the workload writes in each cycle, over the whole buffer (not only the rows in view).
    const all = await page.evaluate(() => { const s = window.tracetap.current; const n = new Set(); for (let i = s.head; i < s.tail; i++) { const r = s.get(i); if (r.type === 'event') n.add(r.name); } return [...n]; });
    for (const want of ['THREAD_RESUME', 'THREAD_SUSPEND', 'QUEUE_SEND', 'USER_EVENT', 'ISR_ENTER', 'SEMAPHORE_PUT'])
      assert(all.includes(want), `${want} among received events (${all.join(' ')})`);
    assert(names.size >= 3, `several event kinds in view: ${[...names]}`);
    const times = rs.map((r) => r.cells[1]).filter(Boolean);
    assert(times.length === rs.length, 'every event row has a time');
    await shot('chain-overview-light');
  }],

  ['the timeline has one lane per workload thread, named as in the registry', async () => {
    await waitFor('all thread lanes', async () => { const l = await lanes(); return THREADS.every((t) => l.includes(t)); }, 20000);
    const l = (await lanes()).filter((x) => x !== 'ISR');
    assert(l.length === THREADS.length && THREADS.every((t) => l.includes(t)), `lanes ${JSON.stringify(l)} == ${JSON.stringify(THREADS)}`);
    const segs = await page.evaluate(() => { const m = window.tracetap.current.timeline; return [...m.lanes.values()].map((x) => [x.name, x.segs.length + (x.openStart !== null ? 1 : 0)]); });
    assert(segs.filter(([, n]) => n > 0).length >= 2, 'at least two threads have run segments: ' + JSON.stringify(segs));
    // The table moves under the pointer while it follows the stream (a row can be re-rendered
    // between Playwright finding it and clicking it, seen once on a loaded 2-core machine):
    // click an event row until the detail opens.
    await waitFor('the detail panel after clicking an event row', async () => {
      await page.click('#table-rows .row[data-type="event"]');
      return page.$eval('#detail', (d) => !d.hidden);
    }, 20000, 500);
    const raw = await page.$$eval('#detail .kv.raw tr', (t) => t.length);
    assert(raw === 9, 'detail shows the 8 raw words: ' + raw);
    await shot('chain-detail');
    await page.click('#detail-close');
    await page.keyboard.press('End');
  }],

  ['a filter narrows both the table and the timeline', async () => {
    const before = await lanes();
    await page.selectOption('#filter-thread', 'sensor');
    await waitFor('one lane', async () => JSON.stringify(await lanes()) === '["sensor"]', 5000);
    const rs = (await rows()).filter((r) => r.type === 'event');
    assert(rs.length > 0 && rs.every((r) => r.cells.join(' ').includes('sensor')), 'every row is about sensor');
    const s1 = await st();
    assert(s1.filtered < s1.size, `table narrowed: ${s1.filtered} of ${s1.size}`);
    await shot('chain-filter-thread');
    await page.selectOption('#filter-thread', '');
    await page.fill('#filter-text', 'q_samples');
    await waitFor('text filter applied', async () => { const s = await st(); return s.filtered < s.size; }, 5000);
    const rs2 = (await rows()).filter((r) => r.type === 'event');
    assert(rs2.length > 0 && rs2.every((r) => r.cells.join(' ').includes('q_samples')), 'every row mentions q_samples');
    const l2 = await lanes();
    assert(l2.length < before.length, `timeline narrowed: ${JSON.stringify(l2)} from ${JSON.stringify(before)}`);
    await shot('chain-filter-text');
    await page.fill('#filter-text', '');
    await page.keyboard.press('Escape');
    await page.keyboard.press('c');
    await waitFor('filters cleared', async () => (await lanes()).length === before.length, 5000);
  }],

  ['killing and restarting the daemon is survived, with the gap shown', async () => {
    const s0 = await st();
    await daemon.kill('SIGKILL');
    await waitFor('dashboard notices', () => page.$eval('#conn', (e) => e.dataset.state === 'waiting'), 10000);
    await shot('chain-daemon-down');
    await new Promise((r) => setTimeout(r, 1500)); // the target keeps writing meanwhile
    await daemon.start();
    await waitFor('reconnected', () => page.$eval('#conn', (e) => e.dataset.state === 'open'), 20000);
    await waitFor('new records after the restart', async () => { const s = await st(); return s.epoch > s0.epoch && s.lastSeq > 20; }, 30000);
    const s1 = await st();
    assert(s1.markers.includes('marker') || s1.markers.includes('gap'), 'a gap/restart marker is on the timeline: ' + s1.markers);
    // The new daemon re-reads the target's buffer: the dashboard must not show entries twice.
    // The workload numbers its user events (info1 = 1, 2, 3, ...): no duplicates, and when the
    // restart marker says nothing was lost, no holes either.
    const seqs = await page.evaluate(() => {
      const s = window.tracetap.current, out = [];
      for (let i = s.head; i < s.tail; i++) { const r = s.get(i); if (r.type === 'event' && r.id === 4096) out.push(r.args.info1); }
      const m = s.epochMarker;
      return { out, resolved: !!(m && m.resolved) };
    });
    const dup = seqs.out.filter((v, i, a) => a.indexOf(v) !== i);
    assert(dup.length === 0, 'no user event shown twice across the restart: ' + dup.slice(0, 10));
    if (seqs.resolved) {
      const holes = seqs.out.slice(1).filter((v, i) => v !== seqs.out[i] + 1);
      assert(holes.length === 0, 'restart marker says no loss, and the user-event sequence has no holes: ' + holes.slice(0, 5));
    }
    // The marker row exists in the table: find it and bring it into view.
    const pos = await page.evaluate(() => {
      const s = window.tracetap.current, f = s.filtered;
      for (let i = f.length - 1; i >= 0; i--) { const r = s.get(f.at(i)); if (r.type === 'marker' || (r.type === 'gap' && r.client)) return i; }
      return -1;
    });
    assert(pos >= 0, 'gap row in the table');
    await page.evaluate((p) => { const t = window.tracetap.table; t.setFollow(false); t.setTop(p * 22 - 100); }, pos);
    await waitFor('the gap row drawn in view', async () => (await rows()).some((r) => r.type === 'marker' || r.type === 'gap'), 5000);
    await shot('chain-after-restart-table');
    await page.keyboard.press('0');
    await page.waitForTimeout(300);
    await shot('chain-after-restart-timeline');
    await page.keyboard.press('End');
  }],

  ['screenshots: dark theme, help overlay, export menu', async () => {
    await page.keyboard.press('t');
    await page.waitForTimeout(400);
    await shot('chain-overview-dark');
    await page.keyboard.press('?');
    await shot('chain-help');
    await page.keyboard.press('Escape');
    await page.click('#btn-export');
    const href = await page.$eval('#export-menu a[data-format="jsonl"]', (a) => a.href);
    const r = await fetch(href);
    assert(r.ok, `export ${href}: ${r.status}`);
    const body = await r.text();
    assert(body.split('\n').filter(Boolean).every((l) => JSON.parse(l).type), 'JSONL export parses');
    await shot('chain-export-menu');
    // Refused connections while the daemon was down (the WebSocket's, and a request the page
    // had under way when it went) are expected console noise.
    const errs = b.errors.filter((e) => !/WebSocket connection to .* failed|Failed to load resource: net::ERR_CONNECTION_REFUSED/.test(e));
    assert(errs.length === 0, 'no page errors: ' + errs.join('; '));
  }],
];

let failed = 1;
try {
  failed = await run(tests);
} finally {
  await b.close();
  await daemon.kill('SIGTERM');
}
console.log(`# artifacts: ${ART}`);
process.exit(failed ? 1 : 0);
