// history.js: the daemon's whole history on demand.
//
// The page takes only the newest records when it connects (`?history=`, default 2000); the daemon
// holds far more (100,000 per target by default). When the user goes back past the oldest record
// the page has (timeline panned or zoomed out past it, table scrolled to its top, or the "older"
// button), the target's history comes from /api/export (JSONL: the wire records), and what is
// older than the page's oldest record goes before it. The store then knows how far back the
// daemon's history reaches (historyFrom: the oldest seq the daemon still held).

/**
 * Loads the records older than store's oldest from url (the target's JSONL export). Returns the
 * number added. Sets store.historyFrom and store.historyComplete; one load at a time per store.
 */
export async function loadOlder(store, url) {
  if (store.historyLoading || store.historyComplete || Date.now() < (store.historyRetryAt || 0)) return 0;
  const oldest = store.oldestSeq();
  if (store.epoch > 0 || oldest === undefined) { store.historyComplete = true; return 0; }
  if (oldest <= 1) { store.historyFrom = 1; store.historyComplete = true; return 0; } // all since the daemon started
  store.historyLoading = true;
  store.changed++;
  const epoch = store.epoch;
  try {
    const res = await fetch(url, { cache: 'no-store' });
    if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
    const older = [];
    let first;
    for (const line of (await res.text()).split('\n')) {
      if (!line) continue;
      let r;
      try { r = JSON.parse(line); } catch (e) { continue; }
      if (!r || typeof r.seq !== 'number' || !['event', 'gap', 'reset'].includes(r.type)) continue;
      if (first === undefined) first = r.seq;
      if (r.seq < oldest && (!older.length || r.seq > older[older.length - 1].seq)) older.push(r);
    }
    if (store.epoch !== epoch) return 0; // the daemon restarted meanwhile: its seqs are another numbering
    store.historyFrom = first ?? oldest;
    store.historyComplete = true;
    if (older.length) store.prepend(older, Date.now());
    return older.length;
  } catch (e) {
    store.historyRetryAt = Date.now() + 10000; // e.g. 503 while the daemon runs its most exports: later
    throw e;
  } finally {
    store.historyLoading = false;
    store.changed++;
  }
}
