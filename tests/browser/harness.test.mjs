#!/usr/bin/env node
// harness.test.mjs: a browser test that fails stops what it started. A child node process
// starts the real tracetapd through chain.mjs's Daemon and then fails before any cleanup of its
// own (an exception; then a SIGTERM, as meson's timeout sends): each time the daemon must be
// gone once the child has exited. A daemon left behind by a failed run served fifty targets for
// an hour before anyone noticed.
//
//   node tests/browser/harness.test.mjs   (TT_BUILD_ROOT=build)

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DAEMON, here, skip } from './chain.mjs';
import { run, waitFor, assert } from './lib.mjs';

if (!fs.existsSync(DAEMON)) skip(`no tracetapd at ${DAEMON}`);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tt-harness-'));
const ram = path.join(tmp, 'ram.bin');
fs.writeFileSync(ram, Buffer.alloc(4096));

// The child: starts a daemon (a file target: no chain needed), prints its pid, then fails.
const child = path.join(tmp, 'child.mjs');
fs.writeFileSync(child, `
import { freePort, Daemon } from ${JSON.stringify(path.join(here, 'chain.mjs'))};
const port = await freePort();
const d = new Daemon(port, { args: ['--probe', 'file:${ram}', '--base', '0', '--address', '0x100', '--port', String(port)] });
await d.start();
console.log('daemon ' + d.proc.pid);
if (process.argv[2] === 'throw') throw new Error('a test failing before its cleanup');
await new Promise(() => {}); // waits for the signal
`);

const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };

async function failing(how) {
  const c = spawn(process.execPath, [child, how], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  c.stdout.on('data', (d) => { out += d; });
  c.stderr.on('data', (d) => { out += d; });
  const exited = new Promise((r) => c.on('exit', r));
  // the child prints the pid once /healthz answered (the daemon served), then fails
  const pid = Number((await waitFor('the child\'s daemon', () => {
    const m = /daemon (\d+)/.exec(out);
    if (!m && c.exitCode !== null) throw new Error('the child exited first: ' + out);
    return m;
  }, 60000))[1]);
  if (how === 'signal') assert(alive(pid), 'the daemon runs while the child does');
  if (how === 'signal') c.kill('SIGTERM');
  await exited;
  try {
    await waitFor(`daemon ${pid} gone after the child failed (${how})`, () => !alive(pid), 10000);
  } finally {
    if (alive(pid)) process.kill(pid, 'SIGKILL'); // this test leaves nothing behind either
  }
}

const failed = await run([
  ['an exception before the cleanup leaves no daemon', () => failing('throw')],
  ['a SIGTERM (meson\'s timeout) leaves no daemon', () => failing('signal')],
]);
fs.rmSync(tmp, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
