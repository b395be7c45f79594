// session.js: the dashboard's protocol session with tracetapd (protocol v1, proto/PROTOCOL.md).
//
// On every (re)connect the daemon says `hello`; the session subscribes with `since` = the last
// seq it has per target, so the daemon resends what it still holds (what it no longer holds comes
// as a `gap` message). A restarted daemon numbers its records from 1 again: the session tells it
// by the `instance` id in hello. An older daemon without that field is told by its lower last_seq
// or, failing that, by asking for our last record again and comparing it. After a restart the
// old records stay with a "daemon restarted" marker, and the entries the new daemon reads again
// from the target's buffer are recognised and skipped. Records, gaps and statuses go into the
// per-target stores that the caller's `store(name)` returns; so do the `stats` messages (the live
// analysis, asked for the targets hooks.statsTargets() names) as the store's `stats` and
// `statsSeqs`.

import { Connection, wsUrl } from './conn.js';

export class Session {
  /**
   * hooks: store(name) -> TargetStore (made on first use),
   *        onStatus(store, msg, prevState), onTargets(), onState(state, detail), toast(text, kind),
   *        onReset(store, record): a reset record arrived live
   *        onAlert(msg) (a trigger fired), statsTargets() -> names whose statistics to ask for
   */
  constructor(hooks, { history = 0 } = {}) {
    this.h = hooks;
    this.history = history;
    this.daemon = null;        // the last hello message
    this.instance = null;      // the daemon's boot instance id (hello.instance), when it sends one
    this.restarts = [];        // { at, by: 'instance' | 'last_seq' | 'record' } per restart seen
    this.counters = { messages: 0, records: 0, dups: 0 };
    this.conn = new Connection(wsUrl(), {
      onMessage: (m) => this.onMessage(m),
      onState: (s, d) => this.h.onState && this.h.onState(s, d),
    });
  }

  connect() { this.conn.connect(); }
  send(msg) { return this.conn.send(msg); }

  onMessage(msg) {
    this.counters.messages++;
    switch (msg.type) {
      case 'hello': this.onHello(msg); break;
      case 'events': this.onEvents(msg); break;
      case 'gap': this.onGap(msg); break;
      case 'status': {
        const s = this.h.store(msg.target);
        const prev = s.status && s.status.state;
        s.status = msg;
        this.h.onStatus && this.h.onStatus(s, msg, prev);
        break;
      }
      case 'alert': this.h.onAlert && this.h.onAlert(msg); break;
      case 'stats': {
        // the live analysis, whole each time (the newest is all a view needs)
        if (typeof msg.target !== 'string' || !msg.stats || typeof msg.stats !== 'object') break;
        const s = this.h.store(msg.target);
        s.stats = msg.stats;
        s.statsSeqs = Array.isArray(msg.seqs) ? msg.seqs : null;
        break;
      }
      case 'error': this.h.toast(`daemon: ${msg.code}: ${msg.message || ''}`, 'err'); break;
      default: break; // pong, and unknown types are ignored (protocol rule)
    }
  }

  onHello(msg) {
    this.daemon = msg;
    if (msg.protocol !== 1) this.h.toast(`daemon speaks protocol ${msg.protocol}; this dashboard knows 1: some things may not show`, 'warn');
    const inst = typeof msg.instance === 'string' ? msg.instance : null;
    const byInstance = this.instance !== null && inst !== null && inst !== this.instance;
    this.instance = inst;
    const since = {};
    let restarted = null;
    for (const t of msg.targets || []) {
      const s = this.h.store(t.name);
      s.summary = t;
      s.liveAfter = t.last_seq ?? 0; // what the daemon holds now comes as history, not live
      s.status = { target: t.name, state: t.state, probe: t.probe, format: t.format, rate: t.rate, fill: t.fill,
        events: t.events, gaps: t.gaps, lost: t.lost, last_seq: t.last_seq };
      if (s.fromStart) {
        // onEvents found a restarted daemon by a record: take all it holds.
        s.fromStart = false;
        since[t.name] = 0;
      } else if (s.lastSeq > 0 && (byInstance || (t.last_seq != null && t.last_seq < s.lastSeq))) {
        restarted = byInstance ? 'instance' : 'last_seq';
        this.newEpoch(s);
        since[t.name] = 0;  // everything the new daemon still holds, from its first record
      } else if (s.lastSeq > 0) {
        since[t.name] = s.lastSeq;
        if (inst === null) {
          // No instance id: a restarted daemon that already counted past our last seq looks
          // the same. Ask for our last record again and compare it (onEvents).
          since[t.name] = s.lastSeq - 1;
          s.verify = s.lastRec || null;
        }
      }
    }
    if (restarted) this.noteRestart(restarted);
    const sub = { type: 'subscribe', targets: '*' };
    if (Object.keys(since).length) sub.since = since;
    else if (this.history) sub.history = this.history;
    this.send(sub);
    this.askStats();
    this.h.onTargets && this.h.onTargets();
  }

