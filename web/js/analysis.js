// analysis.js: the Analysis view: the target's live analysis from the daemon's `stats` messages
// (proto/PROTOCOL.md "Statistics"): CPU load over time stacked per thread, a statistics table
// per thread (CPU, switches, preemptions, suspensions, resumptions, inversions, stack margin),
// popular services (of all threads or of one), priority inversions, interrupts and system calls per number.
//
// Format-neutral: a figure the format does not trace (not in the message's `has`, or a field
// the message leaves out) is absent or says "not available for this format", never 0. Events the
// statistics name (the lowest stack pointer, an inversion's start and end) are event numbers of
// the analysis; the message's `seqs` maps them to the stream's seqs, so each is one click from
// the record in the table and on the timeline. Target strings (thread and service names) are
// text (dom.js).

import { h, fill } from './dom.js';
import { drawLoad, fmtShare } from './charts.js';
import { laneColor } from './timeline.js';
import { fmtCount, fmtDur, hex32 } from './format.js';

/** The stream seq of analysis event n: runs of consecutive events as [first event, its seq],
 * oldest first (the `seqs` of a stats message); null when n is older than the runs kept. */
export function seqOfEvent(seqs, n) {
  if (!Array.isArray(seqs) || n == null) return null;
  for (let i = seqs.length - 1; i >= 0; i--) {
    const [e, s] = seqs[i];
    if (e <= n) return s + (n - e);
  }
  return null;
}

const has = (st, what) => Array.isArray(st.has) && st.has.includes(what);
const NA = 'not available for this format';

export class AnalysisView {
  /** el: the view's container; hooks.onJump(seq, endSeq): show that record (and the range to
   * endSeq) in the table and on the timeline. */
  constructor(el, hooks) {
    this.el = el;
    this.hooks = hooks;
    this.canvas = h('canvas', { id: 'load-chart', class: 'chart load', height: '140' });
    this.legend = h('div', { class: 'an-legend' });
    this.body = h('div', { class: 'an-body' });
    this.head = h('div', { class: 'an-head muted' });
    fill(el, this.head, h('section', { class: 'an-sec', id: 'an-load' }, h('h3', null, 'CPU load over time'),
      this.canvas, this.legend), this.body);
    this.shown = null;
    this.svcThread = null; // the thread whose services are listed (null: all)
    // No redraw while a pointer button is down on the view (a redraw between press and release
    // replaces the button under the pointer and the browser drops the click) or while the
    // services menu is open.
    this.held = false;
    el.addEventListener('pointerdown', () => { this.held = true; });
    const release = () => setTimeout(() => { this.held = false; }, 0);
    window.addEventListener('pointerup', release);
    window.addEventListener('pointercancel', release);
    el.addEventListener('change', (e) => {
      if (e.target.id !== 'an-svc-thread') return;
      this.svcThread = e.target.value === '' ? null : Number(e.target.value);
      this.render(this.store, this.theme, true);
    });
    el.addEventListener('click', (e) => {
      const b = e.target.closest('[data-seq]');
      if (b) this.hooks.onJump(Number(b.dataset.seq), b.dataset.end ? Number(b.dataset.end) : null);
    });
  }

  /** Redraws when the store's statistics changed (or force). */
  render(store, theme, force) {
    this.store = store;
    this.theme = theme;
    const st = store && store.stats;
    if (!force && (this.shown === st || this.held || document.activeElement?.id === 'an-svc-thread')) return;
    this.shown = st;
    if (!st) {
      fill(this.head, store ? 'no statistics for this target yet: the daemon sends them about once a second (a remote target has none)' : '');
      fill(this.legend);
      drawLoad(this.canvas, theme, [], 1);
      fill(this.body);
      return;
    }
    const ctx = context(store, st);
    fill(this.head, summary(st, ctx));
    this.renderLoad(st, ctx, theme);
    fill(this.body, threadTable(st, ctx), services(st, ctx, this), inversions(st, ctx), irqs(st, ctx), calls(st, ctx));
  }

