#!/usr/bin/env node
// triggers.test.mjs: a trigger firing as the dashboard shows it. Real tracetapd follows a RAM
// file that tt-fw-threadx writes; once the page has records, a SIGHUP adds a trigger on the
// workload's user events with a capture (its condition holds markup, which must stay text). The
// alert becomes a timeline mark and a table row in its target's records and an entry in the
// Alerts list; once the capture's window closes, the entry links its files, and the .trx link
// downloads the capture the daemon lists.
//
//   node tests/browser/triggers.test.mjs   (TT_BUILD_ROOT=build)

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { freePort, Daemon, DAEMON, BUILD, WEB, skip } from './chain.mjs';
import { launch, runAll, waitFor, assert, artifactsDir } from './lib.mjs';

const FW = path.join(BUILD, 'tests', 'sim', 'tt-fw-threadx');
if (!fs.existsSync(DAEMON)) skip(`no tracetapd at ${DAEMON}`);
if (!fs.existsSync(FW)) skip(`no tt-fw-threadx at ${FW}`);

const ART = artifactsDir();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tt-triggers-'));
const ram = path.join(work, 'ram.bin'), caps = path.join(work, 'caps'), cfg = path.join(work, 'cfg.json');
const fw = spawn(FW, ['--ram', ram, '--base', '0x20000000', '--size', '65536', '--rate', '1000',
  '--duration', '200', '--time', 'counter'], { stdio: 'ignore' });
await waitFor('the RAM file', () => fs.existsSync(ram) && fs.statSync(ram).size >= 65536, 20000);
const HOSTILE = '<img src=x onerror="window.pwned=1">';
const config = (triggers) => fs.writeFileSync(cfg, JSON.stringify({
  capture_dir: caps, triggers,
  targets: [{ name: 'b1', probe: 'file:' + ram, file_base: '0x20000000', address: '0x20000000', address_is_pointer: true }],
}));
config([]);
const port = await freePort();
const daemon = await new Daemon(port, {
  logFile: path.join(ART, 'tracetapd-triggers.log'),
  args: ['--config', cfg, '--listen', '127.0.0.1', '--port', String(port), '--web', WEB],
}).start();
const b = await launch();
const page = b.page;
const st = () => page.evaluate(() => {
  const s = window.tracetap.current;
  if (!s) return null;
  const alerts = [];
  for (let n = s.head; n < s.tail; n++) { const r = s.get(n); if (r && r.type === 'alert') alerts.push({ trigger: r.trigger, firedSeq: r.firedSeq, capture: r.capture }); }
  return { lastSeq: s.lastSeq, alerts, marks: s.timeline.markers.filter((m) => m.kind === 'alert').length };
});

const tests = [
  ['no alert while no trigger is configured', async () => {
    await page.goto(daemon.url);
    await waitFor('records', async () => { const s = await st(); return s && s.lastSeq > 200; }, 30000);
    const s = await st();
    assert(s.alerts.length === 0 && s.marks === 0, 'no alert yet: ' + JSON.stringify(s));
    assert(/no alert/.test(await page.$eval('#alerts', (e) => e.textContent)), 'the list says there is none');
  }],

  ['a trigger added by SIGHUP fires: mark, row and list entry; its text is text', async () => {
    config([{ name: 'boom', when: `USER_EVENT id=4096 info1>=1 text!="${HOSTILE}"`, limit: 1, capture: true, before: 100, after: 100 }]);
    daemon.proc.kill('SIGHUP');
    const s = await waitFor('the alert in the store', async () => { const x = await st(); return x.alerts.length ? x : null; }, 30000);
    assert(s.alerts.length === 1 && s.alerts[0].trigger === 'boom' && s.marks === 1, 'one alert, one timeline mark: ' + JSON.stringify(s));
    const item = await page.$eval('#alerts', (e) => ({ text: e.textContent, imgs: e.querySelectorAll('img').length }));
    assert(item.text.includes('boom') && item.text.includes(HOSTILE), 'the entry names the trigger and shows the condition as text: ' + item.text);
    assert(item.imgs === 0 && !(await page.evaluate(() => window.pwned)), 'the markup in the condition made no element and ran nothing');
    assert(item.text.includes('seq ' + s.alerts[0].firedSeq), 'the entry names the seq that fired it');
    // the alert names a record the page has: a user event with info1 >= 1
    const fired = await page.evaluate((seq) => {
      const st = window.tracetap.current;
      for (let n = st.head; n < st.tail; n++) { const r = st.get(n); if (r && r.seq === seq) return { name: r.name, info1: r.args && r.args.info1 }; }
      return null;
    }, s.alerts[0].firedSeq);
    assert(fired && fired.name === 'USER_EVENT' && fired.info1 >= 1, 'the alert names a user event the page has: ' + JSON.stringify(fired));
  }],

  ['the capture is linked once written, and the link downloads it', async () => {
    const href = await waitFor('the capture link', () => page.$eval('#alerts', (e) => {
      const a = e.querySelector('a.capture-link[data-file="capture.trx"]');
      return a ? a.getAttribute('href') : null;
    }), 30000);
    const list = await (await fetch(daemon.url + 'api/captures')).json();
    assert(list.length === 1 && href.split("?")[0] === `api/captures/${encodeURIComponent(list[0].name)}/capture.trx`, `the link names the listed capture: ${href}`);
    const got = await page.evaluate(async (u) => {
      const r = await fetch(u);
      const buf = new Uint8Array(await r.arrayBuffer());
      return { status: r.status, len: buf.length, magic: String.fromCharCode(...buf.slice(0, 4)) };
    }, href);
    const file = fs.readFileSync(path.join(caps, list[0].name, 'capture.trx'));
    assert(got.status === 200 && got.len === file.length, `downloaded ${JSON.stringify(got)}, file ${file.length} bytes`);
    const caplist = await page.$eval('#captures', (e) => e.textContent);
    assert(caplist.includes('boom') && caplist.includes('b1'), 'the captures list shows it: ' + caplist);
    await page.screenshot({ path: path.join(ART, 'triggers-alert.png') });
  }],
];

await runAll(tests, b, async () => {
  await daemon.kill('SIGTERM');
  fw.kill('SIGTERM');
  fs.rmSync(work, { recursive: true, force: true });
});
