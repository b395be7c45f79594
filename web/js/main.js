// main.js: the dashboard's wiring: protocol messages into per-target stores, stores into views,
// user input into view state and protocol requests. No framework: views render from a single
// requestAnimationFrame loop and only when their store changed.

import { Session } from './session.js';
import { TargetStore, compileFilter } from './store.js';
import { EventTable, ROW_H } from './table.js';
import { Timeline } from './timeline.js';
import { drawCpu, drawRate } from './charts.js';
import { showDetail, hideDetail } from './detail.js';
import { fmtCount, fmtDur } from './format.js';
import { renderTargetList, groupByBench, LOCAL_BENCH } from './targets.js';
import { h, fill } from './dom.js';
import { loadOlder } from './history.js';
import { Alerts } from './alerts.js';
import { AnalysisView } from './analysis.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const MAX_RECORDS = Math.max(1000, parseInt(params.get('max') || '200000', 10) || 200000);
const HISTORY_ON_CONNECT = Math.max(0, parseInt(params.get('history') ?? '2000', 10) || 0);
const TOKEN = params.get('token');

const app = {
  stores: new Map(),
  current: null,          // selected TargetStore
  filter: { thread: '', event: '', text: '' },
  filterVersion: 0,
  pred: null,
  paused: false,
  session: null,          // session.js: hello, subscribe/resume, restarts
  conn: null,             // session.conn (conn.js)
  theme: null,
  counters: null,
  targetFilter: '',       // the target list's filter box
  collapsed: new Set(),   // folded benches in the target list
  heldRedraws: 0,         // list redraws put off while a pointer button was down on it
};
window.tracetap = app;    // for the browser tests and for curious users (console)

/* ---------- stores ---------- */

function store(name) {
  let s = app.stores.get(name);
  if (!s) {
    s = new TargetStore(name, MAX_RECORDS);
    s.setFilter(app.pred, app.filterVersion);
    app.stores.set(name, s);
    refreshTargetSelect();
    if (!app.current) selectTarget(name);
  }
  return s;
}

function totalRecords() { let n = 0; for (const s of app.stores.values()) n += s.size; return n; }

function enforceBound() {
  let over = totalRecords() - MAX_RECORDS;
  while (over > 0) {
    let big = null;
    for (const s of app.stores.values()) if (!big || s.size > big.size) big = s;
    const k = Math.min(over, big.size);
    big.dropOldest(k);
    over -= k;
  }
}

function selectTarget(name) {
  const s = app.stores.get(name);
  if (!s) return;
  app.current = s;
  if (s.filterVersion !== app.filterVersion) s.setFilter(app.pred, app.filterVersion);
  table.setStore(s);
  timeline.setStore(s);
  timeline.setFilter(app.pred, app.filter.thread, s.laneSet);
  $('target-select').value = name;
  refreshFilterOptions(true);
  updateExportLinks();
  hideDetail();
  targetsDirty = true; // the list shows the selected target's card
  $('analysis').scrollTop = 0;
  if (app.session) app.session.askStats();
  if (app.tab === 'analysis') analysis.render(s, app.theme, true);
}

/* ---------- session ---------- */

function onStatus(s, msg, prev) {
  if (prev && prev !== msg.state && s === app.current && (msg.state === 'reset' || msg.state === 'disconnected' || msg.state === 'stalled')) {
    toast(`${msg.target}: ${msg.state}${msg.message ? ' — ' + msg.message : ''}`, msg.state === 'reset' ? 'warn' : 'err');
  }
  targetsDirty = true;
}

function onConnState(state, detail) {
  const el = $('conn');
  el.dataset.state = state;
  $('conn-text').textContent = state === 'open' ? 'live' : state === 'waiting'
    ? `offline — retry in ${Math.ceil(detail.delay / 1000)} s` : state;
  el.title = state === 'waiting' ? `WebSocket closed: ${detail.why}. Click to retry now.` : 'WebSocket connection';
  if (state === 'waiting') {
    for (const s of app.stores.values()) if (s.status) s.status = { ...s.status, state: 'disconnected', message: 'daemon unreachable' };
    targetsDirty = true;
  }
}

