"""Pages laid out in a real headless Chromium without a server: every request the page
makes is answered from the pages Django's test client rendered beforehand (in the test's
own transaction, so the fixtures' ledgers need not be committed for a Daphne process to
see them) and from static/, and no server starts (seconds, not a minute).

`measure` opens each page at each size and reports what a person would stumble on: the
page scrolling sideways (`document.scrollingElement.scrollWidth > clientWidth`), a box
that hides its overflow behind its own scroll bar or a clip (hiding the overflow does not
count as fitting), and a control (link, button, field) outside the window. A screenshot of
each goes to test-artifacts/.
"""

from __future__ import annotations

import json
import mimetypes
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
ORIGIN = "http://testserver"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
CHROMIUM = "/usr/bin/chromium"

PROBLEMS = """() => {
  const root = document.scrollingElement;
  const width = root.clientWidth;
  const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
  const hidden = [...document.querySelectorAll('body *')].filter((e) => {
    const s = getComputedStyle(e);
    return s.display !== 'none' && (s.overflowX !== 'visible') && e.scrollWidth > e.clientWidth + 1 && e.tagName !== 'SELECT' && e.tagName !== 'INPUT' && e.tagName !== 'TEXTAREA';
  }).map(name);
  const outside = [...document.querySelectorAll('a, button, input, select, textarea')].filter((e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && (r.right > width + 1 || r.left < -1);
  }).map((e) => name(e) + ' "' + (e.textContent || e.value || '').trim().slice(0, 30) + '"');
  return { scrollWidth: root.scrollWidth, clientWidth: width, hidden, outside };
}"""


def measure(client, paths: list[str], prefix: str, sizes=SIZES) -> dict:
    """{(path, size name): problems} for every page that has any; screenshots of all."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (.ci/run does)", pytrace=False)
    ARTIFACTS.mkdir(exist_ok=True)
    found = {}

    def answer(route):
        try:
            respond(route)
        except Exception:  # a failure inside a route handler would only show as a network error
            import traceback

            route.fulfill(status=500, body=traceback.format_exc(), content_type="text/plain")

    def respond(route):
        url = route.request.url[len(ORIGIN):]
        if url.startswith("/static/"):
            file = ROOT / "static" / url[len("/static/"):].split("?")[0]
            route.fulfill(status=200, body=file.read_bytes(), content_type=mimetypes.guess_type(file.name)[0])
        elif url in pages:
            route.fulfill(status=200, body=pages[url], content_type="text/html; charset=utf-8")
        else:
            route.abort()  # a socket, or a read the page makes of the server: not laid out here

    # The pages are read before the browser starts: a route handler runs in a greenlet of
    # its own, whose database connection would not see the test's transaction.
    pages = {}
    for path in paths:
        response = client.get(path, follow=True)
        assert response.status_code == 200 and response.request["PATH_INFO"] != "/accounts/login/", (path, response.status_code)
        pages[path] = response.content

    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"], headless=True)
        try:
            for size, (w, h) in sizes.items():
                page = browser.new_page(viewport={"width": w, "height": h})
                page.route(f"{ORIGIN}/**", answer)
                for path in paths:
                    response = page.goto(ORIGIN + path)
                    assert response.status == 200, (path, response.status, response.text()[-3000:])
                    page.wait_for_load_state("load")
                    problems = page.evaluate(PROBLEMS)
                    slug = re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-") or "home"
                    page.screenshot(path=ARTIFACTS / f"{prefix}-{slug}-{w}x{h}.png", full_page=True)
                    if problems["scrollWidth"] > problems["clientWidth"] or problems["hidden"] or problems["outside"]:
                        found[(path, size)] = problems
                page.close()
        finally:
            browser.close()
    # The whole list for the reviewer (an assertion's diff is truncated).
    (ARTIFACTS / f"{prefix}-layout-problems.json").write_text(json.dumps({f"{p} @ {s}": v for (p, s), v in found.items()}, indent=1))
    return found
