// The "Next" panel: what the dealer does now (one function per step of view.next, in
// STEPS), and the 52-card picker that takes the cards of a step dealt by hand.
import { h } from "../live/dom.js";
import { money, toCents } from "../live/money.js";
import { cardEl } from "./cards.js";
import { reads } from "./context.js";

export function createNext(ctx) {
  const $ = (id) => document.getElementById(id);
  const { game, view, playerAt } = reads(ctx);
  const tap = (...args) => ctx.tap(...args);
  const tapAll = (...args) => ctx.tapAll(...args);
  const showError = (...args) => ctx.showError(...args);
  const confirmThen = (...args) => ctx.confirmThen(...args);
  const openSupervisorDialog = (...args) => ctx.openSupervisorDialog(...args);
  const openRules = (...args) => ctx.openRules(...args);
  const voidPanel = (...args) => ctx.voidPanel(...args);
  const awardText = (...args) => ctx.awardText(...args);
  const queuedAt = (...args) => ctx.queuedAt(...args);

  // --- the next action ----------------------------------------------------------------
  function button(label, command, cls = "primary") {
    return h("button", { class: cls, onclick: () => tap(command) }, label);
  }
  const say = (text) => h("p", { class: "instruction" }, text);

  // One function per step of view.next (rounds/engine/view.py, _next_step): what to say
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
        say("Deal: enter the shuffler's sequence, or deal by hand and enter the cards as they are turned over."),
        h("p", { class: "muted software-deal" }, "Shuffle and deal: the software shuffles its own deck and keeps every card "
          + "hidden until it is shown. It is for a table dealt from this screen (training, the demo), not one with cards on the layout."),
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
    const box = (ctx.snapshot.boxes || {}).jackpot;
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
    ctx.app.classList.toggle("picking", Boolean(ctx.picker));
    const box = ctx.picker ? [renderPicker()] : (STEPS[next.step] || (() => []))(next);
    if (ctx.isTablet && !ctx.picker) box.push(voidPanel());
    const shown = box.filter((el) => el && (ctx.isTablet || el.classList.contains("instruction")));
    $("next").replaceChildren(h("div", { class: "next-head" }, h("h2", {}, "Next"),
      ctx.isTablet ? h("button", { class: "quiet rules-button", onclick: openRules }, "Table rules") : null), ...shown);
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
    ctx.picker = { title, labels, cards: [], build, blocked: new Set(blocked) };
    renderNext();
  }

  function renderPicker() {
    const p = ctx.picker;
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
        h("button", { class: "primary", disabled: !done, onclick: () => { const cmd = p.build(p.cards); ctx.picker = null; tap(cmd); } }, "Confirm cards"),
        h("button", { class: "secondary", onclick: () => { ctx.picker = null; renderNext(); } }, "Cancel")));
  }

  return { renderNext, openRevealPicker };
}
