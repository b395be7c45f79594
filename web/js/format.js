// format.js: text formatting shared by the views.

/** Nanoseconds as seconds with digit groups: 12.345 678 901 */
export function fmtNs(ns) {
  if (ns == null) return '';
  const s = Math.floor(ns / 1e9);
  const f = String(Math.floor(ns % 1e9)).padStart(9, '0');
  return `${s}.${f.slice(0, 3)}\u2009${f.slice(3, 6)}\u2009${f.slice(6)}`;
}

/** A record's own time; a gap, reset or marker shows the time of the event before it. */
export function fmtTime(r) {
  if (r.ns != null) return fmtNs(r.ns);
  if (r.time != null) return String(r.time);
  if (r._ns != null) return fmtNs(r._ns);
  if (r._time != null) return String(r._time);
  return '';
}

/** A duration in display units, short: 1.25 ms, 830 µs, 12 s; ticks: 1.2k ticks. */
export function fmtDur(d, unit) {
  if (unit !== 'ns') {
    if (d >= 1e6) return (d / 1e6).toFixed(d >= 1e7 ? 0 : 1) + 'M ticks';
    if (d >= 1e3) return (d / 1e3).toFixed(d >= 1e4 ? 0 : 1) + 'k ticks';
    return Math.round(d) + ' ticks';
  }
  const a = Math.abs(d);
  if (a >= 1e9) return trim(d / 1e9) + ' s';
  if (a >= 1e6) return trim(d / 1e6) + ' ms';
  if (a >= 1e3) return trim(d / 1e3) + ' µs';
  return Math.round(d) + ' ns';
}

function trim(x) {
  const a = Math.abs(x);
  return a >= 100 ? x.toFixed(0) : a >= 10 ? x.toFixed(1) : x.toFixed(2);
}

export function fmtCount(n) {
  if (n == null) return '–';
  if (n >= 1e9) return (n / 1e9).toFixed(2) + 'G';
  if (n >= 1e6) return (n / 1e6).toFixed(2) + 'M';
  if (n >= 1e4) return (n / 1e3).toFixed(1) + 'k';
  return String(Math.round(n));
}

export function fmtArgs(args) {
  if (!args) return '';
  let s = '';
  for (const k in args) {
    const v = args[k];
    s += (s ? '  ' : '') + k + '=' + (typeof v === 'object' ? JSON.stringify(v) : v);
  }
  return s;
}

export function hex32(n) {
  return '0x' + (n >>> 0).toString(16).padStart(8, '0');
}

/** One-line description of a non-event record. */
export function describeRecord(r) {
  if (r.type === 'gap' && r.client) {
    return `gap: ${r.lost} record${r.lost === 1 ? '' : 's'} not received by this dashboard (seq ${r.from}–${r.to}, ${r.reason || 'missed'})`;
  }
  if (r.type === 'gap') {
    const n = r.exact === false ? (r.basis ? `~${r.lost ?? '?'}` : `${r.lost ?? '?'}+`) : `${r.lost ?? '?'}`;
    const why = [r.reason, r.exact === false && r.basis ? `estimate from ${r.basis}` : null].filter(Boolean).join('; ');
    return `gap: ${n} record${r.lost === 1 ? '' : 's'} lost` + (why ? ` (${why})` : '');
  }
  if (r.type === 'reset') return 'reset: ' + (r.reason || 'target restarted tracing');
  if (r.type === 'alert') {
    return `alert ${r.trigger}: ${r.detail || r.condition} (fired by seq ${r.firedSeq})` + (r.capture ? `; capture ${r.capture}` : '');
  }
  if (r.type === 'marker' && r.resolved) {
    return `${r.reason}: no records lost (the new daemon re-read ${r.repeats} already shown, skipped)`;
  }
  if (r.type === 'marker') {
    const lost = r.lost ? `${r.lost} record${r.lost === 1 ? '' : 's'} missed` : 'records written meanwhile may be missing';
    return `${r.reason}: ${lost}`;
  }
  return r.name || r.type;
}

/**
 * Whether an event is the application's own (drawn as a diamond, highlighted in the table):
 * USER_EVENT in every format (QNX's _NTO_TRACE_USER class, ThreadX ids without a name),
 * NuttX's NOTE_DUMP_* notes (printf, begin/end/mark, binary, counter), and ThreadX's user id
 * range 4096-65535 (other formats' ids mean other things: QNX's carry the class in bit 10 up).
 */
export function isUserEvent(r, format) {
  if (r.name === 'USER_EVENT' || (r.name && r.name.startsWith('NOTE_DUMP_'))) return true;
  return r.id >= 4096 && (!format || /threadx/i.test(format));
}
