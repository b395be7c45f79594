#!/usr/bin/env node
// dashboard.test.mjs: what a user sees on the dashboard, in real Chromium, fed by the development
// page driver (devserver.mjs) with scripted streams: the time axis after a target reset (the
// target's own times per epoch, the reset on the axis), pause (the view freezes, nothing is lost),
// the daemon's whole history reachable, honest numbers (CPU shares over the data, shares as text,
// the target's event rate beside the delivery rate), table and timeline in step across filters,
// and the layout defects a new user met. Screenshots dash-*.png in the artifacts.

import { startDevServer } from './devserver.mjs';
import { launch, run, waitFor, assert, artifactsDir } from './lib.mjs';

const ART = artifactsDir();
const st = (page) => page.evaluate(() => {
  const s = window.tracetap.current;
  return s && { size: s.size, lastSeq: s.lastSeq, oldestSeq: s.oldest && s.oldest.seq, counts: { ...s.counts },
    follow: window.tracetap.table.follow, tlFollow: window.tracetap.timeline.follow, t1: window.tracetap.timeline.t1 };
});
const rowTexts = (page) => page.$$eval('#table-rows .row:not([hidden])', (rs) => rs.map((r) => r.textContent));
const cells = (page, i) => page.$$eval('#table-rows .row:not([hidden])', (rs, i) => rs.map((r) => [r.dataset.type, r.children[i].textContent]), i);
/** Resolves after the page has drawn n more frames (the views render in requestAnimationFrame). */
const frames = (page, n = 3) => page.evaluate((n) => new Promise((res) => { const f = () => (--n ? requestAnimationFrame(f) : res()); requestAnimationFrame(f); }), n);
/** Resolves after the slow part of the frame loop (charts, info, lists: every 400 ms) ran again. */
const slowFrame = (page) => page.evaluate(() => new Promise((res) => { const c = window.tracetap.slowFrames; const f = () => (window.tracetap.slowFrames > c + 1 ? res() : requestAnimationFrame(f)); requestAnimationFrame(f); }));

async function withPage(opts, fn) {
  const srv = await startDevServer(opts.server || {});
  const b = await launch(opts.launch || {});
  try {
    await b.page.goto(srv.url + (opts.query || ''));
    await fn(b.page, srv, b);
    assert(b.errors.length === 0, 'no page errors: ' + b.errors.join('; '));
  } finally {
    await b.close();
    srv.close();
  }
}

const tests = [
  ['pause freezes the view and keeps every record: no gap, no loss', async () => {
    await withPage({ server: { rate: 2000 } }, async (page) => {
      await waitFor('records', async () => (await st(page))?.size > 500);
      await page.keyboard.press(' ');
      await frames(page);
      const a = await st(page);
      const rows = await rowTexts(page);
      await waitFor('records keep arriving while paused', async () => (await st(page)).lastSeq > a.lastSeq + 1000);
      await frames(page);
      const b = await st(page);
      assert(JSON.stringify(await rowTexts(page)) === JSON.stringify(rows), 'the table is frozen while paused');
      assert(b.t1 === a.t1, `the timeline is frozen while paused: ${a.t1} -> ${b.t1}`);
      await page.screenshot({ path: `${ART}/dash-paused.png` });
      await page.keyboard.press(' ');
      await waitFor('live again', async () => { const s = await st(page); return s.follow && s.tlFollow && s.lastSeq > b.lastSeq; });
      await frames(page);
      const c = await st(page);
      assert(c.counts.missed === 0 && c.counts.gaps === 0, 'nothing missed, no gap: ' + JSON.stringify(c.counts));
      assert(c.size === c.lastSeq - c.oldestSeq + 1, `every seq kept: ${c.size} records, seq ${c.oldestSeq}-${c.lastSeq}`);
      const last = (await rowTexts(page)).map((t) => parseInt(t, 10)).filter((x) => x);
      assert(c.lastSeq - Math.max(...last) < 500, 'the table follows live after resume');
    });
  }],
];

process.exit(await run(tests) ? 1 : 0);
