// timeline-model.js: which thread ran when, built incrementally from the records.
//
// Who ran between two events is not derived here: the daemon's reader derives it once (for
// ThreadX by TraceX's rules, proto/README-threadx.md "Who runs") into every event as `run`
// ("thread" with run_thread/run_name, "isr", "idle", "init"): who ran from the previous record
// (seq - 1) up to this one. The model turns that into one lane per thread holding [start, end)
// run segments in display time (store.js keeps display time monotonic), ISR and idle intervals,
// user-event instants, and vertical markers for gaps, resets and client-side disconnections.
// Streams that carry no `run` (formats whose reader does not derive it) fall back to "an event
// written from a thread proves that thread was running at that instant" and ISR_ENTER/ISR_EXIT.
// Pure logic: no DOM.

export const ISR_LANE = 'ISR';
// Interrupt entry and exit events by format (ThreadX, QNX), for streams without `run`.
const ISR_ENTER = new Set(['ISR_ENTER', 'INT_ENTRY', 'INT_ENTRY_64', 'INT_HANDLER_ENTRY']);
const ISR_EXIT = new Set(['ISR_EXIT', 'INT_EXIT', 'INT_HANDLER_EXIT']);

function isNullPtr(v) {
  return v == null || v === '' || /^0x0+$/i.test(String(v));
}

/** Increasing [start, end) segments with cheap trimming at the front. */
export class SegList {
  constructor() { this.s = []; this.e = []; this.off = 0; }
  get length() { return this.s.length - this.off; }
  push(s, e) {
    const n = this.s.length;
    // Coalesce with the previous segment when contiguous (keeps zoomed-out drawing cheap).
    if (n > this.off && this.e[n - 1] === s) { this.e[n - 1] = e; return; }
    this.s.push(s); this.e.push(e);
  }
  /** First index (absolute) whose end > t. */
  firstEndingAfter(t) {
    let lo = this.off, hi = this.s.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (this.e[m] <= t) lo = m + 1; else hi = m; }
    return lo;
  }
  trimBefore(t) {
    const i = this.firstEndingAfter(t);
    this.off = i;
    if (i > 2048 && i * 2 > this.s.length) { this.s = this.s.slice(i); this.e = this.e.slice(i); this.off = 0; }
  }
  /** Total overlap with [t0, t1). */
  overlap(t0, t1) {
    let sum = 0;
    for (let i = this.firstEndingAfter(t0); i < this.s.length && this.s[i] < t1; i++) {
      sum += Math.min(this.e[i], t1) - Math.max(this.s[i], t0);
    }
    return sum;
  }
}

export class Lane {
  constructor(name) {
    this.name = name;
    this.prio = null;
    this.segs = new SegList();
    this.openStart = null;  // start of the running segment not yet closed
    this.lastSeen = 0;
  }
}

export class TimelineModel {
  constructor() {
    this.lanes = new Map();       // name -> Lane
    this.isr = new Lane(ISR_LANE); // interrupt intervals
    this.idle = new SegList();    // the scheduler idled (run: idle)
    this.isrDepth = 0;
    this.derived = false;         // the stream carries `run`: no fallback guessing
    this.prevSeq = null;          // the previous record (a `run` covers the time since it)
    this.prevT = 0;
    this.running = null;          // Lane currently running (null: idle or unknown)
    this.interrupted = null;      // fallback: the lane an interrupt took the CPU from
    this.ptrNames = new Map();    // '0x2000..' -> registry name
    this.instants = [];           // {t, lane, kind: 'user'|'isr', r}
    this.instOff = 0;
    this.markers = [];            // {t, kind: 'gap'|'reset'|'marker'|'alert', r}
    this.markOff = 0;
    this.version = 0;             // bumps when lanes are added
  }

  lane(name) {
    let l = this.lanes.get(name);
    if (!l) { l = new Lane(name); this.lanes.set(name, l); this.version++; }
    return l;
  }

  resolve(v) {
    if (isNullPtr(v)) return null;
    const s = String(v);
    return this.ptrNames.get(s) || s;
  }

  switchTo(lane, t) {
    if (this.running === lane) return;
    if (this.running && this.running.openStart !== null) {
      if (t > this.running.openStart) this.running.segs.push(this.running.openStart, t);
      this.running.openStart = null;
    }
    this.running = lane;
    if (lane) lane.openStart = t;
  }

  /** Closes everything at t: the next records start from an unknown state. */
  breakAt(t) {
    this.switchTo(null, t);
    if (this.isrDepth > 0 && this.isr.openStart !== null) {
      if (t > this.isr.openStart) this.isr.segs.push(this.isr.openStart, t);
      this.isr.openStart = null;
    }
    this.isrDepth = 0;
    this.interrupted = null;
  }

