#!/usr/bin/env node
// ui-dev.test.mjs: unit-like tests of the dashboard's logic in real Chromium, fed by the
// DEVELOPMENT-ONLY page driver (devserver.mjs). They check UI behavior that the real chain
// cannot trigger on demand (exact gaps, resets, restarts, 100k rows). The required
// tests against the real daemon are in chain.test.mjs.

import { startDevServer } from './devserver.mjs';
import { run, waitFor, assert, artifactsDir, withServerPage } from './lib.mjs';
import { TargetStore, compileFilter } from '../../web/js/store.js';

const ART = artifactsDir();
const st = (page) => page.evaluate(() => {
  const s = window.tracetap.current;
  return s && { size: s.size, filtered: s.filtered.length, lastSeq: s.lastSeq, counts: { ...s.counts },
    follow: window.tracetap.table.follow, tlFollow: window.tracetap.timeline.follow };
});
const lanes = (page) => page.evaluate(() => JSON.parse(document.getElementById('timeline').dataset.lanes || '[]'));
const rowTexts = (page) => page.$$eval('#table-rows .row:not([hidden])', (rs) => rs.map((r) => r.textContent));

const withPage = (opts, fn) => withServerPage(startDevServer, opts, fn);

const tests = [
  ['store: ring drops oldest, filtered index follows', async () => {
    const s = new TargetStore('t', 100);
    for (let i = 1; i <= 250; i++) s.add({ type: 'event', seq: i, id: 1, name: i % 2 ? 'A' : 'B', ctx: 'thread', thread_name: 'x', time: i, args: {} }, 0);
    assert(s.size === 100 && s.oldest.seq === 151, 'keeps the newest 100');
    s.setFilter(compileFilter({ event: 'A' }), 1);
    assert(s.filtered.length === 50, 'filtered 50 of 100: ' + s.filtered.length);
    for (let i = 251; i <= 300; i++) s.add({ type: 'event', seq: i, id: 1, name: i % 2 ? 'A' : 'B', ctx: 'thread', thread_name: 'x', time: i, args: {} }, 0);
    assert(s.filtered.length === 50 && s.get(s.filtered.at(0)).seq === 201, 'filtered index trimmed with the ring');
  }],

  ['rate chart: the history burst at connect is not live rate', async () => {
    const s = new TargetStore('t', 10000);
    s.liveAfter = 2000; // the daemon held 2000 records when this client connected
    const ev = (seq) => ({ type: 'event', seq, id: 1, name: 'A', ctx: 'thread', thread_name: 'x', time: seq, args: {} });
    for (let i = 1; i <= 2000; i++) s.add(ev(i), 10000); // history, all in one second
    for (let i = 2001; i <= 2050; i++) s.add(ev(i), 10000 + (i - 2001) * 20); // 50/s live
    const series = s.rateSeries(12000, 3);
    assert(series[0] === 50 && series[1] === 0, `live 50 in the first second, not the 2000 of history: ${[...series]}`);
  }],

  ['CPU share without run: an interrupt pauses the thread it interrupted (shares add up)', async () => {
    const s = new TargetStore('t', 1000);
    const ev = (seq, time, name, ctx, th) => ({ type: 'event', seq, id: name === 'ISR_ENTER' ? 3 : name === 'ISR_EXIT' ? 4 : 69, name, ctx, thread: th ? '0x1' : undefined, thread_name: th, time, args: {} });
    s.add(ev(1, 0, 'QUEUE_SEND', 'thread', 'a'), 0);
    s.add(ev(2, 100, 'ISR_ENTER', 'isr'), 0);
    s.add(ev(3, 400, 'ISR_EXIT', 'isr'), 0);
    s.add(ev(4, 1000, 'QUEUE_SEND', 'thread', 'a'), 0);
    const share = s.timeline.cpuShare(0, 1000, s.lastT);
    const a = share.lanes.find((l) => l.name === 'a').d;
    assert(share.isr === 300 && a === 700 && a + share.isr <= share.total, `a 700 + ISR 300 = 1000: ${a} ${share.isr}`);
  }],

  ['timeline model: lanes from each record\'s run, display time monotonic across resets', async () => {
    const s = new TargetStore('t', 1000);
    const ptr = { a: '0x00000001', b: '0x00000002' };
    const ev = (seq, time, name, thread, run, args) => ({ type: 'event', seq, id: name === 'THREAD_RESUME' ? 1 : name === 'THREAD_SUSPEND' ? 2 : 69, name, ctx: 'thread', thread: ptr[thread], thread_name: thread, prio: 5, time, ...(run === undefined ? {} : run in ptr ? { run: 'thread', run_thread: ptr[run], run_name: run } : { run }), args: args || {} });
    s.add(ev(1, 100, 'QUEUE_SEND', 'a'), 0);
    s.add(ev(2, 200, 'THREAD_SUSPEND', 'a', 'a', { thread: 'a', next_thread: 'b' }), 0);
    s.add(ev(3, 300, 'QUEUE_SEND', 'b', 'b'), 0);
    s.add(ev(4, 400, 'THREAD_SUSPEND', 'b', 'b', { thread: 'b', next_thread: '0x00000000' }), 0);
    s.add(ev(5, 450, 'THREAD_RESUME', 'a', 'idle'), 0);
    s.add(ev(7, 480, 'QUEUE_SEND', 'a', 'a'), 0); /* seq 6 filtered out: the time since 5 is unknown */
    s.add({ type: 'reset', seq: 8, reason: 'x' }, 0);
    s.add(ev(9, 50, 'QUEUE_SEND', 'a', 'a'), 0); /* after a reset: nothing before it is known */
    const m = s.timeline;
    assert([...m.lanes.keys()].sort().join() === 'a,b', 'lanes a,b');
    const share = m.cpuShare(100, 500, s.lastT);
    const a = share.lanes.find((l) => l.name === 'a').d, b = share.lanes.find((l) => l.name === 'b').d;
    assert(a === 100 && b === 200, `a ran 100, b ran 200: ${a} ${b}`);
    assert(share.idle === 50 && share.isr === 0, `idle 50: ${share.idle}`);
    assert(s.get(7)._t > 480, 'time after the reset stays after it on the display axis');
    assert(m.markers.length === 1 && m.markers[0].kind === 'reset', 'reset marker');
  }],

  ['table fills, is virtualized and follows live (100k rows)', async () => {
    await withPage({ server: { rate: 40000 }, query: '?history=0' }, async (page) => {
      await waitFor('100k records', async () => (await st(page))?.size >= 100000, 20000);
      const rows = await page.$$eval('#table-rows .row', (r) => r.length);
      assert(rows < 60, `only visible rows exist in the DOM (${rows})`);
      const s = await st(page);
      const texts = await rowTexts(page);
      const lastShown = Math.max(...texts.map((t) => parseInt(t, 10)).filter((x) => x));
      assert(s.lastSeq - lastShown < 2000, `follows live: last row ${lastShown}, last seq ${s.lastSeq}`);
      // Scroll up: follow stops, view stays on the same records while new ones arrive.
      await page.hover('#table');
      await page.mouse.wheel(0, -3000);
      await waitFor('follow off after scrolling up', async () => !(await st(page)).follow, 5000);
      const before = await rowTexts(page);
      const s0 = (await st(page)).lastSeq;
      await waitFor('records arriving meanwhile', async () => (await st(page)).lastSeq > s0 + 100, 5000);
      const after = await rowTexts(page);
      assert(before[3] === after[3], 'rows in view stay put while streaming');
      assert(await page.isVisible('#follow-hint'), 'hint shown');
      await page.keyboard.press('End');
      await page.waitForTimeout(300);
      assert((await st(page)).follow, 'End resumes follow');
      await page.screenshot({ path: `${ART}/dev-100k.png` });
    });
  }],

  ['filters narrow table and timeline, clear restores', async () => {
    await withPage({ server: { rate: 3000 } }, async (page) => {
      await waitFor('lanes', async () => (await lanes(page)).length >= 6);
      const all = await lanes(page);
      await page.selectOption('#filter-thread', 'producer');
      await page.waitForTimeout(600);
      const l1 = await lanes(page);
      assert(l1.length === 1 && l1[0] === 'producer', 'one lane: ' + JSON.stringify(l1));
      const rows = await page.$$eval('#table-rows .row:not([hidden])', (rs) => rs.map((r) => r.children[3].textContent + '|' + r.textContent));
      assert(rows.length > 5 && rows.every((t) => t.includes('producer')), 'rows mention producer');
      await page.selectOption('#filter-thread', '');
      await page.fill('#filter-text', 'msg_queue');
      await page.waitForTimeout(800);
      const rows2 = await rowTexts(page);
      assert(rows2.length > 5 && rows2.every((t) => t.includes('msg_queue') || /GAP|RESET/.test(t)), 'text filter');
      const l2 = await lanes(page);
      assert(l2.length <= all.length && !l2.includes('ISR'), 'ISR lane has no msg_queue events: ' + l2);
      await page.selectOption('#filter-event', 'USER_EVENT');
      await page.fill('#filter-text', '');
      await page.waitForTimeout(800);
      assert((await rowTexts(page)).every((t) => t.includes('USER_EVENT')), 'event filter');
      await page.screenshot({ path: `${ART}/dev-filter.png` });
      await page.keyboard.press('Escape');
      await page.keyboard.press('c');
      await page.waitForTimeout(600);
      assert((await lanes(page)).length === all.length, 'clear restores lanes');
    });
  }],

  ['gap, reset and daemon restart are shown; reconnects by itself', async () => {
    await withPage({ server: { rate: 2000 } }, async (page, srv) => {
      await waitFor('records', async () => (await st(page))?.size > 500);
      await srv.control('gap', 'lost=77');
      await srv.control('reset');
      await waitFor('gap + reset rows', async () => { const s = await st(page); return s.counts.gaps === 1 && s.counts.resets === 1; });
      await srv.control('restart', 'down=1500');
      await waitFor('offline state', () => page.$eval('#conn', (e) => e.dataset.state === 'waiting'), 5000);
      await page.screenshot({ path: `${ART}/dev-offline.png` });
      await waitFor('reconnected', () => page.$eval('#conn', (e) => e.dataset.state === 'open'), 15000);
      await waitFor('restart marker and new records', async () => {
        const s = await st(page);
        return s.counts.dropped === 0 && s.lastSeq > 100 && await page.evaluate(() => window.tracetap.current.timeline.markers.some((m) => m.kind === 'marker'));
      }, 10000);
      await page.keyboard.press('0');
      await page.waitForTimeout(300);
      await page.screenshot({ path: `${ART}/dev-restart.png` });
    });
  }],

  ['a restarted daemon whose seq is already past ours is detected (last record compared)', async () => {
    await withPage({ server: { rate: 2000 } }, async (page, srv) => {
      await waitFor('records', async () => (await st(page))?.size > 500);
      const before = (await st(page)).lastSeq;
      await srv.control('restart', `down=800&seq=${before + 5000}`);
      await waitFor('new epoch with records', async () => {
        const s = await page.evaluate(() => ({ epoch: window.tracetap.current.epoch, last: window.tracetap.current.lastSeq }));
        return s.epoch === 1 && s.last > before + 5000;
      }, 15000);
      const markers = await page.evaluate(() => window.tracetap.current.timeline.markers.map((m) => m.kind));
      assert(markers.includes('marker'), 'restart marker: ' + markers);
      // Same daemon, plain reconnect: no new epoch, no duplicates.
      const dups0 = await page.evaluate(() => window.tracetap.counters.dups);
      await page.evaluate(() => window.tracetap.conn.reconnectNow());
      await page.waitForTimeout(1500);
      const s2 = await page.evaluate(() => ({ epoch: window.tracetap.current.epoch, dups: window.tracetap.counters.dups }));
      assert(s2.epoch === 1 && s2.dups === dups0, 'plain reconnect keeps the epoch: ' + JSON.stringify(s2));
    });
  }],

  ['memory bound (?max=), token on the WebSocket URL, export links, help, theme', async () => {
    await withPage({ server: { rate: 5000 }, query: '?max=3000&token=s3cret' }, async (page, srv) => {
      await waitFor('bound reached', async () => (await st(page))?.counts.dropped > 0);
      assert((await st(page)).size <= 3000, 'at most 3000 records');
      const toks = [...srv.state.clients].map((c) => c.token);
      assert(toks.includes('s3cret'), 'token passed: ' + toks);
      const hrefs = await page.$$eval('#export-menu a', (as) => as.map((a) => a.getAttribute('href')));
      assert(hrefs.includes('api/export?target=board1&format=perfetto&token=s3cret'), 'export href: ' + hrefs);
      await page.keyboard.press('?');
      assert(await page.isVisible('#overlay-help'), 'help open');
      await page.screenshot({ path: `${ART}/dev-help.png` });
      await page.keyboard.press('Escape');
      const t0 = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      await page.keyboard.press('t');
      const t1 = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert(t0 !== t1, 'theme toggled');
      await page.click('#btn-export');
      await page.click('#btn-perfetto-help');
      assert(await page.isVisible('#overlay-perfetto'), 'perfetto help');
      await page.screenshot({ path: `${ART}/dev-perfetto-help.png` });
    });
  }],
];

process.exit(await run(tests) ? 1 : 0);
