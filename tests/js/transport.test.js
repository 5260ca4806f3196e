// How a tap goes out (tablet/transport.js) and how the socket reconnects (live/socket.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { tapSender } from "../../static/tablet/transport.js";
import { Socket, FIRST_DELAY_MS } from "../../static/live/socket.js";
import { manualTimers } from "./fakes.js";

const head = { id: "tab-1", user: 7, command: { type: "deal", id: "tab-1", version: 3 } };

function outboxSpy() {
  const calls = [];
  return {
    calls, inFlight: head.id,
    answered: (reply) => calls.push(["answered", reply.id]),
    serverFailed: (entry, why) => calls.push(["serverFailed", why]),
    offline: (entry) => calls.push(["offline", entry.id]),
  };
}
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

test("an open socket carries the tap, under the login that made it; no HTTP", () => {
  const messages = [];
  let fetched = 0;
  const send = tapSender({ socket: { send: (m) => { messages.push(m); return true; } }, outbox: outboxSpy(), url: "/x", csrfToken: "t",
    fetch: () => { fetched += 1; } });
  send(head);
  assert.deepEqual(messages, [{ type: "command", command: head.command, user: 7 }]);
  assert.equal(fetched, 0);
});

for (const [status, body, expected] of [
  [200, { id: "tab-1", result: { ok: true } }, ["answered", "tab-1"]],
  [403, { id: "tab-1", result: { ok: false, error: { code: "not_authorized" } } }, ["answered", "tab-1"]],
  [502, null, ["serverFailed", "the server answered HTTP 502"]],
  [404, null, ["offline", "tab-1"]],
]) {
  test(`with the socket closed, HTTP ${status} is ${expected[0]}`, async () => {
    const outbox = outboxSpy();
    const requests = [];
    const send = tapSender({ socket: { send: () => false }, outbox, url: "/api/tables/1/commands", csrfToken: "tok",
      fetch: (url, init) => { requests.push([url, init]); return Promise.resolve({ status, ok: status < 300, json: () => Promise.resolve(body) }); } });
    send(head);
    await settle();
    assert.deepEqual(outbox.calls, [expected]);
    assert.equal(requests[0][0], "/api/tables/1/commands");
    assert.equal(requests[0][1].headers["X-CSRFToken"], "tok");
    assert.equal(requests[0][1].headers["X-Cardroom-User"], "7");
    assert.deepEqual(JSON.parse(requests[0][1].body), head.command);
  });
}

test("with the socket closed and the network down, the tap is left for later", async () => {
  const outbox = outboxSpy();
  tapSender({ socket: { send: () => false }, outbox, url: "/x", csrfToken: "t", fetch: () => Promise.reject(new TypeError("offline")) })(head);
  await settle();
  assert.deepEqual(outbox.calls, [["offline", "tab-1"]]);
});

// --- the socket ---------------------------------------------------------------------------
function socketEnv() {
  const made = [];
  let wake = null;
  class FakeWebSocket {
    constructor(url) { this.url = url; this.readyState = 0; this.sent = []; made.push(this); }
    send(data) { this.sent.push(data); }
  }
  const timers = manualTimers();
  return {
    made, timers, wakeUp: () => wake(),
    env: { WebSocket: FakeWebSocket, location: { protocol: "https:", host: "room.example" }, ...timers, onWake: (f) => { wake = f; } },
  };
}

test("a dropped socket reconnects after 0.5 s, doubling to at most 8 s, and back to 0.5 s once open", () => {
  const { made, timers, env } = socketEnv();
  const statuses = [];
  const socket = new Socket("/ws/tables/1/", { onMessage() {}, onStatus: (s) => statuses.push(s) }, env);
  assert.equal(made[0].url, "wss://room.example/ws/tables/1/");
  const waits = [];
  for (let i = 0; i < 6; i++) {
    made.at(-1).onclose({ code: 1006 });
    waits.push(...timers.waits);
    timers.runAll();
  }
  assert.deepEqual(waits, [500, 1000, 2000, 4000, 8000, 8000]);
  assert.equal(made.length, 7);
  made.at(-1).readyState = 1;
  made.at(-1).onopen();
  assert.equal(socket.open, true);
  made.at(-1).onclose({ code: 1006 });
  assert.deepEqual(timers.waits, [FIRST_DELAY_MS]);
  assert.deepEqual(statuses.slice(0, 3), ["connecting", "closed", "connecting"]);
});

test("logged out or no longer allowed: the socket says so and does not retry", () => {
  for (const [code, status] of [[4401, "logged_out"], [403, "logged_out"], [4403, "not_allowed"]]) {
    const { made, timers, env } = socketEnv();
    const statuses = [];
    new Socket("/ws/floor/", { onMessage() {}, onStatus: (s) => statuses.push(s) }, env);
    made[0].onclose({ code });
    assert.deepEqual(statuses, ["connecting", status]);
    assert.deepEqual(timers.waits, []);
  }
});

test("back from sleep or offline, a closed socket tries at once instead of at its back-off", () => {
  const { made, timers, wakeUp, env } = socketEnv();
  new Socket("/ws/floor/", { onMessage() {}, onStatus() {} }, env);
  made[0].onclose({ code: 1006 });
  timers.runAll();
  made[1].onclose({ code: 1006 });
  assert.deepEqual(timers.waits, [1000]);
  wakeUp();
  assert.deepEqual(timers.waits, [0]);
  timers.runAll();
  assert.equal(made.length, 3);
});

test("a message is parsed; nothing is sent while the socket is not open", () => {
  const { made, env } = socketEnv();
  const got = [];
  const socket = new Socket("/ws/floor/", { onMessage: (m) => got.push(m), onStatus() {} }, env);
  assert.equal(socket.send({ type: "sync" }), false);
  made[0].readyState = 1;
  assert.equal(socket.send({ type: "sync" }), true);
  assert.deepEqual(made[0].sent, ['{"type":"sync"}']);
  made[0].onmessage({ data: '{"type":"floor","rows":[]}' });
  assert.deepEqual(got, [{ type: "floor", rows: [] }]);
});
