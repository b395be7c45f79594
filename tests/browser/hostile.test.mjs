#!/usr/bin/env node
// hostile.test.mjs: names from another bench are text, never markup. A hostile publisher on a
// real mosquitto sends a central tracetapd (--probe mqtt://) events whose name and thread name
// are HTML with an onerror handler, on a bench whose name is HTML too. In Chromium, hovering the
// event and the thread's lane on the timeline, opening the event's detail and reading the target
// list must show those strings literally, create no element from them and run no script (a
// window flag the payload would set). The page is opened with ?token=: it keeps streaming, and
// the token has left the address bar. A file target too: the real ThreadX image
// (../shared/fixtures/threadx-cm3/final.bin) with one thread's registry name made HTML and
// another's not UTF-8 (the page keeps its WebSocket). Screenshots: hostile-names*.png.
//
//   node tests/browser/hostile.test.mjs   (TT_BUILD_ROOT=build)

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import { freePort, Daemon, DAEMON, SRC, WEB, skip } from './chain.mjs';
import { launch, runAll, waitFor, assert, artifactsDir } from './lib.mjs';

if (!fs.existsSync(DAEMON)) skip(`no tracetapd at ${DAEMON}`);
for (const tool of ['mosquitto', 'mosquitto_pub']) {
  try { execFileSync('sh', ['-c', `command -v ${tool}`]); } catch { skip(`${tool} not installed`); }
}

const ART = artifactsDir();
const IMAGE = path.join(process.env.TT_FIXTURES || path.join(SRC, '..', 'shared', 'fixtures'), 'threadx-cm3', 'final.bin');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tt-hostile-'));
const TOKEN = 'hostile-test-token';
// under 64 bytes: names are cut there (proto/json.h)
const PAYLOAD = (what) => `<img src=x onerror="window.__pwned='${what}'">`;
const EVENT = 'EV' + PAYLOAD('event');
const THREAD = 'TH' + PAYLOAD('thread');
const BENCH = 'B<b onmouseover=alert(1)>x';

/* The broker: its own ephemeral port, its log polled for "running" and the SUBSCRIBE. */
const bport = await freePort();
const blog = path.join(tmp, 'broker.log');
fs.writeFileSync(path.join(tmp, 'broker.conf'), `listener ${bport} 127.0.0.1\nallow_anonymous true\nuser ${os.userInfo().username}\n`);
const bfd = fs.openSync(blog, 'a');
const broker = spawn('mosquitto', ['-v', '-c', path.join(tmp, 'broker.conf')], { stdio: ['ignore', bfd, bfd] });
const brokerLog = () => fs.readFileSync(blog, 'utf8');
await waitFor('mosquitto running', () => brokerLog().includes('running'), 10000);

const port = await freePort();
const daemon = new Daemon(port, {
  logFile: path.join(ART, 'tracetapd-hostile.log'),
  args: ['--port', String(port), '--web', WEB, '--token', TOKEN, '--probe', `mqtt://127.0.0.1:${bport}/lab/+/+`],
});
await daemon.start();
await waitFor('the central daemon subscribed', () => brokerLog().includes('Received SUBSCRIBE'), 10000);

function rec(seq, name, threadName) {
  return { type: 'event', target: 't', seq, id: 4096, name, ctx: 'thread', core: 0, thread: '0x20001000',
    thread_name: threadName, prio: 4, ts: seq, time: seq * 1000000, ns: seq * 1000000, args: {}, raw: [seq, 0, 0, 0] };
}
function publish(topic, recs, raw = (s) => s) {
  const msg = { type: 'events', target: 't', first: recs[0].seq, last: recs[recs.length - 1].seq, records: recs };
  const file = path.join(tmp, 'payload.bin');
  fs.writeFileSync(file, raw(Buffer.from(JSON.stringify(msg))));
  execFileSync('mosquitto_pub', ['-p', String(bport), '-q', '1', '-t', topic, '-f', file]);
}
const N = 40;
publish('lab/w/t/events', Array.from({ length: N }, (_, i) => rec(i + 1, i === N / 2 ? EVENT : 'USER_EVENT', THREAD)));
publish(`lab/${BENCH}/t/events`, [rec(1, 'USER_EVENT', 'main')]);

