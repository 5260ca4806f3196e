// The tablet's outbox (tablet/outbox.js): ids, the order taps go out and are resent in,
// the versions they carry, and the waits after a failure.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Outbox, newId, retryWait, RETRY_MAX_MS, RATE_LIMITED_RETRY_MS, OFFLINE_RETRY_MS } from "../../static/tablet/outbox.js";
import { memoryStorage, manualTimers, countingBytes } from "./fakes.js";

const KEY = "cardroom.outbox.7.1";

function makeOutbox({ storage = memoryStorage(), user = 7 } = {}) {
  const sent = [];
  const timers = manualTimers();
  const retries = [];
  const answers = [];
  const outbox = new Outbox({
    storage, key: KEY, user, timers, randomBytes: countingBytes(),
    send: (entry) => sent.push(entry.id),
    hooks: { onRetry: (r) => retries.push(r), onAnswer: (entry, result) => answers.push([entry.id, result.ok]) },
  });
  return { outbox, sent, timers, retries, answers, storage };
}
const ok = (id, version) => ({ id, version, result: { ok: true } });
const refused = (id, version, code = "below_table_min") => ({ id, version, result: { ok: false, error: { code } } });

test("an id is 'tab-' and 24 hex digits from 12 random bytes", () => {
  assert.equal(newId(() => Uint8Array.from({ length: 12 }, (_, i) => i * 17)), "tab-00112233445566778899aabb");
  assert.match(newId(), /^tab-[0-9a-f]{24}$/);
  assert.notEqual(newId(), newId());
});

test("each tap gets its own id, carried by its command, and a number in tap order", () => {
  const { outbox } = makeOutbox();
  const a = outbox.add({ type: "sit", seat: 1, player: "p1" }, 3);
  const b = outbox.add({ type: "sit", seat: 2, player: "p2" }, 3);
  assert.notEqual(a.id, b.id);
  assert.equal(a.command.id, a.id);
  assert.equal(b.command.id, b.id);
  assert.deepEqual([a.n, b.n], [1, 2]);
  assert.equal(a.user, 7);
});

test("each tap carries the tablet's own time of the tap, kept with it through retries", () => {
  let now = Date.UTC(2026, 10, 29, 13, 59, 58, 250);
  const outbox = new Outbox({ storage: memoryStorage(), key: KEY, user: 7, timers: manualTimers(),
                              randomBytes: countingBytes(), clock: () => new Date(now) });
  const a = outbox.add({ type: "flop" }, 3);
  now += 5000;
  outbox.pump();
  assert.equal(a.command.tapped_at, "2026-11-29T13:59:58.250Z");
  assert.equal(outbox.head.command.tapped_at, "2026-11-29T13:59:58.250Z");
});

test("taps are kept in storage, and a reloaded page goes on numbering after them", () => {
  const storage = memoryStorage();
  const first = makeOutbox({ storage });
  first.outbox.add({ type: "deal" }, 3);
  first.outbox.add({ type: "flop" }, 3);
  const again = makeOutbox({ storage });
  assert.deepEqual(again.outbox.entries.map((e) => e.command.type), ["deal", "flop"]);
  assert.equal(again.outbox.add({ type: "settle" }, 3).n, 3);
});

test("taps go out one at a time, in the order they were made", () => {
  const { outbox, sent } = makeOutbox();
  const a = outbox.add({ type: "check", seat: 1 }, 10);
  const b = outbox.add({ type: "check", seat: 2 }, 10);
  const c = outbox.add({ type: "check", seat: 3 }, 10);
  outbox.pump();
  outbox.pump(); // a second pump while the first tap is unanswered sends nothing more
  assert.deepEqual(sent, [a.id]);
  outbox.answered(ok(a.id, 11));
  assert.deepEqual(sent, [a.id, b.id]);
  outbox.answered(ok(b.id, 12));
  outbox.answered(ok(c.id, 13));
  assert.deepEqual(sent, [a.id, b.id, c.id]);
  assert.equal(outbox.length, 0);
});

test("after a reload the kept taps are resent in their order, the first again first", () => {
  const storage = memoryStorage();
  const before = makeOutbox({ storage });
  const a = before.outbox.add({ type: "check", seat: 1 }, 10);
  const b = before.outbox.add({ type: "check", seat: 2 }, 10);
  before.outbox.pump(); // a was sent; its answer never came
  const after = makeOutbox({ storage });
  after.outbox.pump();
  assert.deepEqual(after.sent, [a.id]);
  after.outbox.answered(ok(a.id, 11));
  assert.deepEqual(after.sent, [a.id, b.id]);
});

