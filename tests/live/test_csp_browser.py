"""The Content-Security-Policy in Chromium (issue 33, finding 10): the main pages of every
kind (the tablet with its service worker and socket, the floor, the staff pages, the
compliance pages and a printed document) answer with the policy, work under it, and
the browser reports no violation of it.

Each page is opened with a listener for `securitypolicyviolation` added before any of the
page's own scripts, and the console's errors are read too: an inline script, style or
handler, a script or style from another origin, or a socket to another origin would be
reported there. Rule: docs/operations.md, "Response headers"."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from cardroom.gaming_day import calendar

from .test_browser import browsers, daphne, expect, log_in, table  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

COLLECT_VIOLATIONS = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) =>
  window.cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`));
"""


def staff_and_compliance_pages() -> list[str]:
    day = calendar().gaming_day(timezone.now()).isoformat()
    return [
        reverse("approval-queue"), reverse("assignments"), reverse("audit-trail"), reverse("table-list"),
        reverse("waitlist"), reverse("relief-plan"),
        reverse("compliance:index"), reverse("compliance:collections"), reverse("compliance:rotation"),
        reverse("compliance:count-index"), reverse("patrons:floor-alerts"),
        reverse("compliance:count-sheet-print", args=[day]),  # a document kept: its styles inline, with the nonce
    ]


def test_the_main_pages_work_under_the_content_security_policy_with_no_violation(daphne, table, browsers):
    context = browsers()
    context.add_init_script(COLLECT_VIOLATIONS)
    console = []
    context.on("console", lambda m: console.append(m.text) if m.type == "error" else None)

    # The tablet: its scripts run, its socket is live, its service worker is registered.
    tablet = log_in(context, daphne.url, f"/tables/{table.pk}/tablet/")
    expect(tablet.locator("#status")).to_have_text("Live")
    assert tablet.evaluate("navigator.serviceWorker.ready.then((r) => Boolean(r.active))") is True
    pages = [(tablet, f"/tables/{table.pk}/tablet/")]

    # The floor: its rows come over its socket.
    floor = context.new_page()
    answer = floor.goto(f"{daphne.url}/floor/")
    policy = answer.headers.get("content-security-policy", "")
    for directive in ("default-src 'self'", "script-src 'self'", "connect-src 'self'", "object-src 'none'",
                      "frame-ancestors 'none'"):
        assert directive in policy, policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy, policy
    expect(floor.locator("#status")).to_have_text("Live")
    expect(floor.locator(f".tile[data-table='{table.pk}']")).to_be_visible()
    pages.append((floor, "/floor/"))

    for path in staff_and_compliance_pages():
        page = context.new_page()
        answer = page.goto(f"{daphne.url}{path}")
        assert answer.status == 200, (path, answer.status)
        assert "script-src 'self'" in answer.headers.get("content-security-policy", ""), path
        page.wait_for_load_state("load")
        pages.append((page, path))

    # The printed document's inline styles apply (its nonce is the answer's).
    printed = pages[-1][0]
    assert printed.evaluate("getComputedStyle(document.body).marginTop") == "24px"  # its 1.5rem, not the browser's 8px

    tablet.wait_for_timeout(500)  # a report is an event: let the last ones arrive
    violations = {path: page.evaluate("window.cspViolations") for page, path in pages}
    assert all(found == [] for found in violations.values()), {p: v for p, v in violations.items() if v}
    assert [text for text in console if re.search(r"Content.Security.Policy", text, re.I)] == [], console