const b = await launch({ width: 1400, height: 900 });
const page = b.page;
const pwned = () => page.evaluate(() => window.__pwned || null);

/** Moves the mouse over the timeline at (plot x of time t, middle of lane laneName). */
async function hover(t, laneName) {
  const at = await page.evaluate(([t, laneName]) => {
    const tl = window.tracetap.timeline;
    const r = tl.wrap.getBoundingClientRect();
    for (let y = 0; y < r.height; y++) {
      const l = tl.laneAt(y);
      if (l && l.name === laneName) return { x: r.left + tl.xOf(t), y: r.top + y + tl.laneH / 2 };
    }
    return null;
  }, [t, laneName]);
  assert(at, `lane ${laneName} on the timeline: ` + JSON.stringify(await page.evaluate(() => { const tl = window.tracetap.timeline; return { lanes: tl.lanesShown.map((l) => l.name), h: tl.wrap.getBoundingClientRect().height, laneH: tl.laneH, cur: window.tracetap.current && window.tracetap.current.name, autoSpan: tl.autoSpan, t1: tl.t1, span: tl.span }; })));
  await page.mouse.move(at.x, at.y);
  return at;
}

const tests = [
  ['a hostile publisher\'s records arrive; the token leaves the address bar, the stream goes on', async () => {
    await page.goto(`${daemon.url}?token=${TOKEN}`);
    await waitFor(`${N} records of w/t`, () => page.evaluate((n) => {
      const s = window.tracetap.stores.get('w/t');
      return s && s.size >= n;
    }, N), 20000);
    const loc = await page.evaluate(() => location.href);
    assert(!loc.includes(TOKEN) && !loc.includes('token='), 'the token is still in the address: ' + loc);
    // still authorised after it left the URL: a later record arrives on the same page
    publish('lab/w/t/events', [rec(N + 1, 'USER_EVENT', THREAD)]);
    await waitFor('a record sent after the token left the URL', () => page.evaluate((n) => window.tracetap.stores.get('w/t').size > n, N), 10000);
  }],

  ['a record whose name is not UTF-8 (Caf\\xe9): the connection holds, the name shows U+FFFD', async () => {
    const opens = await page.evaluate(() => window.tracetap.conn.messages);
    // "CafX" becomes the raw byte 0xe9 (Latin-1), as a hostile or careless publisher sends it
    publish('lab/w/t/events', [rec(N + 2, 'CafX', THREAD), rec(N + 3, 'after', THREAD)],
      (b) => { const i = b.indexOf('CafX'); b[i + 3] = 0xe9; return b; });
    const names = await waitFor('both records on the page', () => page.evaluate(() => {
      const s = window.tracetap.stores.get('w/t'), out = [];
      for (let n = s.head; n < s.tail; n++) { const r = s.get(n); if (r && r.name && (r.name.startsWith('Caf') || r.name === 'after')) out.push(r.name); }
      return out.length === 2 ? out : null;
    }), 10000);
    assert(names[0] === 'Caf\ufffd', 'the name: ' + JSON.stringify(names));
    const c = await page.evaluate(() => ({ state: window.tracetap.conn.state, messages: window.tracetap.conn.messages }));
    assert(c.state === 'open' && c.messages > opens, 'the WebSocket held: ' + JSON.stringify(c));
  }],

  ['the event\'s name in the timeline tooltip: text, no element, no script', async () => {
    await page.evaluate(() => window.tracetap.selectTarget(window.tracetap.stores.get('w/t')));
    await page.evaluate(() => { const tl = window.tracetap.timeline; tl.setFollow(false); tl.autoSpan = false; tl.t1 = 42e6; tl.span = 44e6; tl.dirty = true; });
    const tip = await waitFor('the tooltip of the hostile event', async () => {
      await hover(21e6, THREAD);
      const t = await page.evaluate(() => { const e = window.tracetap.timeline.tip; return e.hidden ? null : { text: e.textContent, elements: [...e.querySelectorAll('*')].map((x) => x.tagName) }; });
      return t && t.text.startsWith('EV') ? t : null;
    }, 10000);
    await page.screenshot({ path: path.join(ART, 'hostile-names.png') });
    await waitFor('an image load (or its error) from the name, had it become one', () => page.evaluate(() => document.readyState === 'complete'), 2000);
    assert(!(await pwned()), 'the injected script ran: window.__pwned = ' + JSON.stringify(await pwned()));
    assert(tip.text.includes(EVENT), 'the name shown literally: ' + tip.text);
    assert(!tip.elements.includes('IMG'), 'an element made from the name: ' + tip.elements);
  }],

  ['the thread\'s name in the lane tooltip, the detail panel and the target list: text too', async () => {
    const lane = await waitFor('the lane tooltip', async () => {
      await hover(10.5e6, THREAD);
      const t = await page.evaluate(() => { const e = window.tracetap.timeline.tip; return e.hidden ? null : { text: e.textContent, imgs: e.querySelectorAll('img').length }; });
      return t && t.text.startsWith('TH') ? t : null;
    }, 10000);
    assert(!(await pwned()), 'the injected script ran: window.__pwned = ' + JSON.stringify(await pwned()));
    assert(lane.text.includes(THREAD) && lane.imgs === 0, 'lane tooltip: ' + JSON.stringify(lane));
    // the detail panel of the hostile event (a click on it)
    const at = await hover(21e6, THREAD);
    await page.mouse.down();
    await page.mouse.up();
    await waitFor('the detail panel', () => page.isVisible('#detail'), 5000);
    const d = await page.$eval('#detail-body', (e) => ({ text: e.textContent, imgs: e.querySelectorAll('img').length }));
    assert(d.text.includes(EVENT) && d.text.includes(THREAD) && d.imgs === 0, `detail at ${JSON.stringify(at)}: ` + JSON.stringify(d).slice(0, 400));
    const list = await waitFor('the hostile bench in the target list', () => page.$eval('#targets', (e) => ({
      text: e.textContent, bold: [...e.querySelectorAll('.b-head b')].map((x) => x.textContent), inner: e.querySelectorAll('.b-head b b').length,
    })).then((x) => (x.bold.includes(BENCH) ? x : null)), 10000);
    assert(list.inner === 0, 'an element made from the bench name: ' + JSON.stringify(list));
    await page.screenshot({ path: path.join(ART, 'hostile-names-detail.png') });
    assert(!(await pwned()), 'the injected script ran: ' + JSON.stringify(await pwned()));
  }],

  ['the page is served with a Content-Security-Policy: no inline script runs', async () => {
    const r = await fetch(daemon.url);
    const csp = r.headers.get('content-security-policy') || '';
    assert(/script-src 'self'/.test(csp) && !/unsafe-inline/.test(csp) && /frame-ancestors 'none'/.test(csp), 'CSP: ' + csp);
    assert(r.headers.get('x-content-type-options') === 'nosniff', 'nosniff');
    // what an injection would try, once markup got in: an inline handler does not run
    const ran = await page.evaluate(() => new Promise((done) => {
      const d = document.createElement('div');
      document.body.append(d);
      d.setAttribute('onclick', 'window.__inline = 1');
      d.click();
      setTimeout(() => done(window.__inline || 0), 0);
    }));
    assert(ran === 0, 'an inline handler ran despite the CSP');
  }],
];

