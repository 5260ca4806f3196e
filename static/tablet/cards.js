// A playing card as the screens draw it ("Ah" -> A♥; null -> a card face down).
import { h } from "../live/dom.js";

const SUIT = { c: "♣", d: "♦", h: "♥", s: "♠" };
export const cardEl = (c, extra = "") =>
  c ? h("span", { class: `card suit-${c[1]} ${extra}`, "data-card": c }, c[0] === "T" ? "10" : c[0], SUIT[c[1]])
    : h("span", { class: `card back ${extra}` }, "");
