// table.js: the virtualized event table.
//
// Fixed row height; only the rows in view (plus one) exist in the DOM, recycled as the user
// scrolls, so 100,000+ rows scroll like 20. Rows show the store's filtered index. Follows the
// newest row until the user scrolls up (wheel, drag, keys); follow resumes on request. When the
// memory bound drops old rows while the user reads, the scroll position is shifted so the rows
// in view stay put.

import { fmtTime, fmtArgs, describeRecord } from './format.js';

export const ROW_H = 22;

export class EventTable {
  constructor(el, spacer, rowsEl, { onSelect, onFollowChange }) {
    this.el = el;
    this.spacer = spacer;
    this.rowsEl = rowsEl;
    this.onSelect = onSelect;
    this.onFollowChange = onFollowChange;
    this.store = null;
    this.follow = true;
    this.rows = [];
    this.selected = -1;         // absolute record index (_n)
    this.expectTop = -1;        // scrollTop we set ourselves
    this.lastDropped = 0;
    this.lastChanged = -1;
    this.lastLen = -1;
    this.dirty = true;

    el.addEventListener('scroll', () => this.onScroll(), { passive: true });
    el.addEventListener('wheel', (e) => { if (e.deltaY < 0) this.setFollow(false); }, { passive: true });
    el.addEventListener('mousedown', (e) => {
      // Grabbing the scrollbar (clicks right of the rows) means the user wants to look around.
      if (e.offsetX > this.rowsEl.clientWidth) this.setFollow(false);
    });
    rowsEl.addEventListener('click', (e) => {
      const row = e.target.closest('.row');
      if (row && row._n != null) { this.setFollow(false); this.select(row._n, false); }
    });
    new ResizeObserver(() => { this.dirty = true; }).observe(el);
  }

  setStore(store) {
    this.store = store;
    this.lastDropped = store ? store.filteredDropped : 0;
    this.selected = -1;
    this.dirty = true;
  }

  setFollow(on) {
    if (this.follow === on) return;
    this.follow = on;
    this.dirty = true;
    this.onFollowChange && this.onFollowChange(on);
  }

  onScroll() {
    const top = this.el.scrollTop;
    if (this.expectTop >= 0 && Math.abs(top - this.expectTop) <= 1) { this.expectTop = -1; this.dirty = true; return; }
    this.expectTop = -1;
    const max = this.el.scrollHeight - this.el.clientHeight;
    if (this.follow && top < max - ROW_H) this.setFollow(false);
    this.dirty = true;
  }

  get length() { return this.store ? this.store.filtered.length : 0; }

  /** Position in the filtered list of record n (or -1). */
  posOf(n) {
    if (!this.store || n < 0) return -1;
    const f = this.store.filtered;
    const i = f.lowerBound(n);
    return i < f.length && f.at(i) === n ? i : -1;
  }

  select(n, scroll) {
    this.selected = n;
    this.dirty = true;
    if (scroll) this.scrollToPos(this.posOf(n));
    const r = this.store && this.store.get(n);
    this.onSelect && this.onSelect(r || null);
  }

  /** Moves the selection by delta rows (keyboard). */
  moveSelection(delta) {
    const len = this.length;
    if (!len) return;
    let p = this.posOf(this.selected);
    if (p < 0) p = delta > 0 ? this.firstVisiblePos() - 1 : this.firstVisiblePos() + this.visibleCount();
    p = Math.max(0, Math.min(len - 1, p + delta));
    if (p < len - 1) this.setFollow(false);
    this.select(this.store.filtered.at(p), true);
  }

  firstVisiblePos() { return Math.floor(this.el.scrollTop / ROW_H); }
  visibleCount() { return Math.ceil(this.el.clientHeight / ROW_H); }

  scrollToPos(p) {
    if (p < 0) return;
    const top = p * ROW_H, h = this.el.clientHeight;
    if (top < this.el.scrollTop) this.setTop(top);
    else if (top + ROW_H > this.el.scrollTop + h) this.setTop(top + ROW_H - h);
  }

  setTop(top) {
    top = Math.max(0, Math.round(top));
    if (Math.abs(this.el.scrollTop - top) < 1) return;
    this.expectTop = top;
    this.el.scrollTop = top;
    this.dirty = true;
  }

