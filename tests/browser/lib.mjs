// lib.mjs: shared helpers of the browser tests: Debian's Chromium through playwright-core
// (never a downloaded browser), artifacts directory, a tiny test runner with deadlines.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD = '1';
let chromium;
try {
  ({ chromium } = await import('playwright-core'));
} catch (e) {
  console.log('1..0 # SKIP playwright-core missing: run `npm ci` in tests/browser');
  process.exit(77);
}

export const CHROMIUM = process.env.TT_CHROMIUM || '/usr/bin/chromium';
export const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Where screenshots go: $TT_ARTIFACTS, else $MESON_BUILD_ROOT/artifacts/browser, else ./artifacts. */
export function artifactsDir() {
  const d = process.env.TT_ARTIFACTS ||
    (process.env.MESON_BUILD_ROOT ? path.join(process.env.MESON_BUILD_ROOT, 'artifacts', 'browser') : path.join(process.cwd(), 'artifacts'));
  fs.mkdirSync(d, { recursive: true });
  return d;
}

/** Launches Chromium with a fresh user-data-dir; returns {context, page, close}. */
export async function launch({ width = 1280, height = 720, colorScheme = 'light' } = {}) {
  if (!fs.existsSync(CHROMIUM)) {
    console.log(`1..0 # SKIP ${CHROMIUM} not found: apt-get install chromium (or set TT_CHROMIUM)`);
    process.exit(77);
  }
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tt-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS,
    viewport: { width, height }, colorScheme, acceptDownloads: true,
  });
  const page = context.pages()[0] || await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return {
    context, page, errors,
    async close() { await context.close(); fs.rmSync(userDataDir, { recursive: true, force: true }); },
  };
}

/**
 * Starts a server (start(opts.server) -> {url, close}), opens its URL + opts.query in a fresh
 * Chromium (launch(opts.launch)), runs fn(page, server, browser), counts page errors as a
 * failure, and closes browser and server, also on failure.
 */
export async function withServerPage(start, opts, fn) {
  const srv = await start(opts.server || {});
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

/** Polls fn (in node) until it returns truthy or the deadline passes. */
export async function waitFor(what, fn, timeoutMs = 15000, everyMs = 100) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try { last = await fn(); if (last) return last; } catch (e) { last = e; }
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}` + (last instanceof Error ? `: ${last.message}` : ''));
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Minimal runner: named async tests, sequential, TAP-like output, exit code. */
export async function run(tests, { only = process.env.TT_ONLY } = {}) {
  let failed = 0, n = 0;
  for (const [name, fn] of tests) {
    if (only && !name.includes(only)) continue;
    n++;
    const t0 = Date.now();
    try {
      await fn();
      console.log(`ok ${n} - ${name} (${Date.now() - t0} ms)`);
    } catch (e) {
      failed++;
      console.log(`not ok ${n} - ${name} (${Date.now() - t0} ms)\n  ${String(e && e.stack || e).split('\n').join('\n  ')}`);
    }
  }
  console.log(`1..${n}\n# ${n - failed} passed, ${failed} failed`);
  return failed;
}

export function assert(cond, msg) { if (!cond) throw new Error('assertion failed: ' + msg); }

/**
 * Runs the tests, counts page errors (but those matching `ignore`) as one more failure, closes
 * the browser, runs `cleanup` (stop the daemon, remove files) and exits with the result.
 */
export async function runAll(tests, browser, cleanup, { ignore = null } = {}) {
  let failed = 1;
  try {
    failed = await run(tests);
    const errs = browser.errors.filter((e) => !ignore || !ignore.test(e));
    if (errs.length) { console.log('# page errors: ' + errs.join(' | ')); failed++; }
  } finally {
    // the cleanup runs even when closing the browser fails (a crashed browser)
    try { await browser.close(); } catch (e) { console.log('# closing the browser: ' + e); failed++; }
    await cleanup();
  }
  process.exit(failed ? 1 : 0);
}
