// The floor dashboard: a tile per table, coloured by its state, and the list of alerts a
// supervisor acknowledges. Kept live by /ws/floor/: the server sends every row on connect,
// then the rows that changed, batched (one message per server process per 250 ms window);
// the page is drawn once per animation frame however many arrive, so 250 busy tables stay
// smooth. Drawing changes only what changed (live/dom.js morph): a row equal to the one
// drawn is not drawn again, and in a changed tile or the alert list an element whose data
// is unchanged is left alone, so a button a person is reaching for is never swapped under
// the finger. Rows carry the table's seq: an older row (from a slower
// server process) is ignored. What each row says (state, alerts and their refs) is the
// server's (tables/floor.py, floor_rows); this page only draws, sorts and filters.
import { h, money, PHASE, STATUS_TEXT, Socket } from "./live.js";
import { morph, morphChildren } from "./live/dom.js";
import { groupAlerts, approvalsWaiting } from "./floor/alerts.js";
import { reliefLines, askAgainIn } from "./floor/relief.js";

(() => {
  const $ = (id) => document.getElementById(id);
  const rows = new Map();
  const tiles = new Map(); // table -> its tile element, brought in line when its row changes
  const drawn = new Map(); // table -> its row as last taken (JSON): an equal row is no change
  const dirty = new Set();
  let frame = null;
  const STATES = new Map(JSON.parse($("floor-states").textContent));
  const STATE_ORDER = [...STATES.keys()];
  const csrfToken = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value;
  const street = (name) => PHASE[name].toLowerCase();
  const laTime = (iso) => new Date(iso).toLocaleTimeString("en-US", { timeZone: "America/Los_Angeles", hour: "numeric", minute: "2-digit" });
  const unacknowledged = (r) => r.alerts.filter((a) => !a.ack).length;
  // The shift's trend per table (tables/trends.py): read with the page, then asked for
  // every few minutes apart from the live rows, which never carry it.
  let trends = JSON.parse($("floor-trends").textContent);

  function take(row) {
    const had = rows.get(row.table);
    if (had && row.seq < had.seq) return;
    const text = JSON.stringify(row);
    if (had && drawn.get(row.table) === text) return; // the same row again: nothing to draw
    drawn.set(row.table, text);
    if (row.retired) { // retired meanwhile: it leaves the floor (its records stay)
      rows.delete(row.table);
      drawn.delete(row.table);
      const tile = tiles.get(row.table);
      if (tile) tile.remove();
      tiles.delete(row.table);
      dirty.delete(row.table);
      if (frame === null) frame = requestAnimationFrame(draw);
      return;
    }
    rows.set(row.table, row);
    dirty.add(row.table);
    if (frame === null) frame = requestAnimationFrame(draw);
  }

  // --- a table's tile ---------------------------------------------------------------------
  function tileEl(r) {
    const pd = r.player_dealer
      ? `Seat ${r.player_dealer.seat} · ${r.player_dealer.player}` +
        // From the second bank in a row on: "2nd of 2" (tables.selectors.bank_run).
        (r.player_dealer.bank_run && r.player_dealer.bank_run.bank > 1 ? ` (bank ${r.player_dealer.bank_run.text} in a row)` : "")
      : "—";
    const fact = (cls, label, value) => h("div", { class: `fact ${cls}` }, h("span", { class: "label" }, label), h("span", { class: "value" }, value));
    return h("a", {
      class: `tile state-${r.state} ${unacknowledged(r) ? "has-alerts" : ""}`, href: `/tables/${r.table}/`,
      "data-table": r.table, "data-seq": r.seq, "data-state": r.state,
    },
    h("div", { class: "tile-head" }, h("span", { class: "name" }, r.name), h("span", { class: `state-chip ${r.state}` }, STATES.get(r.state))),
    h("div", { class: "street" }, r.round ? `#${r.round} ${street(r.street)}` : street(r.street)),
    h("div", { class: "pd" }, pd, r.tppp ? h("span", { class: "badge tppp" }, ` TPPP seat ${r.tppp.seat} · ${r.tppp.badge}`) : null,
      r.props_only ? h("span", { class: "badge props-only" }, " props only") : null),
    windowFact(r),
    statusLine(r),
    tileControls(r),
    h("div", { class: "facts" },
      fact("bank-left", "Bank left", money(r.bank_left)), fact("seated", "Seated", `${r.seated} / ${r.seats}`),
      fact("rph", "Rounds/h", r.rounds_per_hour), fact("fees", "Fees today", money(r.fees_today)),
      fact("box", "Drop box", (r.boxes.fees || "none") + (r.boxes.jackpot ? ` · jackpot ${r.boxes.jackpot}` : "")),
      // Backline wagers (game-rules 12): how many behind each seat and their Antes; no bettor is named.
      ...(r.backlines || []).map((b) => fact("backline", `Behind seat ${b.seat}`,
        `${b.count} backline${b.count === 1 ? "" : "s"}: ${b.wagers.map((w) => money(w.ante)).join(" + ")}`)),
      r.meter ? h("div", { class: "fact meter", "data-meter": r.meter.name }, h("span", { class: "label" }, r.meter.name), h("span", { class: "value" }, money(r.meter.meter))) : null),
    trendEl(r),
    h("div", { class: "alerts" },
      ...r.alerts.map((a) => h("span", { class: `alert ${a.kind} ${a.ack ? "acknowledged" : ""}`, "data-kind": a.kind }, a.text))));
  }

  // Rounds settled and fees per hour of the shift: SVG drawn and escaped by the server
  // (cardroom/charts.py), each chart's title and aria-label reading its numbers.
  function trendEl(r) {
    const t = trends.tables[r.table];
    if (!t) return null;
    const el = h("div", { class: "trend", "data-trend": r.table });
    el.innerHTML = `<span class="label">Rounds/h this shift</span>${t.rounds_svg}<span class="label">Fees/h</span>${t.fees_svg}`;
    return el;
  }

  function refreshTrends() {
    fetch("/floor/trends/", { credentials: "same-origin" })
      .then((response) => (response.ok ? response.json() : null))
      .then((fresh) => {
        if (!fresh) return;
        trends = fresh;
        for (const id of rows.keys()) dirty.add(id);
        if (dirty.size && frame === null) frame = requestAnimationFrame(draw);
      })
      .catch(() => {}); // the next refresh tries again; the tiles keep the last trend
  }
  setInterval(refreshTrends, (trends.refresh_seconds || 300) * 1000);

  // Who last opened or closed the table, when, and why (tables.models.TableStatusChange).
  function statusLine(r) {
    const c = r.status_change;
    if (!c) return null;
    return h("div", { class: "status-change muted", "data-action": c.action },
      `${c.action[0].toUpperCase()}${c.action.slice(1)} by ${c.by} at ${laTime(c.at)}: ${c.reason}`);
  }

  // Open or close the table from its tile, with a reason asked in the page's own dialog
  // (keyboard: Enter confirms, Escape cancels; large buttons for a finger). The dialog is
  // apart from the tiles, so a row redrawn meanwhile loses nothing. The row that follows
  // shows the change.
  function askReason(r, open) {
    const dialog = $("status-dialog");
    const reason = $("status-reason");
    $("status-title").textContent = `${open ? "Open" : "Close"} ${r.name}`;
    $("status-confirm").textContent = open ? "Open the table" : "Close the table";
    reason.value = "";
    dialog.returnValue = "";
    return new Promise((resolve) => {
      dialog.onclose = () => resolve(dialog.returnValue === "confirm" && reason.value.trim() ? reason.value.trim() : null);
      dialog.showModal();
      reason.focus();
    });
  }

  function tileControls(r) {
    const open = !r.open;
    const label = open ? "Open…" : "Close…";
    return h("div", { class: "tile-controls", onclick: (e) => { e.preventDefault(); e.stopPropagation(); } },
      h("button", { type: "button", class: `quiet ${open ? "open-table" : "close-table"}`, "data-key": `${r.table} ${open} ${r.name}`, onclick: async (e) => {
        e.preventDefault();
        const button = e.currentTarget;
        const reason = await askReason(r, open);
        if (reason === null) return;
        button.disabled = true;
        fetch(`/api/tables/${r.table}/open`, {
          method: "POST", credentials: "same-origin",
          headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken },
          body: JSON.stringify({ open, reason }),
        }).then((response) => response.json()).then((answer) => {
          button.disabled = false;
          if (!answer.ok) button.title = answer.error.message;
          const shown = tiles.get(r.table);
          const note = shown && shown.querySelector(".tile-refusal");
          if (note) note.textContent = answer.ok ? "" : `${answer.error.code}: ${answer.error.message}`;
        }).catch(() => { button.disabled = false; });
      } }, label),
      h("span", { class: "tile-refusal error" }));
  }

  // --- sorting and filtering (the screen's own choice, kept in the address) ------------
  const SORTS = {
    name: (a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }),
    alerts: (a, b) => unacknowledged(b) - unacknowledged(a) || b.alerts.length - a.alerts.length,
    state: (a, b) => STATE_ORDER.indexOf(a.state) - STATE_ORDER.indexOf(b.state),
    rounds: (a, b) => b.rounds_per_hour - a.rounds_per_hour,
    fees: (a, b) => b.fees_today - a.fees_today,
  };
  function shown(r) {
    const filter = $("floor-filter").value;
    const find = $("floor-find").value.trim().toLowerCase();
    if (find && !r.name.toLowerCase().includes(find)) return false;
    if (filter === "alerts") return r.alerts.length > 0;
    return filter === "all" || r.state === filter;
  }
  const params = new URLSearchParams(location.search);
  for (const [key, id] of [["show", "floor-filter"], ["sort", "floor-sort"], ["find", "floor-find"]]) {
    if (params.get(key)) $(id).value = params.get(key);
    $(id).addEventListener("input", () => {
      params.set(key, $(id).value);
      history.replaceState(null, "", `?${params}`);
      for (const id of rows.keys()) dirty.add(id);
      if (frame === null) frame = requestAnimationFrame(draw);
    });
  }

  // --- alerts -----------------------------------------------------------------------------
  function acknowledge(r, a, button) {
    button.disabled = true;
    fetch(`/api/tables/${r.table}/alerts/acknowledge`, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken },
      body: JSON.stringify({ kind: a.kind, ref: a.ref }),
    }).then((response) => response.json()).then((answer) => {
      // The row that follows carries the acknowledgement; a refusal (the alert has gone) too.
      if (!answer.ok) button.replaceWith(h("span", { class: "muted" }, "no longer shown"));
    }).catch(() => { button.disabled = false; });
  }

  function alertItem(r, a) {
    const where = a.kind.startsWith("approval_") ? h("a", { href: "/staff/approvals/" }, a.text) : a.text;
    return h("li", { class: `alert-item ${a.kind} ${a.ack ? "acknowledged" : ""}`, "data-table": r.table, "data-kind": a.kind,
      "data-key": alertKey(r, a) },
      h("a", { class: "table-name", href: `/tables/${r.table}/` }, r.name), " ", where, " ",
      ALERT_ACTIONS[a.kind] ? ALERT_ACTIONS[a.kind](r, a) : null, " ",
      a.ack ? h("span", { class: "muted ack" }, `seen by ${a.ack.by} at ${laTime(a.ack.at)}`)
        : h("button", { class: "quiet", onclick: (e) => acknowledge(r, a, e.currentTarget) }, "Acknowledge"));
  }

  // What an alert's listeners act on: the table, the alert and what it carries.
  const alertKey = (r, a) => JSON.stringify([r.table, r.name, a.kind, a.ref, a.seat ?? null, a.award ?? null]);

  // Alerts of one kind at several tables are one line: the kind, then each table with
  // its own detail and action, and one button that acknowledges them all.
  const KIND_TITLE = {
    tablet_disconnected: "Tablet disconnected", commands_failing: "Tablet commands failing", idle: "Idle",
    bank_exhausted: "Bank exhausted", stopped: "Game stopped", offer_pending: "Bank offered", void: "Voids today",
    approval_pending: "Approvals waiting", approval_expired: "Expired requests", award_unconfirmed: "Progressive award to confirm",
    meter_below_seed: "Meter below its seed", award_owed: "Awards owed", game_ended: "Game ended by the rotation window",
    window_warning: "Rotation window closing", tablet_login_locked: "Supervisor logins held back",
  };
  function alertGroup(kind, group) {
    const open = group.filter(([, a]) => !a.ack);
    const title = KIND_TITLE[kind] || kind.replace(/_/g, " ");
    const all = (e) => { e.currentTarget.disabled = true; for (const [r, a] of open) acknowledge(r, a, e.currentTarget); };
    return h("li", { class: `alert-item alert-group ${kind} ${open.length ? "" : "acknowledged"}`, "data-kind": kind, "data-count": group.length,
      "data-key": JSON.stringify([kind, ...group.map(([r, a]) => alertKey(r, a))]) },
      h("strong", {}, `${title} · ${group.length} tables`),
      h("ul", { class: "group-tables" }, ...group.map(([r, a]) => h("li", { "data-table": r.table, class: a.ack ? "acknowledged" : "" },
        h("a", { class: "table-name", href: `/tables/${r.table}/` }, r.name),
        a.text === title ? null : h("span", { class: "muted" }, ` ${a.text}`), " ",
        ALERT_ACTIONS[a.kind] ? ALERT_ACTIONS[a.kind](r, a) : null,
        a.ack ? h("span", { class: "muted ack" }, ` seen by ${a.ack.by} at ${laTime(a.ack.at)}`) : null))),
      open.length ? h("button", { class: "quiet acknowledge-all", onclick: all }, `Acknowledge ${open.length}`) : null);
  }

  function drawAlerts(all) {
    const { open, seen, lines: groups } = groupAlerts(all);
    setText($("alert-count"), `${open} to see${seen ? `, ${seen} seen` : ""}`);
    const lines = groups.map(([kind, group]) => (group.length === 1 ? alertItem(...group[0]) : alertGroup(kind, group)));
    morphChildren($("alert-list"), lines.length ? lines : [h("li", { class: "muted" }, "No alert.")]);
    const waiting = approvalsWaiting(all);
    const banner = $("approvals-banner");
    if (banner.hidden !== (waiting === 0)) banner.hidden = waiting === 0;
    setText(banner, `${waiting} approval${waiting === 1 ? "" : "s"} waiting: open the queue`);
  }

  // A supervisor acts on an alert from here with a table command: confirms a percentage
  // progressive award (`confirm_award`) or starts a new game the rotation window ended
  // (`start_game`). The command service accepts both from supervisors only, under their name.
  function send(table, command, button) {
    button.disabled = true;
    fetch(`/api/tables/${table}/commands`, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken },
      body: JSON.stringify(command),
    }).then((response) => response.json()).then((reply) => {
      if (!reply.result || !reply.result.ok) { button.disabled = false; button.title = JSON.stringify(reply); }
    });
  }
  function commandButton(table, command, label, cls) {
    return h("button", { class: `secondary ${cls}`, onclick: (e) => send(table, command, e.currentTarget) }, label);
  }
  // An award pays thousands from the fund: the button only opens a dialog with the seat,
  // the hand, the cards and the amount; the command goes when the supervisor confirms there.
  function awardButton(r, a) {
    return h("button", { class: "secondary confirm-award", onclick: (e) => {
      const button = e.currentTarget;
      const f = a.award;
      $("award-table").textContent = r.name;
      $("award-seat").textContent = `Seat ${f.seat}${f.player ? ` · ${f.player}` : ""}`;
      $("award-hand").textContent = f.hand;
      $("award-cards").textContent = `${f.hole.join(" ")} · board ${f.board.join(" ")}`;
      $("award-amount").textContent = `${money(f.amount)} from meter ${f.meter}`;
      const dialog = $("award-dialog");
      dialog.returnValue = "";
      dialog.onclose = () => {
        if (dialog.returnValue === "confirm") send(r.table, { type: "confirm_award", seat: a.seat }, button);
      };
      dialog.showModal();
    } }, "Confirm…");
  }
  const ALERT_ACTIONS = {
    award_unconfirmed: awardButton,
    game_ended: (r) => commandButton(r.table, { type: "start_game" }, "Start a new game", "start-game"),
  };

  // The rotation window (game-rules 2A.4): the time left before the window rule would end
  // the game unless another player banks; amber from the server's warn_from, red ended.
  function windowFact(r) {
    const w = r.window;
    if (!w) return null;
    const fact = (state, text, extra = {}) => h("div", { class: `fact window ${state}`, ...extra },
      h("span", { class: "label" }, "Rotation window"), h("span", { class: "value" }, text));
    if (w.state === "ended") return fact("ended", "Game ended");
    if (!w.deadline) return fact("ok", "no limit yet");
    const now = Date.now();
    const left = Math.max(0, Math.floor((Date.parse(w.deadline) - now) / 60000));
    return fact(now >= Date.parse(w.warn_from) ? "warning" : "ok", `${left} min left`, { "data-deadline": w.deadline });
  }
  // Minutes tick between the server's rows.
  setInterval(() => { for (const r of rows.values()) if (r.window && r.window.deadline) dirty.add(r.table);
    if (dirty.size && frame === null) frame = requestAnimationFrame(draw); }, 15000);

  // A text set only when it differs: setting the same text replaces the text node.
  function setText(el, text) {
    if (el.textContent !== text) el.textContent = text;
  }

  function draw() {
    frame = null;
    const container = $("floor-tiles");
    for (const id of dirty) {
      const r = rows.get(id);
      const fresh = tileEl(r);
      fresh.hidden = !shown(r);
      const old = tiles.get(id);
      tiles.set(id, old ? morph(old, fresh) : container.appendChild(fresh));
    }
    dirty.clear();
    const all = [...rows.values()].sort(SORTS[$("floor-sort").value] || SORTS.name);
    all.forEach((r, index) => {
      const el = tiles.get(r.table);
      if (el.hidden !== !shown(r)) el.hidden = !shown(r);
      // In sort order; a tile already in its place is not moved (a move is a removal).
      const here = container.children[index];
      if (here !== el) container.insertBefore(el, here || null);
    });
    drawAlerts(all);
    const alerts = all.reduce((n, r) => n + unacknowledged(r), 0);
    setText($("floor-summary"),
      `${all.filter((r) => r.open).length} open of ${all.length} tables · ${alerts} alert${alerts === 1 ? "" : "s"} · ` +
      `fees today ${money(all.reduce((n, r) => n + r.fees_today, 0))}`);
  }

  // --- the relief panel (tables/relief.py board_message) ----------------------------------
  // Drawn by the server with the page; then redrawn from each board the socket brings (with
  // every full floor, and when a plan or a take-over changed it). At the board's
  // `changes_at` (a push time passing, a dealer turning late) the screen asks for it again.
  let relief = null;
  let reliefTimer = null;
  function drawRelief() {
    const section = $("relief-board");
    if (!section || !relief) return;
    const lines = reliefLines(relief, Date.now());
    const list = (cls, itemCls, items, attrs = {}) =>
      (items.length ? h("ul", { class: cls, ...attrs }, ...items.map((text) => h("li", { class: itemCls }, text))) : null);
    // Only nodes: replaceChildren would write a missing part (null) as the text "null".
    const parts = [
      section.querySelector("h2").cloneNode(true),
      lines.planned ? null : h("p", { class: "muted" }, "No relief plan for this shift."),
      h("ul", { class: "relief-next" }, ...lines.next.map((text) => h("li", { class: "relief-push" }, text))),
      list("relief-late", "relief-late-dealer", lines.late, { role: "alert" }),
      list("relief-handovers", "relief-handover", lines.handovers),
    ].filter((part) => part !== null);
    morphChildren(section, parts);
  }
  function takeRelief(board) {
    relief = board;
    drawRelief();
    clearTimeout(reliefTimer);
    const wait = askAgainIn(board, Date.now());
    if (wait !== null) reliefTimer = setTimeout(() => socket.send({ type: "relief" }), wait);
  }
  // A late dealer's minutes tick between boards.
  setInterval(() => { if (relief && relief.late.length) drawRelief(); }, 15000);

  function onMessage(msg) {
    if (msg.type === "floor" || msg.type === "rows") msg.rows.forEach(take);
    if (msg.type === "floor" && msg.relief) takeRelief(msg.relief);
    if (msg.type === "relief") takeRelief(msg);
  }

  function onStatus(s) {
    const el = $("status");
    el.textContent = STATUS_TEXT[s] || s;
    el.dataset.state = s;
  }

  JSON.parse($("floor-data").textContent).forEach(take);
  const socket = new Socket("/ws/floor/", { onMessage, onStatus });
})();
