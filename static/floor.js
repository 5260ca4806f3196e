// The floor dashboard: one row per table, kept live by /ws/floor/. The server sends every
// row on connect (and every 30 s), then the rows that changed, batched (one message per
// server process per 250 ms window);
// rows are drawn once per animation frame however many arrive, so 250 busy tables stay
// smooth. Rows carry the table's seq: an older row (from a slower server process) is
// ignored.
"use strict";

(() => {
  const { h, money } = Live;
  const rows = new Map();
  const dirty = new Set();
  let frame = null;
  const tbody = document.getElementById("floor-rows");
  const street = (name) => Live.PHASE[name].toLowerCase();

  function take(row) {
    const had = rows.get(row.table);
    if (had && row.seq < had.seq) return;
    rows.set(row.table, row);
    dirty.add(row.table);
    if (frame === null) frame = requestAnimationFrame(draw);
  }

  function rowEl(r) {
    const pd = r.player_dealer
      ? `Seat ${r.player_dealer.seat} · ${r.player_dealer.player}` +
        (r.player_dealer.consecutive_banks ? ` (${r.player_dealer.consecutive_banks} in a row)` : "")
      : "—";
    return h("tr", { "data-table": r.table, "data-seq": r.seq, class: r.alerts.length ? "has-alerts" : "" },
      h("td", {}, h("a", { href: `/tables/${r.table}/` }, r.name)),
      h("td", { class: "open" }, r.open ? "Open" : "Closed"),
      h("td", { class: "street" }, r.round ? `#${r.round} ${street(r.street)}` : street(r.street)),
      h("td", { class: "pd" }, pd),
      h("td", { class: "num bank-left" }, money(r.bank_left)),
      h("td", { class: "num seated" }, `${r.seated} / ${r.seats}`),
      h("td", { class: "num rph" }, r.rounds_per_hour),
      h("td", { class: "num fees" }, money(r.fees_today)),
      h("td", { class: "box" }, r.boxes.fees || "none", r.boxes.jackpot ? ` · jackpot ${r.boxes.jackpot}` : ""),
      h("td", {}, h("div", { class: "alerts" },
        r.meter ? h("span", { class: "meter", "data-meter": r.meter.name }, `${r.meter.name} ${money(r.meter.meter)}`) : null,
        ...r.alerts.map((a) => h("span", { class: `alert ${a.kind}`, "data-kind": a.kind }, a.text,
          a.kind === "award_unconfirmed" ? confirmButton(r.table, a.seat) : null)))));
  }

  // A supervisor confirms a percentage progressive award from here (the command service
  // accepts `confirm_award` from supervisors only, under their name).
  const csrfToken = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value;
  function confirmButton(table, seat) {
    return h("button", { class: "secondary confirm-award", onclick: (e) => {
      e.target.disabled = true;
      fetch(`/api/tables/${table}/commands`, {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken },
        body: JSON.stringify({ type: "confirm_award", seat }),
      }).then((response) => response.json()).then((reply) => {
        if (!reply.result || !reply.result.ok) { e.target.disabled = false; e.target.title = JSON.stringify(reply); }
      });
    } }, "Confirm");
  }

  function draw() {
    frame = null;
    for (const id of dirty) {
      const el = rowEl(rows.get(id));
      const old = tbody.querySelector(`tr[data-table="${id}"]`);
      if (old) old.replaceWith(el);
      else tbody.append(el);
    }
    dirty.clear();
    const all = [...rows.values()];
    const alerts = all.reduce((n, r) => n + r.alerts.length, 0);
    document.getElementById("floor-summary").textContent =
      `${all.filter((r) => r.open).length} open of ${all.length} tables · ${alerts} alert${alerts === 1 ? "" : "s"} · ` +
      `fees today ${money(all.reduce((n, r) => n + r.fees_today, 0))}`;
  }

  function onMessage(msg) {
    if (msg.type === "floor" || msg.type === "rows") msg.rows.forEach(take);
  }

  function onStatus(s) {
    const el = document.getElementById("status");
    el.textContent = Live.STATUS_TEXT[s] || s;
    el.dataset.state = s;
  }

  JSON.parse(document.getElementById("floor-data").textContent).forEach(take);
  new Live.Socket("/ws/floor/", { onMessage, onStatus });
})();
