// Shared by the tablet, the live table view, the floor and the approval queue: the socket
// protocol (web/tables/consumers.py), money and element helpers, as ES modules under
// static/live/. No game rule lives here: the pages draw what the server's snapshot says
// (its `view` is computed on the server).
export { applyEvent } from "./live/events.js";
export { Socket } from "./live/socket.js";
export { money, toCents } from "./live/money.js";
export { h } from "./live/dom.js";
export { PHASE, STATUS_TEXT } from "./live/text.js";
