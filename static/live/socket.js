// A websocket that reconnects by itself and tells its state: "connecting", "open",
// "closed" (and trying again), "logged_out" or "not_allowed" (retrying cannot help).
// Waits between attempts double from 500 ms to at most 8 s, and start again at 500 ms
// once a connection opens. The browser's WebSocket, timers, address and wake-up events
// are the defaults; the unit tests (tests/js/) pass their own.

export const FIRST_DELAY_MS = 500;
export const MAX_DELAY_MS = 8000;
const OPEN = 1; // WebSocket.OPEN

export class Socket {
  constructor(path, { onMessage, onStatus }, env = browserEnv()) {
    this.env = env;
    this.url = `${env.location.protocol === "https:" ? "wss" : "ws"}://${env.location.host}${path}`;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.delay = FIRST_DELAY_MS;
    this.ws = null;
    this.timer = null;
    this.connect();
    // Back from sleep or a dropped network: try now rather than at the next backoff.
    env.onWake(() => this.reconnectSoon(0));
  }
  get open() { return this.ws !== null && this.ws.readyState === OPEN; }
  connect() {
    this.env.clearTimeout(this.timer);
    this.onStatus("connecting");
    const ws = new this.env.WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => { this.delay = FIRST_DELAY_MS; this.onStatus("open"); };
    ws.onmessage = (e) => this.onMessage(JSON.parse(e.data));
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (e.code === 4401 || e.code === 403) { this.onStatus("logged_out"); return; }
      // The role or the assignment no longer lets this person here: retrying cannot help.
      if (e.code === 4403) { this.onStatus("not_allowed"); return; }
      this.onStatus("closed");
      this.reconnectSoon(this.delay);
      this.delay = Math.min(this.delay * 2, MAX_DELAY_MS);
    };
  }
  reconnectSoon(ms) {
    if (this.ws !== null) return;
    this.env.clearTimeout(this.timer);
    this.timer = this.env.setTimeout(() => this.connect(), ms);
  }
  send(message) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }
}

// The page's own: read when a socket is made, never when this module loads.
function browserEnv() {
  return {
    WebSocket: globalThis.WebSocket,
    location: globalThis.location,
    setTimeout: (f, ms) => globalThis.setTimeout(f, ms),
    clearTimeout: (t) => globalThis.clearTimeout(t),
    onWake(f) {
      globalThis.addEventListener("online", f);
      document.addEventListener("visibilitychange", () => { if (!document.hidden) f(); });
    },
  };
}
