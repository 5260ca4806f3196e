// The floor's alert list, as data (static/floor.js draws it): alerts of one kind are one
// line however many tables raise them (issue 26, "quieter alerts"). No DOM here, so the
// grouping is unit-tested in Node (tests/js/floor_alerts.test.js).

// rows: the floor's rows, each with its `alerts` ({kind, ack, count, ...}).
// -> {open, seen, lines}: how many alerts are still to see and how many were seen, and
// one line per kind, [kind, [[row, alert], ...]], tables in the rows' order; the kinds
// with something still to see come first (a line is seen when all of it is), else in
// the order their first alert came.
export function groupAlerts(rows) {
  const items = [];
  for (const r of rows) for (const a of r.alerts) items.push([r, a]);
  const open = items.filter(([, a]) => !a.ack).length;
  const kinds = new Map();
  for (const item of items) {
    if (!kinds.has(item[1].kind)) kinds.set(item[1].kind, []);
    kinds.get(item[1].kind).push(item);
  }
  const lines = [...kinds.entries()].sort(([, a], [, b]) => !a.some(([, x]) => !x.ack) - !b.some(([, x]) => !x.ack));
  return { open, seen: items.length - open, lines };
}

// Requests waiting in the approval queue, over all the rows (each approval alert counts
// its requests).
export function approvalsWaiting(rows) {
  return rows.reduce((n, r) => n + r.alerts.filter((a) => a.kind.startsWith("approval_")).reduce((m, a) => m + a.count, 0), 0);
}
