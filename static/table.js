// The dealer tablet (data-mode="tablet") and the read-only live table view ("live"): the
// entry module, which wires the parts under static/tablet/ together. It draws the server's
// snapshot and sends commands; the snapshot's `view` (computed on the server) says what is
// allowed, and the command service has the last word.
//   tablet/outbox.js, transport.js  the taps, their ids, order, resends and back-off
//   tablet/feed.js                  the snapshot kept current by the socket's events
//   tablet/render.js, seats.js, next.js, settlement.js  drawing
//   tablet/dialogs.js, server-call.js                   dialogs and the calls they make
import { Socket } from "./live.js";
import { money } from "./live/money.js";
import { Outbox } from "./tablet/outbox.js";
import { tapSender } from "./tablet/transport.js";
import { Feed } from "./tablet/feed.js";
import { createRender } from "./tablet/render.js";
import { createSeats } from "./tablet/seats.js";
import { createNext } from "./tablet/next.js";
import { createDialogs } from "./tablet/dialogs.js";
import { createServerCalls } from "./tablet/server-call.js";

const page = JSON.parse(document.getElementById("page-data").textContent);
const app = document.getElementById("app");
const isTablet = app.dataset.mode === "tablet";

// Everything this tablet keeps in localStorage is the logged-in person's, under keys
// with their user id; someone else's (a hand-over without a logout) is emptied first.
const me = page.user_id;
if (isTablet) CardroomSession.claim(me); // static/session.js, a classic script of every page
const mine = (what) => `cardroom.${what}.${me}.${page.table}`;

// The last snapshot seen, kept: a reload with the network down (the page then comes from
// the service worker's cache, with the snapshot of when it was cached) draws the newest
// one this person saw, marked as not current until the server sends a fresh one.
const SNAPSHOT_KEY = mine("snapshot");
const keptSnapshot = isTablet ? JSON.parse(localStorage.getItem(SNAPSHOT_KEY) || "null") : null;
const keepSnapshot = () => { if (isTablet) localStorage.setItem(SNAPSHOT_KEY, JSON.stringify(ctx.snapshot)); };

