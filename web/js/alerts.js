// alerts.js: what the daemon's triggers report (proto/PROTOCOL.md `alert`, /api/captures): the
// alerts that arrived while this page was open, newest first, and the captures the daemon keeps,
// each with links to its files. A capture is listed by the daemon once its window has closed, so
// an alert's link appears then (the list is asked for again until it shows). Every string comes
// from the daemon (trigger names, conditions, target names from other benches): text only, by h().

import { h, fill } from './dom.js';

const FILES = [['capture.trx', '.trx'], ['capture.perfetto.json', 'perfetto'], ['capture.jsonl', 'jsonl']];
const MAX_ALERTS = 200;

export class Alerts {
  /** alertsEl, capturesEl: lists to fill; apiUrl(path, query) -> URL string (with the token). */
  constructor(alertsEl, capturesEl, apiUrl) {
    this.alertsEl = alertsEl;
    this.capturesEl = capturesEl;
    this.apiUrl = apiUrl;
    this.alerts = [];
    this.captures = [];      // /api/captures, newest first
    this.byName = new Map();
    this.retry = null;
    this.tries = 0;
  }

  /** An `alert` message. */
  add(msg) {
    this.alerts.unshift(msg);
    if (this.alerts.length > MAX_ALERTS) this.alerts.pop();
    this.render();
    if (msg.capture) { this.tries = 0; this.refresh(); }
  }

  /** Asks the daemon for its captures; again in a second while an alert's capture is missing. */
  async refresh() {
    clearTimeout(this.retry);
    try {
      const r = await fetch(this.apiUrl('api/captures', {}), { cache: 'no-store' });
      if (r.ok) {
        const list = await r.json();
        if (Array.isArray(list)) {
          this.captures = list.filter((c) => c && typeof c.name === 'string');
          this.byName = new Map(this.captures.map((c) => [c.name, c]));
        }
      }
    } catch (e) { /* the daemon is away: the next alert or reconnect asks again */ }
    this.render();
    const waiting = this.alerts.some((a) => a.capture && !this.byName.has(a.capture));
    if (waiting && this.tries++ < 120) this.retry = setTimeout(() => this.refresh(), 1000);
  }

  links(name) {
    const base = 'api/captures/' + encodeURIComponent(name) + '/';
    return h('span', { class: 'capture-links' }, FILES.map(([file, label]) =>
      h('a', { href: this.apiUrl(base + file, {}), download: name + '-' + file, class: 'capture-link',
        dataset: { file } }, label)));
  }

  render() {
    fill(this.alertsEl, this.alerts.length ? this.alerts.map((a) => h('li', { class: 'alert-item' },
      h('div', null, h('b', { class: 'alert-trigger' }, String(a.trigger)), ' on ', String(a.target),
        h('span', { class: 'muted' }, ' seq ', String(a.seq))),
      h('div', { class: 'alert-cond muted', title: String(a.time || '') }, String(a.condition || '')),
      a.detail ? h('div', { class: 'alert-cond' }, String(a.detail)) : null,
      a.capture ? (this.byName.has(a.capture) ? this.links(a.capture)
        : h('span', { class: 'muted' }, 'capture: window still open…')) : null))
      : h('li', { class: 'empty' }, 'no alert since this page opened'));
    fill(this.capturesEl, this.captures.length ? this.captures.slice(0, 50).map((c) => h('li', { class: 'capture-item' },
      h('div', null, h('b', null, String(c.trigger)), ' on ', String(c.target),
        h('span', { class: 'muted' }, ` ${c.records} records`, c.gaps ? `, ${c.gaps} gap(s): ${c.lost} lost` : '')),
      h('div', { class: 'muted' }, String(c.time || '')),
      this.links(c.name)))
      : h('li', { class: 'empty' }, 'no capture'));
  }
}
