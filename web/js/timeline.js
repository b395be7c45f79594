// timeline.js: the thread timeline canvas.
//
// One lane per thread (ordered by priority) with its run segments from the TimelineModel, an ISR
// lane, event ticks when zoomed in far enough, user events as diamonds, and vertical markers
// where gaps, resets and disconnections happened. The axis shows the target's own time, each
// time base (a reset restarts it) with its own ticks. Zoom: wheel, +/-; pan: drag, arrow keys;
// follows the newest record until the user pans away; a click on a lane's label asks to show
// only that thread. The lane names in view are published as the element's data-lanes attribute
// (JSON) for tests and accessibility tools (data-axis, data-lane-h, data-user-marks likewise).

import { ISR_LANE } from './timeline-model.js';
import { threadOf } from './store.js';
import { fmtNs, describeRecord } from './format.js';
import { h, fill } from './dom.js';

const LABEL_W = 132;
const AXIS_H = 22;
const MAX_TICKS = 6000;
const USER_GAP = 8;        // px between two user-event marks in one lane

export class Timeline {
  constructor(wrap, canvas, tip, { onSelect, onFollowChange, onLaneClick }) {
    this.onLaneClick = onLaneClick;
    this.wrap = wrap;
    this.canvas = canvas;
    this.tip = tip;
    this.ctx = canvas.getContext('2d', { alpha: false });
    this.onSelect = onSelect;
    this.onFollowChange = onFollowChange;
    this.store = null;
    this.follow = true;
    this.autoSpan = true;
    this.userMoved = false;    // the user zoomed or panned since the view last went live
    this.span = 1e9;
    this.t1 = 0;
    this.laneScroll = 0;
    this.selected = null;
    this.lanesShown = [];
    this.lanesAttr = '';
    this.dirty = true;
    this.lastChanged = -1;
    this.theme = null;
    this.lanePick = null;      // lane filter (thread) or null
    this.laneSet = null;       // set of lane names passing the filter, or null for all
    this.pred = null;
    this.hover = null;
    this.dpr = 1;
    this.w = 0; this.h = 0;
    this.installInput();
    new ResizeObserver(() => this.resize()).observe(wrap);
    this.resize();
  }

  setTheme(vars) { this.theme = vars; this.dirty = true; }

  setStore(store) {
    this.store = store;
    this.autoSpan = true;
    this.selected = null;
    this.dirty = true;
    if (store) this.span = store.timeUnit === 'ns' ? 5e7 : 5e4;
  }

  setFilter(pred, threadPick, laneSet) {
    this.pred = pred;
    this.lanePick = threadPick || null;
    this.laneSet = laneSet;
    this.dirty = true;
  }

  setFollow(on) {
    if (this.follow === on) return;
    this.follow = on;
    this.dirty = true;
    this.onFollowChange && this.onFollowChange(on);
  }

  resize() {
    const dpr = window.devicePixelRatio || 1;
    const w = this.wrap.clientWidth, h = this.wrap.clientHeight;
    if (w === this.w && h === this.h && dpr === this.dpr) return;
    // A narrower or wider view (the detail panel opens, the window resizes) keeps the scale and
    // the left edge, so what was under the pointer stays there; a live view keeps its right edge.
    const t0 = this.t0, oldW = this.w, oldPlot = this.plotW;
    this.w = w; this.h = h; this.dpr = dpr;
    if (oldW > 0 && w > 0 && this.store) {
      this.span *= this.plotW / oldPlot;
      if (!this.follow) this.t1 = t0 + this.span;
    }
    this.canvas.width = Math.max(1, Math.round(w * dpr));
    this.canvas.height = Math.max(1, Math.round(h * dpr));
    this.canvas.style.width = w + 'px';
    this.canvas.style.height = h + 'px';
    this.dirty = true;
  }

  get plotW() { return Math.max(10, this.w - LABEL_W - 8); }
  get t0() { return this.t1 - this.span; }
  xOf(t) { return LABEL_W + (t - this.t0) / this.span * this.plotW; }
  tOf(x) { return this.t0 + (x - LABEL_W) / this.plotW * this.span; }