/* The token stays in this module (WebSocket URL, API requests, export links) but leaves the
 * address bar and the history entry once the connection has it, so it is not left in the page's
 * URL for a script, a screenshot or a shared link; a reload then needs it again. */
function forgetTokenInAddress() {
  if (!TOKEN) return;
  const u = new URL(location.href);
  u.searchParams.delete('token');
  history.replaceState(history.state, '', u.pathname + u.search + u.hash);
}

/* A trigger fired: a row and a timeline mark in its target's records, an entry in the list. */
const alerts = new Alerts($('alerts'), $('captures'), apiUrl);
function onAlert(msg) {
  if (typeof msg.target !== 'string') return;
  store(msg.target).add({ type: 'alert', target: msg.target, trigger: String(msg.trigger), condition: String(msg.condition || ''),
    detail: typeof msg.detail === 'string' ? msg.detail : null,
    firedSeq: msg.seq, capture: typeof msg.capture === 'string' ? msg.capture : null }, Date.now());
  alerts.add(msg);
  toast(`${msg.target}: trigger ${msg.trigger} fired`, 'warn');
}

function connect() {
  app.session = new Session({
    store, toast, onStatus, onState: onConnState,
    onReset: (s, r) => { if (s === app.current) toast(`${s.name}: target reset (${r.reason || 'tracing restarted'}): its time starts again, marked on the time axis`, 'warn'); },
    onTargets: () => { targetsDirty = true; alerts.refresh(); },
    onAlert,
    statsTargets: () => (app.current ? [app.current.name] : []),
  }, { history: HISTORY_ON_CONNECT });
  app.conn = app.session.conn;
  app.counters = app.session.counters;
  app.session.connect();
  // Status messages may come only on state changes: refresh counters and rate from /api/targets.
  setInterval(pollTargets, 2000);
  $('conn').addEventListener('click', () => app.conn.retryNow());
  setInterval(() => app.conn.send({ type: 'ping', id: Date.now() }), 15000);
}

async function pollTargets() {
  if (!app.conn || app.conn.state !== 'open' || document.hidden) return;
  try {
    const r = await fetch(apiUrl('api/targets', {}), { cache: 'no-store' });
    if (!r.ok) return;
    const list = await r.json();
    for (const t of Array.isArray(list) ? list : []) {
      const s = app.stores.get(t.name);
      if (!s) continue;
      s.status = { ...(s.status || {}), ...t, target: t.name };
    }
    targetsDirty = true;
  } catch (e) { /* daemon going away: the WebSocket reports it */ }
}

/* ---------- filters ---------- */

/** A filter change keeps the table on the record at its top (not on the same pixel offset, which
 * is another record in another list) and the timeline on that record too, so the two stay in step. */
function applyFilter() {
  const s0 = app.current;
  const anchor = s0 && !table.follow ? s0.get(s0.filtered.at(Math.min(table.firstVisiblePos(), s0.filtered.length - 1))) : null;
  app.filter = { thread: $('filter-thread').value, event: $('filter-event').value, text: $('filter-text').value };
  app.pred = compileFilter(app.filter);
  app.filterVersion++;
  const s = app.current;
  if (s) s.setFilter(app.pred, app.filterVersion);
  timeline.setFilter(app.pred, app.filter.thread, s ? s.laneSet : null);
  table.dirty = true;
  if (anchor && s) {
    table.showAtTop(anchor._n);
    if (!timeline.follow) timeline.reveal(anchor);
  }
  const active = !!(app.filter.thread || app.filter.event || app.filter.text.trim());
  $('btn-clear-filters').hidden = !active;
  document.body.classList.toggle('filtered', active);
}

function clearFilters() {
  $('filter-thread').value = ''; $('filter-event').value = ''; $('filter-text').value = '';
  applyFilter();
}

