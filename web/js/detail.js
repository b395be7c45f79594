// detail.js: the side panel with every field of one record and its raw words.
//
// Format-neutral: first what every format's record has (proto/PROTOCOL.md: seq, time, context,
// thread, event id and name; a gap's or reset's own fields), then whatever else this format's
// reader put in the record, as a plain key/value list, then the decoded arguments and the raw
// words. Only the raw words' labels know a format (ThreadX's 8-word entry).

import { esc, fmtTime, hex32, describeRecord } from './format.js';

const $ = (id) => document.getElementById(id);
const THREADX_WORDS = ['thread pointer', 'priority word', 'event id', 'time stamp', 'info 1', 'info 2', 'info 3', 'info 4'];
const COMMON = ['seq', 'target', 'type', 'name', 'id', 'time', 'ns', 'ts', 'ctx', 'core', 'thread', 'thread_name',
  'interrupted', 'interrupted_name', 'prio', 'threshold', 'run', 'run_thread', 'run_name', 'addr',
  'lost', 'exact', 'basis', 'reason', 'from', 'to'];
const SHOWN_ELSEWHERE = new Set(['args', 'raw']);

function val(v) {
  if (v === null || v === undefined) return '<span class="muted">—</span>';
  if (typeof v === 'object') return `<code>${esc(JSON.stringify(v))}</code>`;
  return esc(v);
}

function kvTable(title, entries, cls) {
  if (!entries.length) return '';
  let h = `<h3>${esc(title)}</h3><table class="kv${cls ? ' ' + cls : ''}">`;
  for (const [k, v] of entries) h += `<tr><th>${esc(k)}</th><td>${val(v)}</td></tr>`;
  return h + '</table>';
}

export function showDetail(r, store) {
  const panel = $('detail');
  const format = (store && store.status && store.status.format) || '';
  $('detail-title').textContent = r.seq != null ? '#' + r.seq : '';
  let h = '';
  if (r.type !== 'event') {
    h += `<p class="rec-desc rec-${esc(r.type)}">${esc(describeRecord(r))}</p>`;
  } else {
    h += `<div class="d-name">${esc(r.name)} <span class="muted">id ${esc(r.id)}${r._user ? ' · user event' : ''}</span></div>`;
    h += `<div class="d-time">${esc(fmtTime(r))} ${r.ns != null ? 's' : 'ticks'}</div>`;
  }
  const keys = Object.keys(r).filter((k) => !k.startsWith('_') && !SHOWN_ELSEWHERE.has(k));
  h += kvTable('Fields', COMMON.filter((k) => k in r).map((k) => [k, r[k]]));
  h += kvTable(`${format || 'Format'} fields`, keys.filter((k) => !COMMON.includes(k)).map((k) => [k, r[k]]), 'd-own');
  if (r.args) h += kvTable('Arguments', Object.entries(r.args), 'd-args');
  if (Array.isArray(r.raw)) {
    const labels = /threadx/i.test(format || 'threadx') && r.raw.length === 8 ? THREADX_WORDS : [];
    h += '<h3>Raw words</h3><table class="kv raw"><tr><th></th><th>hex</th><th>decimal</th></tr>';
    r.raw.forEach((w, i) => {
      h += `<tr><th title="word ${i}">${esc(labels[i] || 'word ' + i)}</th><td><code>${hex32(w)}</code></td><td class="num">${w >>> 0}</td></tr>`;
    });
    h += '</table>';
  }
  h += `<h3>JSON</h3><pre class="json">${esc(JSON.stringify(r, (k, v) => (k.startsWith('_') ? undefined : v), 1))}</pre>`;
  $('detail-body').innerHTML = h;
  panel.hidden = false;
  document.body.classList.add('with-detail');
}

export function hideDetail() {
  $('detail').hidden = true;
  document.body.classList.remove('with-detail');
}