  zoom(factor, atX) {
    if (!this.store) return;
    this.autoSpan = false;
    this.userMoved = true;
    const minSpan = this.store.timeUnit === 'ns' ? 1000 : 2;
    const maxSpan = Math.max(minSpan * 10, (this.store.lastT - (this.store.oldest?._t ?? 0)) * 1.5);
    const ns = Math.min(maxSpan, Math.max(minSpan, this.span * factor));
    if (atX == null || this.follow) {
      this.span = ns; // following: the right edge stays on the newest record
    } else {
      const ta = this.tOf(atX);
      const frac = (atX - LABEL_W) / this.plotW;
      this.span = ns;
      this.t1 = ta + (1 - frac) * ns;
    }
    this.dirty = true;
  }

  pan(frac) {
    if (!this.store) return;
    this.setFollow(false);
    this.userMoved = true;
    this.t1 += frac * this.span;
    this.clampPan();
    this.dirty = true;
  }

  clampPan() {
    const st = this.store;
    if (!st) return;
    const lo = (st.oldest?._t ?? 0) + this.span * 0.1;
    const hi = st.lastT + this.span * 0.5;
    this.t1 = Math.max(lo, Math.min(hi, this.t1));
    if (this.t1 >= st.lastT && !this.follow) { /* at the live edge: stay manual until asked */ }
  }

  fit() {
    const st = this.store;
    if (!st || !st.oldest) return;
    this.autoSpan = false;
    this.span = Math.max(st.timeUnit === 'ns' ? 1000 : 2, (st.lastT - st.oldest._t) * 1.02);
    this.setFollow(true);
    this.dirty = true;
  }

  /** Stops following and brings record r into view (centered) unless it is already shown. */
  reveal(r) {
    this.dirty = true;
    if (!this.store || r._t == null) return;
    this.setFollow(false);
    if (r._t < this.t0 || r._t > this.t1) { this.t1 = r._t + this.span / 2; this.clampPan(); }
  }

  /** Stops following and centres the time from ta to tb (two records' _t): zoomed to three
   * times its length, or at the present scale when tb is null. */
  showRange(ta, tb) {
    if (!this.store) return;
    this.setFollow(false);
    this.autoSpan = false;
    const minSpan = this.store.timeUnit === 'ns' ? 1000 : 2;
    const d = tb == null ? 0 : Math.max(0, tb - ta);
    if (tb != null) this.span = Math.max(minSpan, d * 3);
    tb = ta + d;
    this.t1 = tb + (this.span - d) / 2;
    this.clampPan();
    this.dirty = true;
  }

  goLive() { this.setFollow(true); this.userMoved = false; this.dirty = true; }

