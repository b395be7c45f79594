#!/usr/bin/env node
// bench.mjs: frame time of the dashboard while it streams N events/s (a benchmark, not a test).
//
// Measured in the page with the Performance API: requestAnimationFrame deltas over a window
// after a warm-up, with the table and timeline following live. Prints p50/p95/p99/max, the
// records/s actually received, and the goal check (p95 < 33 ms).
//
//   node bench.mjs [--rate 20000] [--seconds 10] [--warmup 4] [--dark]
//       source of events, one of:
//       (default)         the development page driver (devserver.mjs) at --rate
//       --url URL         an already running tracetapd (its dashboard URL)
//       --process         real tracetapd following tt-fw-threadx --anon --rate N through the
//                         process probe (TT_BUILD_ROOT; daemon args from TT_BENCH_DAEMON_ARGS,
//                         default: --probe process:{FW_PID} --pointer 0x20000000 --tick-hz 100M
//                         --name board1 --listen 127.0.0.1
//                         --port {PORT} --web {WEB})

import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { launch } from './lib.mjs';
import { startDevServer } from './devserver.mjs';
import { BUILD, Daemon, freePort, daemonArgs } from './chain.mjs';

const a = process.argv.slice(2);
const opt = (k, d) => { const i = a.indexOf('--' + k); return i >= 0 ? a[i + 1] : d; };
const rate = +opt('rate', 20000);
const seconds = +opt('seconds', 10);
const warmup = +opt('warmup', 4);
const cleanups = [];
let url = opt('url', null);
let source;

if (url) {
  source = `tracetapd at ${url}`;
} else if (a.includes('--process')) {
  const fw = spawn(path.join(BUILD, 'tests', 'sim', 'tt-fw-threadx'),
    ['--anon', '--base', '0x20000000', '--size', String(4 << 20), '--rate', String(rate)], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(() => fw.kill('SIGTERM'));
  const line = await new Promise((res, rej) => {
    const rl = readline.createInterface({ input: fw.stdout });
    rl.on('line', (l) => { if (/pid=\d+/.test(l)) res(l); });
    fw.on('exit', (c) => rej(new Error('tt-fw-threadx exited ' + c)));
  });
  const pid = line.match(/pid=(\d+)/)[1];
  const port = await freePort();
  const tmpl = process.env.TT_BENCH_DAEMON_ARGS || '--probe process:{FW_PID} --pointer 0x20000000 --tick-hz 100M --name board1 --listen 127.0.0.1 --port {PORT} --web {WEB}';
  process.env.TT_DAEMON_ARGS = tmpl;
  const d = new Daemon(port, { args: daemonArgs(port, { FW_PID: pid }), logFile: '/tmp/tt-bench-daemon.log' });
  await d.start();
  cleanups.push(() => d.kill('SIGTERM'));
  url = d.url;
  source = `tracetapd --probe process (tt-fw-threadx --anon --rate ${rate})`;
} else {
  const srv = await startDevServer({ rate, batchMs: 20 });
  cleanups.push(() => srv.close());
  url = srv.url;
  source = `devserver.mjs (synthetic, ${rate} events/s)`;
}

const b = await launch({ colorScheme: a.includes('--dark') ? 'dark' : 'light' });
try {
  await b.page.goto(url + (url.includes('?') ? '&' : '?') + 'history=0');
  await b.page.waitForFunction(() => window.tracetap && window.tracetap.current && window.tracetap.current.size > 0, null, { timeout: 20000 });
  await b.page.waitForTimeout(warmup * 1000);
  const res = await b.page.evaluate(async (sec) => {
    const app = window.tracetap;
    const r0 = app.counters.records;
    const deltas = [];
    let longTasks = 0;
    const po = new PerformanceObserver((l) => { longTasks += l.getEntries().length; });
    try { po.observe({ entryTypes: ['longtask'] }); } catch (e) { /* not supported */ }
    await new Promise((done) => {
      let last = performance.now();
      const end = last + sec * 1000;
      const f = (t) => { deltas.push(t - last); last = t; if (t < end) requestAnimationFrame(f); else done(); };
      requestAnimationFrame(f);
    });
    po.disconnect();
    deltas.sort((x, y) => x - y);
    const q = (p) => deltas[Math.min(deltas.length - 1, Math.floor(p * deltas.length))];
    return { frames: deltas.length, p50: q(0.5), p95: q(0.95), p99: q(0.99), max: deltas[deltas.length - 1],
      recPerSec: (app.counters.records - r0) / sec, longTasks, kept: app.current.size,
      follow: app.table.follow && app.timeline.follow };
  }, seconds);
  console.log(`source:      ${source}`);
  console.log(`viewport:    1280x720, table + timeline following live, ${seconds} s after ${warmup} s warm-up`);
  console.log(`received:    ${Math.round(res.recPerSec)} records/s (kept ${res.kept} in the ring)`);
  console.log(`frames:      ${res.frames}  long tasks (>50 ms): ${res.longTasks}`);
  console.log(`frame time:  p50 ${res.p50.toFixed(1)} ms  p95 ${res.p95.toFixed(1)} ms  p99 ${res.p99.toFixed(1)} ms  max ${res.max.toFixed(1)} ms`);
  console.log(`goal p95 < 33 ms: ${res.p95 < 33 ? 'met' : 'NOT met'}`);
  if (!res.follow) console.log('warning: views stopped following during the run');
} finally {
  await b.close();
  for (const c of cleanups) await c();
}