  renderLoad(st, ctx, theme) {
    const s = st.series;
    if (!s || !Array.isArray(s.rows)) {
      drawLoad(this.canvas, theme, [], 1);
      fill(this.legend, h('span', { class: 'muted' }, 'no time series: the records carry no nanoseconds (no tick rate)'));
      return;
    }
    const ids = s.threads || [];
    const col = (i) => s.rows.map((r) => r[i] || 0);
    const bands = ids.map((id, i) => { const name = ctx.name(id); return { name, color: laneColor(theme, name), ns: col(i) }; });
    const k = ids.length;
    bands.push({ name: 'other threads', color: theme.muted, ns: col(k) },
      { name: 'interrupts', color: theme.isr, ns: col(k + 1) },
      { name: 'idle', color: theme.idle, ns: col(k + 2) },
      { name: 'unknown (gaps)', color: theme.gap, ns: col(k + 3) });
    drawLoad(this.canvas, theme, bands, s.bucket_ns);
    fill(this.legend, bands.filter((b) => b.ns.some((v) => v > 0)).map((b) =>
      h('span', { class: 'an-key' }, h('i', { style: { background: b.color } }), b.name)),
    h('span', { class: 'muted' }, ` · bars of ${fmtDur(s.bucket_ns, 'ns')}; idle includes the time before the first thread ran`));
  }
}

/* What every panel needs: names by thread id, the time unit, and where events are. */
function context(store, st) {
  const names = new Map();
  for (const t of st.threads || []) names.set(t.id, t.name);
  // with nanoseconds (a tick rate), durations in ticks are shown as time: the threads' own
  // nanoseconds over their ticks is the rate the daemon converts with
  let tk = 0, tn = 0;
  for (const t of st.threads || []) if (t.cpu_ns != null) { tk += t.ticks; tn += t.cpu_ns; }
  const nsPerTick = tk > 0 ? tn / tk : null;
  return {
    name: (id) => names.get(id) || hex32(id),
    seqs: store.statsSeqs,
    dur: (ticks) => (nsPerTick ? fmtDur(ticks * nsPerTick, 'ns') : fmtDur(ticks, 'ticks')),
  };
}

function summary(st, ctx) {
  const ex = st.execution || {};
  const parts = [`since attach: ${fmtCount(st.events)} events over ${ctx.dur(st.span_ticks)}`];
  if (st.gaps) parts.push(`${fmtCount(st.gaps)} gaps (${fmtCount(st.lost)} events lost; their time is unknown, no thread's)`);
  if (st.epochs > 1) parts.push(`${st.epochs - 1} target resets`);
  if (ex.unknown_ticks) parts.push(`unknown ${ctx.dur(ex.unknown_ticks)}`);
  return parts.join(' · ');
}

/* A cell that jumps to analysis event n (its seq from the message's map, or the seq the
 * statistics give with it: at.seq, at.endSeq), or plain text. */
function jump(ctx, n, label, endN, at = {}) {
  const seq = at.seq ?? seqOfEvent(ctx.seqs, n);
  if (seq == null) return h('span', { class: 'muted', title: `event ${n}: older than the map the daemon keeps` }, label);
  const end = at.endSeq ?? (endN != null ? seqOfEvent(ctx.seqs, endN) : null);
  return h('button', { class: 'link', dataset: end != null ? { seq, end } : { seq }, title: `show seq ${seq} in the table and on the timeline` }, label);
}

function cpuCell(t, st, ctx) {
  const frac = st.span_ticks > 0 ? t.ticks / st.span_ticks : 0;
  const time = t.cpu_ns != null ? fmtDur(t.cpu_ns, 'ns') : ctx.dur(t.ticks);
  return h('td', { class: 'num', dataset: { ticks: t.ticks, ns: t.cpu_ns ?? '' } }, `${fmtShare(frac)} · ${time}`);
}

/* A stack margin as a bar with the bytes never used and where the figure comes from: the
 * painted stack's high-water mark read from RAM when there is one (the true figure), else the
 * lowest stack pointer traced, whose event is one click away; a painted stack that gives no
 * number says why (no fill pattern, unreadable, scanning). */
function stackCell(t, ctx) {
  const s = t.stack;
  if (!s) return h('td', { class: 'muted' }, '—');
  const src = s.source || 'traced stack pointer';
  const p = s.painted && s.painted.state === 'painted' && s.size ? s.painted : null;
  const worst = s.event != null ? jump(ctx, s.event, 'worst event') : null;
  const traced = s.size && s.min_free != null ? `${s.min_free} B free` : s.lowest_sp != null ? `lowest sp ${hex32(s.lowest_sp)}` : null;
  const notes = [];
  if (s.painted && !p) notes.push(h('small', { class: 'an-src', dataset: { painted: s.painted.state } }, `${s.painted.source || 'painted stack'}: ${s.painted.state}`));
  if (p) notes.push(h('small', { class: 'an-src' }, s.painted.source || 'painted stack', p.overflow ? ': overflowed' : ''));
  notes.push(h('small', { class: 'an-src' }, p && traced ? `${src}: ${traced}` : src, worst ? ' · ' : '', worst));
  const free = p ? p.free : s.min_free;
  if (!s.size || free == null) return h('td', { class: 'an-stack', dataset: { source: src } }, traced && !p ? traced : '', notes);
  const used = Math.max(0, Math.min(1, (s.size - free) / s.size));
  return h('td', { class: 'an-stack', dataset: { free, size: s.size, source: p ? s.painted.source || 'painted stack' : src, traced: s.min_free ?? '' } },
    h('span', { class: 'an-bar', title: `${s.size - free} of ${s.size} bytes used` },
      h('i', { class: used > 0.9 ? 'hot' : used > 0.75 ? 'warm' : '', style: { width: (used * 100).toFixed(1) + '%' } })),
    ` ${free} B free of ${s.size}`, notes);
}

