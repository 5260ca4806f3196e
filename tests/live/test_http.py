"""The pages and the command/state API over HTTP: login, CSRF, answers."""

import json

import pytest
from django.test import Client

from rounds.engine.errors import ERROR_CODES
from tables.models import TableEvent
from web.tables.ui_text import ERROR_TEXT

from .conftest import make_table, run

pytestmark = pytest.mark.django_db

SEATED = [
    {"type": "sit", "seat": 1, "player": "P-1"},
    {"type": "sit", "seat": 2, "player": "P-2"},
    {"type": "offer_bank", "seat": 1},
    {"type": "accept_bank", "seat": 1},
]


@pytest.fixture
def table():
    table = make_table()
    run(table.pk, *SEATED)
    return table


def test_anonymous_users_are_sent_to_the_login_page_or_refused(table):
    client = Client()
    for page in ("/", "/floor/", f"/tables/{table.pk}/", f"/tables/{table.pk}/tablet/"):
        response = client.get(page)
        assert response.status_code == 302 and response.url == f"/accounts/login/?next={page}", page
    assert client.get(f"/api/tables/{table.pk}/state").status_code == 401
    response = client.post(f"/api/tables/{table.pk}/commands", {"type": "pass_bank"}, content_type="application/json")
    assert response.status_code in (401, 403)
    assert client.get("/accounts/login/").status_code == 200
    assert client.get("/healthz").json() == {"ok": True}


def test_the_demo_login_opens_the_pages(table, dealer):
    client = Client()
    response = client.post("/accounts/login/", {"username": "dealer", "password": "pw"})
    assert response.status_code == 302 and response.url == "/"
    for page, text in (
        ("/", "Dealer tablet"),
        ("/floor/", "Floor"),
        (f"/tables/{table.pk}/", "Read-only live view"),
        (f"/tables/{table.pk}/tablet/", "Request a void"),
    ):
        response = client.get(page)
        assert response.status_code == 200, page
        assert text in response.content.decode(), page


def test_a_command_over_http_needs_the_csrf_token_and_answers_the_result_and_version(table, dealer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(dealer)
    url = f"/api/tables/{table.pk}/commands"
    command = {"type": "open_round", "bank": 100000, "id": "http-1", "version": len(SEATED)}
    assert client.post(url, command, content_type="application/json").status_code == 403

    token = client.get(f"/tables/{table.pk}/tablet/").cookies["csrftoken"].value
    headers = {"X-CSRFToken": token}
    response = client.post(url, command, content_type="application/json", headers=headers)
    assert response.status_code == 200
    assert response.json() == {"id": "http-1", "result": {"ok": True, "round": 1}, "version": 5, "replayed": False}
    again = client.post(url, command, content_type="application/json", headers=headers).json()
    assert again == {"id": "http-1", "result": {"ok": True, "round": 1}, "version": 5, "replayed": True}
    assert TableEvent.objects.filter(table=table, command_type="open_round").count() == 1

    refused = client.post(url, {"type": "wager", "seat": 1, "ante": 500}, content_type="application/json", headers=headers)
    assert refused.json()["result"]["error"]["code"] == "seat_is_player_dealer"
    bad = client.post(url, "{not json", content_type="application/json", headers=headers)
    assert bad.status_code == 400 and bad.json()["result"]["error"]["code"] == "invalid_command"
    assert client.post("/api/tables/999999/commands", {"type": "leave", "seat": 1},
                       content_type="application/json", headers=headers).status_code == 404


def test_the_state_is_the_snapshot_with_its_seq_and_what_to_do_next(table, logged_in):
    state = logged_in.get(f"/api/tables/{table.pk}/state").json()
    assert state["version"] == TableEvent.objects.filter(table=table).count() == len(SEATED)
    assert state["game"]["rotation"]["pd_seat"] == 1
    assert state["view"]["next"] == {"step": "open_round", "commands": [{"type": "open_round"}, {"type": "pass_bank"}]}
    assert logged_in.get("/api/tables/999999/state").status_code == 404


def test_every_error_code_has_a_plain_message_for_the_dealer(table, logged_in):
    assert set(ERROR_TEXT) == ERROR_CODES
    page = logged_in.get(f"/tables/{table.pk}/tablet/").content.decode()
    data = json.loads(page.split('<script id="page-data" type="application/json">')[1].split("</script>")[0])
    assert data["errors"] == ERROR_TEXT


def test_a_tap_made_under_another_login_is_refused_and_changes_nothing(table, logged_in, dealer):
    """static/table.js names the login a tap was made under; the server never runs it under
    another person's session (a tablet handed over with taps still queued)."""
    before = TableEvent.objects.filter(table=table).count()
    command = {"type": "open_round", "bank": 10000, "id": "tab-1"}
    response = logged_in.post(f"/api/tables/{table.pk}/commands", command, content_type="application/json",
                              headers={"X-Cardroom-User": str(dealer.pk + 1000)})
    assert response.status_code == 403
    assert response.json()["result"]["error"]["code"] == "not_authorized"
    assert response.json()["id"] == "tab-1"
    assert TableEvent.objects.filter(table=table).count() == before
    response = logged_in.post(f"/api/tables/{table.pk}/commands", command, content_type="application/json",
                              headers={"X-Cardroom-User": str(dealer.pk)})
    assert response.json()["result"]["ok"] is True


def test_the_tablets_service_worker_is_served_from_the_root_for_everyone():
    response = Client().get("/tablet-sw.js")
    assert response.status_code == 200 and response["Content-Type"] == "application/javascript"
    assert response["Cache-Control"] == "no-cache"
    assert b"cardroom-tablet-v1" in response.content
