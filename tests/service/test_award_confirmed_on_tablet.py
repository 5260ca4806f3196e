"""A supervisor at the table confirms a percentage progressive award on the dealer's tablet
with their own username and password (POST /api/tables/<id>/commands/confirmed-here), the
way they approve a void there (tables.approvals.tablet_login, its lockout per requester
and approver: tests/service/test_tablet_credentials.py). Each check has a test here that fails without it:

- the credentials (tablet_login): a wrong password confirms nothing;
- the lockout: past the limit even the right password is refused;
- only a supervisor's name is taken: a dealer's own credentials confirm nothing;
- the tablet's person must work the table: another table's dealer gets nowhere;
- only a supervisor's own commands run this way (confirm_award, start_game): a
  supervisor's credentials are not a way to send the table any other command as them
  (settle is refused here, then accepted as a command).
"""

import pytest
from django.conf import settings
from django.test import Client

from cardroom.models import AuditEntry
from rounds.models import Round
from tables.models import TableEvent
from tables.selectors import server_snapshot
from tests.engine.test_sidebets import PROGRESSIVE

from tests.playing import new_table, run_ok
from .test_access import assign, person

pytestmark = pytest.mark.django_db

CONFIRM = {"type": "confirm_award", "seat": 2}


@pytest.fixture
def award(db):
    """A table at a showdown where seat 2's royal flush in its first five cards wins a
    percentage of the meter, waiting for a supervisor; its dealer dan on the tablet."""
    table = new_table("R", side_bets={"progressive": PROGRESSIVE}, boxes=False)
    run_ok(
        table,
        *({"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)),
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1},
        {"type": "open_round", "bank": 1000}, {"type": "wager", "seat": 2, "ante": 100, "progressive": True},
        {"type": "no_more_bets"}, {"type": "check", "seat": 2}, {"type": "flop", "cards": ["Qs", "Js", "Ts"]},
        {"type": "check", "seat": 2}, {"type": "turn_river", "cards": ["2c", "3d"]}, {"type": "play", "seat": 2, "multiple": 1},
        {"type": "showdown", "player_dealer": ["4c", "5d"], "hands": {"2": ["As", "Ks"]}},
    )
    sam, dan = person("sam", "supervisor"), person("dan", "dealer")
    assign(dan, table, sam)
    tablet = Client()
    tablet.force_login(dan)
    return table, tablet


def confirm_here(table, tablet, username, password, command=CONFIRM):
    return tablet.post(f"/api/tables/{table.pk}/commands/confirmed-here",
                       {"command": command, "approver": {"username": username, "password": password}},
                       content_type="application/json")


def waiting_for_confirmation(table) -> bool:
    table.refresh_from_db()
    unconfirmed = server_snapshot(table)["view"]["next"]["step"] == "confirm_award"
    assert unconfirmed == (not TableEvent.objects.filter(table=table, command_type="confirm_award").exists())
    return unconfirmed


def test_a_supervisors_credentials_on_the_tablet_confirm_the_award_under_their_name(award):
    table, tablet = award
    answer = confirm_here(table, tablet, "sam", "pw-sam")
    assert answer.status_code == 200 and answer.json()["result"]["award"]["approved_by"] == "sam"
    assert not waiting_for_confirmation(table)
    event = TableEvent.objects.get(table=table, command_type="confirm_award")
    assert event.actor == "sam"  # the supervisor, not the dealer whose tablet it is
    settled = run_ok(table, {"type": "settle"})[0]
    assert settled["progressive"][0]["confirmed"] and Round.objects.get(table=table).status == "settled"


def test_a_wrong_password_confirms_nothing_and_is_locked_out_like_the_voids(award):
    table, tablet = award
    limit = settings.CARDROOM_APPROVAL_LOGIN_FAILURE_LIMIT
    for _ in range(limit):
        wrong = confirm_here(table, tablet, "sam", "wrong")
        assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "not_authorized"
    assert waiting_for_confirmation(table)
    assert AuditEntry.objects.filter(action="login_failed", username="sam", table_id=table.pk).count() == limit
    locked = confirm_here(table, tablet, "sam", "pw-sam")
    assert locked.status_code == 429 and locked.json()["error"]["code"] == "rate_limited"
    assert waiting_for_confirmation(table)


def test_a_dealers_own_credentials_confirm_nothing(award):
    table, tablet = award
    person("dora", "dealer")
    for name in ("dan", "dora"):
        refused = confirm_here(table, tablet, name, f"pw-{name}")
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_authorized", name
    assert waiting_for_confirmation(table)


def test_only_the_tablet_of_a_dealer_who_works_the_table_takes_a_supervisors_credentials(award):
    table, _ = award
    elsewhere = Client()
    elsewhere.force_login(person("dora", "dealer"))  # works no table this shift
    refused = confirm_here(table, elsewhere, "sam", "pw-sam")
    assert refused.status_code == 403 and "does not work this table" in refused.json()["error"]["message"]
    assert waiting_for_confirmation(table)


def test_a_supervisors_credentials_on_the_tablet_send_no_other_command(award):
    table, tablet = award
    assert confirm_here(table, tablet, "sam", "pw-sam").status_code == 200
    refused = confirm_here(table, tablet, "sam", "pw-sam", command={"type": "settle"})
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "invalid_command"
    assert Round.objects.get(table=table).status == "in_progress"


def test_a_supervisor_starts_a_new_game_on_the_dealers_tablet_with_their_own_credentials(db):
    """start_game, the other supervisor's own command (game-rules 2A.3), goes the same way:
    the dealer's own credentials start nothing; a supervisor's do, under their name."""
    from datetime import timedelta

    from django.utils import timezone

    from tables.services import command_execute
    from tests.engine.helpers import quick_round

    table = new_table("W", rotation_policy={}, boxes=False)
    start = timezone.now() - timedelta(minutes=45)
    steps = [(0, [*({"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)), {"type": "offer_bank", "seat": 1},
                  {"type": "accept_bank", "seat": 1}, *quick_round(2)]),
             (44, [{"type": "decline_bank", "seat": 2}, {"type": "accept_bank", "seat": 1}, {"type": "open_round", "bank": 1000}])]
    for minute, commands in steps:
        for command in commands:
            assert command_execute(table_id=table.pk, command=command, actor="test", at=start + timedelta(minutes=minute)).ok
    sam, dan = person("sam", "supervisor"), person("dan", "dealer")
    assign(dan, table, sam)
    tablet = Client()
    tablet.force_login(dan)
    refused = confirm_here(table, tablet, "dan", "pw-dan", command={"type": "start_game"})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_authorized"
    table.refresh_from_db()
    assert table.state["clock"]["ended"]
    started = confirm_here(table, tablet, "sam", "pw-sam", command={"type": "start_game"})
    assert started.status_code == 200 and started.json()["result"]["ok"]
    table.refresh_from_db()
    assert not table.state["clock"]["ended"]
    assert TableEvent.objects.filter(table=table, command_type="start_game").get().command["approved_by"] == "sam"
