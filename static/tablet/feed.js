// The table as this page knows it: a snapshot, kept current by the socket's messages.
// A snapshot message replaces it; each event is applied when it is the next one
// (live/events.js); a gap asks the server for a fresh snapshot (`sync`). No DOM here:
// `state` ({snapshot, current}) is the page's, `send` the socket's.
import { applyEvent } from "../live/events.js";

export class Feed {
  constructor({ state, send, timers = { setTimeout: (f, ms) => globalThis.setTimeout(f, ms) } }) {
    this.state = state;
    this.send = send;
    this.timers = timers;
    this.syncTimer = null;
  }

  // -> "snapshot" (replaced), "applied" (the next event), "old" (already in the snapshot),
  // "gap" (a sync was asked for), "sync_later" (a sync the server rate-limited is asked
  // again once it allows), or null (not a table message: the caller's).
  receive(msg) {
    if (msg.type === "snapshot") {
      this.state.snapshot = msg.snapshot;
      this.state.current = true;
      return "snapshot";
    }
    if (msg.type === "event") {
      const next = applyEvent(this.state.snapshot, msg);
      if (next === null) { this.send({ type: "sync" }); return "gap"; }
      if (next === this.state.snapshot) return "old";
      this.state.snapshot = next;
      return "applied";
    }
    if (msg.type === "error" && msg.for === "sync" && msg.error.code === "rate_limited") {
      // Asked too often: one sync again once the server allows it.
      if (!this.syncTimer) {
        this.syncTimer = this.timers.setTimeout(() => { this.syncTimer = null; this.send({ type: "sync" }); }, msg.retry_after * 1000);
      }
      return "sync_later";
    }
    return null;
  }

  // A fresh state from an answer (a stale tap's refusal carries the table's state): taken
  // unless the page already has a newer one.
  adopt(fresh) {
    if (fresh.version < this.state.snapshot.version) return false;
    this.state.snapshot = fresh;
    return true;
  }
}
