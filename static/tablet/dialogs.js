// The tablet's dialogs: a tap that cannot be taken back asked twice, the posted rules,
// a supervisor's own command typed here, and a void (requested, or approved here).
import { h } from "../live/dom.js";
import { money } from "../live/money.js";
import { HAND, AWARD } from "./words.js";
import { newId } from "./outbox.js";
import { reads } from "./context.js";

export function createDialogs(ctx) {
  const $ = (id) => document.getElementById(id);
  const { game } = reads(ctx);
  const tap = (...args) => ctx.tap(...args);
  const showError = (...args) => ctx.showError(...args);
  const render = (...args) => ctx.render(...args);
  const callServer = (...args) => ctx.callServer(...args);

  // --- a tap that cannot be taken back is asked twice ---------------------------------------
  // Leaving, passing the bank and every seat declining change who plays or banks (the last
  // stops the game): the tablet asks before it sends them, in a dialog sized for a finger.
  function confirmThen(command, question, consequence, go) {
    let dialog = $("confirm-dialog");
    if (!dialog) { dialog = h("dialog", { id: "confirm-dialog", class: "confirm" }); ctx.app.append(dialog); }
    dialog.replaceChildren(h("form", { method: "dialog" },
      h("h2", {}, question), h("p", {}, consequence),
      h("menu", {}, h("button", { value: "cancel", class: "secondary" }, "Cancel"),
        h("button", { value: "go", class: "danger go" }, go))));
    dialog.onclose = () => { if (dialog.returnValue === "go") tap(command); dialog.returnValue = ""; };
    dialog.showModal();
  }

  // --- the table's posted rules -----------------------------------------------------------
  function openRules() {
    const p = ctx.page.posted;
    const t = ctx.page.posted_text;
    const range = (low, high) => `${low ? money(low) : "no minimum"} to ${high ? money(high) : "no maximum"}`;
    const odds = (rows) => h("table", { class: "grid compact" }, h("tbody", {}, ...rows.map((r) =>
      h("tr", {}, h("td", {}, HAND[r.hand] || r.hand), h("td", { class: "num" }, r.pays)))));
    let dialog = $("rules-dialog");
    if (!dialog) { dialog = h("dialog", { id: "rules-dialog", class: "rules" }); ctx.app.append(dialog); }
    const fees = p.fees;
    dialog.replaceChildren(h("h2", {}, "Table rules, as posted"),
      h("div", { class: "rules-grid" },
        h("section", {}, h("h3", {}, "Limits"),
          h("p", {}, `Ante (= Blind): ${range(p.limits.ante_min, p.limits.ante_max)}`),
          h("p", {}, `Trips: ${range(p.limits.trips_min, p.limits.trips_max)}`),
          h("p", {}, `A player-dealer banks at most ${p.max_consecutive_banks} round${p.max_consecutive_banks > 1 ? "s" : ""} in a row.`)),
        h("section", {}, h("h3", {}, `Blind pays (${p.paytable.name})`), odds(p.paytable.blind)),
        h("section", {}, h("h3", {}, "Trips pays"), odds(p.paytable.trips)),
        // Every side bet the table offers, with its limits and what each hand pays (game-rules 10).
        ...(p.side_bet_pays || []).map((bet) => h("section", { class: "side-bet-rules", "data-side-bet": bet.paytable },
          h("h3", {}, `${bet.name} pays (${bet.paytable})`),
          h("p", {}, bet.meter ? `A flat ${money(bet.min)} wager; meter: ${bet.meter}.` : `Wager: ${range(bet.min, bet.max)}`),
          h("table", { class: "grid compact" }, h("tbody", {}, ...bet.rows.map((r) =>
            h("tr", {}, h("td", {}, r.hand), h("td", { class: "num" }, r.pays))))))),
        h("section", {}, h("h3", {}, "Collection fees"), fees
          ? [h("p", {}, `Paid by ${t[fees.payers]}; a player's fee on ${t[fees.player_basis]}, the player-dealer's ${t[fees.pd_basis]}.`),
            h("table", { class: "grid compact" },
              h("thead", {}, h("tr", {}, h("th", {}, "Wager"), h("th", { class: "num" }, "Player"), h("th", { class: "num" }, "Player-dealer"))),
              h("tbody", {}, ...fees.rates.map((r) => h("tr", {}, h("td", {}, `${money(r.min)}–${money(r.max)}`),
                h("td", { class: "num" }, money(r.player_fee)), h("td", { class: "num" }, money(r.pd_fee))))))]
          : h("p", {}, "No collection fee at this table.")),
        // Rule set versions still to come at this table (tables/rule_sets.py upcoming), in words.
        ...((ctx.page.rule_changes || []).length ? [h("section", { class: "rule-changes" }, h("h3", {}, "Rule changes ahead"),
          h("ul", {}, ...ctx.page.rule_changes.map((words) => h("li", {}, words))))] : [])),
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
    callServer(`/api/tables/${ctx.page.table}/commands/confirmed-here`, { command: sent, approver: { username, password } }, what, (answer) => {
      const result = answer.result || answer; // the command's answer, or the credentials' refusal
      if (!result.ok) { showError(result.error.code, result.error.message); return; }
      const done = BY_SUPERVISOR[command.type];
      ctx.message = { kind: "info", title: done.done, detail: done.detail(command, result, username), after: ctx.outbox.tapCount };
      render();
    });
  }

  // --- void ------------------------------------------------------------------------------
  // A void needs a second person. The dealer sends the request to the supervisors (their
  // queue and the floor dashboard); one approves on their own device and the round is
  // voided at once: the tablet sees the void as the table's next event and the decision by
  // polling the request. Or a supervisor at the table approves here with their own
  // credentials (never the tablet's session). Not in the outbox: sent at once, and kept and
  // sent again if the server fails (callServer).
  const VOID_KEY = ctx.mine("void");
  let voidRequest = JSON.parse(localStorage.getItem(VOID_KEY) || "null"); // {approval, round}
  function keepVoidRequest(request) {
    voidRequest = request;
    if (request) localStorage.setItem(VOID_KEY, JSON.stringify(request));
    else localStorage.removeItem(VOID_KEY);
  }

  // The pending request is the table's (snapshot.void_request, tables.selectors.pending_void):
  // every browser of the table shows it, and follows its fate as the one that asked does.
  function voidPanel() {
    const pending = ctx.snapshot.void_request;
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
    callServer(`/api/tables/${ctx.page.table}/approvals`, body, what, (answer) => {
      if (!answer.ok) { showError(answer.error.code, answer.error.message); return; }
      if (answer.status === "pending") keepVoidRequest({ approval: answer.approval, round });
      else ctx.message = { ...VOIDED, after: ctx.outbox.tapCount };
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
        ctx.message = answer.status === "approved" ? { ...VOIDED, detail: `Approved by ${answer.decided_by}. ${VOIDED.detail}` }
          : answer.status === "refused" ? { kind: "error", title: "The void was refused", detail: `${answer.decided_by} refused it${answer.reason ? `: ${answer.reason}` : ""}; the round goes on.` }
          : { kind: "info", title: "The void request expired", detail: "The round ended before a supervisor decided." };
        ctx.message.after = ctx.outbox.tapCount;
        render();
      })
      .catch(() => {});
  }

  function openVoid() {
    const dialog = $("void-dialog");
    dialog.querySelector("form").reset();
    dialog.showModal();
  }

  // The tablet's void and supervisor forms (the live view has none).
  function wire() {
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

  return { confirmThen, openRules, openSupervisorDialog, awardText, voidPanel, checkVoidRequest, wire };
}
