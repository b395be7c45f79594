#!/usr/bin/env node
// formats.test.mjs: the table, timeline and detail views on NuttX and QNX records, as the real
// tracetapd sends them. One daemon, two targets from a configuration file: "nx", real NuttX (the
// sim's RAM image ../shared/fixtures/nuttx-sim/m64 with a layout file from its facts.json, as
// tests/nuttx/fixtures.sh does) and "qnx", a .kev file written by tests/qnx/kev_gen
// (`--probe kev:`). User events must be the application's in each format (QNX's event ids are
// above ThreadX's 4096 user range: a THREAD_RUNNING is not a user event); the detail panel shows
// the common fields, the format's own and the arguments, and the raw words without ThreadX's
// labels.
//
//   node tests/browser/formats.test.mjs   (TT_BUILD_ROOT=build; TT_FIXTURES as in threadx-cm3)

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { freePort, Daemon, DAEMON, SRC, BUILD, WEB, skip } from './chain.mjs';
import { launch, runAll, waitFor, assert, artifactsDir } from './lib.mjs';

const FIX = path.join(process.env.TT_FIXTURES || path.join(SRC, '..', 'shared', 'fixtures'), 'nuttx-sim');
const KEV_GEN = path.join(BUILD, 'tests', 'qnx', 'kev_gen');
if (!fs.existsSync(path.join(FIX, 'facts.json'))) skip(`no NuttX fixtures at ${FIX} (set TT_FIXTURES)`);
if (!fs.existsSync(DAEMON)) skip(`no tracetapd at ${DAEMON}`);
if (!fs.existsSync(KEV_GEN)) skip(`no kev_gen at ${KEV_GEN}`);

const ART = artifactsDir();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tt-formats-'));
fs.writeFileSync(path.join(tmp, 'm64.layout.json'),
  execFileSync('python3', [path.join(SRC, 'tests', 'nuttx', 'fixture-layout.py'), path.join(FIX, 'facts.json'), 'm64']));
fs.writeFileSync(path.join(tmp, 'm64.img'), execFileSync('xz', ['-dc', path.join(FIX, 'm64', 'image.bin.xz')], { maxBuffer: 1 << 30 }));
execFileSync(KEV_GEN, [path.join(tmp, 'q.kev')], { stdio: 'ignore' });
const port = await freePort();
const cfg = path.join(tmp, 'tracetapd.json');
fs.writeFileSync(cfg, JSON.stringify({
  listen: '127.0.0.1', port, web_dir: WEB,
  targets: [
    { name: 'nx', probe: 'file:' + path.join(tmp, 'm64.img'), layout: path.join(tmp, 'm64.layout.json'),
      file_base: parseInt(fs.readFileSync(path.join(FIX, 'm64', 'image-base.txt'), 'utf8').trim(), 16) },
    { name: 'qnx', probe: 'kev:' + path.join(tmp, 'q.kev'), format: 'qnx' },
  ],
}));
const daemon = new Daemon(port, { logFile: path.join(ART, 'tracetapd-formats.log'), args: ['--config', cfg] });
await daemon.start();
const b = await launch({ width: 1400, height: 900 });
const page = b.page;

/** The table rows shown: name, whether drawn as a user event. */
const rows = () => page.$$eval('#table-rows .row:not([hidden])', (rs) => rs.map((r) => ({
  name: r.children[5].textContent, user: r.classList.contains('user'), thread: r.children[3].textContent })));
const pick = async (target, event, atLeast = 1) => {
  await page.selectOption('#target-select', target);
  await page.selectOption('#filter-event', event);
  // gap and reset rows pass every filter (they explain holes): the event rows are the others;
  // the table redraws after the filter changes, so wait for as many rows as the file holds
  return waitFor(`${target}: ${atLeast} or more ${event} rows`, async () => {
    const x = (await rows()).filter((r) => !['GAP', 'RESET', 'RECONNECT'].includes(r.name));
    return x.length >= atLeast && x.every((r) => r.name === event) ? x : null;
  }, 10000);
};
/** Opens the detail of the first event row shown; returns its tables as {heading: {key: value}}. */
const detail = async () => {
  await page.click('#table-rows .row:not([hidden])[class*="ctx-"]');
  await waitFor('the detail panel', () => page.$eval('#detail', (d) => !d.hidden), 5000);
  return page.$eval('#detail-body', (d) => {
    const out = {};
    for (const h of d.querySelectorAll('h3')) {
      const t = h.nextElementSibling;
      if (t && t.tagName === 'TABLE') out[h.textContent] = Object.fromEntries([...t.querySelectorAll('tr')].map((tr) => [tr.children[0].textContent, tr.children[1] ? tr.children[1].textContent : '']));
    }
    return out;
  });
};