// What every part reads and the functions each puts here (tablet/context.js).
const ctx = {
  page, app, isTablet, mine,
  csrfToken: (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value,
  snapshot: keptSnapshot && keptSnapshot.version > page.snapshot.version ? keptSnapshot : page.snapshot,
  current: false, // the snapshot is the server's latest (a socket's snapshot, and its events since)
  status: "connecting",
  drawn: false, // the page has been drawn once (the socket reports before that)
  // {kind: "error"|"info", title, detail, code, technical, after}: shown until dismissed or
  // until a tap made after it (number > `after`) is accepted.
  message: null,
  picker: null, // {title, labels: [...], cards: [...], build(cards) -> command, blocked}
  settled: null,
};

// --- the settlement of the last settled round, kept until the dealer is done ---------
const SETTLEMENT_KEY = mine("settlement");
ctx.settled = JSON.parse(localStorage.getItem(SETTLEMENT_KEY) || "null");
ctx.keepSettlement = (result) => {
  ctx.settled = result;
  if (result) localStorage.setItem(SETTLEMENT_KEY, JSON.stringify(result));
  else localStorage.removeItem(SETTLEMENT_KEY);
};

// --- taps ------------------------------------------------------------------------------
const outbox = new Outbox({
  storage: localStorage, key: mine("outbox"), user: me,
  hooks: {
    onChange: () => ctx.render(),
    onRetry({ code, why, wait, attempt }) {
      // The server failed on a tap: the dealer is told in plain words; the floor gets its
      // own alert from the server. A rate limit is a wait, not an error.
      ctx.message = code === "server_error" ? {
        kind: "error", code, after: outbox.tapCount,
        title: "The server could not take this tap",
        detail: `${why}. The tap is kept and sent again in ${Math.round(wait / 1000)} s (attempt ${attempt}); the floor has been alerted`,
      } : {
        kind: "info", code, after: outbox.tapCount,
        title: "Sending taps a little slower",
        detail: `The tap is kept and sent again in ${Math.max(1, Math.round(wait / 1000))} s`,
      };
      ctx.render();
    },
    onAnswer(entry, result, { recovered }) {
      const message = ctx.message;
      if (message && message.code === "rate_limited") ctx.message = null;
      if (recovered && message && message.code === "server_error") ctx.message = null;
      if (result.ok && ctx.message && entry.n > ctx.message.after) ctx.message = null;
      if (!result.ok) {
        showError(result.error.code, result.error.message);
        if (result.error.code === "stale_version" && result.state && feed.adopt(result.state)) keepSnapshot();
      } else if (entry.command.type === "settle") {
        ctx.keepSettlement(result);
      }
    },
  },
});
ctx.outbox = outbox;

ctx.tap = (command) => {
  if (!isTablet) return;
  outbox.add(command, ctx.snapshot.version);
  ctx.render();
  outbox.pump();
};
// Several taps at once (e.g. "everyone checks"): queued in order, each its own command.
ctx.tapAll = (commands) => commands.forEach(ctx.tap);

// A refusal in the dealer's words: the sentence for its code (web/tables/ui_text.py) and,
// for a limit, the table's limits in dollars. The service's own wording is kept as the
// banner's tooltip, for support.
function showError(code, technical) {
  const limits = page.posted.limits;
  const detail = code === "below_table_min" || code === "above_table_max"
    ? `Ante ${money(limits.ante_min)} to ${money(limits.ante_max)}` + (limits.trips_min || limits.trips_max
      ? `; Trips ${money(limits.trips_min)} to ${money(limits.trips_max)}.` : ".")
    // Which box is missing and which to place, in the server's words.
    : code === "box_missing" ? technical
    : "";
  // Refused because the right to drive here was lost: said as such, not as a generic refusal.
  const title = code === "not_authorized" && ctx.status === "not_allowed" ? `Refused, not sent again: ${LOST_RIGHT.toLowerCase()}`
    : page.errors[code] || page.unknown_error;
  ctx.message = { kind: "error", title, detail, code, technical, after: outbox.tapCount };
  ctx.render();
}
const LOST_RIGHT = "You no longer drive this table";
ctx.showError = showError;

// --- snapshots and events --------------------------------------------------------------
function onMessage(msg) {
  switch (feed.receive(msg)) {
    case "snapshot":
      keepSnapshot();
      ctx.render();
      outbox.pump();
      return;
    case "applied":
      keepSnapshot();
      if (msg.command_type === "settle") ctx.keepSettlement(msg.result);
      if (msg.command_type === "open_round") ctx.keepSettlement(null);
      if (msg.command_type === "void_round") ctx.checkVoidRequest();
      ctx.render();
      return;
    case null:
      break; // not the table's: an answer to a tap, or the server's failure on one
    default:
      return; // an old event, a gap (a sync was asked for), a sync asked again later
  }
  if (msg.type === "result") {
    outbox.answered(msg);
  } else if (msg.type === "error" && msg.id !== undefined && outbox.head && outbox.head.id === msg.id) {
    outbox.serverFailed(outbox.head, msg.message || "the server failed");
  }
}

function onStatus(s) {
  ctx.status = s;
  if (s !== "open") ctx.current = false; // events may be missed until the next snapshot
  if (s === "closed") {
    // A socket that closes on a tap in flight may have been closed by that very tap
    // (the server failed on it): wait before resending, with the same id (answered once).
    if (outbox.inFlight) outbox.serverFailed(outbox.head, "the connection closed before the answer");
    else outbox.pump();
  }
  if (s === "not_allowed" && isTablet) {
    // This person may no longer drive here (a hand-over, an ended assignment): said at
    // once, and a tap still waiting gets the server's answer now rather than staying
    // "sending" for ever (tablet/outbox.js, rightLost).
    ctx.message = {
      kind: "error", code: "not_allowed", after: outbox.tapCount, title: LOST_RIGHT,
      detail: "Another dealer has taken over or your assignment ended: taps from here are refused, not applied, and never sent again. Reload to see your tables",
    };
    outbox.rightLost();
    if (ctx.drawn) ctx.renderMessage();
  }
  ctx.renderStatus();
  if (ctx.drawn) ctx.renderSeats(); // a queued tap's badge says whether it is being sent
}

Object.assign(ctx, createRender(ctx), createSeats(ctx), createNext(ctx), createDialogs(ctx), createServerCalls(ctx));

const socket = new Socket(`/ws/tables/${page.table}/${isTablet ? "?role=tablet" : ""}`, { onMessage, onStatus });
const feed = new Feed({ state: ctx, send: (message) => socket.send(message) });
outbox.send = tapSender({ socket, outbox, url: `/api/tables/${page.table}/commands`, csrfToken: ctx.csrfToken });
if (isTablet) setInterval(() => socket.send({ type: "heartbeat" }), page.heartbeat * 1000);
if (isTablet) ctx.wire();

ctx.render();
ctx.renderStatus(); // now drawn: says whether the table shown is current

// The service worker that lets a reload with the network down come back to this page
// (static/tablet-sw.js). This page was loaded before the worker controlled it the first
// time: it asks the worker to keep the page and what it loaded, the modules this one
// imports included (they have no tag of their own: the browser's resource timings list
// them).
if (isTablet && "serviceWorker" in navigator) {
  navigator.serviceWorker.register("/tablet-sw.js").then(() => navigator.serviceWorker.ready).then((registration) => {
    const loaded = performance.getEntriesByType("resource").map((entry) => entry.name).filter((url) => new URL(url).pathname.startsWith("/static/"));
    const tagged = [...document.querySelectorAll("script[src], link[rel=stylesheet]")].map((el) => el.src || el.href);
    registration.active.postMessage({ type: "keep", urls: [location.pathname, ...new Set([...tagged, ...loaded])] });
  }).catch(() => {}); // no worker (an old browser, plain http on a LAN address): online only
}