  /** The interval [prevT, t) ran under r.run (the reader's derivation). */
  addRun(r, t) {
    const contiguous = this.prevSeq !== null && r.seq === this.prevSeq + 1;
    if (!contiguous || t <= this.prevT) return;
    if (r.run === 'thread') {
      if (r.run_thread && r.run_name) this.ptrNames.set(r.run_thread, r.run_name);
      const l = this.lane(r.run_name || this.resolve(r.run_thread));
      l.segs.push(this.prevT, t);
      l.lastSeen = t;
    } else if (r.run === 'isr') {
      this.isr.segs.push(this.prevT, t);
    } else if (r.run === 'idle') {
      this.idle.push(this.prevT, t);
    }
  }

  add(r, store) {
    const t = r._t;
    if (r.type === 'alert') { // a mark only: what ran goes on across it
      this.markers.push({ t, kind: 'alert', r });
      return;
    }
    if (r.type !== 'event') {
      this.markers.push({ t, kind: r.type, r });
      this.breakAt(t);
      this.prevSeq = null;
      return;
    }
    if (r.run !== undefined && !this.derived) {
      this.derived = true;
      this.breakAt(this.prevT); // close what the fallback opened before the first `run`
    }
    if (this.derived) this.addRun(r, t);
    if (r.ctx === 'thread') {
      if (r.thread && r.thread_name) this.ptrNames.set(r.thread, r.thread_name);
      const own = this.lane(r.thread_name || r.thread);
      if (r.prio != null) own.prio = r.prio;
      own.lastSeen = t;
      // Fallback without `run`: the event's own thread was running when it wrote the event.
      if (!this.derived) this.switchTo(own, t);
      if (r._user) this.instants.push({ t, lane: own.name, kind: 'user', r });
    } else if (r.ctx === 'isr') {
      // Fallback: an interrupt takes the CPU from the thread it interrupted (its running
      // segment pauses, so thread and ISR time never overlap: the shares add up to 100%).
      if (!this.derived && ISR_ENTER.has(r.name)) {
        if (this.isrDepth++ === 0) {
          this.isr.openStart = t;
          this.interrupted = this.running;
          this.switchTo(null, t);
        }
      } else if (!this.derived && ISR_EXIT.has(r.name)) {
        if (this.isrDepth > 0 && --this.isrDepth === 0 && this.isr.openStart !== null) {
          const end = Math.max(t, this.isr.openStart + 1);
          this.isr.segs.push(this.isr.openStart, end);
          this.isr.openStart = null;
          this.switchTo(this.interrupted, end);
          this.interrupted = null;
        }
      }
      this.instants.push({ t, lane: ISR_LANE, kind: r._user ? 'user' : 'isr', r });
      this.isr.lastSeen = t;
    } else if (r._user) {
      this.instants.push({ t, lane: null, kind: 'user', r });
    }
    // Threads an event names get a lane even before they run or write an event themselves.
    if ((r.name === 'THREAD_RESUME' || r.name === 'THREAD_SUSPEND') && r.args && r.args.thread) {
      const name = this.resolve(r.args.thread);
      if (name) this.lane(name);
    }
    this.prevSeq = r.seq;
    this.prevT = t;
  }

  trimBefore(t) {
    for (const l of this.lanes.values()) l.segs.trimBefore(t);
    this.isr.segs.trimBefore(t);
    this.idle.trimBefore(t);
    let i = this.instOff;
    while (i < this.instants.length && this.instants[i].t < t) i++;
    this.instOff = i;
    if (i > 4096 && i * 2 > this.instants.length) { this.instants = this.instants.slice(i); this.instOff = 0; }
    let j = this.markOff;
    while (j < this.markers.length && this.markers[j].t < t) j++;
    this.markOff = j;
  }

  /** Lanes in display order: by priority (0 = highest first), then name. */
  orderedLanes() {
    const ls = [...this.lanes.values()];
    ls.sort((a, b) => ((a.prio ?? 1e9) - (b.prio ?? 1e9)) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return ls;
  }

  /** Run time per lane over [t0, t1), open segments running until `now`; ISR and idle time
   * (idle: only where the stream says so; the rest of total is unknown). */
  cpuShare(t0, t1, now) {
    const out = [];
    let busy = 0;
    for (const l of this.lanes.values()) {
      let d = l.segs.overlap(t0, t1);
      if (l.openStart !== null) d += Math.max(0, Math.min(now, t1) - Math.max(l.openStart, t0));
      if (d > 0) { out.push({ name: l.name, prio: l.prio, d }); busy += d; }
    }
    let isr = this.isr.segs.overlap(t0, t1);
    if (this.isr.openStart !== null) isr += Math.max(0, Math.min(now, t1) - Math.max(this.isr.openStart, t0));
    out.sort((a, b) => b.d - a.d);
    return { lanes: out, busy, isr, idle: this.idle.overlap(t0, t1), total: Math.max(0, t1 - t0) };
  }
}