/* The image with the registry names of "thread 1" and "thread 2" replaced in place (each a
 * 32-byte field, NUL-padded): an HTML name and a name that is not UTF-8. */
const TRX_NAME = '<img src=x onerror=__pwned=1>'; // 29 bytes: fits the field
let fileDaemon = null;
tests.push(['a file target\'s thread names: HTML shown as text, a byte that is not UTF-8 replaced', async () => {
  if (!fs.existsSync(IMAGE)) throw new Error(`${IMAGE} not found (set TT_FIXTURES)`);
  const img = fs.readFileSync(IMAGE);
  const put = (from, bytes) => {
    const at = img.indexOf(Buffer.from(from + '\0'));
    assert(at > 0, `registry name ${from} in the image`);
    img.fill(0, at, at + 32);
    bytes.copy(img, at);
  };
  put('thread 1', Buffer.from(TRX_NAME));
  put('thread 2', Buffer.from([0x74, 0x68, 0xe9, 0x20, 0x32])); // "th\xe9 2": Latin-1
  const file = path.join(tmp, 'hostile.bin');
  fs.writeFileSync(file, img);
  const fport = await freePort();
  fileDaemon = new Daemon(fport, {
    logFile: path.join(ART, 'tracetapd-hostile-file.log'),
    args: ['--port', String(fport), '--web', WEB, '--name', 'file', '--probe', 'file:' + file, '--base', '0x21000000', '--address', '0x21000100', '--tick-hz', '25M'],
  });
  await fileDaemon.start();
  await page.goto(fileDaemon.url);
  const lanes = await waitFor('the lanes of the file target', () => page.evaluate(() => {
    const tl = window.tracetap.timeline;
    return tl.lanesShown.length > 2 ? tl.lanesShown.map((l) => l.name) : null;
  }), 20000);
  assert(lanes.includes(TRX_NAME), 'the HTML name as a lane: ' + JSON.stringify(lanes));
  // the ThreadX reader itself shows a registry byte that is no printable ASCII as '?'
  assert(lanes.some((n) => /^th[\ufffd?] 2$/.test(n)), 'the Latin-1 name, replaced: ' + JSON.stringify(lanes));
  await page.evaluate(() => { const tl = window.tracetap.timeline; tl.setFollow(false); tl.dirty = true; });
  const tip = await waitFor('the lane tooltip of the HTML name', async () => {
    const box = await page.evaluate((name) => {
      const tl = window.tracetap.timeline, r = tl.wrap.getBoundingClientRect();
      for (let y = 0; y < r.height; y++) { const l = tl.laneAt(y); if (l && l.name === name) return { r, y }; }
      return null;
    }, TRX_NAME);
    assert(box, 'lane on the timeline');
    for (let x = box.r.width - 4; x > 160; x -= 37) { // between events somewhere: the lane's own tooltip
      await page.mouse.move(box.r.left + x, box.r.top + box.y + 4);
      const t = await page.evaluate(() => { const e = window.tracetap.timeline.tip; return e.hidden ? null : { text: e.textContent, imgs: e.querySelectorAll('img').length }; });
      if (t && !/#\d/.test(t.text)) return t; // a lane's tooltip (an event's says #seq)
    }
    return null;
  }, 10000);
  await page.screenshot({ path: path.join(ART, 'hostile-names-file.png') });
  assert(!(await pwned()), 'the injected script ran: window.__pwned = ' + JSON.stringify(await pwned()));
  assert(tip.text.startsWith(TRX_NAME) && tip.imgs === 0, 'lane tooltip: ' + JSON.stringify(tip));
}]);

await runAll(tests, b, async () => {
  if (fileDaemon) await fileDaemon.kill('SIGTERM');
  await daemon.kill('SIGTERM');
  broker.kill('SIGTERM');
  fs.rmSync(tmp, { recursive: true, force: true });
}, { ignore: /Content Security Policy|Refused to execute inline/ });
