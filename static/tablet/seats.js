// The seats: one part per thing a seat shows (SEAT_PARTS), and on the tablet the forms
// and buttons that make taps. Each seat is redrawn only when what it shows changed.
import { h } from "../live/dom.js";
import { money, toCents } from "../live/money.js";
import { cardEl } from "./cards.js";
import { wagerLine, decisionText, tapName, bettorName } from "./words.js";
import { reads } from "./context.js";

export function createSeats(ctx) {
  const $ = (id) => document.getElementById(id);
  const { view, game, showHoles } = reads(ctx);
  const queuedAt = (n) => ctx.outbox.queuedAt(n);
  const tap = (...args) => ctx.tap(...args);
  const showError = (...args) => ctx.showError(...args);
  const confirmThen = (...args) => ctx.confirmThen(...args);
  // What the dealer typed in a seat's fields, kept across redraws of this round only, for
  // this occupant only: each new round and each new player starts from the snapshot (the
  // table's minimum Ante, no side bets), so nothing typed earlier is ever placed again.
  const drafts = new Map(); // "round:seat:player" -> {ante, trips, side bets}
  const draftKey = (seat) => `${game().round ? game().round.number : "-"}:${seat.seat}:${seat.player || ""}`;
  const backlineDrafts = {}; // seat -> {bettor, ante, trips, open}: a backline being typed
  const sitDrafts = {}; // seat -> the player id typed, or filled by the patron panel's Seat

  // The patron panel's Seat button (static/patrons_tablet.js) fills a seat's player id
  // with the patron's number; the dealer checks it and taps Sit.
  document.addEventListener("patron-seat", (event) => {
    const { seat, player } = event.detail;
    sitDrafts[seat] = player;
    const input = document.querySelector(`#seats form[data-sit="${seat}"] input[name=player]`);
    if (!input) return;
    input.value = player;
    input.scrollIntoView({ block: "center" });
    input.focus();
  });

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
    const how = ctx.status === "open" ? "sending" : "queued";
    return h("div", { class: "queued" }, ...waiting.map((entry) => h("span", { class: "badge queued", "data-tap": entry.id }, `${tapName(entry.command)} · ${how}`)));
  }

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
        ctx.isTablet && betting ? h("button", { class: "quiet backline-withdraw", disabled: waiting,
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
    if (!ctx.isTablet) return null;
    const out = [];
    const n = seat.seat;
    const waiting = queuedAt(n).length > 0; // a tap on its way: no second one
    for (const a of seat.actions) {
      if (a.type === "sit") {
        const input = h("input", { name: "player", placeholder: "Player id or name", "aria-label": `Player for seat ${n}`,
          value: sitDrafts[n] || "", oninput: (e) => { sitDrafts[n] = e.target.value; } });
        // A third-party proposition player sits with the Commission badge, the TPPPS
        // company and the licence's expiry (the engine checks one per table, not expired).
        const tppp = {
          badge: h("input", { name: "badge", placeholder: "Badge no.", "aria-label": `TPPP badge for seat ${n}` }),
          company: h("input", { name: "company", placeholder: "TPPPS company", "aria-label": `TPPP company for seat ${n}` }),
          expires: h("input", { name: "expires", type: "date", "aria-label": `TPPP licence expiry for seat ${n}` }),
        };
        out.push(h("form", { class: "inline", "data-sit": n, onsubmit: (e) => {
          e.preventDefault();
          if (!input.value.trim()) return;
          const command = { type: "sit", seat: n, player: input.value.trim() };
          if (tppp.badge.value.trim()) {
            command.tppp = { badge: tppp.badge.value.trim(), company: tppp.company.value.trim(), expires: tppp.expires.value };
          }
          delete sitDrafts[n];
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
    const limits = ctx.page.posted.limits;
    const key = draftKey(seat);
    for (const kept of drafts.keys()) if (kept.split(":")[1] === String(n) && kept !== key) drafts.delete(kept);
    if (!drafts.has(key)) drafts.set(key, {
      ante: seat.wager ? seat.wager.ante / 100 : (limits.ante_min || ctx.page.posted.ante_presets[0]) / 100,
      trips: seat.wager && seat.wager.trips ? seat.wager.trips / 100 : "",
      ...sideBetDraft(seat.wager),
    });
    const draft = drafts.get(key);
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
    const presets = ctx.page.posted.ante_presets.slice(0, 4).map((cents) => h("button", {
      type: "button", class: "preset", disabled: waiting, "data-ante": cents,
      onclick: () => { draft.ante = cents / 100; submit(String(cents / 100)); },
    }, money(cents).replace(".00", "")));
    return h("form", { class: "wager", onsubmit: (e) => { e.preventDefault(); submit(draft.ante); } },
      h("div", { class: "presets" }, ...presets), sameAsLastRound(seat, waiting),
      h("label", {}, "Ante $", ante), h("label", {}, "Trips $", trips), ...sideBetInputs(n, draft),
      h("button", { type: "submit", class: "primary", disabled: waiting }, seat.wager ? "Change" : "Bet"));
  }

  // "Same bets as last round": this occupant's wagers of the table's last round, from the
  // snapshot (tables.selectors.last_wagers), placed only by this tap, which names them first.
  // Side bets the table no longer offers are left out.
  function sameAsLastRound(seat, waiting) {
    const last = ((ctx.snapshot && ctx.snapshot.last_wagers) || {})[seat.seat];
    if (!last || seat.wager || last.player !== seat.player || !last.ante) return null;
    const command = { type: "wager", seat: seat.seat, ante: last.ante };
    const named = [`Ante ${money(last.ante)}`];
    if (last.trips) { command.trips = last.trips; named.push(`Trips ${money(last.trips)}`); }
    for (const [name, label] of SIDE_AMOUNTS) {
      if (last[name] && offered()[name]) { command[name] = last[name]; named.push(`${label} ${money(last[name])}`); }
    }
    if (last.progressive && offered().progressive) { command.progressive = true; named.push(`Progressive ${money(offered().progressive.wager)}`); }
    return h("button", { type: "button", class: "same-bets", disabled: waiting, onclick: () => tap(command) },
      `Same bets as last round: ${named.join(" · ")}`);
  }

  // --- side bets (game-rules 10): only those the table offers (its posted rules) --------
  const offered = () => ctx.page.posted.side_bets || {};
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
      const signature = JSON.stringify([seat, queuedAt(seat.seat).map((e) => e.id), ctx.status === "open",
        (ctx.snapshot.last_wagers || {})[seat.seat] || null,
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

  return { renderSeats, queuedAt };
}