const COUNTS = [
  ['context_switches', 'switches', null],
  ['preemptions', 'preemptions', 'preemptions'],
  ['suspensions', 'suspensions', 'suspensions'],
  ['resumptions', 'resumptions', 'resumptions'],
  ['inversions', 'inversions', 'inversions'],
];

function threadTable(st, ctx) {
  const cols = COUNTS.filter(([, , need]) => !need || has(st, need));
  const stack = (st.threads || []).some((t) => t.stack);
  const ex = st.execution || {};
  const rows = (st.threads || []).map((t) => h('tr', { dataset: { thread: t.name || hex32(t.id) } },
    h('td', null, t.name || hex32(t.id)), h('td', { class: 'num' }, t.priority >= 0 ? t.priority : '–'),
    cpuCell(t, st, ctx), cols.map(([k]) => h('td', { class: 'num', dataset: { k } }, fmtCount(t[k]))),
    stack ? stackCell(t, ctx) : null));
  const extra = [['interrupts', ex.interrupt_ticks, ex.interrupt_ns], ['idle', ex.idle_ticks, ex.idle_ns],
    ['initialisation', ex.init_ticks], ['other threads', ex.other_threads_ticks], ['unknown (gaps)', ex.unknown_ticks]]
    .filter(([, ticks]) => ticks > 0).map(([name, ticks, ns]) => h('tr', { class: 'an-sys', dataset: { thread: name } },
      h('td', null, name), h('td'), cpuCell({ ticks, cpu_ns: ns }, st, ctx), cols.map(() => h('td')), stack ? h('td') : null));
  return h('section', { class: 'an-sec', id: 'an-threads' }, h('h3', null, 'Threads'),
    h('table', { class: 'an-table' },
      h('thead', null, h('tr', null, h('th', null, 'thread'), h('th', { class: 'num' }, 'prio'), h('th', { class: 'num' }, 'CPU'),
        cols.map(([, label]) => h('th', { class: 'num' }, label)), stack ? h('th', null, 'stack margin') : null)),
      h('tbody', null, rows, extra)));
}

/* The services of one thread (its id), most called first, named as the system list names them. */
function threadServices(st, thread) {
  const names = new Map((st.services || []).map((s) => [s.id, s.name]));
  return (st.thread_services || []).filter((x) => x.thread === thread)
    .map((x) => ({ id: x.id, name: names.get(x.id), count: x.count })).sort((a, b) => b.count - a.count || a.id - b.id);
}

function services(st, ctx, view) {
  const perThread = Array.isArray(st.thread_services);
  const thread = perThread && view.svcThread != null && (st.threads || []).some((t) => t.id === view.svcThread) ? view.svcThread : null;
  const list = thread == null ? st.services || [] : threadServices(st, thread);
  const max = list.length ? list[0].count : 1;
  const shown = list.slice(0, 25);
  const pick = perThread ? h('select', { id: 'an-svc-thread', 'aria-label': 'Services of' },
    h('option', { value: '' }, 'all threads'),
    (st.threads || []).map((t) => { const o = h('option', { value: t.id }, ctx.name(t.id)); o.selected = t.id === thread; return o; })) : null;
  const over = thread != null && st.overflow && st.overflow.thread_services;
  return h('section', { class: 'an-sec', id: 'an-services' }, h('h3', null, 'Popular services ', h('small', { class: 'muted' }, 'calls per event id of ')),
    pick || h('span', { class: 'muted' }, 'all threads'),
    over ? h('p', { class: 'muted' }, `${fmtCount(over)} thread/service pairs beyond the table are not counted here`) : null,
    list.length ? h('table', { class: 'an-table' }, h('tbody', null, shown.map((s) => h('tr', { dataset: { id: s.id } },
      h('td', null, s.name || '?'), h('td', { class: 'num muted' }, s.id), h('td', { class: 'num' }, fmtCount(s.count)),
      h('td', { class: 'an-barcell' }, h('span', { class: 'an-bar' }, h('i', { style: { width: (s.count / max * 100).toFixed(1) + '%' } })))))))
      : h('p', { class: 'muted' }, 'no events yet'),
    list.length > shown.length ? h('p', { class: 'muted' }, `${list.length - shown.length} more`) : null);
}

