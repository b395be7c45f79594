// charts.js: the two small sidebar charts (CPU share per thread, events/s), drawn on canvas at
// most a few times per second.

import { laneColor } from './timeline.js';
import { fmtCount } from './format.js';

function setup(canvas) {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  const c = canvas.getContext('2d');
  c.setTransform(dpr, 0, 0, dpr, 0, 0);
  return { c, w, h };
}

/** A share as text: small ones keep two significant digits (a thread that ran 0.05% of the
 * time on a mostly idle target is not "0.0%"), and only all of it is "100%". */
export function fmtShare(frac) {
  const p = frac * 100;
  if (p === 0 || p === 100) return p + '%';
  if (p < 0.01) return '<0.01%';
  if (p < 0.1) return p.toPrecision(2) + '%';
  if (p > 99.9) return Math.min(p, 99.99).toFixed(2) + '%';
  return p.toFixed(p < 10 || p > 90 ? 1 : 0) + '%';
}

/** share: result of TimelineModel.cpuShare. The rows drawn are also in canvas.dataset.shares
 * (JSON: name, frac, text) for tests and tools. */
export function drawCpu(canvas, th, share) {
  const { c, w, h } = setup(canvas);
  c.clearRect(0, 0, w, h);
  c.font = '11px ' + (th.font || 'system-ui');
  c.textBaseline = 'middle';
  if (!share || share.total <= 0 || (share.busy === 0 && share.isr === 0 && !share.idle)) {
    c.fillStyle = th.muted; c.fillText('no context switches in view', 4, h / 2);
    canvas.dataset.shares = '[]';
    return;
  }
  const rows = share.lanes.slice(0, 7).map((l) => ({ name: l.name, frac: l.d / share.total, color: laneColor(th, l.name) }));
  if (share.isr > 0) rows.push({ name: 'ISR', frac: share.isr / share.total, color: th.isr });
  const rest = Math.max(0, 1 - (share.busy + share.isr + (share.idle || 0)) / share.total);
  if (share.idle > 0) {
    // the stream says when the scheduler idled; what it does not cover is unknown
    rows.push({ name: 'idle', frac: share.idle / share.total, color: th.idle });
    if (rest > 0) rows.push({ name: 'unknown', frac: rest, color: th.muted });
  } else {
    rows.push({ name: 'idle / unknown', frac: rest, color: th.idle });
  }
  for (const r of rows) r.text = fmtShare(r.frac);
  canvas.dataset.shares = JSON.stringify(rows.map(({ name, frac, text }) => ({ name, frac, text })));
  const rh = Math.min(18, Math.floor(h / rows.length));
  const labelW = 92, pctW = 40, barW = Math.max(10, w - labelW - pctW - 4);
  rows.forEach((r, i) => {
    const y = i * rh;
    c.fillStyle = th.text;
    c.fillText(r.name.length > 14 ? r.name.slice(0, 13) + '…' : r.name, 0, y + rh / 2);
    c.fillStyle = th.stripe;
    c.fillRect(labelW, y + 3, barW, rh - 6);
    c.fillStyle = r.color;
    c.fillRect(labelW, y + 3, Math.max(r.frac > 0 ? 1 : 0, barW * Math.min(1, r.frac)), rh - 6);
    c.fillStyle = th.muted;
    c.textAlign = 'right';
    c.fillText(r.text, w, y + rh / 2);
    c.textAlign = 'left';
  });
}

/** The plot area of a chart with a scale at its right (labels: top, middle (null: none),
 * bottom), grid lines at 0, 1/2 and 1, and the time axis's two ends below it. */
function plotArea(c, th, w, h, labels, from, to) {
  const top = 4, bottom = h - 14, left = 0, right = w - 34;
  c.strokeStyle = th.grid; c.lineWidth = 1;
  c.beginPath();
  for (const f of [0, 0.5, 1]) { const y = Math.round(bottom - f * (bottom - top)) + 0.5; c.moveTo(left, y); c.lineTo(right, y); }
  c.stroke();
  c.fillStyle = th.muted; c.textBaseline = 'middle';
  [top + 2, (top + bottom) / 2, bottom].forEach((y, i) => { if (labels[i] != null) c.fillText(labels[i], right + 4, y); });
  c.textBaseline = 'alphabetic';
  c.fillText(from, left, h - 2);
  c.textAlign = 'right'; c.fillText(to, right, h - 2); c.textAlign = 'left';
  return { top, bottom, left, right };
}

