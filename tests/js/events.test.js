// A table's events (live/events.js) and the page's feed (tablet/feed.js): the next event
// replaces the snapshot, an old one changes nothing, a gap asks for a sync.
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyEvent } from "../../static/live/events.js";
import { Feed } from "../../static/tablet/feed.js";
import { manualTimers } from "./fakes.js";

const snap = (version) => ({ version, game: { v: version } });
const event = (seq) => ({ type: "event", seq, snapshot: snap(seq) });

test("the next event's snapshot replaces the one shown", () => {
  const next = event(8);
  assert.equal(applyEvent(snap(7), next), next.snapshot);
});

test("an event already in the snapshot (or older) changes nothing", () => {
  const shown = snap(7);
  assert.equal(applyEvent(shown, event(7)), shown);
  assert.equal(applyEvent(shown, event(3)), shown);
});

test("an event past the next one is a gap: null, take a fresh snapshot", () => {
  assert.equal(applyEvent(snap(7), event(9)), null);
  assert.equal(applyEvent(snap(0), event(2)), null);
});

function feedAt(version) {
  const sent = [];
  const timers = manualTimers();
  const state = { snapshot: snap(version), current: false };
  return { state, sent, timers, feed: new Feed({ state, send: (m) => sent.push(m), timers }) };
}

test("the feed applies events in order and asks for nothing", () => {
  const { state, sent, feed } = feedAt(4);
  assert.equal(feed.receive(event(5)), "applied");
  assert.equal(feed.receive(event(6)), "applied");
  assert.equal(state.snapshot.version, 6);
  assert.equal(feed.receive(event(6)), "old");
  assert.equal(state.snapshot.version, 6);
  assert.deepEqual(sent, []);
});

test("a gap asks the server for a sync and keeps the snapshot until it comes", () => {
  const { state, sent, feed } = feedAt(4);
  assert.equal(feed.receive(event(6)), "gap");
  assert.deepEqual(sent, [{ type: "sync" }]);
  assert.equal(state.snapshot.version, 4);
  // The server's answer: a whole snapshot, which is current; events go on from it.
  assert.equal(feed.receive({ type: "snapshot", snapshot: snap(6) }), "snapshot");
  assert.equal(state.current, true);
  assert.equal(feed.receive(event(7)), "applied");
  assert.equal(state.snapshot.version, 7);
  assert.deepEqual(sent, [{ type: "sync" }]);
});

test("a sync the server rate-limited is asked again once, after its retry_after", () => {
  const { sent, timers, feed } = feedAt(4);
  const limited = { type: "error", for: "sync", error: { code: "rate_limited" }, retry_after: 1.5 };
  assert.equal(feed.receive(limited), "sync_later");
  assert.equal(feed.receive(limited), "sync_later");
  assert.deepEqual(timers.waits, [1500]);
  assert.deepEqual(sent, []);
  timers.runAll();
  assert.deepEqual(sent, [{ type: "sync" }]);
  // Once it ran, a new limit schedules a new one.
  feed.receive(limited);
  assert.deepEqual(timers.waits, [1500]);
});

test("messages that are not the table's are left to the page", () => {
  const { feed } = feedAt(4);
  assert.equal(feed.receive({ type: "result", id: "x" }), null);
  assert.equal(feed.receive({ type: "error", id: "x", message: "boom" }), null);
});

test("a state from an answer is adopted unless the page already has a newer one", () => {
  const { state, feed } = feedAt(4);
  assert.equal(feed.adopt(snap(3)), false);
  assert.equal(state.snapshot.version, 4);
  assert.equal(feed.adopt(snap(5)), true);
  assert.equal(state.snapshot.version, 5);
});
