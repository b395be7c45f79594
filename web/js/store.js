// store.js: what the dashboard remembers about each target, bounded.
//
// One TargetStore per target holds its records (events, gaps, resets, and client-side markers)
// in a ring of fixed capacity: records get an absolute index `n` (0, 1, 2, ... never reused), so
// views keep stable references while the oldest records are dropped. A filtered index (absolute
// indices of the records passing the current filter) is maintained incrementally as records
// arrive and rebuilt only when the filter changes. Pure logic: no DOM, usable from node tests.

import { TimelineModel } from './timeline-model.js';
import { isUserEvent } from './format.js';

/** A growable list of numbers with cheap removal at the front. */
export class IndexList {
  constructor() { this.a = []; this.start = 0; }
  get length() { return this.a.length - this.start; }
  at(i) { return this.a[this.start + i]; }
  push(v) { this.a.push(v); }
  clear() { this.a = []; this.start = 0; }
  /** Drops leading values < min; returns how many were dropped. */
  dropBelow(min) {
    let s = this.start;
    const a = this.a;
    while (s < a.length && a[s] < min) s++;
    const dropped = s - this.start;
    this.start = s;
    if (s > 4096 && s * 2 > a.length) { this.a = a.slice(s); this.start = 0; }
    return dropped;
  }
  /** First position i with at(i) >= v (binary search; values are increasing). */
  lowerBound(v) {
    let lo = this.start, hi = this.a.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (this.a[m] < v) lo = m + 1; else hi = m; }
    return lo - this.start;
  }
}

/** Display thread key of an event: registry name when known, else the pointer. */
export function threadOf(r) {
  if (r.ctx === 'thread') return r.thread_name || r.thread || null;
  return null;
}

export function isIdlePtr(v) {
  return v == null || v === '' || /^0x0+$/i.test(String(v));
}

/** Compiles a filter {thread, event, text} into a predicate over records. Gaps, resets and
 * markers always pass (they explain holes in whatever is shown). */
export function compileFilter(f) {
  const thread = f.thread || '';
  const event = f.event || '';
  const text = (f.text || '').trim().toLowerCase();
  if (!thread && !event && !text) return null;
  return (r) => {
    if (r.type !== 'event') return true;
    if (thread) {
      const t = threadOf(r) || (r.ctx === 'isr' ? 'ISR' : r.ctx === 'init' ? 'init' : '');
      // The thread column's own: events the thread wrote, interrupts of it (not other threads'
      // events that name it as an argument: they are in its lane's switches on the timeline).
      if (t !== thread && r.interrupted_name !== thread) return false;
    }
    if (event && r.name !== event) return false;
    if (text) {
      let s = r._text;
      if (s === undefined) {
        s = (r.name + ' ' + (r.thread_name || r.thread || '') + ' ' + (r.interrupted_name || '') +
          ' ' + r.ctx + ' ' + (r.args ? JSON.stringify(r.args) : '')).toLowerCase();
        r._text = s;
      }
      if (!s.includes(text)) return false;
    }
    return true;
  };
}

export class TargetStore {
  constructor(name, capacity) {
    this.name = name;
    this.cap = capacity;
    this.ring = new Array(capacity);
    this.head = 0;         // absolute index of the oldest record kept
    this.tail = 0;         // absolute index of the next record
    this.filtered = new IndexList();
    this.pred = null;
    this.laneSet = null;   // with a filter: lanes of the records passing it
    this.filterVersion = -1;
    this.filteredDropped = 0; // filtered entries dropped from the front so far (views re-anchor)
    this.lastSeq = 0;      // last daemon seq seen (0 = none)
    this.epoch = 0;        // bumps when the daemon restarted (seq numbering restarted)
    this.status = null;    // last status message
    this.summary = null;   // target summary from hello
    this.timeUnit = null;  // 'ns' or 'ticks'
    this.tOffset = 0;      // added to record time so display time stays monotonic across resets
    this.epochs = [{ t: -Infinity, off: 0 }]; // display time where each time base starts, its offset
    this.lastRawT = null;
    this.lastT = 0;        // display time of the newest record
    this.timeline = new TimelineModel();
    this.threads = new Map();   // name -> {prio}
    this.eventNames = new Set();
    this.counts = { events: 0, gaps: 0, lost: 0, resets: 0, missed: 0, dropped: 0 };
    this.rateBins = new Float64Array(120); // live records received per wall-clock second
    this.rateSec = 0;
    this.liveAfter = 0;    // seqs up to this came from the daemon's history (connect, resume)
    this.changed = 0;      // bumps on every mutation (views compare)
  }

