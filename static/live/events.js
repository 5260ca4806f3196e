// The socket protocol's one rule for a table's events (web/tables/consumers.py): each event
// carries the table's next version (`seq`) and the whole snapshot after it.

// An event applies to a snapshot when it is the very next one; an older one is already
// in the snapshot; a newer one means events were missed: take a fresh snapshot (null).
export function applyEvent(snapshot, event) {
  if (event.seq <= snapshot.version) return snapshot;
  if (event.seq === snapshot.version + 1) return event.snapshot;
  return null;
}