  /** Puts record n (or the first one after it in the list) at the top of the view. */
  showAtTop(n) {
    const len = this.length;
    this.spacer.style.height = (len * ROW_H) + 'px'; // the list may have just grown: room first
    this.lastLen = len;
    this.setTop(this.store.filtered.lowerBound(n) * ROW_H);
  }

  page(dir) {
    this.setFollow(false);
    this.setTop(this.el.scrollTop + dir * (this.el.clientHeight - ROW_H));
  }

  home() { this.setFollow(false); this.setTop(0); }

  /** Called every frame; cheap when nothing changed. */
  render() {
    const st = this.store;
    const len = this.length;
    if (!this.dirty && st && st.changed === this.lastChanged) return;
    this.lastChanged = st ? st.changed : -1;
    this.dirty = false;

    const h = this.el.clientHeight;
    if (len !== this.lastLen) { this.spacer.style.height = (len * ROW_H) + 'px'; this.lastLen = len; }
    if (st) {
      const dropped = st.filteredDropped - this.lastDropped;
      this.lastDropped = st.filteredDropped;
      if (dropped > 0 && !this.follow) this.setTop(this.el.scrollTop - dropped * ROW_H);
    }
    if (this.follow) this.setTop(len * ROW_H - h);

    const first = Math.max(0, Math.floor(this.el.scrollTop / ROW_H));
    const count = Math.min(Math.ceil(h / ROW_H) + 1, Math.max(0, len - first));
    while (this.rows.length < Math.ceil(h / ROW_H) + 1) this.rows.push(this.makeRow());
    for (let i = 0; i < this.rows.length; i++) {
      const row = this.rows[i];
      if (i >= count) { if (!row.hidden) { row.hidden = true; row._n = null; } continue; }
      const p = first + i;
      const n = st.filtered.at(p);
      const r = st.get(n);
      if (row.hidden) row.hidden = false;
      row.style.transform = `translateY(${p * ROW_H}px)`;
      if (row._n !== n || row._rev !== r || (r && row._ver !== r._ver)) this.fill(row, r, n);
      const sel = n === this.selected;
      if (row._sel !== sel) { row.classList.toggle('sel', sel); row._sel = sel; }
    }
  }

  makeRow() {
    const row = document.createElement('div');
    row.className = 'row';
    row.setAttribute('role', 'row');
    row.cells = [];
    for (let i = 0; i < 7; i++) {
      const c = document.createElement('span');
      row.appendChild(c);
      row.cells.push(c);
    }
    row.cells[1].className = 'num';
    row.cells[4].className = 'num';
    row.hidden = true;
    this.rowsEl.appendChild(row);
    return row;
  }

  fill(row, r, n) {
    row._n = n;
    row._rev = r;
    row._ver = r ? r._ver : undefined;
    const c = row.cells;
    if (!r) { for (const x of c) x.textContent = ''; return; }
    c[0].textContent = r.seq != null ? r.seq : '';
    if (r.type !== 'event') {
      row.className = 'row rec-' + r.type;
      c[1].textContent = fmtTime(r); c[2].textContent = ''; c[3].textContent = ''; c[4].textContent = '';
      c[1].title = 'after the event at this time';
      c[5].textContent = r.type === 'marker' ? 'RECONNECT' : r.type.toUpperCase();
      c[6].textContent = describeRecord(r);
      c[6].title = c[6].textContent;
      row.dataset.type = r.type;
      return;
    }
    row.className = 'row ctx-' + r.ctx + (r._user ? ' user' : '');
    row.dataset.type = 'event';
    c[1].title = ''; c[6].title = '';
    c[1].textContent = fmtTime(r);
    c[2].textContent = r.ctx;
    c[3].textContent = r.ctx === 'isr' ? (r.interrupted_name ? '↯ ' + r.interrupted_name : '↯') : (r.thread_name || r.thread || '');
    c[4].textContent = r.prio != null ? r.prio : '';
    c[5].textContent = r.name;
    c[6].textContent = fmtArgs(r.args);
  }
}
