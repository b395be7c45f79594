// detail.js: the side panel with every field of one record and its raw words.
//
// Format-neutral: first what every format's record has (proto/PROTOCOL.md: seq, time, context,
// thread, event id and name; a gap's or reset's own fields), then whatever else this format's
// reader put in the record, as a plain key/value list, then the decoded arguments and the raw
// words. Only the raw words' labels know a format (ThreadX's 8-word entry).

import { fmtTime, hex32, describeRecord } from './format.js';
import { h, fill } from './dom.js';

const $ = (id) => document.getElementById(id);
const THREADX_WORDS = ['thread pointer', 'priority word', 'event id', 'time stamp', 'info 1', 'info 2', 'info 3', 'info 4'];
const COMMON = ['seq', 'target', 'type', 'name', 'id', 'time', 'ns', 'ts', 'ctx', 'core', 'thread', 'thread_name',
  'interrupted', 'interrupted_name', 'prio', 'threshold', 'run', 'run_thread', 'run_name', 'addr',
  'lost', 'exact', 'basis', 'reason', 'from', 'to'];
const SHOWN_ELSEWHERE = new Set(['args', 'raw']);

function val(v) {
  if (v === null || v === undefined) return h('span', { class: 'muted' }, '—');
  if (typeof v === 'object') return h('code', null, JSON.stringify(v));
  return String(v);
}

function kvTable(title, entries, cls) {
  if (!entries.length) return null;
  return [h('h3', null, title), h('table', { class: 'kv' + (cls ? ' ' + cls : '') },
    entries.map(([k, v]) => h('tr', null, h('th', null, k), h('td', null, val(v)))))];
}

export function showDetail(r, store) {
  const panel = $('detail');
  const format = (store && store.status && store.status.format) || '';
  $('detail-title').textContent = r.seq != null ? '#' + r.seq : '';
  const keys = Object.keys(r).filter((k) => !k.startsWith('_') && !SHOWN_ELSEWHERE.has(k));
  let raw = null;
  if (Array.isArray(r.raw)) {
    const labels = /threadx/i.test(format || 'threadx') && r.raw.length === 8 ? THREADX_WORDS : [];
    raw = [h('h3', null, 'Raw words'), h('table', { class: 'kv raw' },
      h('tr', null, h('th'), h('th', null, 'hex'), h('th', null, 'decimal')),
      r.raw.map((w, i) => h('tr', null, h('th', { title: 'word ' + i }, labels[i] || 'word ' + i),
        h('td', null, h('code', null, hex32(w))), h('td', { class: 'num' }, w >>> 0))))];
  }
  fill($('detail-body'),
    r.type !== 'event'
      ? h('p', { class: 'rec-desc rec-' + r.type }, describeRecord(r))
      : [h('div', { class: 'd-name' }, r.name, ' ', h('span', { class: 'muted' }, `id ${r.id}${r._user ? ' · user event' : ''}`)),
        h('div', { class: 'd-time' }, `${fmtTime(r)} ${r.ns != null ? 's' : 'ticks'}`)],
    kvTable('Fields', COMMON.filter((k) => k in r).map((k) => [k, r[k]])),
    kvTable(`${format || 'Format'} fields`, keys.filter((k) => !COMMON.includes(k)).map((k) => [k, r[k]]), 'd-own'),
    r.args ? kvTable('Arguments', Object.entries(r.args), 'd-args') : null,
    raw,
    h('h3', null, 'JSON'), h('pre', { class: 'json' }, JSON.stringify(r, (k, v) => (k.startsWith('_') ? undefined : v), 1)));
  panel.hidden = false;
  document.body.classList.add('with-detail');
}

export function hideDetail() {
  $('detail').hidden = true;
  document.body.classList.remove('with-detail');
}
