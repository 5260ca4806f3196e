"""The tablet sends a `rate_limited` tap again after the server's `retry_after` and shows
that it is waiting, never a refusal (issue 21, item 8). Daphne runs with a command burst
of one, so the second of two quick taps is limited."""

import pytest

from tables.models import TableEvent

from .test_browser import Daphne, browsers, expect, log_in, table  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def strict_daphne(transactional_db, redis_url):
    server = Daphne(redis_url)
    server.env.update(CARDROOM_SOCKET_COMMAND_BURST="1", CARDROOM_SOCKET_COMMANDS_PER_SECOND="0.4")
    server.start()
    yield server
    server.stop()


def test_a_rate_limited_tap_is_sent_again_and_never_shown_as_a_refusal(strict_daphne, table, browsers):
    tablet = log_in(browsers(), strict_daphne.url, f"/tables/{table.pk}/tablet/")
    expect(tablet.locator("#status")).to_have_text("Live")
    tablet.fill("input[name=bank]", "1000")
    tablet.click("button:has-text('Open round')")  # takes the one token
    tablet.click(".seat[data-seat='2'] button[type=submit]:has-text('Bet')")  # limited: waits for the next
    message = tablet.locator("#message")
    expect(message).to_have_attribute("data-code", "rate_limited")
    expect(message).to_have_class("message info")
    expect(message).to_contain_text("sent again")
    # Sent again after retry_after (2.5 s here): applied, and the waiting note is gone.
    expect(tablet.locator(".seat[data-seat='2'] .wagers")).to_have_text("Ante $5.00 · Blind $5.00", timeout=10000)
    expect(message).to_be_hidden()
    assert TableEvent.objects.filter(table=table, command_type="wager").count() == 1
    assert tablet.errors == []