function fillSelect(sel, values, labels) {
  const cur = sel.value;
  const keep = sel.options[0];
  sel.textContent = '';
  sel.appendChild(keep);
  values.forEach((v, i) => { const o = document.createElement('option'); o.value = v; o.textContent = labels ? labels[i] : v; sel.appendChild(o); });
  if (cur && !values.includes(cur)) { const o = document.createElement('option'); o.value = cur; o.textContent = cur; sel.appendChild(o); }
  sel.value = cur;
}

function refreshFilterOptions(force) {
  const s = app.current;
  if (!s || (!s.namesChanged && !force)) return;
  s.namesChanged = false;
  const threads = [...s.threads.entries()].sort((a, b) => (a[1].prio ?? 1e9) - (b[1].prio ?? 1e9) || (a[0] < b[0] ? -1 : 1));
  const tv = threads.map((t) => t[0]);
  if (s.timeline.isr.lastSeen > 0) tv.push('ISR');
  fillSelect($('filter-thread'), tv, tv.map((n) => { const t = s.threads.get(n); return t && t.prio != null ? `${n} (${t.prio})` : n; }));
  fillSelect($('filter-event'), [...s.eventNames].sort());
}

function refreshTargetSelect() {
  const sel = $('target-select');
  const cur = sel.value;
  sel.textContent = '';
  const groups = groupByBench([...app.stores.values()]);
  for (const g of groups) {
    const parent = groups.length > 1 ? document.createElement('optgroup') : sel;
    if (parent !== sel) { parent.label = g.bench === LOCAL_BENCH ? 'this daemon' : g.bench; sel.appendChild(parent); }
    for (const s of g.stores) { const o = document.createElement('option'); o.value = s.name; o.textContent = s.name; parent.appendChild(o); }
  }
  if (cur) sel.value = cur;
}

/* ---------- sidebar: targets, charts ---------- */

let targetsDirty = true;
// While a pointer button is down on the list, the frame loop does not redraw it: a redraw between
// press and release replaces the element under the pointer and the browser drops the click.
let listHeld = false;

function renderTargets() {
  targetsDirty = false;
  if (!app.stores.size) return;
  fill($('targets'), renderTargetList([...app.stores.values()], { current: app.current, filter: app.targetFilter, collapsed: app.collapsed }));
}

function renderCharts() {
  const s = app.current;
  const th = app.theme;
  if (!s) return;
  const w = timeline.window();
  const share = s.timeline.cpuShare(w.t0, w.t1, s.lastT);
  drawCpu($('cpu-chart'), th, share);
  $('cpu-chart').dataset.window = JSON.stringify([w.t0, w.t1]);
  $('cpu-window').textContent = share.total > 0 ? `over ${fmtDur(share.total, s.timeUnit)} in view` : '';
  // The target's rate from its time stamps (the chart's last point is the second before the
  // newest record: complete); what arrived per wall-clock second is the delivery rate.
  const received = s.rateSeries(Date.now(), 60);
  const own = s.targetRateSeries(61);
  const got = `${fmtCount(received[received.length - 2] || 0)}/s received`;
  drawRate($('rate-chart'), th, own || received, own ? received : null);
  const r = s.targetRate();
  $('rate-now').textContent = r != null ? `${fmtCount(r)}/s on the target · ${got}` : `${got} (no tick rate: the target's own rate is unknown)`;
}

function renderInfo() {
  const s = app.current;
  if (!s) return;
  const f = s.filtered.length;
  $('table-info').textContent = (app.pred ? `${f.toLocaleString()} of ${s.size.toLocaleString()}` : `${s.size.toLocaleString()}`) +
    ` records` + (s.counts.dropped ? ` · ${fmtCount(s.counts.dropped)} oldest dropped (limit ${fmtCount(MAX_RECORDS)})` : '');
  $('tl-info').textContent = `${timeline.lanesShown.length} lane${timeline.lanesShown.length === 1 ? '' : 's'}` +
    (s.timeUnit ? ` · ${fmtDur(timeline.span, s.timeUnit)} in view` + (s.timeUnit === 'ticks' ? ' (target ticks)' : '') : '') +
    (timeline.follow ? '' : ' · not following');
}

