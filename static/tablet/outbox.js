// The tablet's outbox: every tap, with its id, until the server has answered it.
// Kept in storage (the browser's localStorage, under the logged-in person's key), so taps
// made while the connection is down (or the page was reloaded) are sent on reconnect, in
// order, one at a time. A resent id is answered once and applied once by the command
// service. No DOM here: the storage, the timers, the random source and the way a tap
// goes out (tablet/transport.js) are given, so tests/js/ runs it in Node.

export const RETRY_MAX_MS = 30000; // a failing server is tried again at most this far apart
export const RATE_LIMITED_RETRY_MS = 5000; // when a rate limit names no retry_after
export const OFFLINE_RETRY_MS = 3000; // no answer at all (offline): tried again this soon

// A command's id: 12 random bytes (crypto.randomUUID needs https, a LAN tablet may not have it).
export function newId(randomBytes = (n) => crypto.getRandomValues(new Uint8Array(n))) {
  return "tab-" + Array.from(randomBytes(12), (b) => b.toString(16).padStart(2, "0")).join("");
}

// The wait before the attempt after `failures` server failures in a row: 1 s, 2 s, 4 s, ...
// up to RETRY_MAX_MS.
export const retryWait = (failures) => Math.min(1000 * 2 ** (failures - 1), RETRY_MAX_MS);

const browserTimers = {
  setTimeout: (f, ms) => globalThis.setTimeout(f, ms),
  clearTimeout: (t) => globalThis.clearTimeout(t),
};

export class Outbox {
  // storage: {getItem, setItem}; key: where the entries are kept; user: the logged-in
  // person's id (each tap is sent under the login that made it).
  // hooks: onChange() after the queue changed; onAnswer(entry, result, {recovered}) when
  // the server answered a tap (recovered: it had failed before); onRetry({code, why,
  // wait, attempt}) when a tap is kept to be sent again later.
  constructor({ storage, key, user, send = () => {}, timers = browserTimers, randomBytes, hooks = {}, clock = () => new Date() }) {
    this.storage = storage;
    this.key = key;
    this.user = user;
    this.send = send; // (entry) -> nothing; its answer comes back through answered/serverFailed/offline
    this.timers = timers;
    this.randomBytes = randomBytes;
    this.clock = clock; // the device's own clock: each tap carries when it was tapped here
    this.hooks = { onChange() {}, onAnswer() {}, onRetry() {}, ...hooks };
    this.entries = JSON.parse(storage.getItem(key) || "[]");
    this.tapCount = Math.max(0, ...this.entries.map((entry) => entry.n || 0));
    this.inFlight = null; // the id of the tap sent and not yet answered
    // The newest table version an answer told us of: the answer to a tap can come before
    // its event (events travel through the channel layer), and the next tap must not be
    // stale for that.
    this.answeredVersion = 0;
    this.failures = 0; // server failures in a row on the first tap
    this.retryTimer = null; // while set, nothing is sent: the wait the server asked for
  }

  get length() { return this.entries.length; }
  get head() { return this.entries[0]; }
  save() { this.storage.setItem(this.key, JSON.stringify(this.entries)); }
  queuedAt(seat) { return this.entries.filter((entry) => entry.command.seat === seat); }

  // A tap. `version` is the table state the dealer saw (`seenVersion`, the snapshot's);
  // taps queued behind others assume those are applied first (each accepted command
  // adds one to the version).
  add(command, seenVersion) {
    const last = this.entries[this.entries.length - 1];
    const version = last ? last.command.version + 1 : Math.max(seenVersion, this.answeredVersion);
    const id = newId(this.randomBytes);
    this.tapCount += 1;
    // When the dealer tapped, by this tablet's clock: kept beside the server's time for a
    // surveillance replay (the server strips it before the rules see the command).
    const tapped_at = this.clock().toISOString();
    const entry = { id, n: this.tapCount, user: this.user, command: { ...command, id, version, tapped_at } };
    this.entries.push(entry);
    this.save();
    return entry;
  }

  // Send the first tap, unless one is already on its way or a wait is running. One of
  // another person's (which this page should never hold: the storage is keyed by user) is
  // dropped, never sent; the server also refuses a tap whose `user` is not the session's.
  pump() {
    while (this.entries.length && this.entries[0].user !== this.user) { this.entries.shift(); this.save(); }
    if (this.inFlight || this.retryTimer || this.entries.length === 0) return;
    const head = this.entries[0];
    this.inFlight = head.id;
    this.send(head);
  }

  // No answer came (offline, a refused connection): kept first, tried again shortly or
  // as soon as something calls pump() (the socket is back).
  offline(entry) {
    if (this.inFlight !== entry.id) return;
    this.inFlight = null;
    this.timers.setTimeout(() => this.pump(), OFFLINE_RETRY_MS);
  }

  // The socket was closed because this person may no longer drive here (4403: a hand-over
  // to another dealer, an ended assignment). The server closes it before running a tap it
  // had not answered, so the tap in flight was not applied: it goes again at once, with
  // the same id, over HTTP (the socket is gone), where the command service answers it,
  // refused and recorded, instead of it waiting for an answer that never comes. Under
  // this login only: a tap of another person's is dropped by pump(), never sent.
  rightLost() {
    this.inFlight = null;
    if (this.retryTimer) { this.timers.clearTimeout(this.retryTimer); this.retryTimer = null; }
    this.pump();
  }

  // The server failed on a tap (an error, not a refusal: nothing was applied). The tap
  // stays first and is sent again, with the same id, after a growing wait.
  serverFailed(entry, why) {
    if (this.inFlight !== entry.id) return;
    this.inFlight = null;
    this.failures += 1;
    const wait = retryWait(this.failures);
    this.hooks.onRetry({ code: "server_error", why, wait, attempt: this.failures + 1 });
    this.waitThenPump(wait);
  }

  // `rate_limited` is not a refusal: nothing was applied or logged, and the same tap (same
  // id) is sent again after the server's `retry_after` (seconds), or a few seconds when
  // it gives none.
  sendLater(entry, retryAfter) {
    if (this.inFlight !== entry.id) return;
    this.inFlight = null;
    const wait = retryAfter ? Math.max(100, Math.ceil(retryAfter * 1000)) : RATE_LIMITED_RETRY_MS;
    this.hooks.onRetry({ code: "rate_limited", wait });
    this.waitThenPump(wait);
  }

  waitThenPump(wait) {
    this.retryTimer = this.timers.setTimeout(() => { this.retryTimer = null; this.pump(); }, wait);
  }

  // The server's answer to a tap ({id, version, result, retry_after?}): the first tap
  // leaves the queue and the next one goes. An answer to anything but the first tap was
  // already handled (a resend answered twice) and changes nothing.
  answered(reply) {
    const head = this.entries[0];
    if (!head || head.id !== reply.id) return;
    const result = reply.result;
    if (!result.ok && result.error.code === "rate_limited") { this.sendLater(head, reply.retry_after); return; }
    this.entries.shift();
    this.inFlight = null;
    const recovered = this.failures > 0;
    this.failures = 0;
    this.answeredVersion = Math.max(this.answeredVersion, reply.version);
    // A refused tap changed nothing: the taps queued behind it are one version lower. A
    // stale one comes with the table's state, which the page adopts (the versions stand).
    if (!result.ok && !(result.error.code === "stale_version" && result.state)) {
      this.entries.forEach((entry) => { entry.command.version -= 1; });
    }
    this.hooks.onAnswer(head, result, { recovered });
    this.save();
    this.hooks.onChange();
    this.pump();
  }
}