test("an answer to anything but the first tap (a resend answered twice) changes nothing", () => {
  const { outbox, sent, answers } = makeOutbox();
  const a = outbox.add({ type: "deal" }, 1);
  const b = outbox.add({ type: "flop" }, 1);
  outbox.pump();
  outbox.answered(ok(b.id, 3));
  outbox.answered(ok("tab-someone-else", 3));
  assert.deepEqual(outbox.entries.map((e) => e.id), [a.id, b.id]);
  assert.deepEqual(sent, [a.id]);
  assert.deepEqual(answers, []);
});

test("another person's kept taps are dropped, never sent", () => {
  const storage = memoryStorage();
  const theirs = makeOutbox({ storage, user: 8 });
  theirs.outbox.add({ type: "deal" }, 1);
  const mine = makeOutbox({ storage, user: 7 });
  const own = mine.outbox.add({ type: "flop" }, 1);
  mine.outbox.pump();
  assert.deepEqual(mine.sent, [own.id]);
  assert.deepEqual(JSON.parse(storage.getItem(KEY)).map((e) => e.user), [7]);
});

test("a tap carries the version the dealer saw; taps queued behind it assume it applied", () => {
  const { outbox } = makeOutbox();
  assert.equal(outbox.add({ type: "deal" }, 10).command.version, 10);
  assert.equal(outbox.add({ type: "flop" }, 10).command.version, 11);
  assert.equal(outbox.add({ type: "river" }, 10).command.version, 12);
});

test("an answer newer than the snapshot shown sets the next tap's version (its event may come later)", () => {
  const { outbox } = makeOutbox();
  const a = outbox.add({ type: "deal" }, 10);
  outbox.pump();
  outbox.answered(ok(a.id, 11));
  assert.equal(outbox.add({ type: "flop" }, 10).command.version, 11);
});

test("a refused tap changed nothing: the taps behind it go one version lower", () => {
  const { outbox, answers } = makeOutbox();
  const a = outbox.add({ type: "wager", seat: 1, ante: 1 }, 10);
  outbox.add({ type: "wager", seat: 2, ante: 500 }, 10);
  outbox.add({ type: "no_more_bets" }, 10);
  outbox.pump();
  outbox.answered(refused(a.id, 10));
  assert.deepEqual(outbox.entries.map((e) => e.command.version), [10, 11]);
  assert.deepEqual(answers, [[a.id, false]]);
});

test("a stale tap comes with the table's state: the taps behind it keep their versions", () => {
  const { outbox } = makeOutbox();
  const a = outbox.add({ type: "deal" }, 10);
  outbox.add({ type: "flop" }, 10);
  outbox.pump();
  outbox.answered({ id: a.id, version: 12, result: { ok: false, error: { code: "stale_version" }, state: { version: 12 } } });
  assert.deepEqual(outbox.entries.map((e) => e.command.version), [11]);
});