  get size() { return this.tail - this.head; }
  get(n) { return (n >= this.head && n < this.tail) ? this.ring[n % this.cap] : undefined; }
  get oldest() { return this.get(this.head); }

  /** Sets the filter predicate; the filtered index is rebuilt. */
  setFilter(pred, version) {
    this.pred = pred;
    this.filterVersion = version;
    this.filtered.clear();
    this.laneSet = pred ? new Set() : null;
    for (let n = this.head; n < this.tail; n++) {
      const r = this.ring[n % this.cap];
      if (!pred || pred(r)) { this.filtered.push(n); if (pred) this.noteLane(r); }
    }
    this.changed++;
  }

  /** Appends one record (event, gap, reset, or a client marker). Assigns r._n and r._t. */
  add(r, nowMs) {
    if (r.type === 'event') {
      const raw = r.ns != null ? r.ns : r.time;
      if (this.timeUnit === null) this.timeUnit = r.ns != null ? 'ns' : 'ticks';
      if (raw != null) {
        if (this.lastRawT !== null && raw < this.lastRawT) {
          // Time restarted (target reset, daemon restart): keep the display axis monotonic.
          this.setOffset(this.lastT - raw + 1, raw);
        }
        this.lastRawT = raw;
        this.lastT = raw + this.tOffset;
      }
      r._t = this.lastT;
      r._user = isUserEvent(r, this.status && this.status.format);
      this.counts.events++;
      if (!this.eventNames.has(r.name)) { this.eventNames.add(r.name); this.namesChanged = true; }
      const th = threadOf(r);
      if (th && r.prio != null) this.noteThread(th, r.prio);
    } else {
      r._t = this.lastT;
      // a gap, reset or marker comes after the newest event: its time is that event's own
      if (this.lastRawT !== null) r[this.timeUnit === 'ns' ? '_ns' : '_time'] = this.lastRawT;
      if (r.type === 'gap') { this.counts.gaps++; if (r.lost) this.counts.lost += r.lost; }
      else if (r.type === 'reset') this.counts.resets++;
      else if (r.type === 'marker') this.counts.missed += r.lost || 0;
    }
    if (r.seq != null && r.type !== 'marker') { this.lastSeq = r.seq; this.lastRec = r; }
    this.timeline.add(r, this);

    if (this.tail - this.head >= this.cap) this.dropOldest(1);
    const n = this.tail++;
    r._n = n;
    this.ring[n % this.cap] = r;
    if (!this.pred) this.filtered.push(n);
    else if (this.pred(r)) { this.filtered.push(n); this.noteLane(r); }

    // The events/s chart counts what arrives live: a history burst at connect or resume
    // would set its scale and flatten the live rate.
    if (r.seq == null || r.seq > this.liveAfter) {
      const sec = Math.floor(nowMs / 1000);
      if (sec !== this.rateSec) this.advanceRate(sec);
      this.rateBins[sec % this.rateBins.length]++;
    }
    this.changed++;
  }

  /** The target's time restarted at raw (display time stays monotonic): from here on, display
   * time = raw + off. `epochs` lists where each time base starts and its offset, so views show
   * the target's own time (display time - off). */
  setOffset(off, raw) {
    this.tOffset = off;
    const e = this.epochs[this.epochs.length - 1];
    if (e.off === off) return;
    if (e.t === raw + off) e.off = off; else this.epochs.push({ t: raw + off, off });
  }

  /** Timeline lanes that hold records passing the filter. */
  noteLane(r) {
    if (r.type !== 'event') return;
    const l = r.ctx === 'isr' ? 'ISR' : threadOf(r);
    if (l) this.laneSet.add(l);
  }

  noteThread(name, prio) {
    const t = this.threads.get(name);
    if (!t) { this.threads.set(name, { prio }); this.namesChanged = true; }
    else if (prio != null) t.prio = prio;
  }

  advanceRate(sec) {
    const L = this.rateBins.length;
    if (this.rateSec === 0 || sec - this.rateSec >= L) this.rateBins.fill(0);
    else for (let s = this.rateSec + 1; s <= sec; s++) this.rateBins[s % L] = 0;
    this.rateSec = sec;
  }

  /** Drops the k oldest records (memory bound). */
  dropOldest(k) {
    k = Math.min(k, this.size);
    for (let i = 0; i < k; i++) this.ring[(this.head + i) % this.cap] = undefined;
    this.head += k;
    this.counts.dropped += k;
    this.filteredDropped += this.filtered.dropBelow(this.head);
    this.changed++;
  }

