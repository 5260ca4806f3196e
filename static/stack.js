// A record table read on a phone stacks each row into a card (static/cardroom.css): every
// cell is shown with its column's name, copied here from the table's header into the
// cell's data-label (colspans followed). Tables replaced or added later (the approval
// queue's live refresh) are labelled as they arrive.
"use strict";
(() => {
  function label(table) {
    const head = table.tHead && table.tHead.rows[table.tHead.rows.length - 1];
    if (!head) return;
    const names = [];
    for (const th of head.cells) for (let i = 0; i < th.colSpan; i++) names.push(th.textContent.trim());
    // The body's rows and the footer's (a total row stacks like the others).
    for (const body of [...table.tBodies, ...(table.tFoot ? [table.tFoot] : [])]) for (const row of body.rows) {
      let column = 0;
      for (const cell of row.cells) {
        // A cell across the whole row (a "none" line) needs no column name.
        if (!cell.hasAttribute("data-label") && cell.colSpan < names.length) cell.dataset.label = names[column] || "";
        column += cell.colSpan;
      }
    }
  }
  const labelAll = () => document.querySelectorAll("table.grid").forEach(label);
  labelAll();
  new MutationObserver(labelAll).observe(document.body, { childList: true, subtree: true });
})();
