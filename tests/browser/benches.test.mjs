#!/usr/bin/env node
// benches.test.mjs: fifty targets in one dashboard, grouped by bench. The real tracetapd serves
// 50 targets from a configuration file, each the real ThreadX image (`--probe file:`,
// ../shared/fixtures/threadx-cm3/final.bin): 5 named without '/' (the daemon's own) and 45 named
// BENCH/TARGET on 5 benches. The target list must group them by the part before the last '/',
// fold a bench, narrow by the filter box, show each target's state and rate, and still select
// a target and show its records while all fifty stream.
//
//   node tests/browser/benches.test.mjs   (TT_BUILD_ROOT=build; TT_FIXTURES as in threadx-cm3)

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, Daemon, DAEMON, SRC, WEB, skip } from './chain.mjs';
import { launch, runAll, waitFor, assert, artifactsDir } from './lib.mjs';

const FIX = process.env.TT_FIXTURES || path.join(SRC, '..', 'shared', 'fixtures');
const IMAGE = path.join(FIX, 'threadx-cm3', 'final.bin');
if (!fs.existsSync(IMAGE)) skip(`${IMAGE} not found (set TT_FIXTURES)`);
if (!fs.existsSync(DAEMON)) skip(`no tracetapd at ${DAEMON}`);

const LOCAL = Array.from({ length: 5 }, (_, i) => `local${i}`);
const BENCHES = ['lab/bench0', 'lab/bench1', 'rack-a', 'rack-b', 'rack-c']; // a bench name may hold '/' too
const REMOTE = BENCHES.flatMap((b, k) => Array.from({ length: 9 }, (_, i) => `${b}/t${k}${i}`));
const NAMES = [...LOCAL, ...REMOTE];

const ART = artifactsDir();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tt-benches-'));
const cfg = path.join(tmp, 'tracetapd.json');
const port = await freePort();
fs.writeFileSync(cfg, JSON.stringify({
  listen: '127.0.0.1', port, web_dir: WEB,
  targets: NAMES.map((name) => ({ name, probe: 'file:' + IMAGE, file_base: 0x21000000, address: 0x21000100, tick_hz: 25000000 })),
}));
const daemon = new Daemon(port, { logFile: path.join(ART, 'tracetapd-benches.log'), args: ['--config', cfg] });
await daemon.start();
const b = await launch({ width: 1400, height: 1000 });
const page = b.page;

/** What the list shows: per bench group, its label and the targets drawn in it. */
const list = () => page.$$eval('#targets .bench', (gs) => gs.map((g) => ({
  bench: g.dataset.bench, folded: g.classList.contains('folded'),
  label: g.querySelector('.b-head b').textContent,
  targets: [...g.querySelectorAll('.target')].map((t) => ({ name: t.dataset.target, state: t.dataset.state,
    text: t.textContent.replace(/\s+/g, ' ').trim(), sel: t.classList.contains('sel') })),
})));
const shownNames = async () => (await list()).flatMap((g) => g.targets.map((t) => t.name));
const filter = async (text) => { await page.fill('#target-filter', text); };

