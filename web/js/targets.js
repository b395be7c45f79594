// targets.js: the sidebar's target list, grouped by bench.
//
// A target named BENCH/TARGET comes from another bench (a remote daemon's target, see the MQTT
// probe); its bench is the part before the last '/'. Names without '/' are the daemon's own and
// form the first group. Each group folds; a filter box narrows the list by name (a bench's name
// matching shows the whole bench). Only the selected target shows its full card, the others one
// line each (state and rate), so fifty targets still fit a screen.

import { fmtCount } from './format.js';
import { h } from './dom.js';

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
  const state = st.state || 'unknown';
  const cell = (label, text, warn, title) => [h('span', null, label), h('b', { class: warn ? 'warn' : null, title }, text)];
  const n = (k) => num(st, s, k);
  return h('div', { class: 'target' + (sel ? ' sel' : ''), dataset: { target: s.name, state } },
    h('div', { class: 't-head' }, h('b', null, s.name), h('span', { class: 'badge st-' + state }, state)),
    h('div', { class: 't-sub muted' }, [st.format, st.probe].filter(Boolean).join(' · ')),
    h('div', { class: 't-grid' },
      cell('rate', `${fmtCount(st.rate ?? 0)}/s`), cell('events', fmtCount(n('events'))),
      cell('gaps', fmtCount(n('gaps')), n('gaps')), cell('lost', fmtCount(n('lost')), n('lost')),
      cell('resets', fmtCount(n('resets'))),
      cell('missed', fmtCount(s.counts.missed), s.counts.missed, 'records this dashboard did not receive (gap messages)')),
    h('div', { class: 'fill', title: 'target buffer fill at the last poll' },
      h('i', { class: fill > 0.8 ? 'hi' : null, style: { width: (fill * 100).toFixed(1) + '%' } }),
      h('span', null, `buffer ${(fill * 100).toFixed(0)}%`)),
    st.message ? h('div', { class: 't-msg' }, st.message) : null);
}

function row(s) {
  const st = s.status || {};
  const state = st.state || 'unknown';
  return h('div', { class: 'target t-row', dataset: { target: s.name, state }, title: s.name + (st.message ? ': ' + st.message : '') },
    h('span', { class: 't-name' }, shortName(s.name)), h('span', { class: 't-rate' }, `${fmtCount(st.rate ?? 0)}/s`),
    h('span', { class: 'badge st-' + state }, state));
}

/**
 * The list's elements (an array for fill()). view: { current (store), filter (text), collapsed
 * (Set of bench names) }. A collapsed bench still shows the selected target, so the selection
 * is never hidden.
 */
export function renderTargetList(stores, view) {
  const q = (view.filter || '').trim().toLowerCase();
  const out = [];
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
    const summary = [...states.entries()].map(([k, n]) => h('span', { class: 'badge st-' + k }, `${n} ${k}`));
    const label = g.bench === LOCAL_BENCH ? 'this daemon' : g.bench;
    const group = h('div', { class: 'bench' + (folded ? ' folded' : ''), dataset: { bench: g.bench } },
      h('button', { class: 'b-head', 'aria-expanded': String(!folded), dataset: { bench: g.bench } },
        h('span', { class: 'b-caret' }), h('b', null, label),
        h('span', { class: 'muted' }, `${g.stores.length} · ${fmtCount(rate)}/s`), h('span', { class: 'b-states' }, summary)));
    for (const s of list) {
      if (folded && s !== view.current) continue;
      group.append(s === view.current ? card(s, true) : row(s));
      shown++;
    }
    out.push(group);
  }
  if (!shown && stores.length) return [h('div', { class: 'empty' }, `no target matches “${view.filter}”`)];
  return out;
}
