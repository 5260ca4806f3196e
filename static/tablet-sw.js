// The tablet's service worker: the tablet page, its scripts and its styles are kept in a
// cache, so a reload with the network down still opens the tablet (static/table.js then
// draws the last snapshot it kept, marked as not current, with the taps still queued, and
// sends them when the network is back). Network first: online, the page and the scripts
// are always the server's; the cache only answers when the server cannot.
// Served from /tablet-sw.js (web.tables.views.tablet_service_worker) so that its scope covers
// the tablet's pages. The cache is one person's: the page empties it at logout and when
// someone else logs in on this device (static/session.js, forget).
"use strict";

const CACHE = "cardroom-tablet-v1";
const TABLET = /^\/tables\/\d+\/tablet\/$/;

const kept = (url) => url.origin === self.location.origin && (TABLET.test(url.pathname) || url.pathname.startsWith("/static/"));

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !kept(new URL(request.url))) return;
  event.respondWith(
    fetch(request).then((response) => {
      // A redirect (to the login page) or an error page is not the tablet: not kept.
      if (response.ok && !response.redirected) {
        const copy = response.clone();
        caches.open(CACHE).then((cache) => cache.put(request, copy));
      }
      return response;
    }).catch(() => caches.match(request).then((hit) => hit || Response.error())),
  );
});

// The page asks for what it loaded before this worker controlled it (the first visit).
self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type === "keep" && Array.isArray(data.urls)) {
    const urls = data.urls.filter((u) => kept(new URL(u, self.location.origin)));
    event.waitUntil(caches.open(CACHE).then((cache) => Promise.all(urls.map((u) =>
      fetch(u, { credentials: "same-origin" }).then((r) => (r.ok && !r.redirected ? cache.put(u, r) : null)).catch(() => null)))));
  }
});