const tests = [
  ['fifty targets arrive, grouped by bench, the daemon\'s own first', async () => {
    await page.goto(daemon.url);
    await waitFor('50 targets with records', () => page.evaluate((n) => {
      const t = window.tracetap;
      return t.stores.size === n && [...t.stores.values()].every((s) => s.size > 0);
    }, NAMES.length), 30000);
    const g = await waitFor('the grouped list', async () => { const x = await list(); return x.length === 6 ? x : null; }, 10000);
    assert(g[0].bench === '' && g[0].label === 'this daemon', 'the daemon\'s own group first: ' + JSON.stringify(g[0]));
    assert(JSON.stringify(g[0].targets.map((t) => t.name).sort()) === JSON.stringify(LOCAL), 'names without / in it: ' + JSON.stringify(g[0].targets));
    for (const bench of BENCHES) {
      const x = g.find((y) => y.bench === bench);
      assert(x && x.label === bench, 'a group for bench ' + bench);
      assert(x.targets.length === 9 && x.targets.every((t) => t.name.startsWith(bench + '/') && !t.name.slice(bench.length + 1).includes('/')),
        `bench ${bench} holds its 9 targets: ${JSON.stringify(x.targets.map((t) => t.name))}`);
    }
  }],

  ['every target shows its state and rate', async () => {
    const g = await waitFor('states from the daemon', async () => {
      const x = await list();
      const all = x.flatMap((y) => y.targets);
      return all.length === NAMES.length && all.every((t) => t.state === 'connected') ? x : null;
    }, 20000);
    for (const t of g.flatMap((y) => y.targets)) assert(/connected/.test(t.text) && /\d(\.\d+)?[kM]?\/s/.test(t.text), `${t.name} shows state and rate: ${t.text}`);
    await page.screenshot({ path: path.join(ART, 'benches-50.png') });
  }],

  ['a bench folds and unfolds, even when the list has news while the button is down', async () => {
    // Press on rack-b's head and hold it until the daemon's status has made the list due for a
    // redraw (every target streams, so one comes); the release must still fold the bench.
    // Where each press and click lands is logged by the page itself (capture listeners): the
    // head is measured, then pressed, and a list that moved in between (not what this test is
    // about) is seen as a press elsewhere, released away from the list and measured again.
    await page.evaluate(() => {
      const log = window.__press = [];
      for (const type of ['pointerdown', 'click']) {
        document.addEventListener(type, (e) => {
          const el = e.target.closest ? e.target.closest('.b-head, .target') : null;
          log.push({ type, head: !!(el && el.matches('.b-head')), at: el ? (el.dataset.bench ?? el.dataset.target) : e.target.nodeName });
        }, true);
      }
    });
    const presses = [];
    let landed = false;
    for (let i = 0; i < 5 && !landed; i++) {
      const box = await page.evaluate(() => {
        const h = document.querySelector('#targets .bench[data-bench="rack-b"] .b-head');
        h.scrollIntoView({ block: 'center' });
        const r = h.getBoundingClientRect();
        return { x: r.x, y: r.y, width: r.width, height: r.height };
      });
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.evaluate(() => { window.__press.length = 0; });
      await page.mouse.down();
      const p = await page.evaluate(() => window.__press[0]);
      presses.push(p);
      landed = !!(p && p.type === 'pointerdown' && p.head && p.at === 'rack-b');
      if (!landed) { // away from the list (the timeline's title), so the release clicks nothing in it
        await page.mouse.move(320, 68);
        await page.mouse.up();
      }
    }
    assert(landed, 'a press on rack-b\'s head: ' + JSON.stringify(presses));
    const held0 = await page.evaluate(() => window.tracetap.heldRedraws);
    await waitFor('a redraw due while the button is down', () => page.evaluate((h) => window.tracetap.heldRedraws > h, held0), 10000);
    await page.evaluate(() => { window.__press.length = 0; });
    await page.mouse.up();
    const clicks = await page.evaluate(() => window.__press);
    if (presses.length > 1) console.log(`# the press landed at the ${presses.length}th try: ${JSON.stringify(presses)}`);
    let x = (await list()).find((y) => y.bench === 'rack-b');
    assert(x.folded && x.targets.length === 0, 'folded: no targets shown: ' + JSON.stringify(x) + '; the release clicked: ' + JSON.stringify(clicks));
    assert((await list()).find((y) => y.bench === 'rack-a').targets.length === 9, 'other benches stay open');
    await page.click('#targets .bench[data-bench="rack-b"] .b-head');
    x = (await list()).find((y) => y.bench === 'rack-b');
    assert(!x.folded && x.targets.length === 9, 'unfolded again: ' + JSON.stringify(x));
  }],

  ['the filter box narrows by target and by bench', async () => {
    await filter('t37');
    assert(JSON.stringify(await shownNames()) === JSON.stringify(['rack-b/t37']), 'one target: ' + await shownNames());
    await filter('LAB/');
    const lab = await shownNames();
    assert(lab.length === 18 && lab.every((n) => n.startsWith('lab/')), 'the two lab benches, any case: ' + lab);
    await filter('rack-c');
    const rc = await shownNames();
    assert(rc.length === 9 && rc.every((n) => n.startsWith('rack-c/')), 'a bench by name: ' + rc);
    await filter('no such board');
    assert((await shownNames()).length === 0, 'nothing matches');
    assert(/no target matches/.test(await page.$eval('#targets', (e) => e.textContent)), 'and the list says so');
    await filter('');
    assert((await shownNames()).length === NAMES.length, 'cleared: all 50 again');
  }],

  ['a target chosen from the list becomes the current one while all fifty stream', async () => {
    await filter('t24');
    await page.click('#targets .target[data-target="rack-a/t24"]');
    await waitFor('rack-a/t24 current, its records in the table', () => page.evaluate(() => {
      const t = window.tracetap;
      return t.current.name === 'rack-a/t24' && document.querySelectorAll('#table-rows > *').length > 0 &&
        document.getElementById('target-select').value === 'rack-a/t24';
    }), 10000);
    await filter('');
    const sel = (await list()).flatMap((y) => y.targets).filter((t) => t.sel);
    assert(sel.length === 1 && sel[0].name === 'rack-a/t24' && /events/.test(sel[0].text), 'its full card is shown: ' + JSON.stringify(sel));
    // Folding its bench keeps the selected target in view.
    await page.click('#targets .bench[data-bench="rack-a"] .b-head');
    const x = (await list()).find((y) => y.bench === 'rack-a');
    assert(x.folded && x.targets.length === 1 && x.targets[0].name === 'rack-a/t24', 'the selection stays visible: ' + JSON.stringify(x.targets));
    // Picked from the menu instead: the list follows.
    await page.selectOption('#target-select', 'local3');
    await waitFor('local3\'s card in the list', async () => {
      const sel = (await list()).flatMap((y) => y.targets).filter((t) => t.sel);
      return sel.length === 1 && sel[0].name === 'local3';
    }, 5000);
    const groups = await page.$$eval('#target-select optgroup', (gs) => gs.map((g) => [g.label, g.children.length]));
    assert(groups.length === 6 && groups[0][0] === 'this daemon' && groups.every((g) => g[1] === (g[0] === 'this daemon' ? 5 : 9)),
      'the target menu is grouped the same way: ' + JSON.stringify(groups));
  }],
];

await runAll(tests, b, async () => {
  await daemon.kill('SIGTERM');
  fs.rmSync(tmp, { recursive: true, force: true });
});