  /** Trims timeline state older than the oldest record kept. */
  trimTimeline() {
    const o = this.oldest;
    if (o) this.timeline.trimBefore(o._t);
  }

  /** The index of the record with daemon seq `seq` in the current numbering (after the last
   * "daemon restarted" marker), or -1. */
  indexOfSeq(seq) {
    for (let n = this.tail - 1; n >= this.head; n--) {
      const r = this.ring[n % this.cap];
      if (r.type === 'marker') break;                 // an older daemon's numbering
      if (r.seq === seq && r.type !== 'alert') return n;
      if (r.seq != null && r.seq < seq) break;        // seqs only go down from here
    }
    return -1;
  }

  /** The oldest record with a daemon seq (markers have none), or undefined. */
  oldestSeq() {
    for (let n = this.head; n < this.tail; n++) { const r = this.ring[n % this.cap]; if (r.seq != null && r.type !== 'marker') return r.seq; }
    return undefined;
  }

  /**
   * Puts older records (seq order, all older than what is kept) before the kept ones. The store is
   * rebuilt from them in order (display times, timeline, filtered index): records get new absolute
   * indices (a view holding one maps it again through its record). Counts of what this page
   * missed or dropped and the received-rate bins stay; at most `cap` records are kept (the oldest go).
   */
  prepend(older, nowMs) {
    const keep = [];
    for (let n = this.head; n < this.tail; n++) keep.push(this.ring[n % this.cap]);
    let all = older.concat(keep);
    if (all.length > this.cap) all = all.slice(all.length - this.cap);
    const { missed, dropped } = this.counts;
    const lastSeq = this.lastSeq, lastRec = this.lastRec, liveAfter = this.liveAfter;
    this.liveAfter = Infinity; // records added again are not received again (rate bins)
    this.ring = new Array(this.cap);
    this.head = this.tail = 0;
    this.filtered.clear();
    this.filteredDropped = 0;
    this.tOffset = 0; this.lastRawT = null; this.lastT = 0;
    this.epochs = [{ t: -Infinity, off: 0 }];
    this.timeline = new TimelineModel();
    this.counts = { events: 0, gaps: 0, lost: 0, resets: 0, missed: 0, dropped };
    const pred = this.pred;
    this.pred = null;
    for (const r of all) this.add(r, nowMs);
    this.counts.missed = missed;
    this.lastSeq = lastSeq; this.lastRec = lastRec; this.liveAfter = liveAfter;
    this.setFilter(pred, this.filterVersion);
  }

  /** Inserts a client-side marker (records missed while disconnected, daemon restarted). */
  marker(reason, lost, nowMs) {
    this.add({ type: 'marker', target: this.name, reason, lost: lost || 0, exact: false }, nowMs);
  }

  /** First absolute index whose record's display time is >= t (records are in time order). */
  indexAtT(t) {
    let lo = this.head, hi = this.tail;
    while (lo < hi) { const m = Math.floor((lo + hi) / 2); if (this.ring[m % this.cap]._t < t) lo = m + 1; else hi = m; }
    return lo;
  }

  /** The target's own event rate (records per second of its time stamps, not of arrival) over
   * the last second of its time, or over all records when they span less; null without a time
   * base in seconds (ticks with no tick rate) or with fewer than 2 records. */
  targetRate() {
    if (this.timeUnit !== 'ns' || this.size < 2) return null;
    const i = Math.min(this.indexAtT(this.lastT - 1e9), this.tail - 2);
    const d = this.lastT - this.get(i)._t;
    return d > 0 ? (this.tail - 1 - i) / d * 1e9 : null;
  }

  /** Records per second of target time for the `count` target seconds up to the newest record,
   * oldest first; null without a time base in seconds. */
  targetRateSeries(count) {
    if (this.timeUnit !== 'ns' || !this.size) return null;
    const out = new Float64Array(count);
    let hi = this.tail;
    for (let k = count - 1; k >= 0; k--) {
      const lo = this.indexAtT(this.lastT - (count - k) * 1e9);
      out[k] = hi - lo;
      hi = lo;
    }
    return out;
  }

  /** Events/s samples, oldest first, ending with the current (partial) second. */
  rateSeries(nowMs, count) {
    const sec = Math.floor(nowMs / 1000);
    if (sec !== this.rateSec) this.advanceRate(sec);
    const L = this.rateBins.length;
    const out = new Float64Array(count);
    for (let i = 0; i < count; i++) out[i] = this.rateBins[(sec - count + 1 + i + L * 4) % L];
    return out;
  }
}