/* ---------- the daemon's whole history, on demand (history.js) ---------- */

/** Goes back past the oldest record the page has: the daemon's older records come before it,
 * with the table and the timeline kept on the records they showed. */
async function olderHistory() {
  const s = app.current;
  if (!s || s.historyLoading || s.historyComplete) return;
  const top = s.get(s.filtered.at(Math.min(table.firstVisiblePos(), s.filtered.length - 1)));
  const sel = s.get(table.selected);
  const tlRec = s.get(s.filtered.at(Math.min(timeline.lowerT(timeline.t0), s.filtered.length - 1)));
  const tlT = tlRec && tlRec._t;
  try {
    const n = await loadOlder(s, apiUrl('api/export', { target: s.name, format: 'jsonl' }));
    if (!n || s !== app.current) return;
  } catch (e) {
    toast(`${s.name}: older history not loaded: ${e.message}`, 'err');
    return;
  }
  table.lastDropped = s.filteredDropped;
  table.selected = sel ? sel._n : -1;
  if (!table.follow && top) table.showAtTop(top._n);
  if (tlRec) timeline.t1 += tlRec._t - tlT;
  table.dirty = true; timeline.dirty = true;
  refreshFilterOptions(true);
}

/** The user went back past the oldest record: timeline panned or zoomed before it (not the
 * automatic scale, not a pause), or the table scrolled to its top. */
function wantsOlder(s) {
  const o = s.oldest;
  if (!o || s.historyComplete || s.historyLoading) return false;
  if (timeline.userMoved && timeline.t0 < o._t) return true;
  const el = table.el;
  return !table.follow && el.scrollHeight > el.clientHeight && el.scrollTop < 1;
}

function renderHistoryInfo() {
  const s = app.current;
  if (!s) return;
  const from = s.oldestSeq();
  const back = s.oldest && s.timeUnit ? ` (${fmtDur(s.lastT - s.oldest._t, s.timeUnit)} back)` : '';
  $('tl-history').textContent = from === undefined ? '' : s.historyLoading ? 'loading older records from the daemon…'
    : s.historyComplete && s.historyFrom !== undefined ? `from seq ${s.historyFrom.toLocaleString()}${back}: all the daemon holds` + (from > s.historyFrom ? ` (oldest ${fmtCount(from - s.historyFrom)} dropped here)` : '')
      : `from seq ${from.toLocaleString()}${back}` + (s.historyComplete || from <= 1 ? '' : ' · older on the daemon');
  $('tl-older').hidden = !!(s.historyComplete || from === undefined || from <= 1);
}

/* ---------- views ---------- */

const table = new EventTable($('table'), $('table-spacer'), $('table-rows'), {
  onSelect: (r) => {
    if (!r) return;
    showDetail(r, app.current);
    timeline.selected = r;
    timeline.reveal(r);
  },
  onFollowChange: () => updateFollowButton(),
});
const timeline = new Timeline($('timeline'), $('tl-canvas'), $('tl-tip'), {
  onSelect: (r) => {
    timeline.selected = r; timeline.dirty = true;
    table.setFollow(false);
    table.select(r._n, true);
  },
  onFollowChange: () => updateFollowButton(),
  onLaneClick: (name) => {
    const sel = $('filter-thread');
    const v = sel.value === name ? '' : name;
    if (v && ![...sel.options].some((o) => o.value === v)) return;
    sel.value = v;
    applyFilter();
  },
});

/* The Analysis tab replaces the events table; the timeline stays above both. */
const analysis = new AnalysisView($('analysis'), { onJump: (seq, end) => jumpToSeq(seq, end) });
app.tab = 'events';

function showTab(which) {
  app.tab = which;
  const a = which === 'analysis';
  $('analysis').hidden = !a;
  $('table').hidden = a;
  $('table-head').hidden = a;
  $('table-info').hidden = a;
  document.body.classList.toggle('analysis-tab', a);
  for (const [id, on] of [['tab-events', !a], ['tab-analysis', a]]) {
    $(id).classList.toggle('on', on);
    $(id).setAttribute('aria-selected', String(on));
  }
  if (a) analysis.render(app.current, app.theme, true);
  else table.dirty = true;
}

