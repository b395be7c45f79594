// chain.mjs: starting and restarting the real tracetapd for the browser tests and benchmark.
//
// The simulator, workload and OpenOCD are started by tests/sim/run-chain.sh, which runs the test
// script inside it with TCL_PORT (and FW_PID, SIM_CTL, ...) in the environment. The test then
// owns tracetapd: it starts it, kills it and starts it again on the same port.
//
// Configuration (environment, or meson test env):
//   TT_BUILD_ROOT      meson build dir (default: $MESON_BUILD_ROOT, then <repo>/build)
//   TT_DAEMON          the tracetapd binary (default: $TT_BUILD_ROOT/daemon/tracetapd)
//   TT_DAEMON_ARGS     daemon arguments; {PORT} {WEB} {TCL_PORT} {FW_PID} are substituted
//                      (default: --probe openocd:127.0.0.1:{TCL_PORT} --pointer 0x20000000
//                       --tick-hz 100M --name board1
//                       --listen 127.0.0.1 --port {PORT} --web {WEB})
//   TT_WORKLOAD_ARGS   tt-fw-threadx arguments passed to run-chain.sh -w (default '--rate 500')

import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const SRC = process.env.TT_SOURCE_ROOT || path.resolve(here, '..', '..');
export const BUILD = process.env.TT_BUILD_ROOT || process.env.MESON_BUILD_ROOT || path.join(SRC, 'build');
export const DAEMON = process.env.TT_DAEMON || path.join(BUILD, 'daemon', 'tracetapd');
export const WEB = process.env.TT_WEB || path.join(SRC, 'web');
const DEFAULT_ARGS = '--probe openocd:127.0.0.1:{TCL_PORT} --pointer 0x20000000 --tick-hz 100M --name board1 --listen 127.0.0.1 --port {PORT} --web {WEB}';

/** Exit code 77 = skipped (meson). */
export function skip(why) {
  console.log(`1..0 # SKIP ${why}`);
  process.exit(77);
}

/**
 * Outside the chain: re-runs this script inside tests/sim/run-chain.sh and exits with its code.
 * Inside (TCL_PORT set): returns.
 */
export function ensureInsideChain(script, workloadArgs) {
  if (process.env.TCL_PORT) return;
  const runChain = path.join(SRC, 'tests', 'sim', 'run-chain.sh');
  if (!fs.existsSync(path.join(BUILD, 'tests', 'sim', 'tt-simtarget'))) skip(`no tt-simtarget in ${BUILD} (build first, or set TT_BUILD_ROOT)`);
  if (!fs.existsSync(DAEMON)) skip(`no tracetapd at ${DAEMON}`);
  try { execFileSync('openocd', ['--version'], { stdio: 'ignore' }); } catch { skip('openocd not installed'); }
  const wl = process.env.TT_WORKLOAD_ARGS || workloadArgs || '--rate 500';
  const r = spawn('bash', [runChain, '-B', BUILD, '-p', '0', '-w', wl, '--', process.execPath, script, ...process.argv.slice(2)],
    { stdio: 'inherit', env: process.env });
  r.on('exit', (code, sig) => process.exit(code ?? (sig ? 1 : 0)));
  return new Promise(() => {}); // never resolves: the child's exit ends this process
}

export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

export function daemonArgs(port, extra = {}) {
  const vars = { PORT: String(port), WEB, TCL_PORT: process.env.TCL_PORT || '', FW_PID: process.env.FW_PID || '', ...extra };
  const tmpl = process.env.TT_DAEMON_ARGS || DEFAULT_ARGS;
  return tmpl.split(/\s+/).filter(Boolean).map((a) => a.replace(/\{(\w+)\}/g, (m, k) => vars[k] ?? m));
}

// Every tracetapd a test started is killed when the test's process ends, however it ends (a
// failed start, an exception before the runner's cleanup, meson's timeout): a failing test
// must not leave a daemon running.
const live = new Set();
const killAll = () => { for (const p of live) { try { p.kill('SIGKILL'); } catch { /* gone */ } } };
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(sig, () => { killAll(); process.exit(1); });

/** A running tracetapd; start() waits for /healthz. */
export class Daemon {
  constructor(port, { logFile, args } = {}) {
    this.port = port;
    this.url = `http://127.0.0.1:${port}/`;
    this.args = args || daemonArgs(port);
    this.logFile = logFile;
    this.proc = null;
  }

  /** Waits until /healthz answers or the daemon exits; timeoutMs is only a backstop (a loaded
   * machine starting fifty targets under a sanitizer takes its time: readiness is the condition). */
  async start(timeoutMs = 120000) {
    const log = this.logFile ? fs.openSync(this.logFile, 'a') : 'ignore';
    this.proc = spawn(DAEMON, this.args, { stdio: ['ignore', 'ignore', log] });
    const p = this.proc;
    let exited = null;
    live.add(p);
    p.on('exit', (code, sig) => { exited = { code, sig }; live.delete(p); });
    const end = Date.now() + timeoutMs;
    for (;;) {
      if (exited) throw new Error(`tracetapd exited (${exited.code ?? exited.sig}) before serving; args: ${this.args.join(' ')}` + (this.logFile ? `; log: ${this.logFile}` : ''));
      try {
        const r = await fetch(this.url + 'healthz', { signal: AbortSignal.timeout(5000) });
        if (r.ok) return this;
      } catch { /* not yet */ }
      if (Date.now() > end) throw new Error(`tracetapd did not answer /healthz on port ${this.port} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Kills the daemon (SIGKILL by default: no goodbye to clients) and waits for it to exit. */
  async kill(sig = 'SIGKILL') {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode) return;
    const done = new Promise((r) => p.once('exit', r));
    p.kill(sig);
    await done;
    this.proc = null;
  }
}
