// The dealer tablet (data-mode="tablet") and the read-only live table view ("live").
// It draws the server's snapshot and sends commands; the snapshot's `view` (computed in
// tables/selectors.py) says what is allowed, and the command service has the last word.
"use strict";

(() => {
  const { h, money, toCents, PHASE } = Live;
  const page = JSON.parse(document.getElementById("page-data").textContent);
  const app = document.getElementById("app");
  const isTablet = app.dataset.mode === "tablet";
  const $ = (id) => document.getElementById(id);

  // Everything this tablet keeps in localStorage is the logged-in person's, under keys
  // with their user id; someone else's (a hand-over without a logout) is emptied first.
  const me = page.user_id;
  if (isTablet) CardroomSession.claim(me);
  const mine = (what) => `cardroom.${what}.${me}.${page.table}`;

  // The last snapshot seen, kept: a reload with the network down (the page then comes from
  // the service worker's cache, with the snapshot of when it was cached) draws the newest
  // one this person saw, marked as not current until the server sends a fresh one.
  const SNAPSHOT_KEY = mine("snapshot");
  const keptSnapshot = isTablet ? JSON.parse(localStorage.getItem(SNAPSHOT_KEY) || "null") : null;
  let snapshot = keptSnapshot && keptSnapshot.version > page.snapshot.version ? keptSnapshot : page.snapshot;
  let current = false; // the snapshot is the server's latest (a socket's snapshot, and its events since)
  const keepSnapshot = () => { if (isTablet) localStorage.setItem(SNAPSHOT_KEY, JSON.stringify(snapshot)); };
  let status = "connecting";
  let drawn = false; // the page has been drawn once (the socket reports before that)
  // {kind: "error"|"info", title, detail, code, technical, after}: shown until dismissed or
  // until a tap made after it (number > `after`) is accepted.
  let message = null;
  let tapCount = 0;
  let picker = null; // {command, labels: [...], cards: [...], build(cards) -> command}
  const drafts = {}; // seat -> {ante, trips}: what the dealer typed, kept across redraws
  const backlineDrafts = {}; // seat -> {bettor, ante, trips, open}: a backline being typed

  // --- the settlement of the last settled round, kept until the dealer is done ---------
  const SETTLEMENT_KEY = mine("settlement");
  let settled = JSON.parse(localStorage.getItem(SETTLEMENT_KEY) || "null");
  function keepSettlement(result) {
    settled = result;
    if (result) localStorage.setItem(SETTLEMENT_KEY, JSON.stringify(result));
    else localStorage.removeItem(SETTLEMENT_KEY);
  }

  // --- the outbox: every tap, with its id, until the server has answered it -----------
  // Kept in localStorage, so taps made while the connection is down (or the page was
  // reloaded) are sent on reconnect, in order, one at a time. A resent id is answered
  // once and applied once by the command service.
  const OUTBOX_KEY = mine("outbox");
  let outbox = JSON.parse(localStorage.getItem(OUTBOX_KEY) || "[]");
  tapCount = Math.max(0, ...outbox.map((entry) => entry.n || 0));
  let inFlight = null;
  // The newest table version an answer told us of: the answer to a tap can come before
  // its event (events travel through the channel layer), and the next tap must not be
  // stale for that.
  let answeredVersion = 0;
  const saveOutbox = () => localStorage.setItem(OUTBOX_KEY, JSON.stringify(outbox));

  function newId() {
    const bytes = crypto.getRandomValues(new Uint8Array(12)); // randomUUID needs https
    return "tab-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function tap(command) {
    if (!isTablet) return;
    // `version` is the table state the dealer saw; taps queued behind others assume
    // those are applied first (each accepted command adds one to the version).
    const last = outbox[outbox.length - 1];
    const version = last ? last.command.version + 1 : Math.max(snapshot.version, answeredVersion);
    const id = newId();
    tapCount += 1;
    outbox.push({ id, n: tapCount, user: me, command: { ...command, id, version } });
    saveOutbox();
    render();
    pump();
  }

  // Several taps at once (e.g. "everyone checks"): queued in order, each its own command.
  function tapAll(commands) {
    commands.forEach(tap);
  }

  // A refusal in the dealer's words: the sentence for its code (tables/ui_text.py) and,
  // for a limit, the table's limits in dollars. The service's own wording is kept as the
  // banner's tooltip, for support.
  function showError(code, technical) {
    const limits = page.posted.limits;
    const detail = code === "below_table_min" || code === "above_table_max"
      ? `Ante ${money(limits.ante_min)} to ${money(limits.ante_max)}` + (limits.trips_min || limits.trips_max
        ? `; Trips ${money(limits.trips_min)} to ${money(limits.trips_max)}.` : ".")
      : "";
    message = { kind: "error", title: page.errors[code] || page.unknown_error, detail, code, technical, after: tapCount };
    render();
  }

  // Over the socket when it is open; else over HTTP (a proxy may refuse websockets, and
  // the tablet may be back before its socket is), with the CSRF token of the page.
  // Each tap is sent under the login that made it: one of another person's (which this
  // page should never hold: the storage is keyed by user) is dropped, never sent; and the
  // server refuses a tap whose `user` is not the session's (tables.consumers, views).
  function pump() {
    while (outbox.length && outbox[0].user !== me) { outbox.shift(); saveOutbox(); }
    if (inFlight || retryTimer || outbox.length === 0) return;
    const head = outbox[0];
    inFlight = head.id;
    if (socket.send({ type: "command", command: head.command, user: head.user })) return;
    fetch(`/api/tables/${page.table}/commands`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken, "X-Cardroom-User": String(head.user) },
      body: JSON.stringify(head.command),
      credentials: "same-origin",
    }).then((response) => {
      if (response.status >= 500) { serverFailed(head, `the server answered HTTP ${response.status}`); return null; }
      // 403 is an answer (not_authorized, in the body); anything else is tried again.
      if (!response.ok && response.status !== 403) throw new Error(`HTTP ${response.status}`);
      return response.json();
    }).then((reply) => {
      if (reply && inFlight === head.id) answered(reply);
    }).catch(() => {
      if (inFlight !== head.id) return;
      inFlight = null; // offline: kept in the outbox, tried again shortly or when the socket is back
      setTimeout(pump, 3000);
    });
  }

  // The server failed on a tap (an error, not a refusal: nothing was applied). The tap
  // stays first in the outbox and is sent again, with the same id, after a growing wait,
  // and the dealer is told in plain words; the floor gets its own alert from the server.
  const RETRY_MAX_MS = 30000;
  let failures = 0;
  let retryTimer = null;
  function serverFailed(head, why) {
    if (inFlight !== head.id) return;
    inFlight = null;
    failures += 1;
    const wait = Math.min(1000 * 2 ** (failures - 1), RETRY_MAX_MS);
    message = {
      kind: "error", code: "server_error", after: tapCount,
      title: "The server could not take this tap",
      detail: `${why}. The tap is kept and sent again in ${Math.round(wait / 1000)} s (attempt ${failures + 1}); the floor has been alerted`,
    };
    render();
    retryTimer = setTimeout(() => { retryTimer = null; pump(); }, wait);
  }
  const csrfToken = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value;

  // `rate_limited` is not a refusal: nothing was applied or logged, and the same tap (same
  // id) is sent again after the server's `retry_after` (tables/socket_rates.py), or a few
  // seconds when it gives none (too many refused taps: tables/services.py). The dealer
  // sees that it is waiting, not an error.
  const RATE_LIMITED_RETRY_MS = 5000;
  function sendLater(head, retryAfter) {
    if (inFlight !== head.id) return;
    inFlight = null;
    const wait = retryAfter ? Math.max(100, Math.ceil(retryAfter * 1000)) : RATE_LIMITED_RETRY_MS;
    message = {
      kind: "info", code: "rate_limited", after: tapCount,
      title: "Sending taps a little slower",
      detail: `The tap is kept and sent again in ${Math.max(1, Math.round(wait / 1000))} s`,
    };
    render();
    retryTimer = setTimeout(() => { retryTimer = null; pump(); }, wait);
  }

  function answered(reply) {
    const head = outbox[0];
    if (!head || head.id !== reply.id) return; // an answer already handled
    if (!reply.result.ok && reply.result.error.code === "rate_limited") { sendLater(head, reply.retry_after); return; }
    outbox.shift();
    inFlight = null;
    if (message && message.code === "rate_limited") message = null;
    if (failures) { failures = 0; if (message && message.code === "server_error") message = null; }
    answeredVersion = Math.max(answeredVersion, reply.version);
    const result = reply.result;
    if (result.ok && message && head.n > message.after) message = null;
    if (!result.ok) {
      const code = result.error.code;
      showError(code, result.error.message);
      if (code === "stale_version" && result.state) {
        adopt(result.state);
      } else {
        // A refused tap changed nothing: the taps queued behind it are one version lower.
        outbox.forEach((entry) => { entry.command.version -= 1; });
      }
    } else if (head.command.type === "settle") {
      keepSettlement(result);
    }
    saveOutbox();
    render();
    pump();
  }

  // --- snapshots and events -------------------------------------------------------
  function adopt(fresh) {
    if (fresh.version >= snapshot.version) { snapshot = fresh; keepSnapshot(); }
  }

  let syncTimer = null;
  function onMessage(msg) {
    if (msg.type === "snapshot") {
      snapshot = msg.snapshot;
      current = true;
      keepSnapshot();
      render();
      pump();
    } else if (msg.type === "event") {
      const next = Live.applyEvent(snapshot, msg);
      if (next === null) { socket.send({ type: "sync" }); return; }
      if (next !== snapshot) {
        snapshot = next;
        keepSnapshot();
        if (msg.command_type === "settle") keepSettlement(msg.result);
        if (msg.command_type === "open_round") keepSettlement(null);
        if (msg.command_type === "void_round") checkVoidRequest();
        render();
      }
    } else if (msg.type === "result") {
      answered(msg);
    } else if (msg.type === "error" && msg.id !== undefined && outbox[0] && outbox[0].id === msg.id) {
      serverFailed(outbox[0], msg.message || "the server failed");
    } else if (msg.type === "error" && msg.for === "sync" && msg.error.code === "rate_limited") {
      // Asked too often: one sync again once the server allows it.
      if (!syncTimer) syncTimer = setTimeout(() => { syncTimer = null; socket.send({ type: "sync" }); }, msg.retry_after * 1000);
    }
  }

  function onStatus(s) {
    status = s;
    if (s !== "open") current = false; // events may be missed until the next snapshot
    if (s === "closed") {
      // A socket that closes on a tap in flight may have been closed by that very tap
      // (the server failed on it): wait before resending, with the same id (answered once).
      if (inFlight) serverFailed(outbox[0], "the connection closed before the answer");
      else pump();
    }
    renderStatus();
    if (drawn) renderSeats(); // a queued tap's badge says whether it is being sent
  }

  const socket = new Live.Socket(`/ws/tables/${page.table}/${isTablet ? "?role=tablet" : ""}`, { onMessage, onStatus });
  if (isTablet) setInterval(() => socket.send({ type: "heartbeat" }), page.heartbeat * 1000);

  // --- drawing ----------------------------------------------------------------------
  // The page is a list of independent parts, each a small function of the snapshot (and
  // of the tablet's own state: the outbox, the message, the picker). A new panel or step
  // is one more function in RENDERERS, STEPS or SEAT_PARTS.
  const game = () => snapshot.game;
  const view = () => snapshot.view;
  const seatOf = (n) => view().seats[n - 1];
  const playerAt = (n) => (seatOf(n) || {}).player;
  const HAND = {
    high_card: "high card", one_pair: "one pair", two_pair: "two pair", three_of_a_kind: "three of a kind",
    straight: "straight", flush: "flush", full_house: "full house", four_of_a_kind: "four of a kind",
    straight_flush: "straight flush", royal_flush: "royal flush",
  };
  const SUIT = { c: "♣", d: "♦", h: "♥", s: "♠" };
  const cardEl = (c, extra = "") =>
    c ? h("span", { class: `card suit-${c[1]} ${extra}`, "data-card": c }, c[0] === "T" ? "10" : c[0], SUIT[c[1]])
      : h("span", { class: `card back ${extra}` }, "");

  const RENDERERS = [renderStatus, renderBar, renderMessage, renderNotice, renderBoard, renderSeats, renderNext, renderPreview, renderSettlement];
  function render() {
    for (const part of RENDERERS) part();
    drawn = true;
  }

  function renderStatus() {
    const queued = outbox.length;
    let text = Live.STATUS_TEXT[status] || status;
    if (queued) text += ` · ${queued} tap${queued > 1 ? "s" : ""} ${status === "open" ? "sending" : "queued"}`;
    if (!current && drawn) text += " · table as last seen, not current";
    const el = $("status");
    el.textContent = text;
    el.dataset.state = status;
    el.dataset.queued = queued;
    el.dataset.current = current;
  }

  function renderBar() {
    const rnd = game().round;
    const rot = game().rotation;
    const parts = [rnd ? `Round ${rnd.number} · ${PHASE[rnd.phase]}` : PHASE.between_rounds];
    if (rnd && rnd.deck) parts.push(`deck ${rnd.deck}`);
    if (rot.pd_seat) {
      // Which bank in a row, against the limit, from the second on: "2nd of 2" (tables.selectors.bank_run).
      const run = view().bank_run;
      parts.push(`Player-dealer: seat ${rot.pd_seat} (${rot.pd_player})${run && run.bank > 1 ? `, bank ${run.text} in a row` : ""}`);
    }
    if (rnd) parts.push(`Bank ${money(rnd.bank)}`);
    // The drop box the fees go into (the server says which; a supervisor places it).
    const boxes = snapshot.boxes || {};
    parts.push(boxes.fees ? `Drop box ${boxes.fees}` : "No drop box placed");
    $("round-label").textContent = parts.join(" · ");
    app.dataset.phase = view().phase;
    app.dataset.version = snapshot.version;
  }

  // The table's posted notice (its configuration; game-rules 2A.5), on the tablet and the live view.
  function renderNotice() {
    let el = $("notice");
    if (!el) { el = h("p", { id: "notice", class: "notice" }); $("message").after(el); }
    if (el.textContent !== view().notice) el.textContent = view().notice;
    el.hidden = !view().notice;
  }

  function renderMessage() {
    const el = $("message");
    el.hidden = !message;
    if (!message) return;
    el.className = `message ${message.kind}`;
    el.dataset.code = message.code || "";
    // The service's own wording (cents, engine terms) is for support, not the dealer.
    el.title = message.technical || "";
    el.replaceChildren(h("strong", {}, message.title), message.detail ? h("span", {}, message.detail) : "",
      // "" and not null: replaceChildren, unlike h(), writes a null as the text "null".
      message.stop ? h("button", { class: "link stop", onclick: () => { endCall(); renderMessage(); } }, "Stop trying") : "",
      h("button", { class: "link dismiss", onclick: () => { message = null; renderMessage(); } }, "Dismiss"));
  }

  // Hole cards dealt by the software stay face down until the showdown: the tablet and
  // the live view may be seen from the table.
  const showHoles = () => view().phase === "showdown";

  function renderBoard() {
    const rnd = game().round;
    const board = $("board");
    if (!rnd) { board.replaceChildren(h("span", { class: "muted" }, "No round in progress")); return; }
    const cards = [];
    for (let i = 0; i < 5; i++) cards.push(cardEl(rnd.community[i], rnd.community[i] ? "" : "empty"));
    const pd = rnd.pd_hole && showHoles() ? rnd.pd_hole.map((c) => cardEl(c)) : [cardEl(null), cardEl(null)];
    board.replaceChildren(
      h("div", { class: "community" }, h("span", { class: "label" }, "Board"), ...cards),
      h("div", { class: "pd-hand" }, h("span", { class: "label" }, `Player-dealer (seat ${rnd.pd_seat})`), ...pd),
    );
  }

  // --- seats ----------------------------------------------------------------------------
  function wagerLine(w) {
    const parts = [`Ante ${money(w.ante)}`, `Blind ${money(w.blind)}`];
    if (w.trips) parts.push(`Trips ${money(w.trips)}`);
    if (w.bad_beat) parts.push(`Bad Beat ${money(w.bad_beat)}`);
    if (w.pairs) parts.push(`Pairs ${money(w.pairs)}`);
    if (w.progressive) parts.push(`Progressive ${money(w.progressive)}`);
    if (w.play) parts.push(`Play ${money(w.play)}`);
    return parts.join(" · ");
  }

  function decisionText(w, owes) {
    if (w.folded) return "Folded";
    if (w.play) return `Played ${money(w.play)}`;
    if (owes) return "To decide";
    if (w.checked.length) return `Checked (${w.checked.map((s) => PHASE[s].toLowerCase()).join(", ")})`;
    return "";
  }

  // A tap's name as the dealer reads it on a seat while it waits for the server.
  function tapName(c) {
    switch (c.type) {
      case "wager": return `Bet ${money(c.ante)}${c.trips ? ` + Trips ${money(c.trips)}` : ""}`;
      case "play": return `Play ${c.multiple}×`;
      case "backline_wager": return `Backline ${c.bettor} ${money(c.ante)}`;
      case "backline_withdraw": return `Withdraw backline ${c.bettor}`;
      default: return c.type.charAt(0).toUpperCase() + c.type.slice(1).replaceAll("_", " ");
    }
  }
  const queuedAt = (n) => outbox.filter((entry) => entry.command.seat === n);

  // A seat decides now when the cards are out: dealt by the software, or dealt by hand
  // once the dealer said so (`deal_by_hand`, kept in the table's state: view.owes_now).
  const decidesNow = (seat) => seat.owes_now;

  function seatHead(seat) {
    const badges = [];
    if (seat.role === "player_dealer") badges.push(h("span", { class: "badge pd" }, "Player-dealer"));
    if (seat.offered) badges.push(h("span", { class: "badge offer" }, "Bank offered"));
    if (seat.tppp) badges.push(h("span", { class: "badge tppp", title: "Third-party proposition player" }, `TPPP ${seat.tppp}`));
    return h("div", { class: "seat-head" }, h("span", { class: "seat-no" }, `Seat ${seat.seat}`),
      h("span", { class: "player" }, seat.player || "empty"), ...badges);
  }
  const seatWagers = (seat) => seat.wager ? h("div", { class: "wagers" }, wagerLine(seat.wager)) : null;
  // "To decide" only once the cards are out (owes_now): before the deal nobody decides yet.
  const seatDecision = (seat) => seat.wager ? h("div", { class: "decision-state" }, decisionText(seat.wager, seat.owes_now)) : null;
  const seatHole = (seat) => seat.wager && seat.wager.hole
    ? h("div", { class: "hole" }, ...seat.wager.hole.map((c) => cardEl(showHoles() ? c : null))) : null;
  function seatQueued(seat) {
    const waiting = queuedAt(seat.seat);
    if (!waiting.length) return null;
    const how = status === "open" ? "sending" : "queued";
    return h("div", { class: "queued" }, ...waiting.map((entry) => h("span", { class: "badge queued", "data-tap": entry.id }, `${tapName(entry.command)} · ${how}`)));
  }

  // --- backline wagers (game-rules 12) --------------------------------------------------------
  // The tablet names each bettor; the live view gets their place behind the seat instead
  // (`behind`, tables.visibility), never their id.
  const isBackline = (x) => Boolean(x.bettor || x.behind);
  const bettorName = (x) => x.bettor || `Backline ${x.behind}`;
  const sameBettor = (a, b) => (a.bettor ? a.bettor === b.bettor : a.behind === b.behind);

  // Behind the seat: how many, each one's wagers (its Play is taken with the seat's), and
  // on the tablet during betting, a withdraw for each.
  function seatBacklines(seat) {
    const behind = seat.backlines || [];
    if (!behind.length) return null;
    const betting = view().phase === "betting";
    const waiting = queuedAt(seat.seat).length > 0;
    return h("div", { class: "backlines", "data-count": behind.length },
      h("span", { class: "label" }, `${behind.length} backline${behind.length === 1 ? "" : "s"} behind`),
      h("ul", {}, ...behind.map((b, i) => h("li", { class: `backline ${b.folded ? "folded" : ""}`, "data-bettor": b.bettor || null, "data-behind": b.behind || i + 1 },
        h("strong", { class: "bettor" }, bettorName(b)), " ", h("span", { class: "wagers" }, wagerLine(b)), b.folded ? " · folded" : "",
        isTablet && betting ? h("button", { class: "quiet backline-withdraw", disabled: waiting,
          "aria-label": `Withdraw ${b.bettor}'s backline behind seat ${seat.seat}`,
          onclick: () => tap({ type: "backline_withdraw", seat: seat.seat, bettor: b.bettor }) }, "Withdraw") : null))));
  }

  // "Add a backline": the bettor's id, the Ante (the Blind equals it) and Trips where the
  // table's backline takes it. The engine checks who may bet and the limits.
  function backlineForm(seat, offer, waiting) {
    const n = seat.seat;
    const draft = backlineDrafts[n] || (backlineDrafts[n] = { bettor: "", ante: "", trips: "", open: false });
    const field = (name, label, extra = {}) => h("input", { name, value: draft[name], "aria-label": `${label} behind seat ${n}`,
      oninput: (e) => { draft[name] = e.target.value; }, ...extra });
    const submit = (e) => {
      e.preventDefault();
      const bettor = draft.bettor.trim();
      const ante = toCents(draft.ante);
      const trips = offer.trips && String(draft.trips).trim() !== "" ? toCents(draft.trips) : 0;
      if (!bettor) return; // the field is required: the browser asks for it
      if (ante === null || trips === null) { showError("invalid_amount"); return; }
      Object.assign(draft, { bettor: "", ante: "", trips: "", open: false }); // one backline at a time
      tap({ type: "backline_wager", seat: n, bettor, ante, ...(trips ? { trips } : {}) });
    };
    return h("details", { class: "backline-add", open: draft.open, ontoggle: (e) => { draft.open = e.target.open; } },
      h("summary", {}, "Add a backline"),
      h("form", { class: "inline backline-form", onsubmit: submit },
        h("label", {}, "Bettor ", field("bettor", "Backline bettor", { placeholder: "Bettor id", required: true })),
        h("label", {}, "Ante $", field("ante", "Backline Ante", { inputmode: "decimal", required: true })),
        offer.trips ? h("label", {}, "Trips $", field("trips", "Backline Trips", { inputmode: "decimal", placeholder: "none" })) : null,
        h("button", { type: "submit", disabled: waiting }, "Add backline")));
  }

  function seatActions(seat) {
    if (!isTablet) return null;
    const out = [];
    const n = seat.seat;
    const waiting = queuedAt(n).length > 0; // a tap on its way: no second one
    for (const a of seat.actions) {
      if (a.type === "sit") {
        const input = h("input", { name: "player", placeholder: "Player id or name", "aria-label": `Player for seat ${n}` });
        // A third-party proposition player sits with the Commission badge, the TPPPS
        // company and the licence's expiry (the engine checks one per table, not expired).
        const tppp = {
          badge: h("input", { name: "badge", placeholder: "Badge no.", "aria-label": `TPPP badge for seat ${n}` }),
          company: h("input", { name: "company", placeholder: "TPPPS company", "aria-label": `TPPP company for seat ${n}` }),
          expires: h("input", { name: "expires", type: "date", "aria-label": `TPPP licence expiry for seat ${n}` }),
        };
        out.push(h("form", { class: "inline", onsubmit: (e) => {
          e.preventDefault();
          if (!input.value.trim()) return;
          const command = { type: "sit", seat: n, player: input.value.trim() };
          if (tppp.badge.value.trim()) {
            command.tppp = { badge: tppp.badge.value.trim(), company: tppp.company.value.trim(), expires: tppp.expires.value };
          }
          tap(command);
        } }, input, h("button", { type: "submit" }, "Sit"),
          h("details", { class: "tppp-fields" }, h("summary", {}, "Seat as TPPP"), tppp.badge, tppp.company, tppp.expires)));
      } else if (a.type === "leave" || a.type === "withdraw") {
        const command = { type: a.type, seat: n };
        out.push(a.type === "leave"
          ? h("button", { class: "quiet leave", disabled: waiting, onclick: () => confirmThen(command,
            `Seat ${n} (${seat.player}) leaves the table?`, "The seat is freed for another player.", "Leave the table") }, "Leave")
          : h("button", { class: "quiet", disabled: waiting, onclick: () => tap(command) }, "Withdraw"));
      } else if (a.type === "wager") {
        out.push(wagerForm(seat, waiting));
      } else if (a.type === "backline_wager") {
        out.push(backlineForm(seat, a, waiting));
      } else if (decidesNow(seat) && !waiting) {
        let label = a.type === "check" ? "Check" : a.type === "fold" ? "Fold" : `Play ${a.multiple}× (${money(seat.play_amounts[a.multiple])})`;
        // The bettors behind the seat follow its decision (the engine carries it).
        if (seat.backlines.length) label += ` · with ${seat.backlines.length} backline${seat.backlines.length === 1 ? "" : "s"}`;
        out.push(h("button", { class: `decision ${a.type}`, onclick: () => tap({ ...a, seat: n }) }, label));
      }
    }
    return out.length ? h("div", { class: "actions" }, ...out) : null;
  }

  // Ante presets (from the table's limits, tables.selectors.posted_rules): one tap bets it,
  // with the Trips typed (if any). A typed Ante and "Bet" for any other amount.
  function wagerForm(seat, waiting) {
    const n = seat.seat;
    const limits = page.posted.limits;
    const draft = drafts[n] || (drafts[n] = {
      ante: seat.wager ? seat.wager.ante / 100 : (limits.ante_min || page.posted.ante_presets[0]) / 100,
      trips: seat.wager && seat.wager.trips ? seat.wager.trips / 100 : "",
      ...sideBetDraft(seat.wager),
    });
    const submit = (anteText) => {
      const a = toCents(anteText);
      const t = String(draft.trips).trim() === "" ? 0 : toCents(draft.trips);
      const side = sideBetFields(draft);
      if (a === null || t === null || side === null) { showError("invalid_amount"); return; }
      // The Blind is left out: the engine makes it equal to the Ante.
      tap({ ...(t ? { type: "wager", seat: n, ante: a, trips: t } : { type: "wager", seat: n, ante: a }), ...side });
    };
    const ante = h("input", { name: "ante", inputmode: "decimal", value: draft.ante, "aria-label": `Ante for seat ${n}`,
      oninput: (e) => { draft.ante = e.target.value; } });
    const trips = h("input", { name: "trips", inputmode: "decimal", value: draft.trips, placeholder: "none",
      "aria-label": `Trips for seat ${n}`, oninput: (e) => { draft.trips = e.target.value; } });
    const presets = page.posted.ante_presets.slice(0, 4).map((cents) => h("button", {
      type: "button", class: "preset", disabled: waiting, "data-ante": cents,
      onclick: () => { draft.ante = cents / 100; submit(String(cents / 100)); },
    }, money(cents).replace(".00", "")));
    return h("form", { class: "wager", onsubmit: (e) => { e.preventDefault(); submit(draft.ante); } },
      h("div", { class: "presets" }, ...presets),
      h("label", {}, "Ante $", ante), h("label", {}, "Trips $", trips), ...sideBetInputs(n, draft),
      h("button", { type: "submit", class: "primary", disabled: waiting }, seat.wager ? "Change" : "Bet"));
  }

  // --- side bets (game-rules 10): only those the table offers (its posted rules) --------
  const offered = () => page.posted.side_bets || {};
  const SIDE_AMOUNTS = [["bad_beat", "Bad Beat"], ["pairs", "Pairs"]];
  function sideBetDraft(w) {
    const draft = {};
    for (const [name] of SIDE_AMOUNTS) draft[name] = w && w[name] ? w[name] / 100 : "";
    draft.progressive = Boolean(w && w.progressive);
    return draft;
  }
  // The side bets typed, as command fields; null when an amount is not a sum of money.
  function sideBetFields(draft) {
    const fields = {};
    for (const [name] of SIDE_AMOUNTS) {
      if (!offered()[name] || String(draft[name]).trim() === "") continue;
      const cents = toCents(draft[name]);
      if (cents === null) return null;
      fields[name] = cents;
    }
    if (offered().progressive && draft.progressive) fields.progressive = true;
    return fields;
  }
  function sideBetInputs(n, draft) {
    const inputs = SIDE_AMOUNTS.filter(([name]) => offered()[name]).map(([name, label]) => h("label", {}, `${label} $`,
      h("input", { name, inputmode: "decimal", value: draft[name], placeholder: "none", "aria-label": `${label} for seat ${n}`,
        oninput: (e) => { draft[name] = e.target.value; } })));
    if (offered().progressive) {
      inputs.push(h("label", { class: "progressive" }, h("input", { type: "checkbox", name: "progressive", checked: draft.progressive,
        "aria-label": `Progressive for seat ${n}`, onchange: (e) => { draft.progressive = e.target.checked; } }),
        ` Progressive ${money(offered().progressive.wager)}`));
    }
    return inputs;
  }

  const SEAT_PARTS = [seatHead, seatWagers, seatDecision, seatHole, seatBacklines, seatQueued, seatActions];

  // Seats are redrawn only when what they show changed: a seat the dealer is typing in
  // keeps its inputs and focus while another seat's tap is answered.
  const seatDrawn = new Map(); // seat -> signature of what it shows
  function renderSeats() {
    const container = $("seats");
    const round = game().round;
    for (const seat of view().seats) {
      const signature = JSON.stringify([seat, queuedAt(seat.seat).map((e) => e.id), status === "open",
        showHoles(), decidesNow(seat), round && round.number]);
      let el = container.querySelector(`:scope > .seat[data-seat="${seat.seat}"]`);
      if (el && seatDrawn.get(seat.seat) === signature) continue;
      const w = seat.wager;
      const fresh = h("div", {
        class: `seat ${seat.player ? "" : "empty"} ${seat.role || ""} ${decidesNow(seat) ? "owes" : ""} ${w && w.folded ? "folded" : ""}`,
        "data-seat": seat.seat,
      }, ...SEAT_PARTS.map((part) => part(seat)));
      if (el) el.replaceWith(fresh); else container.append(fresh);
      seatDrawn.set(seat.seat, signature);
    }
  }

  // --- a tap that cannot be taken back is asked twice ---------------------------------------
  // Leaving, passing the bank and every seat declining change who plays or banks (the last
  // stops the game): the tablet asks before it sends them, in a dialog sized for a finger.
  function confirmThen(command, question, consequence, go) {
    let dialog = $("confirm-dialog");
    if (!dialog) { dialog = h("dialog", { id: "confirm-dialog", class: "confirm" }); app.append(dialog); }
    dialog.replaceChildren(h("form", { method: "dialog" },
      h("h2", {}, question), h("p", {}, consequence),
      h("menu", {}, h("button", { value: "cancel", class: "secondary" }, "Cancel"),
        h("button", { value: "go", class: "danger go" }, go))));
    dialog.onclose = () => { if (dialog.returnValue === "go") tap(command); dialog.returnValue = ""; };
    dialog.showModal();
  }

  // --- the next action ----------------------------------------------------------------
  function button(label, command, cls = "primary") {
    return h("button", { class: cls, onclick: () => tap(command) }, label);
  }
  const say = (text) => h("p", { class: "instruction" }, text);

  // One function per step of view.next (tables/selectors.py, _next_step): what to say
  // and which buttons to offer. Each returns a list of elements.
  const STEPS = {
    offer(next) {
      // Every seat to ask, in order (view.next.walk: under the rotation policy the
      // player-dealer is asked last); the seat asked now answers here.
      const order = (next.walk || [next.seat]).map((s, i) => h("li", { class: i === 0 ? "asked" : "", "data-seat": s },
        `Seat ${s} (${playerAt(s)})${i === 0 ? " · asked now" : ""}`));
      return [say(`The bank is offered to seat ${next.seat} (${playerAt(next.seat)}).`),
        h("ol", { class: "offer-walk" }, ...order),
        h("div", { class: "row wrap" }, button(`Seat ${next.seat} accepts`, { type: "accept_bank", seat: next.seat }),
          button(`Seat ${next.seat} declines`, { type: "decline_bank", seat: next.seat }, "secondary"),
          next.everyone_declines ? h("button", { class: "secondary everyone-declines", onclick: () => confirmThen(next.everyone_declines,
            `Seats ${next.walk.join(", ")} all decline the bank?`,
            "Nobody is left to bank: the game stops until the bank is offered again.", "Everyone declines: stop the game") },
          `Everyone else declines (seats ${next.walk.join(", ")})`) : null)];
    },
    game_ended() {
      return [say("The game has ended: no player other than the TPPP banked within the rotation window. A supervisor starts a new game; then offer the bank again."),
        h("button", { class: "secondary start-game", onclick: () => openSupervisorDialog({ type: "start_game" }, "The rotation window ended the game.") },
          "Supervisor starts a new game…")];
    },
    stopped(next) { return STEPS.choose_player_dealer(next); },
    choose_player_dealer(next) {
      const out = [say(next.step === "stopped"
        ? "Game stopped: every seat declined the bank. Offer it again to restart."
        : "Choose the seat the bank is offered to first (e.g. by high card).")];
      if (!view().eligible_to_bank.length) out.push(say("Seat players first."));
      out.push(h("div", { class: "row wrap" }, ...view().eligible_to_bank.map((s) =>
        button(`Offer to seat ${s} (${playerAt(s)})`, { type: "offer_bank", seat: s }, "secondary"))));
      return out;
    },
    wait_for_players() { return [say("Seat at least one player besides the player-dealer.")]; },
    open_round() {
      const rot = game().rotation;
      const bank = h("input", { name: "bank", inputmode: "decimal", value: localStorage.getItem("cardroom.bank") || "1000", "aria-label": "Bank" });
      return [say(`Seat ${rot.pd_seat} (${rot.pd_player}) banks the next round. Enter the bank the player-dealer posts.`),
        h("form", { class: "row", onsubmit: (e) => {
          e.preventDefault();
          const cents = toCents(bank.value);
          if (cents === null) { showError("invalid_amount"); return; }
          localStorage.setItem("cardroom.bank", bank.value);
          tap({ type: "open_round", bank: cents });
        } }, h("label", {}, "Bank $", bank), h("button", { type: "submit", class: "primary" }, "Open round")),
        h("div", { class: "row" }, h("button", { class: "secondary pass-bank", onclick: () => confirmThen({ type: "pass_bank" },
          `Seat ${rot.pd_seat} (${rot.pd_player}) passes the bank?`,
          "The bank is offered to the next seat clockwise; they do not bank the next round.", "Pass the bank") }, "Pass the bank"))];
    },
    take_wagers() { return [say("Take the wagers at each seat: tap an Ante (the Blind equals it), with Trips typed first if any.")]; },
    no_more_bets() {
      return [say(`${Object.keys(game().round.seats).length} player(s) wagered. More may still bet at their seats.`),
        progressiveDrop(), button("No more bets", { type: "no_more_bets" })];
    },
    deal(next) {
      return [collectionPanel(), progressiveDrop(),
        say("Deal: let the software shuffle, enter the shuffler's sequence, or deal by hand."),
        h("div", { class: "row wrap" }, button("Shuffle and deal", { type: "deal" }),
          h("button", { class: "secondary", onclick: () => openSequencePicker(next.cards) }, `Enter shuffler sequence (${next.cards} cards)`),
          button("Dealt by hand: take decisions", { type: "deal_by_hand" }, "secondary deal-by-hand"))];
    },
    decisions(next) {
      const out = [say(`Waiting for decisions: seat${next.pending.length > 1 ? "s" : ""} ${next.pending.join(", ")}.`)];
      const sending = next.pending.some((n) => queuedAt(n).length);
      if (next.check_all && next.check_all.length > 1 && !sending) {
        out.push(h("button", { class: "secondary check-all", onclick: () => tapAll(next.check_all) },
          `Everyone checks (seats ${next.pending.join(", ")})`));
      }
      return out;
    },
    flop(next) { return revealStep(next, "Flop"); },
    turn_river(next) { return revealStep(next, "Turn and river"); },
    showdown(next) { return revealStep(next, "Showdown"); },
    confirm_award(next) {
      return [say("A progressive award is a percentage of the meter: a supervisor confirms it (on the floor dashboard, or here with their own username and password) before the round settles."),
        ...next.awards.map((a) => h("div", { class: "row award", "data-seat": a.seat },
          h("span", {}, awardText(a)),
          h("button", { class: "secondary", onclick: () => openSupervisorDialog({ type: "confirm_award", seat: a.seat }, awardText(a)) },
            `Supervisor confirms seat ${a.seat}…`)))];
    },
    settle() {
      const preview = view().settlement_preview;
      return [say("Check the settlement below, then settle."),
        preview ? h("p", { class: "bank-left" }, `Player-dealer net ${money(preview.pd_net)} · bank left ${money(preview.balance)}`) : null,
        h("div", { class: "row" }, button("Settle", { type: "settle" }),
          view().picker ? h("button", { class: "secondary", onclick: () => openRevealPicker(view().picker) }, "Correct hole cards") : null)];
    },
  };

  function revealStep(next, label) {
    const need = view().picker;
    if (need) {
      return [say(`${label}: enter the cards.`),
        h("button", { class: "primary", onclick: () => openRevealPicker(need) }, `Enter ${label.toLowerCase()} cards`)];
    }
    return [say(`${label}: reveal the dealt cards.`), button(label, { type: next.step })];
  }

  // Where the progressive wagers go: into the table's jackpot box (snapshot.boxes, placed
  // with the configuration that switched the progressive on), never the fee box.
  function progressiveDrop() {
    const seats = Object.values(game().round.seats).filter((s) => s.progressive);
    if (!seats.length) return null;
    const total = seats.reduce((sum, s) => sum + s.progressive, 0);
    const box = (snapshot.boxes || {}).jackpot;
    return h("p", { class: "progressive-drop", "data-box": box || "" },
      h("strong", {}, `Progressive ${money(total)}`), ` (seat${seats.length > 1 ? "s" : ""} ${seats.map((s) => s.seat).join(", ")}): `,
      box ? `drop the chips into jackpot box ${box}.` : h("span", { class: "alert" }, "no jackpot box is placed: call a supervisor."));
  }

  // The fees the round owes (assessed by the engine at "no more bets", in seat order, the
  // order the dealer walks the table), with their total.
  function collectionPanel() {
    const fees = (game().round || {}).fees || [];
    if (!fees.length) return null;
    const total = fees.reduce((sum, f) => sum + f.amount, 0);
    return h("div", { class: "collect-fees" }, h("h3", {}, `Collect the fees · ${money(total)} in all`),
      h("table", { class: "grid compact" }, h("tbody", {}, ...fees.map((f) => h("tr", { "data-seat": f.seat, "data-payer": f.payer },
        h("td", {}, `Seat ${f.seat}`), h("td", {}, f.payer === "player_dealer" ? `${f.player} (player-dealer)` : f.player),
        h("td", { class: "num" }, money(f.amount)))))));
  }

  function renderNext() {
    const next = view().next;
    // The card picker takes a wider column, one row per suit: all 52 cards and "Confirm
    // cards" above the fold of a 1280x800 tablet.
    app.classList.toggle("picking", Boolean(picker));
    const box = picker ? [renderPicker()] : (STEPS[next.step] || (() => []))(next);
    if (isTablet && !picker) box.push(voidPanel());
    const shown = box.filter((el) => el && (isTablet || el.classList.contains("instruction")));
    $("next").replaceChildren(h("div", { class: "next-head" }, h("h2", {}, "Next"),
      isTablet ? h("button", { class: "quiet rules-button", onclick: openRules }, "Table rules") : null), ...shown);
  }
  // --- the 52-card picker ------------------------------------------------------------
  function openRevealPicker(need) {
    if (need.command === "showdown") {
      const labels = [];
      for (const who of need.hands) {
        const name = who === "player_dealer" ? "Player-dealer" : `Seat ${who}`;
        labels.push(`${name} card 1`, `${name} card 2`);
      }
      openPicker("Showdown: hole cards", labels, (cards) => {
        const hands = {};
        need.hands.forEach((who, i) => { if (who !== "player_dealer") hands[String(who)] = cards.slice(2 * i, 2 * i + 2); });
        return { type: "showdown", player_dealer: cards.slice(0, 2), hands };
      }, game().round.community);
    } else {
      const name = need.command === "flop" ? "Flop" : "Turn and river";
      const labels = Array.from({ length: need.count }, (_, i) => `${name} card ${i + 1}`);
      openPicker(name, labels, (cards) => ({ type: need.command, cards }), view().used_cards);
    }
  }

  function openSequencePicker(count) {
    const labels = Array.from({ length: count }, (_, i) => `Card ${i + 1}`);
    openPicker(`Shuffler sequence (${game().config.dealing} order)`, labels, (cards) => ({ type: "deal", cards }), []);
  }

  // `blocked`: cards the picker disables (already in play). At showdown only the board:
  // hole cards entered before may be entered again to correct them.
  function openPicker(title, labels, build, blocked) {
    picker = { title, labels, cards: [], build, blocked: new Set(blocked) };
    renderNext();
  }

  function renderPicker() {
    const p = picker;
    const chosen = new Set(p.cards);
    const slots = p.labels.map((label, i) => h("button", {
      class: `slot ${i === p.cards.length ? "active" : ""}`, "aria-label": label,
      onclick: () => { if (i < p.cards.length) { p.cards.splice(i, 1); renderNext(); } },
    }, h("span", { class: "slot-label" }, label), p.cards[i] ? cardEl(p.cards[i]) : ""));
    const grid = [];
    for (const s of "shdc") {
      for (const r of "AKQJT98765432") {
        const c = r + s;
        grid.push(h("button", {
          class: "pick", "data-card": c, disabled: p.blocked.has(c) || chosen.has(c) || p.cards.length >= p.labels.length,
          "aria-label": c, onclick: () => { p.cards.push(c); renderNext(); },
        }, cardEl(c)));
      }
    }
    const done = p.cards.length === p.labels.length;
    return h("div", { class: "picker" }, h("h3", {}, p.title), h("div", { class: "slots" }, ...slots),
      h("div", { class: "card-grid" }, ...grid),
      h("div", { class: "row" },
        h("button", { class: "primary", disabled: !done, onclick: () => { const cmd = p.build(p.cards); picker = null; tap(cmd); } }, "Confirm cards"),
        h("button", { class: "secondary", onclick: () => { picker = null; renderNext(); } }, "Cancel")));
  }

  // --- settlement ---------------------------------------------------------------------
  // Each line of the engine's settlement as one thing the dealer does: Collect, Pay,
  // Return (a win-capped or no-action wager goes back to the player), or Push.
  function lineAction(line) {
    switch (line.result) {
      case "win":
        return { verb: "Pay", kind: "pay", amount: line.amount, note: line.uncovered ? `${money(line.uncovered)} uncovered (bank exhausted)` : "" };
      case "lose":
        if (line.amount === 0) return { verb: "Return", kind: "return", amount: line.stake, note: "win cap" };
        return { verb: "Collect", kind: "collect", amount: line.amount, note: line.uncovered ? `return ${money(line.uncovered)} (win cap)` : "" };
      case "push":
        return { verb: "Push", kind: "push", amount: null, note: "stake stays" };
      default:
        return { verb: "Return", kind: "return", amount: line.stake, note: "no action (bank exhausted)" };
    }
  }

  // Each seat's total, in the engine's order (the first line of each seat): what to pay or
  // collect in all, and beside it every sum the net leaves out, so that no money hides in
  // the collapsed lines: what the exhausted bank could not pay (uncovered), the wagers
  // handed back (no action, win cap) and the fee refunded. Integer cents throughout.
  function seatTotals(s) {
    const order = [...new Set(s.lines.map((l) => l.seat))];
    const rank = (seat) => (order.includes(seat) ? order.indexOf(seat) : order.length); // a seat with no line last
    const seats = [...s.seats].sort((a, b) => rank(a.seat) - rank(b.seat));
    const refunds = new Map((s.fee_refunds || []).filter((f) => !isBackline(f)).map((f) => [f.seat, f.amount]));
    return seats.map((seat) => ({
      ...totalOf(seat.net, s.lines.filter((l) => l.seat === seat.seat && !isBackline(l))),
      seat, refund: refunds.get(seat.seat) || 0,
      // The bettors behind the seat, in the order they first wagered (the engine's `backline`).
      backlines: (s.backline || []).filter((b) => b.seat === seat.seat).map((b) => ({
        bettor: b, refund: ((s.fee_refunds || []).find((f) => f.seat === b.seat && isBackline(f) && sameBettor(f, b)) || {}).amount || 0,
        ...totalOf(b.net, s.lines.filter((l) => l.seat === b.seat && isBackline(l) && sameBettor(l, b))),
      })),
    }));
  }

  // One spot's total from its net and its lines: a seat's player's own, or a bettor's.
  function totalOf(net, mine) {
    const uncovered = mine.filter((l) => l.result === "win").reduce((sum, l) => sum + (l.uncovered || 0), 0);
    // Handed back: a whole stake (no action, or a win-capped wager that collects nothing)
    // and the part of a losing wager the win cap returns.
    const returned = mine.reduce((sum, l) => {
      const action = lineAction(l);
      if (action.kind === "return") return sum + action.amount;
      return l.result === "lose" ? sum + (l.uncovered || 0) : sum;
    }, 0);
    const action = net > 0 ? { verb: "Pay", kind: "pay", amount: net }
      : net < 0 ? { verb: "Collect", kind: "collect", amount: -net }
      : returned ? { verb: "Return", kind: "return", amount: returned } : { verb: "Push", kind: "push", amount: null };
    const notes = [];
    if (uncovered) notes.push(`${money(uncovered)} uncovered (bank exhausted)`);
    if (returned && action.kind !== "return") notes.push(`return ${money(returned)}`);
    return { action, uncovered, returned, notes };
  }

  const doCell = (action, note) => h("td", { class: `do ${action.kind}` },
    h("span", { class: "verb" }, action.verb), action.amount !== null ? ` ${money(action.amount)}` : "",
    note ? h("span", { class: "note" }, ` · ${note}`) : null);

  function settlementView(s, kind) {
    const pd = s.player_dealer;
    const totals = seatTotals(s).flatMap(({ seat, action, refund, uncovered, returned, notes, backlines }) => [h("tr", {
      class: `total ${action.kind}`, "data-seat": seat.seat, "data-uncovered": uncovered, "data-returned": returned },
      h("td", { class: "who" }, h("strong", {}, `Seat ${seat.seat}`), " ", h("span", { class: "player-name" }, seat.player)),
      h("td", { class: "hand" }, seat.folded || !seat.hand ? "folded" : HAND[seat.hand]),
      doCell(action, [...notes, refund ? `refund fee ${money(refund)}` : ""].filter(Boolean).join(" · "))),
      // Under the seat, each bettor behind it, named, with their own lines in order.
      ...backlines.map((b) => backlineTotal(s, seat, b))]);
    const lines = s.lines.map((line, i) => h("tr", { class: `line ${lineAction(line).kind} ${isBackline(line) ? "backline" : ""}`,
      "data-seat": line.seat, "data-bettor": isBackline(line) ? bettorName(line) : null },
      h("td", { class: "num" }, i + 1), h("td", {}, isBackline(line) ? `Seat ${line.seat} · behind: ${bettorName(line)}` : `Seat ${line.seat}`), h("td", {}, line.wager),
      h("td", { class: "num" }, money(line.stake)), doCell(lineAction(line), lineAction(line).note)));
    const refunds = s.fee_refunds || [];
    return h("div", { class: `settlement ${kind}`, "data-round": s.round },
      h("p", { class: "pd-result" }, `Player-dealer seat ${pd.seat} (${pd.player}): ${HAND[pd.hand]}${pd.qualifies ? "" : ", does not qualify"}.`),
      h("table", { class: "grid totals" },
        h("thead", {}, h("tr", {}, ...["Seat", "Hand", "Do (in all)"].map((t) => h("th", {}, t)))),
        h("tbody", {}, ...totals)),
      h("p", { class: "bank-left" }, `Bank ${money(s.bank)} · player-dealer net ${money(s.pd_net)} · bank left ${money(s.balance)}`,
        s.exhausted ? h("strong", { class: "alert" }, " · bank exhausted") : ""),
      refunds.length ? h("p", { class: "refunds" }, "Refund collection fees: ", refunds.map((f) => `seat ${f.seat} ${money(f.amount)}`).join(", ")) : null,
      progressiveView(s),
      h("details", { class: "lines-detail" }, h("summary", {}, `Every wager in order (${s.lines.length} lines)`),
        h("table", { class: "grid lines" },
          h("thead", {}, h("tr", {}, ...["#", "Seat", "Wager", "Stake", "Do"].map((t) => h("th", {}, t)))),
          h("tbody", {}, ...lines))));
  }

  // A bettor's row under the seat (the seat's hand is theirs), then their lines in order.
  function backlineTotal(s, seat, { bettor, action, refund, notes }) {
    const mine = s.lines.filter((l) => l.seat === seat.seat && isBackline(l) && sameBettor(l, bettor));
    return h("tr", { class: `total backline ${action.kind}`, "data-seat": seat.seat, "data-bettor": bettorName(bettor) },
      h("td", { class: "who" }, `↳ behind seat ${seat.seat}: `, h("strong", { class: "bettor" }, bettorName(bettor))),
      h("td", { class: "backline-lines" }, ...mine.map((l) => h("span", { class: `line ${lineAction(l).kind}`, "data-wager": l.wager },
        `${l.wager} ${lineAction(l).verb.toLowerCase()}${lineAction(l).amount !== null ? ` ${money(lineAction(l).amount)}` : ""}`)).flatMap((el, i) => (i ? [" · ", el] : [el]))),
      doCell(action, [...notes, refund ? `refund fee ${money(refund)}` : ""].filter(Boolean).join(" · ")));
  }

  // The progressive is paid from its fund, not by the player-dealer: highest seat first.
  const AWARD = {
    royal_first_five: "royal flush in the first five cards (100% of the meter)",
    royal_seven: "royal flush with a hole card (5% of the meter)",
    community_royal: "community royal flush", straight_flush: "straight flush",
    four_of_a_kind: "four of a kind", full_house: "full house",
  };
  function progressiveView(s) {
    if (!s.progressive) return null;
    // A withheld award (a self-excluded patron) is not paid: the fund keeps it, the floor is told.
    const rows = s.progressive.map((a) => h("tr", { class: a.withheld ? "award withheld" : "award", "data-seat": a.seat },
      h("td", {}, `Seat ${a.seat}`), h("td", {}, AWARD[a.hand]), h("td", { class: "num" }, money(a.award)),
      h("td", {}, a.withheld ? h("strong", { class: "alert" }, "withheld: not paid, the fund keeps it; the floor has been alerted")
        : a.owed ? h("strong", { class: "alert" }, `${money(a.owed)} owed: the fund could not pay it`) : "paid from the fund")));
    return h("div", { class: "progressive" },
      h("h3", {}, `Progressive · meter ${s.meter.name} ${money(s.meter.meter)} after the round`),
      rows.length ? h("table", { class: "grid compact" }, h("tbody", {}, ...rows)) : h("p", {}, "No progressive award this round."));
  }

  function renderPreview() {
    const el = $("preview");
    const preview = view().settlement_preview;
    el.hidden = !preview;
    if (preview) el.replaceChildren(h("h2", {}, `Settlement preview · round ${preview.round}`), settlementView(preview, "preview"));
  }

  function renderSettlement() {
    const el = $("settlement");
    const show = settled && !game().round;
    el.hidden = !show;
    if (!show) return;
    const next = settled.next_offer
      ? `Next: the bank is offered to seat ${settled.next_offer}.`
      : settled.player_dealer_next ? `Next: seat ${settled.player_dealer_next} may bank again or pass.` : "";
    el.replaceChildren(h("div", { class: "panel settle-panel" },
      h("div", { class: "settle-head" }, h("h2", {}, `Settlement · round ${settled.round}`),
        next ? h("span", { class: "instruction" }, next) : null,
        h("button", { class: "primary done", onclick: () => { keepSettlement(null); render(); } }, "Done")),
      settlementView(settled, "final")));
  }

  // --- the table's posted rules -----------------------------------------------------------
  function openRules() {
    const p = page.posted;
    const t = page.posted_text;
    const range = (low, high) => `${low ? money(low) : "no minimum"} to ${high ? money(high) : "no maximum"}`;
    const odds = (rows) => h("table", { class: "grid compact" }, h("tbody", {}, ...rows.map((r) =>
      h("tr", {}, h("td", {}, HAND[r.hand] || r.hand), h("td", { class: "num" }, r.pays)))));
    let dialog = $("rules-dialog");
    if (!dialog) { dialog = h("dialog", { id: "rules-dialog", class: "rules" }); app.append(dialog); }
    const fees = p.fees;
    dialog.replaceChildren(h("h2", {}, "Table rules, as posted"),
      h("div", { class: "rules-grid" },
        h("section", {}, h("h3", {}, "Limits"),
          h("p", {}, `Ante (= Blind): ${range(p.limits.ante_min, p.limits.ante_max)}`),
          h("p", {}, `Trips: ${range(p.limits.trips_min, p.limits.trips_max)}`),
          h("p", {}, `A player-dealer banks at most ${p.max_consecutive_banks} round${p.max_consecutive_banks > 1 ? "s" : ""} in a row.`)),
        h("section", {}, h("h3", {}, `Blind pays (${p.paytable.name})`), odds(p.paytable.blind)),
        h("section", {}, h("h3", {}, "Trips pays"), odds(p.paytable.trips)),
        h("section", {}, h("h3", {}, "Collection fees"), fees
          ? [h("p", {}, `Paid by ${t[fees.payers]}; a player's fee on ${t[fees.player_basis]}, the player-dealer's ${t[fees.pd_basis]}.`),
            h("table", { class: "grid compact" },
              h("thead", {}, h("tr", {}, h("th", {}, "Wager"), h("th", { class: "num" }, "Player"), h("th", { class: "num" }, "Player-dealer"))),
              h("tbody", {}, ...fees.rates.map((r) => h("tr", {}, h("td", {}, `${money(r.min)}–${money(r.max)}`),
                h("td", { class: "num" }, money(r.player_fee)), h("td", { class: "num" }, money(r.pd_fee))))))]
          : h("p", {}, "No collection fee at this table."))),
      h("form", { method: "dialog" }, h("button", { class: "primary" }, "Close")));
    dialog.showModal();
  }

  // --- a supervisor's own command, here ------------------------------------------------------
  // A progressive award's confirmation and a new game after the rotation window ended it
  // are a supervisor's own acts. As a void is approved here, a supervisor at the table types
  // their own username and password (never the tablet's session) and the command runs under
  // their name. The tablet sees it as the table's next event. Not in the outbox (it carries
  // a password): sent at once, and kept and sent again if the server fails (callServer).
  const awardText = (a) => `Seat ${a.seat}: ${AWARD[a.hand]} · ${money(a.award)} on the meter as it stands`;
  const BY_SUPERVISOR = {
    confirm_award: { go: "Confirm the award", done: "Award confirmed",
      detail: (command, result) => `Seat ${command.seat}: confirmed by ${result.award.approved_by}.`,
      why: "A supervisor at the table confirms this award with their own username and password; it is recorded under their name." },
    start_game: { go: "Start a new game", done: "New game started",
      detail: (command, result, username) => `Started by ${username}: offer the bank again.`,
      why: "A supervisor at the table starts a new game with their own username and password; it is recorded under their name. Then offer the bank again." },
  };
  let supervisorCommand = null;
  function openSupervisorDialog(command, what) {
    const dialog = $("supervisor-dialog");
    dialog.querySelector("form").reset();
    supervisorCommand = command;
    $("supervisor-what").textContent = what;
    $("supervisor-why").textContent = BY_SUPERVISOR[command.type].why;
    $("supervisor-go").textContent = BY_SUPERVISOR[command.type].go;
    dialog.showModal();
  }

  function commandBySupervisorHere(command, username, password) {
    // One id for every attempt: a command the server applied but whose answer was lost is
    // answered again from its record when resent, never applied twice (tables.services).
    const sent = { ...command, id: newId() };
    const what = command.type === "confirm_award" ? "the award's confirmation" : "the new game";
    callServer(`/api/tables/${page.table}/commands/confirmed-here`, { command: sent, approver: { username, password } }, what, (answer) => {
      const result = answer.result || answer; // the command's answer, or the credentials' refusal
      if (!result.ok) { showError(result.error.code, result.error.message); return; }
      const done = BY_SUPERVISOR[command.type];
      message = { kind: "info", title: done.done, detail: done.detail(command, result, username), after: tapCount };
      render();
    });
  }

  // --- calls that need the server there and then -----------------------------------------
  // A void request and a supervisor's command here are not taps in the outbox: they carry
  // a supervisor's password, which is kept in this page's memory only, never in storage.
  // A refusal (4xx, with its code) is shown in the dealer's words and not sent again. A
  // server failure (5xx) or a lost connection is no refusal: nothing was decided, so, as
  // for a tap, the call is kept and sent again after a growing wait, and the dealer is told
  // the server failed. One such call at a time; "Stop trying" drops it.
  let serverCall = null; // {url, body, what, onAnswer, attempts, timer}
  function callServer(url, body, what, onAnswer) {
    if (serverCall) clearTimeout(serverCall.timer);
    serverCall = { url, body, what, onAnswer, attempts: 0, timer: null };
    sendCall(serverCall);
  }

  function sendCall(call) {
    call.attempts += 1;
    fetch(call.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken },
      body: JSON.stringify(call.body),
      credentials: "same-origin",
    }).then(async (response) => {
      const answer = await response.json().catch(() => null);
      if (serverCall !== call) return; // stopped meanwhile
      const error = (answer && answer.error) || {};
      if (response.status >= 500 || error.code === "server_error") {
        const reference = error.reference ? `, error reference ${error.reference}` : "";
        callFailed(call, `the server answered HTTP ${response.status}${reference}`);
        return;
      }
      endCall();
      if (!answer) { showError("", `HTTP ${response.status}`); return; }
      call.onAnswer(answer);
    }, () => callFailed(call, "no answer from the server (the connection failed)"));
  }

  function callFailed(call, why) {
    if (serverCall !== call) return;
    const wait = Math.min(1000 * 2 ** (call.attempts - 1), RETRY_MAX_MS);
    message = {
      kind: "error", code: "server_error", after: tapCount, stop: true,
      title: "The server failed: nothing was refused",
      detail: `Sending ${call.what}, ${why}. It is kept and sent again in ${Math.round(wait / 1000)} s (attempt ${call.attempts + 1})`,
    };
    render();
    call.timer = setTimeout(() => { if (serverCall === call) sendCall(call); }, wait);
  }

  function endCall() {
    if (serverCall) clearTimeout(serverCall.timer);
    serverCall = null;
    if (message && message.stop) message = null;
  }

  // --- void ------------------------------------------------------------------------------
  // A void needs a second person. The dealer sends the request to the supervisors (their
  // queue and the floor dashboard); one approves on their own device and the round is
  // voided at once: the tablet sees the void as the table's next event and the decision by
  // polling the request. Or a supervisor at the table approves here with their own
  // credentials (never the tablet's session). Not in the outbox: sent at once, and kept and
  // sent again if the server fails (callServer).
  const VOID_KEY = mine("void");
  let voidRequest = JSON.parse(localStorage.getItem(VOID_KEY) || "null"); // {approval, round}
  function keepVoidRequest(request) {
    voidRequest = request;
    if (request) localStorage.setItem(VOID_KEY, JSON.stringify(request));
    else localStorage.removeItem(VOID_KEY);
  }

  // The pending request is the table's (snapshot.void_request, tables.selectors.pending_void):
  // every browser of the table shows it, and follows its fate as the one that asked does.
  function voidPanel() {
    const pending = snapshot.void_request;
    if (pending && (!voidRequest || voidRequest.approval !== pending.approval)) {
      keepVoidRequest({ approval: pending.approval, round: pending.round });
    }
    const shown = pending || voidRequest;
    if (shown) {
      return h("div", { class: "void-request", "data-approval": shown.approval },
        h("strong", {}, "Void requested"), ` for round ${shown.round}${pending ? ` by ${pending.requested_by}` : ""}: waiting for a supervisor on the floor.`);
    }
    if (!game().round) return null;
    return h("div", { class: "row void" }, h("button", { class: "danger quiet", onclick: openVoid }, "Request a void…"));
  }

  const VOIDED = { kind: "info", title: "Round voided", detail: "Every wager returned and every fee refunded." };
  function requestVoid(reason, username, password) {
    const body = { kind: "void", payload: { reason } };
    if (username) body.approver = { username, password }; // approved here, at once
    const round = (game().round || {}).number;
    const what = username ? "the void approved here" : "the void request";
    callServer(`/api/tables/${page.table}/approvals`, body, what, (answer) => {
      if (!answer.ok) { showError(answer.error.code, answer.error.message); return; }
      if (answer.status === "pending") keepVoidRequest({ approval: answer.approval, round });
      else message = { ...VOIDED, after: tapCount };
      render();
    });
  }

  // The request's fate, asked of the server while it waits (and at once after the void's
  // event): approved (the round is voided), refused, or expired (the round ended first).
  function checkVoidRequest() {
    if (!voidRequest) return;
    const asked = voidRequest.approval;
    fetch(`/api/approvals/${asked}`, { credentials: "same-origin" })
      .then((response) => (response.ok ? response.json() : null))
      .then((answer) => {
        if (!answer || !voidRequest || voidRequest.approval !== asked || answer.status === "pending") return;
        keepVoidRequest(null);
        message = answer.status === "approved" ? { ...VOIDED, detail: `Approved by ${answer.decided_by}. ${VOIDED.detail}` }
          : answer.status === "refused" ? { kind: "error", title: "The void was refused", detail: `${answer.decided_by} refused it: the round goes on.` }
          : { kind: "info", title: "The void request expired", detail: "The round ended before a supervisor decided." };
        message.after = tapCount;
        render();
      })
      .catch(() => {});
  }

  function openVoid() {
    const dialog = $("void-dialog");
    dialog.querySelector("form").reset();
    dialog.showModal();
  }
  if (isTablet) {
    // The supervisor's name and password are needed only to approve here.
    for (const choice of $("void-form").querySelectorAll("button[value]")) {
      choice.addEventListener("click", () => {
        for (const input of $("void-form").querySelectorAll(".approve-here input")) input.required = choice.value === "approve-here";
      });
    }
    $("void-form").addEventListener("submit", (e) => {
      const dialog = $("void-dialog");
      const data = new FormData(e.target);
      const how = e.submitter && e.submitter.value;
      if (how === "request") requestVoid(data.get("reason").trim());
      if (how === "approve-here") requestVoid(data.get("reason").trim(), data.get("username").trim(), data.get("password"));
      dialog.close();
    });
    $("supervisor-form").addEventListener("submit", (e) => {
      const data = new FormData(e.target);
      if (e.submitter && e.submitter.value === "confirm" && supervisorCommand) {
        commandBySupervisorHere(supervisorCommand, data.get("username").trim(), data.get("password"));
      }
      $("supervisor-dialog").close();
    });
    setInterval(checkVoidRequest, 2000);
  }

  render();
  renderStatus(); // now drawn: says whether the table shown is current

  // The service worker that lets a reload with the network down come back to this page
  // (static/tablet-sw.js). This page was loaded before the worker controlled it the
  // first time: it asks the worker to keep the page and what it loaded.
  if (isTablet && "serviceWorker" in navigator) {
    navigator.serviceWorker.register("/tablet-sw.js").then(() => navigator.serviceWorker.ready).then((registration) => {
      const urls = [location.pathname, ...[...document.querySelectorAll("script[src], link[rel=stylesheet]")].map((el) => el.src || el.href)];
      registration.active.postMessage({ type: "keep", urls });
    }).catch(() => {}); // no worker (an old browser, plain http on a LAN address): online only
  }
})();
