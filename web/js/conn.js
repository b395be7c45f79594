// conn.js: the WebSocket transport to tracetapd: URL, subprotocol, reconnect with backoff.
//
// Connects to ws(s)://<page host>/ws (or ?ws=URL) with subprotocol tracetap.v1, plus ?token= when
// the page has one; parses each text message as JSON for the caller; when the socket closes
// without close() it connects again after 0.5 s, 1 s, 2 s ... (at most 10 s, with jitter).
// What to send after each open (hello, subscribe, resume) is session.js's business.

export const SUBPROTOCOL = 'tracetap.v1';

export function wsUrl(loc = window.location) {
  const proto = loc.protocol === 'https:' ? 'wss:' : 'ws:';
  const params = new URLSearchParams(loc.search);
  const override = params.get('ws');           // dev/test: another daemon than the page's host
  let url = override || `${proto}//${loc.host}/ws`;
  const token = params.get('token');
  if (token) url += (url.includes('?') ? '&' : '?') + 'token=' + encodeURIComponent(token);
  return url;
}

export class Connection {
  /**
   * handlers: onOpen(), onMessage(msg), onClose(info), onState(state, detail)
   */
  constructor(url, handlers) {
    this.url = url;
    this.h = handlers;
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.closedByUs = false;
    this.state = 'connecting';
    this.everOpened = false;
    this.nextRetryAt = 0;
    this.bytes = 0;
    this.messages = 0;
  }

  setState(s, detail) { this.state = s; this.h.onState && this.h.onState(s, detail); }

  connect() {
    clearTimeout(this.timer);
    this.timer = null;
    this.setState(this.everOpened ? 'reconnecting' : 'connecting');
    let ws;
    try {
      ws = new WebSocket(this.url, SUBPROTOCOL);
    } catch (e) {
      this.scheduleRetry(String(e));
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.everOpened = true;
      this.setState('open');
      this.h.onOpen && this.h.onOpen();
    };
    ws.onmessage = (ev) => {
      if (typeof ev.data !== 'string') return;
      this.bytes += ev.data.length;
      this.messages++;
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { console.warn('tracetap: bad JSON from daemon', e); return; }
      this.h.onMessage(msg);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.h.onClose && this.h.onClose({ code: ev.code, reason: ev.reason });
      if (!this.closedByUs) this.scheduleRetry(ev.reason || (ev.code ? 'closed (' + ev.code + ')' : 'closed'));
    };
    ws.onerror = () => { /* onclose follows with the details */ };
  }

  scheduleRetry(why) {
    // 0.5 s, 1 s, 2 s ... capped at 10 s, with +-25 % jitter so many dashboards do not stampede.
    const base = Math.min(10000, 500 * Math.pow(2, this.attempt++));
    const delay = Math.round(base * (0.75 + Math.random() * 0.5));
    this.nextRetryAt = Date.now() + delay;
    this.setState('waiting', { why, delay });
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** Drops the current connection (if any) and connects again at once. */
  reconnectNow() {
    const ws = this.ws;
    this.ws = null;            // its onclose will not schedule a retry
    if (ws) ws.close(1000);
    this.attempt = 0;
    this.connect();
  }

  /** Retry now (user asked). */
  retryNow() { if (!this.ws) this.connect(); }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  close() {
    this.closedByUs = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close(1000);
  }
}
