// What this device keeps for the person logged in (the tablet's queued taps, its last
// snapshot, the pages its service worker cached) is theirs alone: emptied when they log
// out, before the logout is sent. static/table.js empties it too when someone else logs in
// on this device (a dealer's hand-over without a logout).
"use strict";

const CardroomSession = (() => {
  const PREFIX = "cardroom.";
  const CACHE = "cardroom-tablet-v1"; // static/tablet-sw.js

  function forget() {
    for (const key of Object.keys(localStorage)) if (key.startsWith(PREFIX)) localStorage.removeItem(key);
    return "caches" in window ? caches.delete(CACHE).catch(() => false) : Promise.resolve(false);
  }

  // The person whose things this device keeps now: someone else's are emptied first.
  function claim(userId) {
    const owner = localStorage.getItem(`${PREFIX}owner`);
    const done = owner !== null && owner !== String(userId) ? forget() : Promise.resolve(false);
    localStorage.setItem(`${PREFIX}owner`, String(userId));
    return done;
  }

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!form.matches("form[data-logout]") || form.dataset.forgotten) return;
    event.preventDefault();
    forget().finally(() => { form.dataset.forgotten = "1"; form.submit(); });
  });

  return { forget, claim };
})();