function invDuration(v, ctx) {
  if (v.duration_ns != null) return fmtDur(v.duration_ns, 'ns');
  if (v.duration_ticks != null) return ctx.dur(v.duration_ticks);
  return null;
}

function inversions(st, ctx) {
  const sec = (...c) => h('section', { class: 'an-sec', id: 'an-inversions' }, h('h3', null, 'Priority inversions'), ...c);
  if (!has(st, 'inversions')) return sec(h('p', { class: 'muted' }, NA));
  const p = st.performance || {};
  const list = (st.inversions || []).slice().reverse(); // newest first
  const items = list.map((v) => {
    const d = invDuration(v, ctx);
    return h('li', { dataset: { start: v.start_event, end: v.end_event ?? '' } },
      h('b', null, v.deterministic ? 'deterministic' : 'non-deterministic'), ': ',
      `${ctx.name(v.blocked)} (prio ${v.blocked_priority}) waited for ${ctx.name(v.owner)} (prio ${v.owner_priority}) on mutex ${ctx.name(v.mutex)}`,
      d ? ` for ${d}` : '', ' · ',
      jump(ctx, v.start_event, `event ${v.start_event}`, v.end_event, { seq: v.start_seq, endSeq: v.end_seq }),
      v.end_event != null ? ` to ${v.end_event}` : v.state === 'cut' ? ' (its end lost in a gap or reset)' : ' (still open)');
  });
  const over = st.overflow && st.overflow.inversions;
  return sec(h('p', { class: 'muted' }, `${fmtCount(p.priority_inversions)} deterministic, ${fmtCount(p.nondeterministic_inversions)} non-deterministic since attach`),
    items.length ? h('ul', { class: 'an-list' }, items) : null,
    over ? h('p', { class: 'muted' }, `${fmtCount(over)} older ones no longer listed`) : null);
}

function irqs(st, ctx) {
  const sec = (...c) => h('section', { class: 'an-sec', id: 'an-irqs' }, h('h3', null, 'Interrupts per IRQ'), ...c);
  if (!has(st, 'irqs')) return sec(h('p', { class: 'muted' }, `${NA} (it does not trace interrupt numbers with entry and exit); interrupts counted: ${fmtCount((st.performance || {}).interrupts)}`));
  const list = st.irqs || [];
  if (!list.length) return sec(h('p', { class: 'muted' }, 'no interrupt entry and exit seen yet'));
  return sec(h('table', { class: 'an-table' },
    h('thead', null, h('tr', null, h('th', { class: 'num' }, 'IRQ'), h('th', { class: 'num' }, 'count'), h('th', { class: 'num' }, 'total'), h('th', { class: 'num' }, 'longest'))),
    h('tbody', null, list.map((q) => h('tr', { dataset: { irq: q.irq } }, h('td', { class: 'num' }, q.irq), h('td', { class: 'num' }, fmtCount(q.count)),
      h('td', { class: 'num' }, ctx.dur(q.total_ticks)), h('td', { class: 'num' }, ctx.dur(q.max_ticks)))))));
}

function calls(st, ctx) {
  if (!has(st, 'calls')) return null; // a format without system calls: no panel at all
  const list = (st.calls || []).slice().sort((a, b) => b.count - a.count).slice(0, 40);
  return h('section', { class: 'an-sec', id: 'an-calls' }, h('h3', null, 'System calls per thread'),
    list.length ? h('table', { class: 'an-table' },
      h('thead', null, h('tr', null, h('th', null, 'thread'), h('th', null, 'call'), h('th', { class: 'num' }, 'count'), h('th', { class: 'num' }, 'total'), h('th', { class: 'num' }, 'longest'))),
      h('tbody', null, list.map((c) => h('tr', null, h('td', null, ctx.name(c.thread)), h('td', null, c.name || `#${c.nr}`),
        h('td', { class: 'num' }, fmtCount(c.count)), h('td', { class: 'num' }, ctx.dur(c.total_ticks)), h('td', { class: 'num' }, ctx.dur(c.max_ticks))))))
      : h('p', { class: 'muted' }, 'no completed call yet'));
}