  installInput() {
    const cv = this.wrap;
    cv.addEventListener('wheel', (e) => {
      e.preventDefault();
      if (e.shiftKey) { this.laneScroll = Math.max(0, this.laneScroll + Math.sign(e.deltaY)); this.dirty = true; return; }
      if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) { this.pan(e.deltaX / this.plotW); return; }
      const r = this.wrap.getBoundingClientRect();
      this.zoom(Math.pow(1.0015, e.deltaY), e.clientX - r.left);
    }, { passive: false });
    let drag = null;
    cv.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      const r = this.wrap.getBoundingClientRect();
      drag = { x: e.clientX, t1: this.t1, moved: false, x0: e.clientX - r.left, y0: e.clientY - r.top };
      cv.setPointerCapture(e.pointerId);
      this.wrap.focus({ preventScroll: true });
    });
    cv.addEventListener('pointermove', (e) => {
      const r = this.wrap.getBoundingClientRect();
      const x = e.clientX - r.left, y = e.clientY - r.top;
      if (drag) {
        const dx = e.clientX - drag.x;
        if (Math.abs(dx) > 3) drag.moved = true;
        if (drag.moved) {
          if (this.follow) this.setFollow(false);
          this.userMoved = true;
          this.t1 = drag.t1 - dx / this.plotW * this.span;
          this.clampPan();
          this.dirty = true;
        }
        return;
      }
      this.hover = { x, y };
      this.wrap.classList.toggle('on-label', x < LABEL_W && !!this.laneAt(y));
      this.updateTip();
    });
    cv.addEventListener('pointerleave', () => { this.hover = null; this.tip.hidden = true; });
    cv.addEventListener('pointerup', (e) => {
      if (drag && !drag.moved && drag.x0 < LABEL_W) {
        const lane = this.laneAt(drag.y0); // a lane's label: show only that thread (again: all)
        if (lane && this.onLaneClick) this.onLaneClick(lane.name);
      } else if (drag && !drag.moved) {
        const r = this.pick(drag.x0, drag.y0);
        if (r) this.onSelect && this.onSelect(r);
      }
      drag = null;
    });
  }

  laneAt(y) {
    const i = Math.floor((y - AXIS_H) / this.laneH) + this.laneScroll;
    return (y >= AXIS_H && i >= 0 && i < this.lanesShown.length) ? this.lanesShown[i] : null;
  }

  /** Nearest event to (x, y) within 6 px, in that lane. */
  pick(x, y) {
    const st = this.store;
    const lane = this.laneAt(y);
    if (!st || !lane || x < LABEL_W) return null;
    const t = this.tOf(x), tol = 6 / this.plotW * this.span;
    const f = st.filtered;
    let lo = this.lowerT(t - tol), best = null, bestD = Infinity;
    for (let i = lo; i < f.length; i++) {
      const r = st.get(f.at(i));
      if (!r || r._t > t + tol) break;
      if (r.type !== 'event') { const d = Math.abs(r._t - t); if (d < bestD) { best = r; bestD = d; } continue; }
      const ln = r.ctx === 'isr' ? ISR_LANE : threadOf(r);
      if (ln !== lane.name) continue;
      const d = Math.abs(r._t - t);
      if (d < bestD) { best = r; bestD = d; }
    }
    return best;
  }

  /** First filtered position whose record time >= t. */
  lowerT(t) {
    const st = this.store, f = st.filtered;
    let lo = 0, hi = f.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      const r = st.get(f.at(m));
      if (r && r._t < t) lo = m + 1; else hi = m;
    }
    return lo;
  }

  updateTip() {
    const hv = this.hover, st = this.store;
    if (!hv || !st || hv.y < AXIS_H) { this.tip.hidden = true; return; }
    const lane = this.laneAt(hv.y);
    if (hv.x < LABEL_W) {
      if (!lane) { this.tip.hidden = true; return; }
      fill(this.tip, h('b', null, lane.name), lane.prio != null ? [' ', h('span', { class: 'muted' }, 'prio ' + lane.prio)] : null, h('br'),
        this.lanePick === lane.name ? 'click: all threads again' : 'click: only this thread');
      this.placeTip(hv);
      return;
    }
    const r = this.pick(hv.x, hv.y);
    const unit = st.timeUnit;
    let tip = null;
    if (r) {
      tip = [h('b', null, r.type === 'event' ? r.name : describeRecord(r)),
        r.seq != null ? [' ', h('span', { class: 'muted' }, '#' + r.seq)] : null, h('br'),
        unit === 'ns' ? fmtNs(r.ns ?? r._t) + ' s' : (r.time ?? r._t) + ' ticks'];
    } else if (lane) {
      tip = [h('b', null, lane.name), lane.prio != null ? [' ', h('span', { class: 'muted' }, 'prio ' + lane.prio)] : null];
    }
    if (!tip) { this.tip.hidden = true; return; }
    fill(this.tip, tip);
    this.placeTip(hv);
  }

  placeTip(hv) {
    this.tip.hidden = false;
    const tw = this.tip.offsetWidth;
    this.tip.style.left = Math.min(this.w - tw - 4, hv.x + 12) + 'px';
    this.tip.style.top = Math.min(this.h - 40, hv.y + 12) + 'px';
  }

  chooseLanes() {
    const m = this.store.timeline;
    let lanes = m.orderedLanes();
    if (this.lanePick) lanes = lanes.filter((l) => l.name === this.lanePick);
    else if (this.laneSet) lanes = lanes.filter((l) => this.laneSet.has(l.name));
    const showIsr = m.isr.lastSeen > 0 && (this.lanePick ? this.lanePick === ISR_LANE : (!this.laneSet || this.laneSet.has(ISR_LANE)));
    if (showIsr) lanes = [m.isr, ...lanes];
    return lanes;
  }

  render() {
    const st = this.store;
    if (!this.dirty && (!st || st.changed === this.lastChanged)) return;
    this.lastChanged = st ? st.changed : -1;
    this.dirty = false;
    const c = this.ctx, th = this.theme || {};
    const W = this.w, H = this.h;
    c.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    c.fillStyle = th.bg || '#fff';
    c.fillRect(0, 0, W, H);
    c.font = '11px ' + (th.font || 'system-ui, sans-serif');
    c.textBaseline = 'middle';
    if (!st || st.size === 0) {
      c.fillStyle = th.muted || '#888';
      c.fillText('no records yet', LABEL_W + 12, H / 2);
      this.publishLanes([]);
      return;
    }
    // Viewport
    if (this.autoSpan && this.follow) this.autoFitSpan(); // a view the user holds keeps its scale
    if (this.follow) this.t1 = st.lastT + this.span * 0.02;
    const t0 = this.t0, t1 = this.t1, pw = this.plotW;
    const lanes = this.chooseLanes();
    this.lanesShown = lanes;
    this.publishLanes(lanes.map((l) => l.name));
    const avail = H - AXIS_H - 4;
    // lanes share the height (a few lanes fill it too), within readable bounds
    this.laneH = Math.max(16, Math.min(72, Math.floor(avail / Math.max(1, lanes.length))));
    if (this.wrap.dataset.laneH !== String(this.laneH)) this.wrap.dataset.laneH = this.laneH;
    const maxScroll = Math.max(0, lanes.length - Math.floor(avail / this.laneH));
    if (this.laneScroll > maxScroll) this.laneScroll = maxScroll;
    const LH = this.laneH;
    const laneY = new Map();
    // Lane backgrounds and labels
    for (let i = this.laneScroll; i < lanes.length; i++) {
      const y = AXIS_H + (i - this.laneScroll) * LH;
      if (y + LH > H + LH) break;
      laneY.set(lanes[i].name, y);
      if ((i & 1) === 0) { c.fillStyle = th.stripe || '#f4f4f4'; c.fillRect(0, y, W, LH); }
      c.fillStyle = th.text || '#222';
      const l = lanes[i];
      const label = l === st.timeline.isr ? 'ISR' : l.name;
      c.fillText(ellipsize(c, label, LABEL_W - 38), 10, y + LH / 2);
      if (l.prio != null) { c.fillStyle = th.muted || '#888'; c.textAlign = 'right'; c.fillText(String(l.prio), LABEL_W - 8, y + LH / 2); c.textAlign = 'left'; }
    }
    c.fillStyle = th.border || '#ddd';
    c.fillRect(LABEL_W - 1, AXIS_H, 1, H - AXIS_H);
    c.save();
    c.beginPath(); c.rect(LABEL_W, 0, pw + 8, H); c.clip();
    this.drawAxis(c, th, t0, t1, W);
    // Run segments
    const m = st.timeline;
    for (const l of lanes) {
      const y = laneY.get(l.name);
      if (y === undefined) continue;
      c.fillStyle = l === m.isr ? (th.isr || '#d33') : laneColor(th, l.name);
      const segs = l.segs;
      let runX0 = -1, runX1 = -1;
      const flush = () => { if (runX0 >= 0) c.fillRect(runX0, y + 4, Math.max(1, runX1 - runX0), LH - 8); };
      for (let i = segs.firstEndingAfter(t0); i < segs.s.length && segs.s[i] < t1; i++) {
        const x0 = this.xOf(segs.s[i]), x1 = this.xOf(segs.e[i]);
        if (runX0 >= 0 && x0 <= runX1 + 0.75) { if (x1 > runX1) runX1 = x1; } else { flush(); runX0 = x0; runX1 = x1; }
      }
      if (l.openStart !== null && l.openStart < t1) {
        const x0 = this.xOf(l.openStart), x1 = this.xOf(st.lastT);
        if (runX0 >= 0 && x0 <= runX1 + 0.75) runX1 = Math.max(runX1, x1); else { flush(); runX0 = x0; runX1 = x1; }
      }
      flush();
    }
    this.drawEvents(c, th, st, laneY, LH, t0, t1);
    this.drawMarkers(c, th, st, t0, t1, H);
    if (this.selected && this.selected._t >= t0 && this.selected._t <= t1) {
      const x = Math.round(this.xOf(this.selected._t)) + 0.5;
      c.strokeStyle = th.accent || '#06f'; c.lineWidth = 1.5;
      c.beginPath(); c.moveTo(x, AXIS_H); c.lineTo(x, H); c.stroke();
      c.lineWidth = 1;
    }
    c.restore();
    if (this.hover) this.updateTip();
  }

  autoFitSpan() {
    // Until the user zooms: show about the last 1500 records, changing scale only by 2x steps.
    const st = this.store;
    const back = st.get(Math.max(st.head, st.tail - 1500));
    const want = back ? Math.max(st.lastT - back._t, st.timeUnit === 'ns' ? 1e4 : 10) : this.span;
    if (want > this.span * 1.6 || want < this.span / 2.5) this.span = niceSpan(want * 1.2);
  }

  drawEvents(c, th, st, laneY, LH, t0, t1) {
    const f = st.filtered;
    const i0 = this.lowerT(t0), i1 = this.lowerT(t1);
    const many = i1 - i0 > MAX_TICKS;
    const lastX = new Map();
    // User events: a neutral mark (not a hue a thread lane could have), at most one per
    // USER_GAP px per lane, so zoomed out they mark where they are without hiding the runs.
    const userColor = th.userMark || '#222', userEdge = th.bg || '#fff';
    const lastU = new Map();
    let marks = 0;
    const mark = (ln, x, y) => {
      const p = lastU.get(ln);
      if (p !== undefined && x - p < USER_GAP) return;
      lastU.set(ln, x); marks++;
      c.fillStyle = userColor; c.strokeStyle = userEdge;
      diamond(c, x, y, LH);
    };
    const tickColor = th.tick || 'rgba(0,0,0,.45)';
    const step = many ? Math.ceil((i1 - i0) / MAX_TICKS) : 1;
    // Ticks for every event (subsampled when dense), diamonds for user events.
    for (let i = i0; i < i1; i += step) {
      const r = st.get(f.at(i));
      if (!r || r.type !== 'event') continue;
      const ln = r.ctx === 'isr' ? ISR_LANE : threadOf(r);
      const y = laneY.get(ln);
      if (y === undefined) continue;
      const x = Math.round(this.xOf(r._t));
      if (lastX.get(ln) === x) continue;
      lastX.set(ln, x);
      if (r._user) {
        mark(ln, x, y);
      } else {
        c.fillStyle = tickColor;
        c.fillRect(x, y + 1, 1, 4);
      }
    }
    if (many) {
      // Subsampling may skip user events: draw them from the model's instant list.
      const ins = st.timeline.instants;
      let lo = st.timeline.instOff, hi = ins.length;
      while (lo < hi) { const mm = (lo + hi) >> 1; if (ins[mm].t < t0) lo = mm + 1; else hi = mm; }
      let n = 0;
      for (let i = lo; i < ins.length && ins[i].t < t1 && n < 4000; i++) {
        const it = ins[i];
        if (it.kind !== 'user' || !it.lane) continue;
        if (this.pred && !this.pred(it.r)) continue;
        const y = laneY.get(it.lane);
        if (y === undefined) continue;
        n++;
        mark(it.lane, Math.round(this.xOf(it.t)), y);
      }
    }
    if (this.wrap.dataset.userMarks !== String(marks)) this.wrap.dataset.userMarks = marks;
  }

  drawMarkers(c, th, st, t0, t1, H) {
    const mk = st.timeline.markers;
    let lastLabelX = -1e9;
    for (let i = st.timeline.markOff; i < mk.length; i++) {
      const m = mk[i];
      if (m.t < t0 || m.t > t1) continue;
      const x = Math.round(this.xOf(m.t)) + 0.5;
      const col = m.kind === 'reset' ? (th.reset || '#d00') : m.kind === 'gap' ? (th.gap || '#e80')
        : m.kind === 'alert' ? (th.alert || '#c026d3') : (th.marker || '#86f');
      c.strokeStyle = col; c.fillStyle = col;
      c.setLineDash(m.kind === 'reset' ? [] : [4, 3]);
      c.lineWidth = 2;
      c.beginPath(); c.moveTo(x, AXIS_H - 4); c.lineTo(x, H); c.stroke();
      c.setLineDash([]); c.lineWidth = 1;
      if (x - lastLabelX > 60) {
        const label = m.kind === 'gap' ? `gap ${m.r.lost ?? '?'}` : m.kind === 'reset' ? 'reset'
          : m.kind === 'alert' ? `alert ${String(m.r.trigger).slice(0, 48)}` : 'reconnect';
        const tw = c.measureText(label).width + 8;
        c.fillRect(x + 2, AXIS_H - 1, tw, 14);
        c.fillStyle = th.markerText || '#fff';
        c.fillText(label, x + 6, AXIS_H + 6);
        lastLabelX = x;
      }
    }
  }

  /** The axis shows the target's own time: each time base (epoch: from the start, or from a
   * reset where the target's time restarted) gets its own ticks, and where one starts the axis
   * says so in the reset colour with the target's time there. What is drawn is published as
   * the element's data-axis (JSON [{x, v, label, epoch}]). */
  drawAxis(c, th, t0, t1, W) {
    const st = this.store, unit = st.timeUnit;
    const step = niceStep(this.span / Math.max(2, this.plotW / 110));
    const label = (v) => (unit === 'ns' ? fmtAxisNs(v, step) : String(Math.round(v)));
    const out = [];
    const ep = st.epochs;
    c.strokeStyle = th.grid || 'rgba(0,0,0,.08)';
    c.beginPath();
    for (let i = 0; i < ep.length; i++) {
      const a = Math.max(t0, ep[i].t), b = Math.min(t1, i + 1 < ep.length ? ep[i + 1].t : Infinity);
      if (a >= b) continue;
      const off = ep[i].off;
      let from = a;
      if (ep[i].t >= t0) { // this time base starts in view: mark it on the axis
        const x = Math.round(this.xOf(ep[i].t)) + 0.5, v = ep[i].t - off;
        const text = '↺ ' + label(v);
        c.fillStyle = th.reset || '#d00';
        c.fillRect(x - 1, 0, 2, AXIS_H);
        c.fillText(text, x + 4, 10);
        out.push({ x, v, label: text, epoch: true });
        from = this.tOf(x + c.measureText(text).width + 20);
      }
      c.fillStyle = th.muted || '#888';
      const stopX = i + 1 < ep.length && ep[i + 1].t < t1 ? this.xOf(ep[i + 1].t) - 4 : Infinity;
      for (let v = Math.ceil((from - off) / step) * step; v + off < b; v += step) {
        const x = Math.round(this.xOf(v + off)) + 0.5;
        if (x + 3 + c.measureText(label(v)).width > stopX) break; // the next time base's mark is there
        c.moveTo(x, AXIS_H - 5); c.lineTo(x, this.h);
        c.fillText(label(v), x + 3, 10);
        out.push({ x, v, label: label(v), epoch: false });
      }
    }
    c.stroke();
    c.fillStyle = th.border || '#ddd';
    c.fillRect(LABEL_W, AXIS_H - 1, W, 1);
    const s = JSON.stringify(out);
    if (s !== this.axisAttr) { this.axisAttr = s; this.wrap.dataset.axis = s; }
  }

  publishLanes(names) {
    const s = JSON.stringify(names);
    if (s !== this.lanesAttr) { this.lanesAttr = s; this.wrap.dataset.lanes = s; }
  }

  /** Shown window [t0, t1) for the CPU chart. */
  window() {
    const st = this.store, o = st && st.oldest;
    // only where there are records: the empty span before the oldest or after the newest is no time of the target's
    return { t0: o ? Math.max(this.t0, o._t) : this.t0, t1: Math.min(this.t1, st ? st.lastT : this.t1) };
  }
}

