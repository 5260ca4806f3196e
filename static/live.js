// Shared by the tablet, the live table view and the floor: the socket protocol
// (tables/consumers.py), money and element helpers. No game rule lives here: the pages
// draw what the server's snapshot says (its `view` is computed in tables/selectors.py).
"use strict";

const Live = (() => {
  // An event applies to a snapshot when it is the very next one; an older one is already
  // in the snapshot; a newer one means events were missed: take a fresh snapshot (null).
  function applyEvent(snapshot, event) {
    if (event.seq <= snapshot.version) return snapshot;
    if (event.seq === snapshot.version + 1) return event.snapshot;
    return null;
  }

  // A websocket that reconnects by itself (with backoff) and tells its state.
  class Socket {
    constructor(path, { onMessage, onStatus }) {
      this.url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}`;
      this.onMessage = onMessage;
      this.onStatus = onStatus;
      this.delay = 500;
      this.ws = null;
      this.connect();
      // Back from sleep or a dropped network: try now rather than at the next backoff.
      window.addEventListener("online", () => this.reconnectSoon(0));
      document.addEventListener("visibilitychange", () => { if (!document.hidden) this.reconnectSoon(0); });
    }
    get open() { return this.ws !== null && this.ws.readyState === WebSocket.OPEN; }
    connect() {
      clearTimeout(this.timer);
      this.onStatus("connecting");
      const ws = new WebSocket(this.url);
      this.ws = ws;
      ws.onopen = () => { this.delay = 500; this.onStatus("open"); };
      ws.onmessage = (e) => this.onMessage(JSON.parse(e.data));
      ws.onclose = (e) => {
        if (this.ws !== ws) return;
        this.ws = null;
        if (e.code === 4401 || e.code === 403) { this.onStatus("logged_out"); return; }
        // The role or the assignment no longer lets this person here: retrying cannot help.
        if (e.code === 4403) { this.onStatus("not_allowed"); return; }
        this.onStatus("closed");
        this.reconnectSoon(this.delay);
        this.delay = Math.min(this.delay * 2, 8000);
      };
    }
    reconnectSoon(ms) {
      if (this.ws !== null) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.connect(), ms);
    }
    send(message) {
      if (!this.open) return false;
      this.ws.send(JSON.stringify(message));
      return true;
    }
  }

  // Integer cents, shown as dollars: $1,234.50.
  function money(cents) {
    if (cents === null || cents === undefined) return "—";
    const sign = cents < 0 ? "−" : "";
    const abs = Math.abs(cents);
    const dollars = Math.floor(abs / 100).toLocaleString("en-US");
    return `${sign}$${dollars}.${String(abs % 100).padStart(2, "0")}`;
  }

  // "12", "12.5", "12.50", "$1,200" -> cents, exactly (no floating point); null if not money.
  function toCents(text) {
    const m = String(text).trim().replace(/[$,]/g, "").match(/^(\d+)(?:\.(\d{1,2}))?$/);
    if (!m) return null;
    return Number(m[1]) * 100 + Number((m[2] || "0").padEnd(2, "0"));
  }

  // h("button", {class: "x", onclick: f}, "text", child, ...) -> element
  function h(tag, attrs = {}, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(el.dataset, v);
      else el.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  // The engine's phases (TableGame.phase) as the screens name them.
  const PHASE = {
    between_rounds: "Between rounds", betting: "Betting", preflop: "Pre-flop", flop: "Flop",
    river: "River", showdown: "Showdown",
  };

  const STATUS_TEXT = {
    connecting: "Connecting…", open: "Live", closed: "Offline: reconnecting…",
    logged_out: "Logged out: log in again",
    not_allowed: "No longer allowed here: reload the page",
  };

  return { applyEvent, Socket, money, toCents, h, PHASE, STATUS_TEXT };
})();
