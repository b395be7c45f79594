#!/usr/bin/env node
// instance.test.mjs: the daemon's boot instance id (`instance` in hello) and what the dashboard
// does with it. The real tracetapd serves a fixed image (`--probe file:`, real ThreadX from
// ../shared/fixtures/threadx-cm3/final.bin), so a restarted daemon sends exactly the records, with
// exactly the seqs, the dashboard already has: only the instance id tells the two daemons apart.
//
//   node tests/browser/instance.test.mjs   (TT_BUILD_ROOT=build; TT_FIXTURES as in threadx-cm3)

import fs from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { freePort, Daemon, DAEMON, SRC, WEB, skip } from './chain.mjs';
import { launch, runAll, waitFor, assert, artifactsDir } from './lib.mjs';

const FIX = process.env.TT_FIXTURES || path.join(SRC, '..', 'shared', 'fixtures');
const IMAGE = path.join(FIX, 'threadx-cm3', 'final.bin');
if (!fs.existsSync(IMAGE)) skip(`${IMAGE} not found (set TT_FIXTURES)`);
if (!fs.existsSync(DAEMON)) skip(`no tracetapd at ${DAEMON}`);

const ART = artifactsDir();
const port = await freePort();
const newDaemon = () => new Daemon(port, {
  logFile: path.join(ART, 'tracetapd-instance.log'),
  args: ['--probe', 'file:' + IMAGE, '--base', '0x21000000', '--address', '0x21000100', '--tick-hz', '25M',
    '--name', 'cm3', '--listen', '127.0.0.1', '--port', String(port), '--web', WEB],
});

/** The hello of one new WebSocket connection. */
function hello() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, 'tracetap.v1');
    const t = setTimeout(() => { ws.terminate(); reject(new Error('no hello within 5 s')); }, 5000);
    ws.on('message', (d) => { clearTimeout(t); ws.close(); resolve(JSON.parse(String(d))); });
    ws.on('error', (e) => { clearTimeout(t); reject(e); });
  });
}

let daemon = await newDaemon().start();
const b = await launch();
const page = b.page;
const st = () => page.evaluate(() => {
  const t = window.tracetap, s = t.current;
  return { instance: t.session.instance, restarts: t.session.restarts, size: s ? s.size : 0, lastSeq: s ? s.lastSeq : 0,
    markers: s ? s.timeline.markers.filter((m) => m.kind === 'marker').map((m) => m.r.reason) : [] };
});
let first = null;

const tests = [
  ['one daemon: the same instance id on every connection', async () => {
    const h1 = await hello(), h2 = await hello();
    assert(/^[0-9a-f]{32}$/.test(h1.instance || ''), 'hello carries a 32-hex-digit instance: ' + JSON.stringify(h1.instance));
    assert(h1.instance === h2.instance, `two connections, one instance: ${h1.instance} ${h2.instance}`);
    first = h1.instance;
  }],

  ['the dashboard keeps the instance and has the records', async () => {
    await page.goto(daemon.url);
    await waitFor('records', async () => (await st()).lastSeq > 100, 20000);
    const s = await st();
    assert(s.instance === first, `the session holds the daemon's instance: ${s.instance} vs ${first}`);
    assert(s.restarts.length === 0 && s.markers.length === 0, 'no restart seen yet: ' + JSON.stringify(s));
  }],

  ['a restarted daemon has another instance id, and the dashboard notices by it', async () => {
    // The dashboard stays away until the new daemon has read the buffer again, so that its
    // last_seq is not behind ours (which an older daemon's restart would be told by).
    const held = (await (await fetch(daemon.url + 'api/targets')).json())[0].last_seq;
    await waitFor('all the daemon holds', async () => (await st()).lastSeq === held, 20000);
    await page.evaluate(() => window.tracetap.conn.close());
    await waitFor('the WebSocket closed', () => page.evaluate(() => window.tracetap.conn.ws === null), 10000);
    const before = await st();
    await daemon.kill('SIGKILL');
    daemon = await newDaemon().start();
    await waitFor('the new daemon past our last seq', async () => {
      const list = await (await fetch(daemon.url + 'api/targets')).json();
      return list[0].last_seq >= before.lastSeq;
    }, 20000);
    const h = await hello();
    assert(/^[0-9a-f]{32}$/.test(h.instance || '') && h.instance !== first, `a second start, a new instance: ${first} then ${h.instance}`);
    // The new daemon holds the same records under the same seqs: only the id can tell.
    const t0 = h.targets.find((t) => t.name === 'cm3');
    assert(t0 && t0.last_seq >= before.lastSeq, `the restarted daemon is not behind us (${t0 && t0.last_seq} >= ${before.lastSeq})`);
    await page.evaluate(() => { window.tracetap.conn.closedByUs = false; window.tracetap.conn.reconnectNow(); });
    const s = await waitFor('the dashboard on the new instance', async () => { const x = await st(); return x.instance === h.instance ? x : null; }, 20000);
    assert(s.restarts.length === 1 && s.restarts[0].by === 'instance', 'one restart, found by the instance id: ' + JSON.stringify(s.restarts));
    assert(s.markers.includes('daemon restarted'), 'a "daemon restarted" marker: ' + JSON.stringify(s.markers));
    const toastText = await page.$eval('#toast', (e) => e.textContent);
    assert(/daemon restarted/.test(toastText), 'the dashboard says so: ' + toastText);
    // The records the new daemon reads again from the same buffer are recognised, not shown twice.
    const after = await waitFor('the history again', async () => { const x = await st(); return x.lastSeq >= before.lastSeq ? x : null; }, 20000);
    assert(after.size === before.size + 1, `old records kept, repeats skipped, one marker added: ${before.size} -> ${after.size}`);
    await page.screenshot({ path: path.join(ART, 'instance-restart.png') });
  }],
];

await runAll(tests, b, async () => {
  await daemon.kill('SIGTERM');
}, { ignore: /WebSocket connection to .* failed/ });
