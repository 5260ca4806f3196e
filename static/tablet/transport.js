// How a tap goes out: over the table's socket when it is open; else over HTTP (a proxy
// may refuse websockets, and the tablet may be back before its socket is), with the CSRF
// token of the page. Each tap is sent under the login that made it (X-Cardroom-User).
// The answer goes back to the outbox (tablet/outbox.js): a socket's answer arrives as a
// message (static/table.js), an HTTP one here.

export function tapSender({ socket, outbox, url, csrfToken, fetch = (...args) => globalThis.fetch(...args) }) {
  return (head) => {
    if (socket.send({ type: "command", command: head.command, user: head.user })) return;
    fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken, "X-Cardroom-User": String(head.user) },
      body: JSON.stringify(head.command),
      credentials: "same-origin",
    }).then((response) => {
      if (response.status >= 500) { outbox.serverFailed(head, `the server answered HTTP ${response.status}`); return null; }
      // 403 is an answer (not_authorized, in the body); anything else is tried again.
      if (!response.ok && response.status !== 403) throw new Error(`HTTP ${response.status}`);
      return response.json();
    }).then((reply) => {
      if (reply && outbox.inFlight === head.id) outbox.answered(reply);
    }).catch(() => outbox.offline(head));
  };
}