/** The events/s chart: `series` (the target's own rate per second of its time, or, without
 * one, what arrived per second) filled, `received` (what arrived per wall-clock second: the
 * delivery rate, in bursts as the daemon polls) as a dashed line. Both are in the canvas's
 * data-series (JSON) for tests and tools. */
export function drawRate(canvas, th, series, received) {
  const { c, w, h } = setup(canvas);
  c.clearRect(0, 0, w, h);
  c.font = '10px ' + (th.font || 'system-ui');
  canvas.dataset.series = JSON.stringify({ series: [...series], received: received ? [...received] : null });
  let max = 10;
  for (const v of series) if (v > max) max = v;
  if (received) for (const v of received) if (v > max) max = v;
  const nice = Math.pow(10, Math.ceil(Math.log10(max)));
  max = nice / 2 >= max ? nice / 2 : nice;
  const { top, bottom, left, right } = plotArea(c, th, w, h, [fmtCount(max), null, '0'], `-${series.length - 1}s`, 'now');
  const n = series.length, dx = (right - left) / Math.max(1, n - 1);
  // The last bin is the current, partial second: leave it out of the line.
  c.beginPath();
  for (let i = 0; i < n - 1; i++) {
    const x = left + i * dx, y = bottom - series[i] / max * (bottom - top);
    if (i === 0) c.moveTo(x, y); else c.lineTo(x, y);
  }
  c.lineTo(left + (n - 2) * dx, bottom); c.lineTo(left, bottom); c.closePath();
  c.fillStyle = th.accentSoft; c.fill();
  c.beginPath();
  for (let i = 0; i < n - 1; i++) {
    const x = left + i * dx, y = bottom - series[i] / max * (bottom - top);
    if (i === 0) c.moveTo(x, y); else c.lineTo(x, y);
  }
  c.strokeStyle = th.accent; c.lineWidth = 1.5; c.stroke();
  if (!received) return;
  c.beginPath();
  for (let i = 0; i < n - 1; i++) {
    const x = left + i * dx, y = bottom - received[i] / max * (bottom - top);
    if (i === 0) c.moveTo(x, y); else c.lineTo(x, y);
  }
  c.setLineDash([3, 3]); c.strokeStyle = th.muted; c.lineWidth = 1; c.stroke(); c.setLineDash([]);
}

/** CPU load over time, stacked per thread like SystemView's CPU load window: one bar per bucket
 * of the stats message's `series` (proto/PROTOCOL.md), each thread's share, then the other
 * threads, interrupts, idle and the time no one can be given (across gaps) as bands of their own.
 * bands: [{name, color, ns: [per bucket]}] bottom first; bucketNs: the bucket's length. The
 * bands are also in canvas.dataset.series (JSON: name, ns) for tests and tools. */
export function drawLoad(canvas, th, bands, bucketNs) {
  const { c, w, h } = setup(canvas);
  c.clearRect(0, 0, w, h);
  c.font = '10px ' + (th.font || 'system-ui');
  canvas.dataset.series = JSON.stringify({ bucket_ns: bucketNs, bands: bands.map(({ name, ns }) => ({ name, ns })) });
  const n = bands.length ? bands[0].ns.length : 0;
  const { top, bottom, left, right } = plotArea(c, th, w, h, ['100%', '50%', '0'], n ? `-${fmtSecs(n * bucketNs)}` : '', n ? 'newest' : '');
  if (!n) return;
  const bw = (right - left) / n;
  for (let i = 0; i < n; i++) {
    let y = bottom;
    for (const b of bands) {
      const dy = Math.min(1, b.ns[i] / bucketNs) * (bottom - top);
      if (dy <= 0) continue;
      c.fillStyle = b.color;
      c.fillRect(left + i * bw, y - dy, Math.max(1, bw - (bw > 3 ? 1 : 0)), dy);
      y -= dy;
    }
  }
}

function fmtSecs(ns) { const s = ns / 1e9; return (s >= 10 ? s.toFixed(0) : s.toFixed(1)) + ' s'; }
