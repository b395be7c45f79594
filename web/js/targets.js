// targets.js: the sidebar's target list, grouped by bench.
//
// A target named BENCH/TARGET comes from another bench (a remote daemon's target, see the MQTT
// probe); its bench is the part before the last '/'. Names without '/' are the daemon's own and
// form the first group. Each group folds; a filter box narrows the list by name (a bench's name
// matching shows the whole bench). Only the selected target shows its full card, the others one
// line each (state and rate), so fifty targets still fit a screen.

import { fmtCount, esc } from './format.js';

export const LOCAL_BENCH = '';

export function benchOf(name) {
  const i = name.lastIndexOf('/');
  return i < 0 ? LOCAL_BENCH : name.slice(0, i);
}

function shortName(name) { return name.slice(name.lastIndexOf('/') + 1); }

/** Groups stores by bench: [{bench, stores}], the daemon's own first, then benches by name. */
export function groupByBench(stores) {
  const m = new Map();
  for (const s of stores) {
    const b = benchOf(s.name);
    if (!m.has(b)) m.set(b, []);
    m.get(b).push(s);
  }
  return [...m.entries()].sort((a, b) => (a[0] === LOCAL_BENCH ? -1 : b[0] === LOCAL_BENCH ? 1 : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([bench, list]) => ({ bench, stores: list }));
}

const num = (st, s, k) => st[k] ?? s.counts[k];

function card(s, sel) {
  const st = s.status || {};
  const fill = Math.max(0, Math.min(1, st.fill ?? 0));
  return `<div class="target${sel ? ' sel' : ''}" data-target="${esc(s.name)}" data-state="${esc(st.state || 'unknown')}">
      <div class="t-head"><b>${esc(s.name)}</b><span class="badge st-${esc(st.state || 'unknown')}">${esc(st.state || 'unknown')}</span></div>
      <div class="t-sub muted">${esc([st.format, st.probe].filter(Boolean).join(' · ') || '')}</div>
      <div class="t-grid">
        <span>rate</span><b>${fmtCount(st.rate ?? 0)}/s</b>
        <span>events</span><b>${fmtCount(num(st, s, 'events'))}</b>
        <span>gaps</span><b class="${num(st, s, 'gaps') ? 'warn' : ''}">${fmtCount(num(st, s, 'gaps'))}</b>
        <span>lost</span><b class="${num(st, s, 'lost') ? 'warn' : ''}">${fmtCount(num(st, s, 'lost'))}</b>
        <span>resets</span><b>${fmtCount(num(st, s, 'resets'))}</b>
        <span>missed</span><b class="${s.counts.missed ? 'warn' : ''}" title="records this dashboard did not receive (gap messages)">${fmtCount(s.counts.missed)}</b>
      </div>
      <div class="fill" title="target buffer fill at the last poll"><i style="width:${(fill * 100).toFixed(1)}%" class="${fill > 0.8 ? 'hi' : ''}"></i><span>buffer ${(fill * 100).toFixed(0)}%</span></div>
      ${st.message ? `<div class="t-msg">${esc(st.message)}</div>` : ''}
    </div>`;
}

function row(s) {
  const st = s.status || {};
  const state = st.state || 'unknown';
  return `<div class="target t-row" data-target="${esc(s.name)}" data-state="${esc(state)}" title="${esc(s.name)}${st.message ? ': ' + esc(st.message) : ''}">
      <span class="t-name">${esc(shortName(s.name))}</span><span class="t-rate">${fmtCount(st.rate ?? 0)}/s</span><span class="badge st-${esc(state)}">${esc(state)}</span></div>`;
}

/**
 * The list's HTML. view: { current (store), filter (text), collapsed (Set of bench names) }.
 * A collapsed bench still shows the selected target, so the selection is never hidden.
 */
export function renderTargetList(stores, view) {
  const q = (view.filter || '').trim().toLowerCase();
  let html = '';
  let shown = 0;
  for (const g of groupByBench(stores)) {
    const benchHit = q && g.bench.toLowerCase().includes(q);
    const list = q && !benchHit ? g.stores.filter((s) => s.name.toLowerCase().includes(q)) : g.stores;
    if (!list.length) continue;
    const folded = view.collapsed.has(g.bench) && !q;
    const states = new Map();
    let rate = 0;
    for (const s of g.stores) {
      const st = (s.status && s.status.state) || 'unknown';
      states.set(st, (states.get(st) || 0) + 1);
      rate += (s.status && s.status.rate) || 0;
    }
    const summary = [...states.entries()].map(([k, n]) => `<span class="badge st-${esc(k)}">${n} ${esc(k)}</span>`).join('');
    const label = g.bench === LOCAL_BENCH ? 'this daemon' : g.bench;
    html += `<div class="bench${folded ? ' folded' : ''}" data-bench="${esc(g.bench)}">
      <button class="b-head" aria-expanded="${!folded}" data-bench="${esc(g.bench)}"><span class="b-caret"></span><b>${esc(label)}</b>` +
      `<span class="muted">${g.stores.length} · ${fmtCount(rate)}/s</span><span class="b-states">${summary}</span></button>`;
    for (const s of list) {
      if (folded && s !== view.current) continue;
      html += s === view.current ? card(s, true) : row(s);
      shown++;
    }
    html += '</div>';
  }
  if (!shown && stores.length) html = `<div class="empty">no target matches “${esc(view.filter)}”</div>`;
  return html;
}
