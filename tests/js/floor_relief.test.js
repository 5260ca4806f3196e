// The floor's relief panel (floor/relief.js, drawn by static/floor.js; issue 26).
import { test } from "node:test";
import assert from "node:assert/strict";
import { reliefLines, askAgainIn, ASK_MARGIN_MS } from "../../static/floor/relief.js";

const AT = "2026-11-25T12:20:00+00:00";
const board = (extra = {}) => ({ planned: true, next: [], late: [], handovers: [], changes_at: null, ...extra });

test("the next pushes read as the server's page: the local time, then each move", () => {
  const lines = reliefLines(board({ next: [
    { at: AT, time: "04:20", moves: [{ dealer: "ana", to: "UTH-3" }, { dealer: "ben", to: "break" }] },
    { at: "2026-11-25T12:40:00+00:00", time: "04:40", moves: [{ dealer: "cal", to: "UTH-1" }] },
  ] }), Date.parse(AT));
  assert.deepEqual(lines.next, ["04:20 ana → UTH-3, ben → break", "04:40 cal → UTH-1"]);
  assert.equal(lines.planned, true);
});

test("a late dealer's minutes are counted from the push at the screen's clock, so they tick", () => {
  const late = board({ late: [{ dealer: "ben", table: "UTH-1", at: AT, time: "04:20" }] });
  assert.deepEqual(reliefLines(late, Date.parse(AT) + 4 * 60000 + 59000).late, ["Late: ben → UTH-1 (push 04:20, 4 min ago)"]);
  assert.deepEqual(reliefLines(late, Date.parse(AT) + 5 * 60000).late, ["Late: ben → UTH-1 (push 04:20, 5 min ago)"]);
});

test("a hand-over names the outgoing dealer only when there was one", () => {
  const lines = reliefLines(board({ handovers: [
    { time: "04:21", incoming: "ben", outgoing: "ana", table: "UTH-1", after_round: 7 },
    { time: "04:01", incoming: "ana", outgoing: null, table: "UTH-2", after_round: 0 },
  ] }), 0);
  assert.deepEqual(lines.handovers, ["04:21 ben took over UTH-1 from ana after round 7", "04:01 ana took over UTH-2 after round 0"]);
});

test("no plan reads as not planned", () => {
  assert.equal(reliefLines(board({ planned: false }), 0).planned, false);
});

test("the screen asks again just after the board's next change by the clock, at once if it is past, never without one", () => {
  const now = Date.parse(AT);
  assert.equal(askAgainIn(board({ changes_at: "2026-11-25T12:23:00+00:00" }), now), 3 * 60000 + ASK_MARGIN_MS);
  assert.equal(askAgainIn(board({ changes_at: "2026-11-25T12:19:00+00:00" }), now), ASK_MARGIN_MS);
  assert.equal(askAgainIn(board(), now), null);
});
