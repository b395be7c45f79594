#!/usr/bin/env node
// dashboard.test.mjs: what a user sees on the dashboard, in real Chromium, fed by the development
// page driver (devserver.mjs) with scripted streams: the time axis after a target reset (the
// target's own times per epoch, the reset on the axis), pause (the view freezes, nothing is lost),
// the daemon's whole history reachable, honest numbers (CPU shares over the data, shares as text,
// the target's event rate beside the delivery rate), table and timeline in step across filters,
// and the layout defects a new user met. Screenshots dash-*.png in the artifacts.

import { startDevServer } from './devserver.mjs';
import { run, waitFor, assert, artifactsDir, withServerPage } from './lib.mjs';

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
const slowFrame = async (page) => {
  const c = await page.evaluate(() => window.tracetap.slowFrames);
  await waitFor('the slow part of a frame', async () => (await page.evaluate(() => window.tracetap.slowFrames)) > c + 1, 5000);
};

const withPage = (opts, fn) => withServerPage(startDevServer, opts, fn);

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
      assert(b.oldestSeq === a.oldestSeq, `a pause fetches no older history: oldest seq ${a.oldestSeq} -> ${b.oldestSeq}`);
      await page.screenshot({ path: `${ART}/dash-paused.png` });
      await page.keyboard.press(' ');
      await waitFor('live again', async () => { const s = await st(page); return s.follow && s.tlFollow && s.lastSeq > b.lastSeq; });
      await frames(page);
      const c = await st(page);
      assert(c.counts.missed === 0 && c.counts.gaps === 0, 'nothing missed, no gap: ' + JSON.stringify(c.counts));
      assert(c.size === c.lastSeq - c.oldestSeq + 1, `every seq kept: ${c.size} records, seq ${c.oldestSeq}-${c.lastSeq}`);
      const last = (await cells(page, 0)).map((c) => parseInt(c[1], 10)).filter((x) => x);
      assert(c.lastSeq - Math.max(...last) < 500, 'the table follows live after resume');
    });
  }],

  ["after a target reset the axis shows the target's own times, marks the reset, and says so", async () => {
    await withPage({ server: { rate: 2000 } }, async (page, srv) => {
      await waitFor('records', async () => (await st(page))?.size > 3000);
      const before = await page.evaluate(() => window.tracetap.current.lastRec.ns);
      await srv.control('reset');
      await waitFor('a notice of the reset', () => page.$eval('#toast', (e) => !e.hidden && /reset/.test(e.textContent)), 5000);
      const s0 = (await st(page)).lastSeq;
      await waitFor('records after the reset', async () => (await st(page)).lastSeq > s0 + 1500);
      await page.keyboard.press('0'); // fit: both time bases in view
      await frames(page);
      const r = await page.evaluate(() => {
        const s = window.tracetap.current, tl = window.tracetap.timeline;
        let reset = null;
        for (let n = s.head; n < s.tail; n++) { const x = s.get(n); if (x.type === 'reset') reset = x; }
        const after = [], beforeR = [];
        for (let n = s.head; n < s.tail; n++) { const x = s.get(n); if (x.type === 'event') (x._n > reset._n ? after : beforeR).push(x.ns); }
        return { axis: JSON.parse(tl.wrap.dataset.axis || '[]'), resetX: tl.xOf(reset._t), after: [Math.min(...after), Math.max(...after)],
          before: [Math.min(...beforeR), Math.max(...beforeR)], step: tl.span / 5 };
      });
      await page.screenshot({ path: `${ART}/dash-reset-axis.png` });
      assert(r.before[1] >= before && r.after[1] < r.before[1], `the target's time restarted: ${JSON.stringify(r)}`);
      const mark = r.axis.filter((a) => a.epoch);
      assert(mark.length === 1 && Math.abs(mark[0].x - r.resetX) < 2 && mark[0].v <= r.after[0], 'the reset is on the axis at its place with the target time there: ' + JSON.stringify(mark));
      const right = r.axis.filter((a) => !a.epoch && a.x > r.resetX), left = r.axis.filter((a) => !a.epoch && a.x < r.resetX);
      assert(right.length > 0 && right.every((a) => a.v >= r.after[0] - r.step && a.v <= r.after[1] + r.step), `labels after the reset are the target's times ${r.after}: ${JSON.stringify(right)}`);
      assert(left.length > 0 && left.every((a) => a.v >= r.before[0] - r.step && a.v <= r.before[1] + r.step), `labels before it too ${r.before}: ${JSON.stringify(left)}`);
    });
  }],

  ["the daemon's whole history is reachable: zooming back past the oldest record fetches it, and the page says how far back it goes", async () => {
    await withPage({ server: { rate: 300, history: 30000 } }, async (page, srv) => {
      await waitFor('the newest 2000 at connect', async () => (await st(page))?.size >= 2000);
      const s0 = await st(page);
      const info0 = await waitFor('where the records start', async () => { const t = await page.textContent('#tl-history'); return /from seq/.test(t) && t; }, 5000);
      assert(s0.oldestSeq > 28000 && info0.includes(`from seq ${s0.oldestSeq.toLocaleString('en-US')} (`) && /older on the daemon/.test(info0), 'says where the records start and that there is more: ' + info0);
      await page.focus('#timeline');
      for (let i = 0; i < 4; i++) await page.keyboard.press('-');
      await waitFor('the whole history loaded', async () => (await st(page)).oldestSeq === 1, 20000);
      await waitFor('says it is all', async () => /all the daemon holds/.test(await page.textContent('#tl-history')), 5000);
      const s1 = await st(page);
      const daemonOldest = srv.state.hist.get('board1')[0].seq;
      assert(s1.size === s1.lastSeq - s1.oldestSeq + 1 && s1.size > 30000, `every seq from the oldest the daemon held, once: ${JSON.stringify(s1)}`);
      assert(daemonOldest === 1 && /from seq 1 \([0-9.]+ ms back\): all the daemon holds/.test(await page.textContent('#tl-history')), 'says it is all: ' + await page.textContent('#tl-history'));
      await page.screenshot({ path: `${ART}/dash-history.png` });
      await page.focus('#table');
      await page.keyboard.press('Home');
      await waitFor('table at the oldest record', async () => Math.min(...(await cells(page, 0)).map((c) => parseInt(c[1], 10))) === 1, 5000)
        .catch(async (e) => { throw new Error(e.message + ': ' + JSON.stringify({ rows: (await rowTexts(page)).slice(0, 3), top: await page.$eval('#table', (t) => t.scrollTop), st: await st(page) })); });
    });
  }],

  ["rates: the card and the chart show the target's rate from its time stamps, the delivery rate as such", async () => {
    // The target writes a steady 1000 events/s (its time stamps); they arrive in bursts every 0.7 s.
    await withPage({ server: { rate: 1000, steady: 1000, batchMs: 700, history: 6000 }, query: '?history=10000' }, async (page) => {
      await waitFor('records', async () => (await st(page))?.size >= 6000);
      await page.keyboard.press('0');
      const txt = await waitFor('the rate line', async () => { const t = await page.textContent('#rate-now'); return /on the target/.test(t) && t; }, 5000);
      await page.screenshot({ path: `${ART}/dash-rates.png` });
      const m = /^([0-9.]+)\/s on the target · [0-9.k]+\/s received$/.exec(txt);
      assert(m && Math.abs(+m[1] - 1000) <= 10, 'the target writes 1000/s: ' + txt);
      const card = await page.$$eval('.target.sel .t-grid > *', (es) => es.map((e) => e.textContent));
      const rate = card[card.indexOf('rate') + 1], read = card.indexOf('read');
      assert(Math.abs(parseFloat(rate) - 1000) <= 10 && read >= 0, 'the card: the target rate, and the delivery rate labelled read: ' + card);
      // the chart redraws on its own tick: wait for a drawing that has the history in it
      let last = [], ser = {};
      await waitFor('the chart at 1000 per second of target time', async () => {
        ser = await page.$eval('#rate-chart', (c) => JSON.parse(c.dataset.series || '{}'));
        last = (ser.series || []).slice(-6, -1);
        return last.length === 5 && last.every((v) => Math.abs(v - 1000) <= 2);
      }, 10000).catch((e) => { throw new Error(e.message + ': ' + last); });
      assert(Array.isArray(ser.received), 'the chart also draws what was received: ' + JSON.stringify(ser.received));
    });
  }],

  ['CPU shares count only the time the records cover; a tiny share is not printed as 9.2e-9%', async () => {
    await withPage({ server: { rate: 2000 } }, async (page) => {
      await waitFor('records', async () => (await st(page))?.size >= 3000);
      await page.focus('#timeline');
      await page.keyboard.press(' '); // hold the view, then zoom out: it reaches before the oldest record
      await waitFor('zoomed out past the oldest record (the older history loaded)', async () => {
        await page.keyboard.press('-');
        return page.evaluate(() => window.tracetap.current.historyComplete && window.tracetap.timeline.t0 < window.tracetap.current.oldest._t);
      });
      await slowFrame(page);
      const sh = await page.$eval('#cpu-chart', (c) => JSON.parse(c.dataset.shares));
      await page.screenshot({ path: `${ART}/dash-cpu.png` });
      const unknown = sh.filter((r) => /unknown/.test(r.name)).reduce((a, r) => a + r.frac, 0);
      const known = sh.filter((r) => !/unknown/.test(r.name)).reduce((a, r) => a + r.frac, 0);
      assert(unknown < 0.01 && known > 0.99, `every record says who ran: shares add up without an unknown part: ${JSON.stringify(sh)}`);
      const f = await page.evaluate(async () => { const m = await import('/js/charts.js'); return [9.2e-11, 0.0005, 0.5].map(m.fmtShare); });
      assert(f[0] === '<0.01%' && f[1] === '0.050%' && f[2] === '50%', 'shares as text: ' + f);
    });
  }],

  ['a thread filter lists only that thread; table and timeline stay on the same record when it is cleared', async () => {
    await withPage({ server: { rate: 2000 } }, async (page) => {
      await waitFor('records', async () => (await st(page))?.size >= 4000);
      await page.selectOption('#filter-thread', 'producer');
      await waitFor('filtered', async () => (await cells(page, 3)).every(([t, c]) => t !== 'event' || /producer/.test(c)), 5000);
      const th = (await cells(page, 3)).filter(([t]) => t === 'event').map(([, c]) => c);
      assert(th.length > 5 && th.every((c) => c === 'producer' || c === '↯ producer'), 'only rows of producer (its own events and interrupts of it): ' + [...new Set(th)]);
      await page.hover('#table');
      await page.mouse.wheel(0, -2000);
      await waitFor('table held', async () => !(await st(page)).follow);
      await page.keyboard.press(' '); // pause: the timeline holds too
      await frames(page);
      const top = () => page.evaluate(() => {
        const t = document.getElementById('table');
        const rows = [...document.querySelectorAll('#table-rows .row:not([hidden])')].map((r) => ({ y: new DOMMatrix(getComputedStyle(r).transform).m42, seq: +r.children[0].textContent }));
        return rows.filter((r) => r.y + 22 > t.scrollTop).sort((a, b) => a.y - b.y)[0].seq;
      });
      const a = await top();
      await page.focus('#table');
      await page.keyboard.press('c');
      await waitFor('filter cleared', async () => (await cells(page, 3)).some(([t, c]) => t === 'event' && !/producer/.test(c)), 5000);
      await frames(page);
      const b = await top();
      await page.screenshot({ path: `${ART}/dash-filter-cleared.png` });
      assert(b === a, `the table stays on the record at its top: seq ${a} before, ${b} after`);
      const w = await page.evaluate((seq) => { const s = window.tracetap.current, tl = window.tracetap.timeline;
        for (let n = s.head; n < s.tail; n++) if (s.get(n).seq === seq) return [tl.t0, s.get(n)._t, tl.t1]; }, a);
      assert(w[0] <= w[1] && w[1] <= w[2], 'the timeline shows that record too: ' + w);
    });
  }],

  ['layout: the bench badge clear of the card, the fill tick clear of its label, a message in plain colour, the Event dropdown wide enough', async () => {
    await withPage({ server: { rate: 1000, names: ['lab-bench-with-a-long-name/board1'], message: 'streaming from 0x20001000', fill: 0.15 } }, async (page) => {
      await waitFor('the card and the event names', async () => (await page.$('.target.sel .t-msg')) && (await page.$$eval('#filter-event option', (o) => o.map((x) => x.value))).includes('THREAD_RESUME'));
      await page.selectOption('#filter-event', 'THREAD_RESUME');
      await frames(page);
      await page.screenshot({ path: `${ART}/dash-layout.png` });
      const g = await page.evaluate(() => {
        const r = (e) => e.getBoundingClientRect();
        const badge = r(document.querySelector('.b-states .badge')), card = r(document.querySelector('.target.sel'));
        const tick = r(document.querySelector('.target.sel .fill i')).right;
        const label = [...document.querySelectorAll('.target.sel *')].filter((e) => e.children.length === 0 && /^buffer \d+%$/.test(e.textContent)).map(r)[0];
        const msg = getComputedStyle(document.querySelector('.target.sel .t-msg')).color;
        const probe = document.createElement('b'); probe.style.color = 'var(--warn)'; document.body.append(probe);
        const warn = getComputedStyle(probe).color; probe.remove();
        const sel = document.getElementById('filter-event'), cs = getComputedStyle(sel);
        const c = document.createElement('canvas').getContext('2d'); c.font = `${cs.fontSize} ${cs.fontFamily}`;
        return { badgeBottom: badge.bottom, cardTop: card.top, tick, label: label && [label.left, label.right], msg, warn,
          selW: sel.getBoundingClientRect().width, textW: c.measureText(sel.value).width };
      });
      assert(g.badgeBottom <= g.cardTop, `the bench's badge is above the card: ${g.badgeBottom} > ${g.cardTop}`);
      assert(g.label && (g.tick < g.label[0] || g.tick > g.label[1]), `the fill tick is not over its label: tick ${g.tick}, label ${g.label}`);
      assert(g.msg !== g.warn, `a connected target's message is not in warning colour: ${g.msg}`);
      assert(g.selW >= g.textW + 24, `THREAD_RESUME fits the Event dropdown: ${g.selW} px for ${g.textW} px of text`);
    });
  }],

  ['timeline: the lanes fill its height; zoomed out, user events mark without swamping the lanes, in no thread hue', async () => {
    await withPage({ server: { rate: 4000 }, launch: { width: 1280, height: 1080 } }, async (page) => {
      await waitFor('records', async () => (await st(page))?.size >= 20000, 30000);
      await page.focus('#timeline');
      await page.keyboard.press('0'); // fit: every record in view
      await page.keyboard.press(' ');
      await frames(page);
      await page.screenshot({ path: `${ART}/dash-lanes.png` });
      const g = await page.evaluate(() => { const t = window.tracetap.timeline, w = t.wrap;
        return { lanes: JSON.parse(w.dataset.lanes).length, laneH: +w.dataset.laneH, h: w.clientHeight, marks: +w.dataset.userMarks, plotW: t.plotW,
          user: window.tracetap.theme.userMark, inView: (() => { const s = window.tracetap.current; let n = 0; for (let i = s.head; i < s.tail; i++) { const r = s.get(i); if (r._user && r._t >= t.t0 && r._t <= t.t1) n++; } return n; })() }; });
      assert(g.lanes >= 6 && g.lanes * g.laneH >= 0.85 * (g.h - 22), `${g.lanes} lanes of ${g.laneH} px fill the ${g.h - 22} px below the axis`);
      assert(g.inView > g.marks && g.marks > 0 && g.marks <= g.lanes * Math.ceil(g.plotW / 8), `at most one user mark per 8 px per lane: ${g.marks} marks for ${g.inView} user events over ${g.plotW} px`);
      const [r, gg, b] = await page.evaluate((c) => { const e = document.createElement('b'); e.style.color = c; document.body.append(e); const v = getComputedStyle(e).color; e.remove(); return v.match(/\d+/g).map(Number); }, g.user);
      const sat = (Math.max(r, gg, b) - Math.min(r, gg, b)) / 255;
      assert(sat < 0.2, `the user mark has no thread-like hue: ${g.user} (chroma ${sat.toFixed(2)})`);
    });
  }],

  ['a gap row has a time and its whole text', async () => {
    await withPage({ server: { rate: 1000 } }, async (page, srv) => {
      await waitFor('records', async () => (await st(page))?.size >= 500);
      await srv.control('gap', 'lost=3180&basis=' + encodeURIComponent('time stamps and event rate'));
      await waitFor('the gap', async () => (await st(page)).counts.gaps === 1);
      await page.keyboard.press(' ');
      await page.evaluate(() => { const s = window.tracetap.current; for (let n = s.head; n < s.tail; n++) if (s.get(n).type === 'gap') { const t = window.tracetap.table; t.setTop((t.posOf(n) - 5) * 22); return; } });
      await frames(page);
      const g = await page.evaluate(() => {
        const rows = [...document.querySelectorAll('#table-rows .row:not([hidden])')].sort((a, b) => new DOMMatrix(getComputedStyle(a).transform).m42 - new DOMMatrix(getComputedStyle(b).transform).m42);
        const i = rows.findIndex((r) => r.dataset.type === 'gap');
        const d = rows[i].children[6];
        return { time: rows[i].children[1].textContent, prev: rows[i - 1].children[1].textContent, text: d.textContent, sw: d.scrollWidth, cw: d.clientWidth };
      });
      await page.screenshot({ path: `${ART}/dash-gap-row.png` });
      assert(g.time !== '' && g.time === g.prev, `the gap row shows the time of the event before it: "${g.time}" after "${g.prev}"`);
      assert(/estimate from time stamps and event rate\)$/.test(g.text) && g.sw <= g.cw, `the whole text fits: ${g.text} (${g.sw} of ${g.cw} px)`);
    });
  }],

  ['clicking a lane label shows only that thread; clicking an event keeps it under the pointer', async () => {
    await withPage({ server: { rate: 2000 } }, async (page) => {
      await waitFor('lanes', async () => (await st(page))?.size >= 3000 && (await page.evaluate(() => JSON.parse(document.getElementById('timeline').dataset.lanes || '[]'))).includes('producer'));
      const at = (name) => page.evaluate((name) => { const t = window.tracetap.timeline, b = t.wrap.getBoundingClientRect();
        const i = t.lanesShown.findIndex((l) => l.name === name) - t.laneScroll; return { x: b.left + 40, y: b.top + 22 + i * t.laneH + t.laneH / 2 }; }, name);
      let p = await at('producer');
      await page.mouse.click(p.x, p.y);
      await waitFor('only producer', async () => (await page.$eval('#filter-thread', (e) => e.value)) === 'producer' &&
        (await page.evaluate(() => document.getElementById('timeline').dataset.lanes)) === '["producer"]', 5000);
      await page.screenshot({ path: `${ART}/dash-lane-click.png` });
      p = await at('producer');
      await page.mouse.click(p.x, p.y);
      await waitFor('all threads again', async () => (await page.$eval('#filter-thread', (e) => e.value)) === '' &&
        JSON.parse(await page.evaluate(() => document.getElementById('timeline').dataset.lanes)).length > 3, 5000);
      // An event at 40% of the plot, in its lane, the view paused first: a live view moves
      // between working out where the event is and the click (at 2000 events/s, under load, the
      // click missed it)
      await page.keyboard.press(' ');
      await frames(page);
      const c = await page.evaluate(() => {
        const t = window.tracetap.timeline, s = window.tracetap.current, b = t.wrap.getBoundingClientRect();
        const want = t.t0 + 0.4 * t.span;
        for (let n = s.indexAtT(want); n < s.tail; n++) {
          const r = s.get(n); if (r.type !== 'event' || r.ctx !== 'thread') continue;
          const i = t.lanesShown.findIndex((l) => l.name === r.thread_name) - t.laneScroll;
          if (i < 0) continue;
          return { x: b.left + t.xOf(r._t), y: b.top + 22 + i * t.laneH + t.laneH / 2, left: b.left };
        }
      });
      await page.mouse.click(c.x, c.y);
      await waitFor('the detail panel open and the timeline narrower', () => page.evaluate(() => !document.getElementById('detail').hidden &&
        window.tracetap.timeline.w === document.getElementById('timeline').clientWidth && window.tracetap.timeline.selected), 5000);
      await frames(page);
      const x = await page.evaluate(() => window.tracetap.timeline.xOf(window.tracetap.timeline.selected._t));
      await page.screenshot({ path: `${ART}/dash-event-click.png` });
      assert(Math.abs(c.left + x - c.x) <= 7, `the event stays under the pointer: clicked at ${c.x}, now at ${c.left + x}`);
    });
  }],
];

process.exit(await run(tests) ? 1 : 0);