const tests = [
  ['both formats arrive', async () => {
    await page.goto(daemon.url + '?history=100000');
    await waitFor('NuttX and QNX records', () => page.evaluate(() => {
      const s = window.tracetap.stores;
      // kev_gen's file holds 13 events, the two USER_EVENTs last: wait for all of them (the
      // kev: source may deliver the file over more than one poll)
      return s.get('nx')?.counts.events >= 1000 && s.get('qnx')?.counts.events >= 13;
    }), 30000);
    const fmts = await page.evaluate(() => ['nx', 'qnx'].map((n) => window.tracetap.stores.get(n).status.format));
    assert(/nuttx/i.test(fmts[0]) && /qnx/i.test(fmts[1]), 'the daemon names the formats: ' + fmts);
  }],

  ['QNX: user events are USER_EVENT only, not every id above 4096', async () => {
    const run = await pick('qnx', 'THREAD_RUNNING');
    assert(run.every((r) => !r.user), 'THREAD_RUNNING (id 4097) is not a user event: ' + JSON.stringify(run));
    assert(run.every((r) => r.thread === 'io-pkt/rx'), 'the thread column has QNX\'s process/thread: ' + JSON.stringify(run));
    const user = await pick('qnx', 'USER_EVENT', 2);
    assert(user.length === 2 && user.every((r) => r.user), 'USER_EVENT rows are: ' + JSON.stringify(user));
    const inst = await page.evaluate(() => window.tracetap.current.timeline.instants.filter((i) => i.kind === 'user').map((i) => i.r.name));
    assert(inst.length === 2 && inst.every((n) => n === 'USER_EVENT'), 'the timeline marks the two user events only: ' + inst);
  }],

  ['QNX: the detail of an interrupt', async () => {
    await pick('qnx', 'INT_ENTRY');
    const d = await detail();
    assert(d.Fields && d.Fields.name === 'INT_ENTRY' && d.Fields.ctx === 'isr' && d.Fields.interrupted_name === 'io-pkt/rx' && 'seq' in d.Fields && 'time' in d.Fields,
      'common fields: ' + JSON.stringify(d.Fields));
    assert(d.Arguments && 'irq' in d.Arguments && 'ip' in d.Arguments, 'its arguments: ' + JSON.stringify(d.Arguments));
    const raw = d['Raw words'] || {};
    assert('word 0' in raw && !('thread pointer' in raw), 'raw words without ThreadX labels: ' + Object.keys(raw));
    await page.screenshot({ path: path.join(ART, 'formats-qnx-detail.png') });
  }],

  ['NuttX: application notes are user events, system calls are not; the detail of a printf note', async () => {
    const sc = await pick('nx', 'NOTE_SYSCALL_ENTER');
    assert(sc.every((r) => !r.user), 'system calls are not user events');
    const pf = await pick('nx', 'NOTE_DUMP_PRINTF');
    assert(pf.every((r) => r.user), 'NOTE_DUMP_PRINTF rows are user events: ' + JSON.stringify(pf.slice(0, 3)));
    // the newest printf notes: a filter change keeps the table on the record at its top, which
    // may be a printf with binary arguments only (no text)
    await page.click('#btn-follow');
    const d = await detail();
    assert(d.Fields && d.Fields.thread === '0x00000006' && d.Fields.core === '0' && d.Fields.prio === '100', 'common fields: ' + JSON.stringify(d.Fields));
    assert(d.Arguments && d.Arguments.text && 'fmt' in d.Arguments, 'the printf\'s arguments: ' + JSON.stringify(d.Arguments));
    const raw = d['Raw words'] || {};
    assert(Object.keys(raw).length > 8 && 'word 0' in raw && !('thread pointer' in raw), 'all of the note\'s words, unlabelled: ' + Object.keys(raw));
    await page.screenshot({ path: path.join(ART, 'formats-nuttx-detail.png') });
  }],
];

await runAll(tests, b, async () => {
  await daemon.kill('SIGTERM');
  fs.rmSync(tmp, { recursive: true, force: true });
});
