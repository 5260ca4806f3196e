// The approval queue (templates/staff/approvals.html), live: the floor's rows carry each
// table's waiting requests. When their number differs from the one this page shows, the
// two tables are read again and replaced in place (the page's messages stay; nothing is
// decided without a click).
import { Socket } from "./live.js";
import { approvalsWaiting } from "./floor/alerts.js";

const shownCount = () => Number(document.getElementById("pending-approvals").dataset.waiting);
const waiting = new Map();
let complete = false; // the whole floor arrives first on connect, then changed rows
let reading = false;

function reread() {
  reading = true;
  fetch(location.pathname, { credentials: "same-origin" })
    .then((response) => response.text())
    .then((html) => {
      const fresh = new DOMParser().parseFromString(html, "text/html");
      for (const id of ["pending-approvals", "decided-approvals"]) document.getElementById(id).replaceWith(fresh.getElementById(id));
    })
    .finally(() => { reading = false; });
}

new Socket("/ws/floor/", {
  onStatus() {},
  onMessage(msg) {
    if (msg.type === "floor") complete = true;
    else if (msg.type !== "rows") return;
    msg.rows.forEach((r) => waiting.set(r.table, approvalsWaiting([r])));
    const total = [...waiting.values()].reduce((a, b) => a + b, 0);
    if (complete && total !== shownCount() && !reading) reread();
  },
});
