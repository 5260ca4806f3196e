// The floor's alert list (floor/alerts.js, drawn by static/floor.js): alerts of one kind
// at several tables are one line (issue 26).
import { test } from "node:test";
import assert from "node:assert/strict";
import { groupAlerts, approvalsWaiting } from "../../static/floor/alerts.js";

const row = (table, ...alerts) => ({ table, name: `UTH-${table}`, alerts });
const alert = (kind, extra = {}) => ({ kind, text: kind, count: 1, ack: null, ...extra });
const summary = (lines) => lines.map(([kind, items]) => [kind, items.map(([r]) => r.table)]);

test("alerts of one kind at several tables are one line, naming each table in the floor's order", () => {
  const rows = [
    row(1, alert("tablet_disconnected"), alert("idle")),
    row(2, alert("tablet_disconnected")),
    row(3, alert("idle"), alert("bank_exhausted")),
    row(4, alert("tablet_disconnected")),
  ];
  const { lines, open, seen } = groupAlerts(rows);
  assert.deepEqual(summary(lines), [["tablet_disconnected", [1, 2, 4]], ["idle", [1, 3]], ["bank_exhausted", [3]]]);
  assert.equal(open, 6);
  assert.equal(seen, 0);
});

test("each line keeps every table's own alert (its detail and its ref for the action)", () => {
  const a = alert("award_unconfirmed", { ref: "r1", text: "Seat 2 royal" });
  const b = alert("award_unconfirmed", { ref: "r2", text: "Seat 5 straight flush" });
  const rows = [row(1, a), row(2, b)];
  const [[, items]] = groupAlerts(rows).lines;
  assert.deepEqual(items, [[rows[0], a], [rows[1], b]]);
});

test("a kind with something still to see comes before a kind all seen; a line is seen only when all of it is", () => {
  const seenBy = { by: "sam", at: "2026-01-01T00:00:00Z" };
  const rows = [
    row(1, alert("idle", { ack: seenBy }), alert("void", { ack: seenBy })),
    row(2, alert("idle", { ack: seenBy }), alert("void")),
    row(3, alert("stopped")),
  ];
  const { lines, open, seen } = groupAlerts(rows);
  assert.deepEqual(summary(lines), [["void", [1, 2]], ["stopped", [3]], ["idle", [1, 2]]]);
  assert.equal(open, 2);
  assert.equal(seen, 3);
});

test("no alert, no line", () => {
  assert.deepEqual(groupAlerts([row(1), row(2)]), { lines: [], open: 0, seen: 0 });
});

test("the approval queue's count adds each approval alert's requests, and nothing else", () => {
  const rows = [
    row(1, alert("approval_pending", { count: 2 }), alert("idle", { count: 9 })),
    row(2, alert("approval_expired", { count: 1 })),
    row(3),
  ];
  assert.equal(approvalsWaiting(rows), 3);
  assert.equal(approvalsWaiting([]), 0);
});
