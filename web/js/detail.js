// detail.js: the side panel with every field of one record and its raw words.

import { esc, fmtTime, hex32, describeRecord } from './format.js';

const $ = (id) => document.getElementById(id);
const THREADX_WORDS = ['thread pointer', 'priority word', 'event id', 'time stamp', 'info 1', 'info 2', 'info 3', 'info 4'];
const SKIP = new Set(['args', 'raw', 'type']);

function val(v) {
  if (v === null || v === undefined) return '<span class="muted">—</span>';
  if (typeof v === 'object') return `<code>${esc(JSON.stringify(v))}</code>`;
  return esc(v);
}

export function showDetail(r, store) {
  const panel = $('detail');
  $('detail-title').textContent = r.seq != null ? '#' + r.seq : '';
  let h = '';
  if (r.type !== 'event') {
    h += `<p class="rec-desc rec-${esc(r.type)}">${esc(describeRecord(r))}</p>`;
  } else {
    h += `<div class="d-name">${esc(r.name)} <span class="muted">id ${r.id}${r.id >= 4096 ? ' · user event' : ''}</span></div>`;
    h += `<div class="d-time">${esc(fmtTime(r))} ${r.ns != null ? 's' : 'ticks'}</div>`;
  }
  h += '<h3>Fields</h3><table class="kv">';
  for (const k of Object.keys(r)) {
    if (SKIP.has(k) || k.startsWith('_')) continue;
    h += `<tr><th>${esc(k)}</th><td>${val(r[k])}</td></tr>`;
  }
  h += '</table>';
  if (r.args && Object.keys(r.args).length) {
    h += '<h3>Arguments</h3><table class="kv">';
    for (const [k, v] of Object.entries(r.args)) h += `<tr><th>${esc(k)}</th><td>${val(v)}</td></tr>`;
    h += '</table>';
  }
  if (Array.isArray(r.raw)) {
    const labels = (store && store.status && store.status.format && !/threadx/i.test(store.status.format)) ? [] : THREADX_WORDS;
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
