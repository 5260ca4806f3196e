// A round's settlement as the dealer works through it: each seat's total (pay, collect,
// return or push) with every sum the net leaves out, then every line in order. The
// arithmetic (seatTotals, totalOf, lineAction) is pure, in integer cents; the views
// build elements when called.
import { h } from "../live/dom.js";
import { money } from "../live/money.js";
import { HAND, AWARD, WAGER, isBackline, bettorName, sameBettor } from "./words.js";

// --- settlement ---------------------------------------------------------------------
// Each line of the engine's settlement as one thing the dealer does: Collect, Pay,
// Return (a win-capped or no-action wager goes back to the player), or Push.
export function lineAction(line) {
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
export function seatTotals(s) {
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
export function totalOf(net, mine) {
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

export function settlementView(s, kind) {
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
    h("td", { class: "num" }, i + 1), h("td", {}, isBackline(line) ? `Seat ${line.seat} · behind: ${bettorName(line)}` : `Seat ${line.seat}`), h("td", {}, WAGER[line.wager] || line.wager),
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
      `${WAGER[l.wager] || l.wager} ${lineAction(l).verb.toLowerCase()}${lineAction(l).amount !== null ? ` ${money(lineAction(l).amount)}` : ""}`)).flatMap((el, i) => (i ? [" · ", el] : [el]))),
    doCell(action, [...notes, refund ? `refund fee ${money(refund)}` : ""].filter(Boolean).join(" · ")));
}

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