/** Shows the record with daemon seq `seq` (an event a statistic names) in the table, selected,
 * and on the timeline; with endSeq, the timeline spans both. Older than the page's records: the
 * daemon's history is fetched first. */
async function jumpToSeq(seq, endSeq) {
  const s = app.current;
  if (!s) return;
  let n = s.indexOfSeq(seq);
  if (n < 0 && !s.historyComplete && seq < (s.oldestSeq() ?? Infinity)) {
    await olderHistory();
    n = s.indexOfSeq(seq);
  }
  if (n < 0) { toast(`seq ${seq}: not among the records here nor in the daemon's history`, 'warn'); return; }
  showTab('events');
  if (app.pred && !app.pred(s.get(n))) clearFilters();
  table.setFollow(false);
  table.select(n, true); // opens the detail panel: the timeline narrows now, not at the next frame
  timeline.resize();
  const m = endSeq != null ? s.indexOfSeq(endSeq) : -1;
  timeline.showRange(s.get(n)._t, m >= 0 ? s.get(m)._t : null);
  updateFollowButton();
}

function updateFollowButton() {
  const live = table.follow && timeline.follow;
  $('btn-follow').classList.toggle('on', live);
  $('follow-hint').hidden = table.follow;
  document.body.classList.toggle('not-live', !live);
}

function goLive() {
  if (app.paused) { setPaused(false); return; }
  table.setFollow(true);
  timeline.goLive();
  updateFollowButton();
}

/* Pause freezes the views, not the stream: the page keeps every record the daemon sends (no
 * gap, nothing lost), and Resume (or Live) brings table and timeline back to the newest. */
function setPaused(p) {
  app.paused = p;
  if (p) { table.setFollow(false); timeline.setFollow(false); } else { table.setFollow(true); timeline.goLive(); }
  updateFollowButton();
  const b = $('btn-pause');
  b.classList.toggle('on', p);
  b.querySelector('span').textContent = p ? 'Resume' : 'Pause';
  fill(b.querySelector('svg'), h('path', { svg: true, d: p ? 'M4 3l9 5-9 5z' : 'M4 3h3v10H4zM9 3h3v10H9z' }));
  document.body.classList.toggle('paused', p);
}

/* ---------- export, theme, overlays ---------- */

function apiUrl(path, q) {
  const u = new URLSearchParams(q);
  if (TOKEN) u.set('token', TOKEN);
  return `${path}?${u}`;
}

const EXT = { jsonl: 'jsonl', trx: 'trx', perfetto: 'perfetto.json', ftrace: 'ftrace.txt' };

function updateExportLinks() {
  const t = app.current ? app.current.name : '';
  for (const a of document.querySelectorAll('#export-menu a[data-format]')) {
    const f = a.dataset.format;
    a.href = apiUrl('api/export', { target: t, format: f });
    a.setAttribute('download', `${t || 'trace'}.${EXT[f]}`);
  }
  const p = $('perfetto-download');
  p.href = apiUrl('api/export', { target: t, format: 'perfetto' });
  p.setAttribute('download', `${t || 'trace'}.${EXT.perfetto}`);
  $('perfetto-target').textContent = t || '(none)';
}

function toggleMenu(open) {
  const m = $('export-menu');
  open = open ?? m.hidden;
  m.hidden = !open;
  $('btn-export').setAttribute('aria-expanded', String(open));
  if (open) m.querySelector('a').focus();
}

