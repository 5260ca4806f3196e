// Calls that need the server there and then (a void request, a supervisor's command
// here): not taps in the outbox. The wait after a failure grows as the outbox's does.
import { retryWait } from "./outbox.js";

export function createServerCalls(ctx) {
  const showError = (...args) => ctx.showError(...args);
  const render = (...args) => ctx.render(...args);

  // A void request and a supervisor's command here are not taps in the outbox: they carry
  // a supervisor's password, which is kept in this page's memory only, never in storage.
  // A refusal (4xx, with its code) is shown in the dealer's words and not sent again. A
  // server failure (5xx) or a lost connection is no refusal: nothing was decided, so, as
  // for a tap, the call is kept and sent again after a growing wait, and the dealer is told
  // the server failed. One such call at a time; "Stop trying" drops it.
  let serverCall = null; // {url, body, what, onAnswer, attempts, timer}
  function callServer(url, body, what, onAnswer) {
    if (serverCall) clearTimeout(serverCall.timer);
    serverCall = { url, body, what, onAnswer, attempts: 0, timer: null };
    sendCall(serverCall);
  }

  function sendCall(call) {
    call.attempts += 1;
    fetch(call.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": ctx.csrfToken },
      body: JSON.stringify(call.body),
      credentials: "same-origin",
    }).then(async (response) => {
      const answer = await response.json().catch(() => null);
      if (serverCall !== call) return; // stopped meanwhile
      const error = (answer && answer.error) || {};
      if (response.status >= 500 || error.code === "server_error") {
        const reference = error.reference ? `, error reference ${error.reference}` : "";
        callFailed(call, `the server answered HTTP ${response.status}${reference}`);
        return;
      }
      endCall();
      if (!answer) { showError("", `HTTP ${response.status}`); return; }
      call.onAnswer(answer);
    }, () => callFailed(call, "no answer from the server (the connection failed)"));
  }

  function callFailed(call, why) {
    if (serverCall !== call) return;
    const wait = retryWait(call.attempts);
    ctx.message = {
      kind: "error", code: "server_error", after: ctx.outbox.tapCount, stop: true,
      title: "The server failed: nothing was refused",
      detail: `Sending ${call.what}, ${why}. It is kept and sent again in ${Math.round(wait / 1000)} s (attempt ${call.attempts + 1})`,
    };
    render();
    call.timer = setTimeout(() => { if (serverCall === call) sendCall(call); }, wait);
  }

  function endCall() {
    if (serverCall) clearTimeout(serverCall.timer);
    serverCall = null;
    if (ctx.message && ctx.message.stop) ctx.message = null;
  }

  return { callServer, endCall };
}
