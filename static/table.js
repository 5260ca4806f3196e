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

  let snapshot = page.snapshot;
  let status = "connecting";
  let message = null; // {kind: "error"|"info", title, detail}
  let picker = null; // {command, labels: [...], cards: [...], build(cards) -> command}
  const drafts = {}; // seat -> {ante, trips}: what the dealer typed, kept across redraws

  // --- the settlement of the last settled round, kept until the dealer is done ---------
  const SETTLEMENT_KEY = `cardroom.settlement.${page.table}`;
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
  const OUTBOX_KEY = `cardroom.outbox.${page.table}`;
  let outbox = JSON.parse(localStorage.getItem(OUTBOX_KEY) || "[]");
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
    outbox.push({ id, command: { ...command, id, version } });
    saveOutbox();
    message = null;
    render();
    pump();
  }

  // Over the socket when it is open; else over HTTP (a proxy may refuse websockets, and
  // the tablet may be back before its socket is), with the CSRF token of the page.
  function pump() {
    if (inFlight || retryTimer || outbox.length === 0) return;
    const head = outbox[0];
    inFlight = head.id;
    if (socket.send({ type: "command", command: head.command })) return;
    fetch(`/api/tables/${page.table}/commands`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken },
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
      kind: "error", code: "server_error",
      title: "The server could not take this tap",
      detail: `${why}. The tap is kept and sent again in ${Math.round(wait / 1000)} s (attempt ${failures + 1}); the floor has been alerted`,
    };
    render();
    retryTimer = setTimeout(() => { retryTimer = null; pump(); }, wait);
  }
  const csrfToken = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value;

  function answered(reply) {
    const head = outbox[0];
    if (!head || head.id !== reply.id) return; // an answer already handled
    outbox.shift();
    inFlight = null;
    if (failures) { failures = 0; if (message && message.code === "server_error") message = null; }
    answeredVersion = Math.max(answeredVersion, reply.version);
    const result = reply.result;
    if (!result.ok) {
      const code = result.error.code;
      message = { kind: "error", title: page.errors[code] || code, detail: result.error.message, code };
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
    if (fresh.version >= snapshot.version) snapshot = fresh;
  }

  function onMessage(msg) {
    if (msg.type === "snapshot") {
      snapshot = msg.snapshot;
      render();
      pump();
    } else if (msg.type === "event") {
      const next = Live.applyEvent(snapshot, msg);
      if (next === null) { socket.send({ type: "sync" }); return; }
      if (next !== snapshot) {
        snapshot = next;
        if (msg.command_type === "settle") keepSettlement(msg.result);
        if (msg.command_type === "open_round") keepSettlement(null);
        render();
      }
    } else if (msg.type === "result") {
      answered(msg);
    } else if (msg.type === "error" && msg.id !== undefined && outbox[0] && outbox[0].id === msg.id) {
      serverFailed(outbox[0], msg.message || "the server failed");
    }
  }

  function onStatus(s) {
    status = s;
    if (s === "closed") {
      // A socket that closes on a tap in flight may have been closed by that very tap
      // (the server failed on it): wait before resending, with the same id (answered once).
      if (inFlight) serverFailed(outbox[0], "the connection closed before the answer");
      else pump();
    }
    renderStatus();
  }

  const socket = new Live.Socket(`/ws/tables/${page.table}/${isTablet ? "?role=tablet" : ""}`, { onMessage, onStatus });
  if (isTablet) setInterval(() => socket.send({ type: "heartbeat" }), page.heartbeat * 1000);

  // --- drawing ----------------------------------------------------------------------
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

  function render() {
    renderStatus();
    renderBar();
    renderMessage();
    renderBoard();
    renderSeats();
    renderNext();
    renderPreview();
    renderSettlement();
  }

  function renderStatus() {
    const queued = outbox.length;
    let text = Live.STATUS_TEXT[status] || status;
    if (queued) text += ` · ${queued} tap${queued > 1 ? "s" : ""} ${status === "open" ? "sending" : "queued"}`;
    const el = $("status");
    el.textContent = text;
    el.dataset.state = status;
    el.dataset.queued = queued;
  }

  function renderBar() {
    const rnd = game().round;
    const rot = game().rotation;
    const parts = [rnd ? `Round ${rnd.number} · ${PHASE[rnd.phase]}` : PHASE.between_rounds];
    if (rnd && rnd.deck) parts.push(`deck ${rnd.deck}`);
    if (rot.pd_seat) {
      const streak = view().consecutive_banks;
      parts.push(`Player-dealer: seat ${rot.pd_seat} (${rot.pd_player})${streak ? `, ${streak} consecutive bank${streak > 1 ? "s" : ""}` : ""}`);
    }
    if (rnd) parts.push(`Bank ${money(rnd.bank)}`);
    $("round-label").textContent = parts.join(" · ");
    app.dataset.phase = view().phase;
    app.dataset.version = snapshot.version;
  }

  function renderMessage() {
    const el = $("message");
    el.hidden = !message;
    if (!message) return;
    el.className = `message ${message.kind}`;
    el.dataset.code = message.code || "";
    el.replaceChildren(h("strong", {}, message.title), message.detail ? h("span", {}, ` (${message.detail})`) : "",
      h("button", { class: "link", onclick: () => { message = null; renderMessage(); } }, "Dismiss"));
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

  function wagerLine(w) {
    const parts = [`Ante ${money(w.ante)}`, `Blind ${money(w.blind)}`];
    if (w.trips) parts.push(`Trips ${money(w.trips)}`);
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

  function seatActions(seat) {
    if (!isTablet) return [];
    const out = [];
    const n = seat.seat;
    for (const a of seat.actions) {
      if (a.type === "sit") {
        const input = h("input", { name: "player", placeholder: "Player id or name", "aria-label": `Player for seat ${n}` });
        out.push(h("form", { class: "inline", onsubmit: (e) => {
          e.preventDefault();
          if (input.value.trim()) tap({ type: "sit", seat: n, player: input.value.trim() });
        } }, input, h("button", { type: "submit" }, "Sit")));
      } else if (a.type === "leave") {
        out.push(h("button", { class: "quiet", onclick: () => tap({ type: "leave", seat: n }) }, "Leave"));
      } else if (a.type === "withdraw") {
        out.push(h("button", { class: "quiet", onclick: () => tap({ type: "withdraw", seat: n }) }, "Withdraw"));
      } else if (a.type === "wager") {
        out.push(wagerForm(seat));
      } else {
        const label = a.type === "check" ? "Check" : a.type === "fold" ? "Fold" : `Play ${a.multiple}× (${money(seat.play_amounts[a.multiple])})`;
        out.push(h("button", { class: `decision ${a.type}`, onclick: () => tap({ ...a, seat: n }) }, label));
      }
    }
    return out;
  }

  function wagerForm(seat) {
    const n = seat.seat;
    const limits = game().config.limits;
    const draft = drafts[n] || (drafts[n] = {
      ante: seat.wager ? seat.wager.ante / 100 : (limits.ante_min || 500) / 100,
      trips: seat.wager && seat.wager.trips ? seat.wager.trips / 100 : "",
    });
    const ante = h("input", { name: "ante", inputmode: "decimal", value: draft.ante, "aria-label": `Ante for seat ${n}`,
      oninput: (e) => { draft.ante = e.target.value; } });
    const trips = h("input", { name: "trips", inputmode: "decimal", value: draft.trips, placeholder: "none",
      "aria-label": `Trips for seat ${n}`, oninput: (e) => { draft.trips = e.target.value; } });
    return h("form", { class: "wager", onsubmit: (e) => {
      e.preventDefault();
      const a = toCents(draft.ante);
      const t = String(draft.trips).trim() === "" ? 0 : toCents(draft.trips);
      if (a === null || t === null) {
        message = { kind: "error", title: page.errors.invalid_amount, code: "invalid_amount" };
        renderMessage();
        return;
      }
      // The Blind is left out: the engine makes it equal to the Ante.
      tap(t ? { type: "wager", seat: n, ante: a, trips: t } : { type: "wager", seat: n, ante: a });
    } }, h("label", {}, "Ante = Blind $", ante), h("label", {}, "Trips $", trips),
    h("button", { type: "submit", class: "primary" }, seat.wager ? "Change" : "Bet"));
  }

  function renderSeats() {
    const seats = view().seats.map((seat) => {
      const w = seat.wager;
      const badges = [];
      if (seat.role === "player_dealer") badges.push(h("span", { class: "badge pd" }, "Player-dealer"));
      if (seat.offered) badges.push(h("span", { class: "badge offer" }, "Bank offered"));
      return h("div", {
        class: `seat ${seat.player ? "" : "empty"} ${seat.role || ""} ${seat.owes ? "owes" : ""} ${w && w.folded ? "folded" : ""}`,
        "data-seat": seat.seat,
      },
      h("div", { class: "seat-head" }, h("span", { class: "seat-no" }, `Seat ${seat.seat}`),
        h("span", { class: "player" }, seat.player || "empty"), ...badges),
      w ? h("div", { class: "wagers" }, wagerLine(w)) : null,
      w ? h("div", { class: "decision-state" }, decisionText(w, seat.owes)) : null,
      w && w.hole ? h("div", { class: "hole" }, ...w.hole.map((c) => cardEl(showHoles() ? c : null))) : null,
      h("div", { class: "actions" }, ...seatActions(seat)));
    });
    $("seats").replaceChildren(...seats);
  }

  // --- the next action ----------------------------------------------------------------
  function button(label, command, cls = "primary") {
    return h("button", { class: cls, onclick: () => tap(command) }, label);
  }

  function renderNext() {
    const next = view().next;
    const rot = game().rotation;
    const rnd = game().round;
    const box = [];
    const say = (text) => box.push(h("p", { class: "instruction" }, text));
    if (picker) {
      box.push(renderPicker());
    } else switch (next.step) {
      case "offer":
        say(`The bank is offered to seat ${next.seat} (${playerAt(next.seat)}).`);
        box.push(h("div", { class: "row" }, button(`Seat ${next.seat} accepts`, { type: "accept_bank", seat: next.seat }),
          button(`Seat ${next.seat} declines`, { type: "decline_bank", seat: next.seat }, "secondary")));
        break;
      case "stopped":
      case "choose_player_dealer":
        say(next.step === "stopped"
          ? "Game stopped: every seat declined the bank. Offer it again to restart."
          : "Choose the seat the bank is offered to first (e.g. by high card).");
        if (!view().eligible_to_bank.length) say("Seat players first.");
        box.push(h("div", { class: "row wrap" }, ...view().eligible_to_bank.map((s) =>
          button(`Offer to seat ${s} (${playerAt(s)})`, { type: "offer_bank", seat: s }, "secondary"))));
        break;
      case "wait_for_players":
        say("Seat at least one player besides the player-dealer.");
        break;
      case "open_round": {
        say(`Seat ${rot.pd_seat} (${rot.pd_player}) banks the next round. Enter the bank the player-dealer posts.`);
        const bank = h("input", { name: "bank", inputmode: "decimal", value: localStorage.getItem("cardroom.bank") || "1000", "aria-label": "Bank" });
        box.push(h("form", { class: "row", onsubmit: (e) => {
          e.preventDefault();
          const cents = toCents(bank.value);
          if (cents === null) { message = { kind: "error", title: page.errors.invalid_amount, code: "invalid_amount" }; renderMessage(); return; }
          localStorage.setItem("cardroom.bank", bank.value);
          tap({ type: "open_round", bank: cents });
        } }, h("label", {}, "Bank $", bank), h("button", { type: "submit", class: "primary" }, "Open round")));
        box.push(h("div", { class: "row" }, button("Pass the bank", { type: "pass_bank" }, "secondary")));
        break;
      }
      case "take_wagers":
        say("Take the wagers at each seat: Ante (the Blind equals it) and optional Trips.");
        break;
      case "no_more_bets":
        say(`${Object.keys(rnd.seats).length} player(s) wagered. More may still bet at their seats.`);
        box.push(button("No more bets", { type: "no_more_bets" }));
        break;
      case "deal":
        say("Deal: let the software shuffle, enter the shuffler's sequence, or deal by hand and take the decisions at the seats.");
        box.push(h("div", { class: "row wrap" }, button("Shuffle and deal", { type: "deal" }),
          h("button", { class: "secondary", onclick: () => openSequencePicker(next.cards) }, `Enter shuffler sequence (${next.cards} cards)`)));
        break;
      case "decisions":
        say(`Waiting for decisions: seat${next.pending.length > 1 ? "s" : ""} ${next.pending.join(", ")}.`);
        break;
      case "flop":
      case "turn_river":
      case "showdown": {
        const label = { flop: "Flop", turn_river: "Turn and river", showdown: "Showdown" }[next.step];
        const need = view().picker;
        if (need) {
          say(`${label}: enter the cards.`);
          box.push(h("button", { class: "primary", onclick: () => openRevealPicker(need) }, `Enter ${label.toLowerCase()} cards`));
        } else {
          say(`${label}: reveal the dealt cards.`);
          box.push(button(label, { type: next.step }));
        }
        break;
      }
      case "settle": {
        const preview = view().settlement_preview;
        say("Check the settlement below, then settle.");
        if (preview) box.push(h("p", { class: "bank-left" }, `Player-dealer net ${money(preview.pd_net)} · bank left ${money(preview.balance)}`));
        box.push(h("div", { class: "row" }, button("Settle", { type: "settle" }),
          view().picker ? h("button", { class: "secondary", onclick: () => openRevealPicker(view().picker) }, "Correct hole cards") : null));
        break;
      }
    }
    if (isTablet && rnd && !picker) {
      box.push(h("div", { class: "row void" }, h("button", { class: "danger quiet", onclick: openVoid }, "Void round…")));
    }
    if (!isTablet) box.splice(0, box.length, ...box.filter((el) => el.classList.contains("instruction")));
    $("next").replaceChildren(h("h2", {}, "Next"), ...box);
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
  function lineInstruction(line) {
    const who = `seat ${line.seat}`;
    switch (line.result) {
      case "win":
        return `Pay ${who} ${money(line.amount)}` + (line.uncovered ? `; ${money(line.uncovered)} uncovered (bank exhausted)` : "");
      case "lose":
        if (line.amount === 0) return `Return ${money(line.stake)} to ${who} (the player-dealer's win is capped)`;
        return `Collect ${money(line.amount)} from ${who}` + (line.uncovered ? `; return ${money(line.uncovered)} (win cap)` : "");
      case "push":
        return `Push: ${who} keeps the stake`;
      default:
        return `Return ${money(line.stake)} to ${who}: no action (bank exhausted)`;
    }
  }

  function settlementTable(s, kind) {
    const pd = s.player_dealer;
    const rows = s.lines.map((line, i) => h("tr", { class: `line ${line.result}` },
      h("td", { class: "num" }, i + 1), h("td", {}, `Seat ${line.seat}`), h("td", {}, line.wager),
      h("td", { class: "num" }, money(line.stake)), h("td", {}, line.result.replace("_", " ")),
      h("td", { class: "num" }, line.amount ? money(line.amount) : ""),
      h("td", { class: "num" }, line.uncovered ? money(line.uncovered) : ""),
      h("td", {}, lineInstruction(line))));
    const seats = s.seats.map((seat) => h("li", {}, `Seat ${seat.seat} (${seat.player}): ${seat.folded || !seat.hand ? "folded" : HAND[seat.hand]}, net ${money(seat.net)}`));
    return h("div", { class: `settlement ${kind}`, "data-round": s.round },
      h("p", {}, `Player-dealer seat ${pd.seat} (${pd.player}): ${HAND[pd.hand]}${pd.qualifies ? "" : ", does not qualify"}.`),
      h("table", { class: "grid lines" },
        h("thead", {}, h("tr", {}, ...["#", "Seat", "Wager", "Stake", "Result", "Amount", "Uncovered", "Do"].map((t) => h("th", {}, t)))),
        h("tbody", {}, ...rows)),
      h("ul", { class: "seat-nets" }, ...seats),
      h("p", { class: "bank-left" }, `Bank ${money(s.bank)} · player-dealer net ${money(s.pd_net)} · bank left ${money(s.balance)}`,
        s.exhausted ? h("strong", { class: "alert" }, " · bank exhausted") : ""),
      s.fee_refunds && s.fee_refunds.length
        ? h("p", {}, "Refund collection fees: ", s.fee_refunds.map((f) => `seat ${f.seat} ${money(f.amount)}`).join(", "))
        : null);
  }

  function renderPreview() {
    const el = $("preview");
    const preview = view().settlement_preview;
    el.hidden = !preview;
    if (preview) el.replaceChildren(h("h2", {}, `Settlement preview · round ${preview.round}`), settlementTable(preview, "preview"));
  }

  function renderSettlement() {
    const el = $("settlement");
    const show = settled && !game().round;
    el.hidden = !show;
    if (!show) return;
    const next = settled.next_offer
      ? `Next: the bank is offered to seat ${settled.next_offer}.`
      : settled.player_dealer_next ? `Next: seat ${settled.player_dealer_next} may bank again or pass.` : "";
    el.replaceChildren(h("div", { class: "panel" },
      h("h2", {}, `Settlement · round ${settled.round}`),
      h("p", {}, "Collect and pay in this order:"),
      settlementTable(settled, "final"),
      next ? h("p", { class: "instruction" }, next) : null,
      h("button", { class: "primary", onclick: () => { keepSettlement(null); render(); } }, "Done")));
  }

  // --- void ------------------------------------------------------------------------------
  // A void needs a second person: the dealer asks, a supervisor approves here with their
  // own credentials (never the tablet's session), and the server voids the round at once.
  // Both names are stored with it. Not queued: it needs the server there and then.
  function postJson(url, body) {
    return fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken },
      body: JSON.stringify(body),
      credentials: "same-origin",
    }).then((response) => response.json());
  }
  function requestVoid(reason, username, password) {
    postJson(`/api/tables/${page.table}/approvals`, { kind: "void", payload: { reason } })
      .then((asked) => {
        if (!asked.ok) return asked;
        return postJson(`/api/approvals/${asked.approval}/decide`, { username, password, approve: true })
          .then((decided) => (decided.ok ? decided.result : decided));
      })
      .then((result) => {
        const code = result && !result.ok && result.error ? result.error.code : null;
        message = code
          ? { kind: "error", title: page.errors[code] || code, detail: result.error.message, code }
          : { kind: "info", title: "Round voided", detail: "Every wager returned and every fee refunded." };
        render();
      })
      .catch(() => {
        message = { kind: "error", title: "No connection", detail: "A void needs the server: try again when connected." };
        render();
      });
  }

  function openVoid() {
    const dialog = $("void-dialog");
    dialog.querySelector("form").reset();
    dialog.showModal();
  }
  if (isTablet) {
    $("void-form").addEventListener("submit", (e) => {
      const dialog = $("void-dialog");
      if (e.submitter && e.submitter.value === "void") {
        const data = new FormData(e.target);
        requestVoid(data.get("reason").trim(), data.get("username").trim(), data.get("password"));
      }
      dialog.close();
    });
  }

  render();
})();