test("a server failure keeps the tap first and resends the same id after 1 s, 2 s, 4 s ... at most 30 s", () => {
  const { outbox, sent, timers, retries } = makeOutbox();
  const a = outbox.add({ type: "deal" }, 1);
  outbox.add({ type: "flop" }, 1);
  outbox.pump();
  const waits = [];
  for (let i = 0; i < 7; i++) {
    outbox.serverFailed(outbox.head, "HTTP 500");
    waits.push(...timers.waits);
    outbox.pump(); // the wait is running: nothing goes, not even the tap behind
    assert.equal(sent.length, i + 1);
    timers.runAll();
  }
  assert.deepEqual(waits, [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  assert.ok(sent.every((id) => id === a.id), "only the first tap, with its id");
  assert.deepEqual(retries.map((r) => [r.code, r.attempt]).slice(0, 2), [["server_error", 2], ["server_error", 3]]);
});

test("once a failed tap is answered, the next failure waits 1 s again", () => {
  const { outbox, timers } = makeOutbox();
  const a = outbox.add({ type: "deal" }, 1);
  outbox.pump();
  outbox.serverFailed(outbox.head, "HTTP 500");
  timers.runAll();
  outbox.serverFailed(outbox.head, "HTTP 500");
  timers.runAll();
  outbox.answered(ok(a.id, 2));
  outbox.add({ type: "flop" }, 2);
  outbox.pump();
  outbox.serverFailed(outbox.head, "HTTP 500");
  assert.deepEqual(timers.waits, [1000]);
});

test("the wait grows as 1 s doubling, capped", () => {
  assert.deepEqual([1, 2, 3, 5, 6, 50].map(retryWait), [1000, 2000, 4000, 16000, RETRY_MAX_MS, RETRY_MAX_MS]);
});

test("a failure reported for a tap no longer in flight is ignored", () => {
  const { outbox, timers, retries } = makeOutbox();
  const a = outbox.add({ type: "deal" }, 1);
  outbox.serverFailed(a, "late"); // never sent
  assert.deepEqual(timers.waits, []);
  assert.deepEqual(retries, []);
});

test("rate limited: the same tap waits the server's retry_after (or 5 s), then goes again", () => {
  const { outbox, sent, timers, retries } = makeOutbox();
  const a = outbox.add({ type: "deal" }, 1);
  outbox.pump();
  outbox.answered({ id: a.id, version: 1, retry_after: 2.5, result: { ok: false, error: { code: "rate_limited" } } });
  assert.deepEqual(timers.waits, [2500]);
  assert.equal(outbox.length, 1, "not a refusal: the tap stays");
  timers.runAll();
  outbox.answered({ id: a.id, version: 1, result: { ok: false, error: { code: "rate_limited" } } });
  assert.deepEqual(timers.waits, [RATE_LIMITED_RETRY_MS]);
  timers.runAll();
  assert.deepEqual(sent, [a.id, a.id, a.id]);
  assert.deepEqual(retries.map((r) => r.code), ["rate_limited", "rate_limited"]);
  outbox.answered({ id: a.id, version: 1, retry_after: 0.01, result: { ok: false, error: { code: "rate_limited" } } });
  assert.deepEqual(timers.waits, [100], "never sooner than 100 ms");
});

test("no answer at all (offline): the tap is tried again shortly", () => {
  const { outbox, sent, timers } = makeOutbox();
  const a = outbox.add({ type: "deal" }, 1);
  outbox.pump();
  outbox.offline(a);
  assert.deepEqual(timers.waits, [OFFLINE_RETRY_MS]);
  timers.runAll();
  assert.deepEqual(sent, [a.id, a.id]);
});

test("a tap in flight when the right is lost (4403) goes again at once, same id, and leaves once answered", () => {
  const { outbox, sent, timers, answers } = makeOutbox();
  const a = outbox.add({ type: "open_round", bank: 1000 }, 0);
  const b = outbox.add({ type: "sit", seat: 2, player: "p2" }, 0);
  outbox.pump();
  assert.deepEqual(sent, [a.id]);
  outbox.rightLost();
  assert.deepEqual(sent, [a.id, a.id]); // not left in flight forever: sent again now, no timer
  assert.deepEqual(timers.waits, []);
  outbox.answered(refused(a.id, 0, "not_authorized"));
  assert.deepEqual(answers, [[a.id, false]]);
  assert.deepEqual(sent, [a.id, a.id, b.id]); // the next one gets its own answer too
  outbox.answered(refused(b.id, 0, "not_authorized"));
  assert.equal(outbox.length, 0);
});

test("when the right is lost during a wait after a server failure, the tap goes now rather than after the wait", () => {
  const { outbox, sent, timers } = makeOutbox();
  const a = outbox.add({ type: "open_round", bank: 1000 }, 0);
  outbox.pump();
  outbox.serverFailed(a, "HTTP 500");
  assert.equal(timers.waits.length, 1);
  outbox.rightLost();
  assert.deepEqual(sent, [a.id, a.id]);
  assert.deepEqual(timers.waits, []);
});

test("a tap kept under another login is dropped when the right is lost, never sent", () => {
  const storage = memoryStorage();
  const { outbox: dans } = makeOutbox({ storage, user: 7 });
  dans.add({ type: "open_round", bank: 1000 }, 0);
  const { outbox: beas, sent } = makeOutbox({ storage, user: 8 });
  beas.rightLost();
  assert.deepEqual(sent, []);
  assert.equal(beas.length, 0);
});
