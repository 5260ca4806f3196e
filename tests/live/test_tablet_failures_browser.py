"""The tablet tells a server failure from a refusal (issue 20, item 5), in Chromium.

A supervisor approves a void at the table with their own credentials. The server's
answers are intercepted in the browser (Playwright's page.route): the first attempt
loses its connection, the second is answered 500 as Django's failure is under /api/
(cardroom.wire.ApiErrorMiddleware, with its error reference); neither may read as a
refusal. The call is kept and sent again, with the same credentials, and the third
attempt reaches the real server, which voids the round once.
"""

import json

import pytest

from rounds.models import Round

from .conftest import run
from .test_browser import ARTIFACTS, browsers, daphne, expect  # noqa: F401 (fixtures)
from .test_screens import betting_table, floor_staff, log_in  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

FAILED = {"ok": False, "error": {"code": "server_error", "message": "500 Internal Server Error (error reference 7KQ2M9XD)",
                                 "reference": "7KQ2M9XD"}}


def test_a_server_failure_on_a_void_approved_here_is_said_as_one_kept_and_sent_again(
    daphne, betting_table, browsers  # noqa: F811
):
    from tables.models import Approval

    run(betting_table.pk, {"type": "open_round", "bank": 100000}, {"type": "wager", "seat": 2, "ante": 500},
        {"type": "no_more_bets"})
    tablet = log_in(browsers(), daphne.url, "dan", f"/tables/{betting_table.pk}/tablet/")
    expect(tablet.locator("#status")).to_have_text("Live")

    sent = []

    def server(route):
        sent.append(route.request.post_data)
        if len(sent) == 1:
            route.abort("connectionreset")  # no answer at all
        elif len(sent) == 2:
            route.fulfill(status=500, content_type="application/json", body=json.dumps(FAILED))
        else:
            route.continue_()  # the real server

    tablet.route(f"**/api/tables/{betting_table.pk}/approvals", server)
    tablet.click("button:has-text('Request a void')")
    tablet.fill("#void-dialog input[name=reason]", "shuffler jam")
    tablet.fill("#void-dialog input[name=username]", "sam")
    tablet.fill("#void-dialog input[name=password]", "pw")
    tablet.click("#void-dialog button[value=approve-here]")

    message = tablet.locator("#message[data-code='server_error']")
    expect(message).to_contain_text("The server failed: nothing was refused")
    expect(message).to_contain_text("no answer from the server")
    expect(message).to_contain_text("kept and sent again in 1 s (attempt 2)")
    expect(message).to_contain_text("error reference 7KQ2M9XD")  # the second attempt's answer
    expect(message).to_contain_text("kept and sent again in 2 s (attempt 3)")
    expect(message.locator("button.stop")).to_be_visible()
    assert "refused that tap" not in (message.text_content() or "")
    tablet.screenshot(path=ARTIFACTS / "tablet-server-failed-not-refused.png", full_page=True)

    expect(tablet.locator("#message")).to_contain_text("Round voided", timeout=15000)
    assert len(sent) == 3 and len(set(sent)) == 1  # the same call each time, credentials and all
    assert json.loads(sent[0])["approver"] == {"username": "sam", "password": "pw"}
    assert Round.objects.get(table=betting_table).status == "voided"
    assert Approval.objects.get().decision.via == "tablet"  # one request, decided once
    assert tablet.errors == []


def test_a_refusal_stays_a_refusal_and_is_not_sent_again(daphne, betting_table, browsers):  # noqa: F811
    from tables.models import Approval

    run(betting_table.pk, {"type": "open_round", "bank": 100000}, {"type": "wager", "seat": 2, "ante": 500},
        {"type": "no_more_bets"})
    tablet = log_in(browsers(), daphne.url, "dan", f"/tables/{betting_table.pk}/tablet/")
    expect(tablet.locator("#status")).to_have_text("Live")
    sent = []
    tablet.route(f"**/api/tables/{betting_table.pk}/approvals", lambda route: (sent.append(1), route.continue_()))
    tablet.click("button:has-text('Request a void')")
    tablet.fill("#void-dialog input[name=reason]", "shuffler jam")
    tablet.fill("#void-dialog input[name=username]", "sam")
    tablet.fill("#void-dialog input[name=password]", "wrong")
    tablet.click("#void-dialog button[value=approve-here]")
    expect(tablet.locator("#message")).to_contain_text("You are not allowed to do that.")
    expect(tablet.locator("#message button.stop")).to_have_count(0)
    tablet.wait_for_timeout(2500)  # longer than the first retry's wait: none may come
    assert len(sent) == 1 and not Approval.objects.exists()
    assert tablet.errors == []
