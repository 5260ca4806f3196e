// The tablet's words for what the engine says: hands, awards, a seat's wagers, a queued
// tap. Pure functions of their arguments (no DOM, no page state).
import { money } from "../live/money.js";
import { PHASE } from "../live/text.js";

export const HAND = {
  high_card: "high card", one_pair: "one pair", two_pair: "two pair", three_of_a_kind: "three of a kind",
  straight: "straight", flush: "flush", full_house: "full house", four_of_a_kind: "four of a kind",
  straight_flush: "straight flush", royal_flush: "royal flush",
};

// A wager's name (rounds/labels.py WAGER: tests/service/test_words_not_codes.py holds the two equal).
export const WAGER = {
  ante: "Ante", blind: "Blind", trips: "Trips", play: "Play", bad_beat: "Bad Beat", pairs: "Pairs",
  progressive: "Progressive",
};

// The progressive is paid from its fund, not by the player-dealer: highest seat first.
export const AWARD = {
  royal_first_five: "royal flush in the first five cards (100% of the meter)",
  royal_seven: "royal flush with a hole card (5% of the meter)",
  community_royal: "community royal flush", straight_flush: "straight flush",
  four_of_a_kind: "four of a kind", full_house: "full house",
};

export function wagerLine(w) {
  const parts = [`Ante ${money(w.ante)}`, `Blind ${money(w.blind)}`];
  if (w.trips) parts.push(`Trips ${money(w.trips)}`);
  if (w.bad_beat) parts.push(`Bad Beat ${money(w.bad_beat)}`);
  if (w.pairs) parts.push(`Pairs ${money(w.pairs)}`);
  if (w.progressive) parts.push(`Progressive ${money(w.progressive)}`);
  if (w.play) parts.push(`Play ${money(w.play)}`);
  return parts.join(" · ");
}

export function decisionText(w, owes) {
  if (w.folded) return "Folded";
  if (w.play) return `Played ${money(w.play)}`;
  if (owes) return "To decide";
  if (w.checked.length) return `Checked (${w.checked.map((s) => PHASE[s].toLowerCase()).join(", ")})`;
  return "";
}

// A tap's name as the dealer reads it on a seat while it waits for the server.
export function tapName(c) {
  switch (c.type) {
    case "wager": return `Bet ${money(c.ante)}${c.trips ? ` + Trips ${money(c.trips)}` : ""}`;
    case "play": return `Play ${c.multiple}×`;
    case "backline_wager": return `Backline ${c.bettor} ${money(c.ante)}`;
    case "backline_withdraw": return `Withdraw backline ${c.bettor}`;
    default: return c.type.charAt(0).toUpperCase() + c.type.slice(1).replaceAll("_", " ");
  }
}

// --- backline wagers (game-rules 12) ---------------------------------------------------
// The tablet names each bettor; the live view gets their place behind the seat instead
// (`behind`, tables.visibility), never their id.
export const isBackline = (x) => Boolean(x.bettor || x.behind);
export const bettorName = (x) => x.bettor || `Backline ${x.behind}`;
export const sameBettor = (a, b) => (a.bettor ? a.bettor === b.bettor : a.behind === b.behind);