function readTheme() {
  const cs = getComputedStyle(document.documentElement);
  const v = (n) => cs.getPropertyValue(n).trim();
  app.theme = {
    dark: v('--is-dark') === '1',
    bg: v('--bg-panel'), text: v('--text'), muted: v('--muted'), border: v('--border'),
    stripe: v('--stripe'), grid: v('--grid'), accent: v('--accent'), accentSoft: v('--accent-soft'),
    isr: v('--isr'), user: v('--user'), userMark: v('--user-mark'), tick: v('--tick'), gap: v('--gap'), reset: v('--reset'),
    marker: v('--marker'), alert: v('--alert'), markerText: v('--marker-text'), idle: v('--idle'), font: v('--font-ui'),
  };
  timeline.setTheme(app.theme);
}

function toggleTheme() {
  const cur = document.documentElement.dataset.theme ||
    (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
  const next = cur === 'dark' ? 'light' : 'dark';
  document.documentElement.dataset.theme = next;
  try { localStorage.setItem('tracetap.theme', next); } catch (e) { /* private mode */ }
  readTheme();
  renderCharts();
  if (app.tab === 'analysis') analysis.render(app.current, app.theme, true);
}

function overlay(id, open) {
  const el = $(id);
  el.hidden = !open;
  if (open) { const b = el.querySelector('[data-close]'); b && b.focus(); }
}

let toastTimer = null;
function toast(text, kind) {
  const t = $('toast');
  t.textContent = text;
  t.className = 'toast ' + (kind || '');
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 5000);
}

/* ---------- input ---------- */

