// Drawing the table: the page is a list of independent parts, each a small function of
// the snapshot (and of the tablet's own state: the outbox, the message, the picker). A new
// panel or step is one more function in RENDERERS (here), STEPS (next.js) or SEAT_PARTS
// (seats.js).
import { h } from "../live/dom.js";
import { money } from "../live/money.js";
import { PHASE, STATUS_TEXT } from "../live/text.js";
import { cardEl } from "./cards.js";
import { settlementView } from "./settlement.js";
import { reads } from "./context.js";

export function createRender(ctx) {
  const $ = (id) => document.getElementById(id);
  const { game, view, showHoles } = reads(ctx);
  const renderSeats = (...args) => ctx.renderSeats(...args);
  const renderNext = (...args) => ctx.renderNext(...args);
  const keepSettlement = (...args) => ctx.keepSettlement(...args);
  const endCall = (...args) => ctx.endCall(...args);

  const RENDERERS = [renderStatus, renderBar, renderMessage, renderNotice, renderBoard, renderSeats, renderNext, renderPreview, renderSettlement];
  function render() {
    for (const part of RENDERERS) part();
    ctx.drawn = true;
  }

  function renderStatus() {
    const queued = ctx.outbox.length;
    let text = STATUS_TEXT[ctx.status] || ctx.status;
    if (queued) text += ` · ${queued} tap${queued > 1 ? "s" : ""} ${ctx.status === "open" ? "sending" : "queued"}`;
    if (!ctx.current && ctx.drawn) text += " · table as last seen, not current";
    const el = $("status");
    el.textContent = text;
    el.dataset.state = ctx.status;
    el.dataset.queued = queued;
    el.dataset.current = ctx.current;
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
    const boxes = ctx.snapshot.boxes || {};
    parts.push(boxes.fees ? `Drop box ${boxes.fees}` : "No drop box placed");
    $("round-label").textContent = parts.join(" · ");
    ctx.app.dataset.phase = view().phase;
    ctx.app.dataset.version = ctx.snapshot.version;
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
    el.hidden = !ctx.message;
    if (!ctx.message) return;
    el.className = `message ${ctx.message.kind}`;
    el.dataset.code = ctx.message.code || "";
    // The service's own wording (cents, engine terms) is for support, not the dealer.
    el.title = ctx.message.technical || "";
    el.replaceChildren(h("strong", {}, ctx.message.title), ctx.message.detail ? h("span", {}, ctx.message.detail) : "",
      // "" and not null: replaceChildren, unlike h(), writes a null as the text "null".
      ctx.message.stop ? h("button", { class: "link stop", onclick: () => { endCall(); renderMessage(); } }, "Stop trying") : "",
      h("button", { class: "link dismiss", onclick: () => { ctx.message = null; renderMessage(); } }, "Dismiss"));
  }

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

  function renderPreview() {
    const el = $("preview");
    const preview = view().settlement_preview;
    el.hidden = !preview;
    if (preview) el.replaceChildren(h("h2", {}, `Settlement preview · round ${preview.round}`), settlementView(preview, "preview"));
  }

  function renderSettlement() {
    const el = $("settlement");
    const show = ctx.settled && !game().round;
    el.hidden = !show;
    if (!show) return;
    const next = ctx.settled.next_offer
      ? `Next: the bank is offered to seat ${ctx.settled.next_offer}.`
      : ctx.settled.player_dealer_next ? `Next: seat ${ctx.settled.player_dealer_next} may bank again or pass.` : "";
    el.replaceChildren(h("div", { class: "panel settle-panel" },
      h("div", { class: "settle-head" }, h("h2", {}, `Settlement · round ${ctx.settled.round}`),
        next ? h("span", { class: "instruction" }, next) : null,
        h("button", { class: "primary done", onclick: () => { keepSettlement(null); render(); } }, "Done")),
      settlementView(ctx.settled, "final")));
  }

  return { render, renderStatus, renderMessage };
}
