// The dealer's patron panel on the tablet (docs/patrons.md): look a patron up to seat
// them (display name and number only: the lookup never answers identification), seat an
// unidentified patron under a description, and record cash at the table (a chip purchase
// for cash, a cash payout). Its own module, apart from the table's script: it needs only
// the table's id and the page's CSRF token.
// The answers never carry a warning or a total: the tablet is in the patron's sight.

import { h } from "./live/dom.js";
import { money, toCents } from "./live/money.js";

const panel = document.getElementById("patron-panel");
const table = panel ? panel.dataset.table : null;
const csrfToken = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value;

function say(out, kind, text) {
  delete out.dataset.code;
  out.removeAttribute("title");
  out.className = kind;
  out.textContent = text;
}

// The tablet's words for each refusal code (web/tables/ui_text.py), from the page's data.
const pageData = document.getElementById("page-data");
const page = pageData ? JSON.parse(pageData.textContent) : {};
const WORDS = page.errors || {};
// A refusal about a listed or alerted patron is said in neutral words, without the
// server's message: the patron can read the tablet; the floor has the reason.
const DISCREET = new Set(["self_excluded", "check_required"]);

// A refusal in words, never its code: the code stays on the output's data-code (as on the
// table's refusal banner, static/table.js showError) and the server's own wording on its
// tooltip, for support.
function refuse(out, code, text, technical = "") {
  say(out, "error", text);
  out.dataset.code = code;
  if (technical) out.title = technical;
}

// The server's refusal: the sentence for its code, or else the server's own sentence.
function refusal(answer, out) {
  const error = answer.error || {};
  const message = String(error.message || "");
  const sentence = message && `${message.charAt(0).toUpperCase()}${message.slice(1)}${/[.!?]$/.test(message) ? "" : "."}`;
  const words = WORDS[error.code] || sentence || page.unknown_error || "Refused.";
  refuse(out, error.code || "", words, DISCREET.has(error.code) ? "" : message);
}

async function call(path, { method = "GET", body } = {}) {
  const response = await fetch(path, {
    method, credentials: "same-origin",
    headers: body ? { "Content-Type": "application/json", "X-CSRFToken": csrfToken } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  return response.json().catch(() => ({ ok: false, error: { code: "server_error", message: `HTTP ${response.status}` } }));
}

// The seats' player fields (static/tablet/seats.js draws one per empty seat the dealer may
// seat now), by seat number.
function openSeats() {
  return [...document.querySelectorAll("#seats form[data-sit]")].map((f) => Number(f.dataset.sit));
}

// Fill seat `seat`'s player id with a found patron's number (static/tablet/seats.js keeps
// it across redraws); the dealer checks it and taps Sit.
function fillSeat(seat, number) {
  document.dispatchEvent(new CustomEvent("patron-seat", { detail: { seat, player: number } }));
}

// A found patron: number, display name and a Seat button. With one seat free it fills that
// seat; with more it asks which.
function found(p, out) {
  const choice = h("span", { class: "seat-choice" });
  const seatButton = h("button", { type: "button", class: "seat-patron", onclick: () => {
    const seats = openSeats();
    if (!seats.length) return say(out, "error", "No seat is free to seat them now.");
    if (seats.length === 1) return fillSeat(seats[0], p.number);
    choice.replaceChildren(" at ", ...seats.map((n) => h("button", { type: "button", class: "quiet", "data-seat": n,
      onclick: () => { choice.replaceChildren(); fillSeat(n, p.number); } }, `Seat ${n}`)));
  } }, "Seat");
  return h("li", { "data-number": p.number }, h("strong", {}, p.number), ` ${p.display_name} `, seatButton, choice);
}

// The lookup is a POST with a JSON body: what the dealer types is in no URL, so in no log.
function lookup(form) {
  const out = form.querySelector("output");
  const list = form.querySelector("ul");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    list.replaceChildren();
    const q = form.elements.q.value.trim();
    if (!q) return say(out, "error", "Type a card, a number or a name.");
    const answer = await call(`/api/tables/${table}/patrons`, { method: "POST", body: { q } });
    if (!answer.ok) return refusal(answer, out);
    say(out, "info", answer.patrons.length ? "Seat them under their number:" : "No patron found: seat them as an unidentified patron.");
    list.append(...answer.patrons.map((p) => found(p, out)));
  });
}

function unidentified(form) {
  const out = form.querySelector("output");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = await call(`/api/tables/${table}/patrons/unidentified`,
      { method: "POST", body: { description: form.elements.description.value.trim() } });
    if (!answer.ok) return refusal(answer, out);
    say(out, "success", `Seat them, and record their cash, as ${answer.player}.`);
    out.dataset.player = answer.player;
    form.reset();
  });
}

// Each entry carries a client id (as a command's `id`): resent after a lost answer, the
// server answers the first entry and records nothing new. A new id for each new entry:
// kept until the server has answered this one, dropped when the dealer changes the form.
function newClientId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

const DUPLICATE_WORDS = "Nothing recorded: the same entry (patron, kind and amount) was recorded less than two minutes ago. "
  + "If this is a second one, not a double tap, tap \u201cRecord again\u201d.";

function cash(form) {
  const out = form.querySelector("output");
  const record = form.querySelector("button[type=submit]");
  const again = form.querySelector("button[name=confirm]");
  let clientId = null;
  const forget = () => { clientId = null; again.hidden = true; };
  form.addEventListener("input", forget);

  async function send(confirm) {
    const amount = toCents(form.elements.amount.value);
    if (amount === null || amount <= 0) return refuse(out, "invalid_amount", "Type the amount in dollars and cents, e.g. 3500.00.");
    clientId = clientId || newClientId();
    record.disabled = again.disabled = true;
    try {
      const answer = await call(`/api/tables/${table}/cash`, { method: "POST", body: {
        kind: form.elements.kind.value, amount, player: form.elements.player.value.trim(), note: form.elements.note.value.trim(),
        client_id: clientId, confirm,
      } });
      if (!answer.ok) {
        const code = (answer.error || {}).code;
        if (code === "possible_duplicate") {
          again.hidden = false;
          return refuse(out, "possible_duplicate", DUPLICATE_WORDS);
        }
        // A refusal is final for this entry; a lost or failed answer keeps the id to resend.
        if (code !== "server_error") forget();
        return refusal(answer, out);
      }
      const what = answer.cash.kind === "chip_purchase" ? "Chip purchase" : "Cash payout";
      say(out, "success", `${what} of ${money(answer.cash.amount)} for ${answer.cash.player} recorded (cash #${answer.cash.seq}).`);
      form.reset();
      forget();
    } finally {
      record.disabled = again.disabled = false;
    }
  }

  form.addEventListener("submit", (event) => { event.preventDefault(); send(false); });
  again.addEventListener("click", () => send(true));
}

if (panel) {
  lookup(panel.querySelector("#patron-lookup"));
  unidentified(panel.querySelector("#patron-unidentified"));
  cash(panel.querySelector("#patron-cash"));
}