  /** Asks for the `stats` messages of the targets hooks.statsTargets() names (the one shown):
   * each is the whole analysis, once a second, too much to take for every target of a bench. */
  askStats() {
    const names = this.h.statsTargets ? this.h.statsTargets().filter((n) => this.daemon && (this.daemon.targets || []).some((t) => t.name === n)) : [];
    this.send({ type: 'stats', targets: names });
  }

  noteRestart(by) {
    this.restarts.push({ at: Date.now(), by });
    this.h.toast(`daemon restarted (${by === 'instance' ? 'new instance id' : 'seq numbering started over'}): older records are kept above a marker`, 'warn');
  }

  /** The daemon restarted: its seq numbering starts over and what happened meanwhile is unknown. */
  newEpoch(s) {
    s.marker('daemon restarted', 0, Date.now());
    s.epochMarker = s.get(s.tail - 1);
    s.repeats = 0;
    s.lastSeq = 0;
    s.epoch++;
    // A restarted daemon reads the target's buffer again from its oldest entry: entries this
    // dashboard already has come again under new seqs and with a new time base. Remember the
    // newest old entries (by address and raw words) to skip the repeats and to align the time axis.
    const seen = new Map();
    for (let n = Math.max(s.head, s.tail - 20000); n < s.tail; n++) {
      const r = s.get(n);
      if (r && r.type === 'event' && r.addr && r.raw) seen.set(r.addr + '|' + r.raw.join(','), r._t);
    }
    s.overlap = seen.size ? seen : null;
  }

  onEvents(msg) {
    const s = this.h.store(msg.target);
    const recs = msg.records || [];
    const now = Date.now();
    for (const r of recs) {
      if (s.verify && r.seq != null) {
        const v = s.verify;
        s.verify = null;
        if (r.seq === v.seq) {
          if (sameRecord(r, v)) continue;      // the same daemon re-sent our last record
          // Same seq, other content: a restarted daemon. Start over from its first record.
          this.newEpoch(s);
          this.noteRestart('record');
          s.fromStart = true;
          this.conn.reconnectNow();
          return;
        }
      }
      if (r.seq != null && r.seq <= s.lastSeq) { this.counters.dups++; continue; }
      if (r.target == null) r.target = msg.target;
      if (s.overlap && repeated(s, r)) continue;
      s.add(r, now);
      if (r.type === 'reset' && r.seq > s.liveAfter && this.h.onReset) this.h.onReset(s, r);
    }
    this.counters.records += recs.length;
  }

  onGap(msg) {
    const s = this.h.store(msg.target);
    const lost = msg.lost ?? (msg.to - msg.from + 1);
    s.add({ type: 'gap', client: true, target: msg.target, from: msg.from, to: msg.to, lost, exact: true, reason: msg.reason }, Date.now());
    if (msg.to > s.lastSeq) s.lastSeq = msg.to;
    s.counts.missed += lost;
  }
}

function sameRecord(a, b) {
  if (a.type !== b.type) return false;
  if (a.type === 'event') return a.addr === b.addr && String(a.raw) === String(b.raw) && a.id === b.id;
  return a.reason === b.reason && a.lost === b.lost;
}

/** True when r repeats an entry from before a daemon restart (and aligns time on it). */
function repeated(s, r) {
  if (r.type !== 'event' || !r.addr || !r.raw) { s.overlap = null; return false; }
  const t = s.overlap.get(r.addr + '|' + r.raw.join(','));
  if (t === undefined) {
    // The first entry after the repeats: if there were repeats, nothing was lost in between.
    s.overlap = null;
    const m = s.epochMarker;
    if (m && s.repeats > 0) { m.resolved = true; m.repeats = s.repeats; m._ver = (m._ver || 0) + 1; s.changed++; }
    return false;
  }
  s.repeats++;
  s.lastSeq = r.seq;
  s.lastRec = r;
  const raw = r.ns != null ? r.ns : r.time;
  if (raw != null) { s.setOffset(t - raw, raw); s.lastRawT = raw; s.lastT = t; }
  s.counts.repeated = (s.counts.repeated || 0) + 1;
  return true;
}