function diamond(c, x, y, LH) {
  const r = Math.min(4, LH / 2 - 3);
  c.beginPath(); c.moveTo(x, y + LH / 2 - r - 1); c.lineTo(x + r - 1, y + LH / 2); c.lineTo(x, y + LH / 2 + r + 1); c.lineTo(x - r + 1, y + LH / 2); c.closePath();
  c.lineWidth = 1; c.stroke(); c.fill();
}

function niceStep(raw) {
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

function niceSpan(x) { return niceStep(x); }

function fmtAxisNs(t, step) {
  const s = t / 1e9;
  const dec = Math.max(0, Math.min(9, Math.ceil(-Math.log10(step / 1e9))));
  return s.toFixed(dec) + ' s';
}

function ellipsize(c, s, w) {
  if (c.measureText(s).width <= w) return s;
  while (s.length > 1 && c.measureText(s + '…').width > w) s = s.slice(0, -1);
  return s + '…';
}

const hueCache = new Map();
export function laneHue(name) {
  let h = hueCache.get(name);
  if (h === undefined) {
    let x = 2166136261;
    for (let i = 0; i < name.length; i++) { x ^= name.charCodeAt(i); x = Math.imul(x, 16777619); }
    h = ((x >>> 0) % 360);
    hueCache.set(name, h);
  }
  return h;
}

export function laneColor(th, name) {
  const h = laneHue(name);
  return th.dark ? `hsl(${h} 55% 58%)` : `hsl(${h} 60% 48%)`;
}