function wire() {
  $('target-select').addEventListener('change', (e) => selectTarget(e.target.value));
  $('targets').addEventListener('pointerdown', () => { listHeld = true; });
  const release = () => setTimeout(() => { listHeld = false; }, 0); // after the click that may follow
  window.addEventListener('pointerup', release);
  window.addEventListener('pointercancel', release);
  $('targets').addEventListener('click', (e) => {
    listHeld = false;
    const h = e.target.closest('.b-head');
    if (h) { const b = h.dataset.bench; if (!app.collapsed.delete(b)) app.collapsed.add(b); renderTargets(); return; }
    const c = e.target.closest('.target');
    if (c) selectTarget(c.dataset.target);
    renderTargets();
  });
  $('target-filter').addEventListener('input', (e) => { app.targetFilter = e.target.value; renderTargets(); });
  $('filter-thread').addEventListener('change', applyFilter);
  $('filter-event').addEventListener('change', applyFilter);
  let tx = null;
  $('filter-text').addEventListener('input', () => { clearTimeout(tx); tx = setTimeout(applyFilter, 150); });
  $('btn-clear-filters').addEventListener('click', clearFilters);
  $('btn-pause').addEventListener('click', () => setPaused(!app.paused));
  $('btn-follow').addEventListener('click', goLive);
  $('btn-export').addEventListener('click', (e) => { e.stopPropagation(); toggleMenu(); });
  $('btn-perfetto-help').addEventListener('click', () => { toggleMenu(false); overlay('overlay-perfetto', true); });
  document.addEventListener('click', (e) => { if (!e.target.closest('.menu-wrap')) toggleMenu(false); });
  $('btn-theme').addEventListener('click', toggleTheme);
  $('btn-help').addEventListener('click', () => overlay('overlay-help', true));
  for (const b of document.querySelectorAll('[data-close]')) b.addEventListener('click', () => { b.closest('.overlay').hidden = true; });
  for (const o of document.querySelectorAll('.overlay')) o.addEventListener('click', (e) => { if (e.target === o) o.hidden = true; });
  $('detail-close').addEventListener('click', () => { hideDetail(); table.selected = -1; table.dirty = true; timeline.selected = null; timeline.dirty = true; });
  $('tl-zoom-in').addEventListener('click', () => timeline.zoom(0.5));
  $('tl-zoom-out').addEventListener('click', () => timeline.zoom(2));
  $('tl-fit').addEventListener('click', () => timeline.fit());
  $('tl-older').addEventListener('click', () => olderHistory());
  $('tab-events').addEventListener('click', () => showTab('events'));
  $('tab-analysis').addEventListener('click', () => showTab('analysis'));
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', readTheme);
  wireSplitter();

  document.addEventListener('keydown', (e) => {
    const inField = e.target.matches('input, select, textarea');
    if (e.key === 'Escape') {
      if (!$('overlay-help').hidden || !$('overlay-perfetto').hidden) { overlay('overlay-help', false); overlay('overlay-perfetto', false); }
      else if (!$('export-menu').hidden) toggleMenu(false);
      else if (inField) e.target.blur();
      else if (!$('detail').hidden) $('detail-close').click();
      return;
    }
    if (inField || e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key;
    let handled = true;
    switch (k) {
      case '?': overlay('overlay-help', $('overlay-help').hidden); break;
      case ' ': setPaused(!app.paused); break;
      case 'End': case 'l': case 'L': goLive(); break;
      case '/': $('filter-text').focus(); $('filter-text').select(); break;
      case 'c': case 'C': clearFilters(); break;
      case 'ArrowDown': case 'j': table.moveSelection(1); break;
      case 'ArrowUp': case 'k': table.moveSelection(-1); break;
      case 'PageDown': table.page(1); break;
      case 'PageUp': table.page(-1); break;
      case 'Home': table.home(); break;
      case '+': case '=': timeline.zoom(0.5); break;
      case '-': case '_': timeline.zoom(2); break;
      case '0': timeline.fit(); break;
      case 'ArrowLeft': timeline.pan(-0.2); break;
      case 'ArrowRight': timeline.pan(0.2); break;
      case 'e': case 'E': toggleMenu(); break;
      case 'a': case 'A': showTab(app.tab === 'analysis' ? 'events' : 'analysis'); break;
      case 't': case 'T': toggleTheme(); break;
      case '[': case ']': {
        const names = [...app.stores.keys()];
        if (names.length > 1 && app.current) {
          const i = names.indexOf(app.current.name);
          selectTarget(names[(i + (k === ']' ? 1 : names.length - 1)) % names.length]);
          targetsDirty = true;
        }
        break;
      }
      default: handled = false;
    }
    if (handled) e.preventDefault();
  });
}

function wireSplitter() {
  const sp = $('splitter'), wrap = $('timeline-wrap');
  let start = null;
  sp.addEventListener('pointerdown', (e) => { start = { y: e.clientY, h: wrap.offsetHeight }; sp.setPointerCapture(e.pointerId); });
  sp.addEventListener('pointermove', (e) => {
    if (!start) return;
    const h = Math.max(120, Math.min(window.innerHeight - 260, start.h + e.clientY - start.y));
    wrap.style.flexBasis = h + 'px';
  });
  sp.addEventListener('pointerup', () => { start = null; });
}

/* ---------- frame loop ---------- */

let lastSlow = 0, lastTrim = 0;
function frame(now) {
  enforceBound();
  table.render();
  timeline.render();
  if (now - lastSlow > 400) {
    lastSlow = now;
    renderCharts();
    if (app.tab === 'analysis') analysis.render(app.current, app.theme, false);
    renderInfo();
    renderHistoryInfo();
    if (app.current && wantsOlder(app.current)) olderHistory();
    app.slowFrames = (app.slowFrames || 0) + 1;
    refreshFilterOptions(false);
    if (targetsDirty) { if (listHeld) app.heldRedraws++; else renderTargets(); }
    if (app.current && app.current.laneSet !== timeline.laneSet) timeline.setFilter(app.pred, app.filter.thread, app.current.laneSet);
  }
  if (now - lastTrim > 1000) {
    lastTrim = now;
    for (const s of app.stores.values()) s.trimTimeline();
  }
  requestAnimationFrame(frame);
}

readTheme();
wire();
updateExportLinks();
connect();
forgetTokenInAddress();
requestAnimationFrame(frame);
// Status counters change without records; keep the cards fresh.
setInterval(() => { targetsDirty = true; }, 1000);
app.table = table;
app.timeline = timeline;
app.selectTarget = selectTarget;
app.goLive = goLive;
app.applyFilter = applyFilter;
app.alerts = alerts;
app.analysis = analysis;
app.showTab = showTab;
app.jumpToSeq = jumpToSeq;
