"""Self-exclusion compares names and numbers as people write them (issue 34): an exact
folded match is refused `self_excluded`; a name near a listed one is held
`check_required` until a supervisor (not the employee who sent it) clears or confirms
it; a seat id that folds to one patron's number or card is seated as that number
(docs/rules-decisions.md). Over the command service and HTTP, as a dealer meets them."""

import json

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from cardroom.access import Actor
from cardroom.models import AuditEntry
from patrons import cash, identity
from patrons.identity import PatronError
from patrons.models import ExclusionHit, ExclusionReview, ExclusionReviewDecision
from rounds.models import Round
from tables.models import Table
from tables.services import command_execute
from tests.engine.test_worked_examples import backline
from tests.playing import new_table

BACKLINE_CONFIG = {"seats": 6, "paytable": "UTH-01", "backline": {"max_per_seat": 2, "trips": True}}


def sit(table, player, seat, actor):
    return command_execute(table_id=table.pk, command={"type": "sit", "player": player, "seat": seat}, actor=actor)


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def version(table):
    return Table.objects.get(pk=table.pk).version


@pytest.fixture
def listed(actors):
    """John Smith (P-1001, card C-9001) on the house's list, Pete Listed on the state's."""
    john = identity.patron_create(
        actor=actors["compliance"], number="P-1001", card="C-9001", display_name="John S.", legal_name="John Smith",
        id_number="D7777777",
    )
    identity.house_list_add(actor=actors["compliance"], patron_id=john.pk, reason="asked to be excluded")
    identity.state_list_import(actor=actors["compliance"], filename="state.csv", content=b"name,state_ref\nPete Listed,CA-SE-9\n")
    return john


REPRODUCTION_REFUSED = ("P1001", "P 1001", "P_1001", "Smith, John", "J\u00f3hn Smith", "Pete Listed.")
# What was refused before issue 34, and still is: case, Cyrillic, fullwidth, dashes, NBSP,
# card and id number.
ALREADY_REFUSED = ("p-1001", "\u0420-1001", "\uff30\uff0d\uff11\uff10\uff10\uff11", "P\u20111001", "John\u00a0Smith",
                   "c-9001", "D7777777", "PETE LISTED")
NEAR = ("J. Smith", "John Smith Jr")


def test_the_spellings_that_sat_are_refused_a_seat_and_a_backline_wager(db, tables, listed, actors):
    t1, _ = tables
    for seat, player in enumerate(REPRODUCTION_REFUSED + ALREADY_REFUSED):
        outcome = sit(t1, player, seat % 6 + 1, actors["dealer"])
        assert outcome.code == "self_excluded", player
    assert version(t1) == 0  # nobody seated
    assert ExclusionHit.objects.filter(action="seat").count() == len(REPRODUCTION_REFUSED + ALREADY_REFUSED)
    assert set(ExclusionHit.objects.filter(player__in=("P1001", "P 1001", "P_1001")).values_list("patron", flat=True)) == {listed.pk}

    table = new_table("BL", **BACKLINE_CONFIG, boxes=False)
    for command in ({"type": "sit", "seat": 1, "player": "A-1"}, {"type": "sit", "seat": 2, "player": "A-2"},
                    {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1},
                    {"type": "open_round", "bank": 10000}, {"type": "wager", "seat": 2, "ante": 1000}):
        assert command_execute(table_id=table.pk, command=command, actor="test").ok, command
    before = version(table)
    for bettor in REPRODUCTION_REFUSED:
        assert command_execute(table_id=table.pk, command=backline(2, bettor, 500), actor="test").code == "self_excluded", bettor
    assert version(table) == before


def test_a_chip_purchase_and_a_payout_under_a_spelling_are_refused_over_http(db, people, tables, listed):
    dealer = logged_in(people["dealer"])
    for kind, player in (("chip_purchase", "P 1001"), ("cash_payout", "Smith, John"), ("chip_purchase", "Pete Listed.")):
        answer = dealer.post(f"/api/tables/{tables[0].pk}/cash", json.dumps({"kind": kind, "amount": 50000, "player": player}),
                             content_type="application/json")
        assert answer.status_code == 409 and answer.json()["error"]["code"] == "self_excluded", player
    assert not cash.CashTransaction.objects.exists()


def test_a_near_name_is_held_for_a_supervisor_and_never_a_near_number(db, tables, listed, actors):
    t1, _ = tables
    for seat, player in enumerate(NEAR, start=1):
        assert sit(t1, player, seat, actors["dealer"]).code == "check_required", player
        assert sit(t1, player, seat, actors["dealer"]).code == "check_required", player  # sent again: still held
    assert version(t1) == 0
    held = ExclusionReview.objects.order_by("id")
    assert [(r.player, r.action, r.employee) for r in held] == [(p, "seat", "dealer") for p in NEAR]  # one row each
    assert not ExclusionHit.objects.exists()  # held, not refused
    # A patron number one digit off is another person; a name far from any listed one sits.
    identity.patron_create(actor=actors["compliance"], number="P-1002", display_name="Ann", legal_name="Ann Lee")
    assert sit(t1, "P-1002", 3, actors["dealer"]).ok
    assert sit(t1, "Mary Jones", 4, actors["dealer"]).ok


def test_a_near_name_holds_the_chip_purchase_and_the_backline_wager(db, people, tables, listed):
    dealer = logged_in(people["dealer"])
    unknown = identity.unidentified_create(table_id=tables[0].pk, description="man, 50s", actor=Actor.of(people["dealer"]))
    answer = dealer.post(f"/api/tables/{tables[0].pk}/cash", json.dumps({"kind": "chip_purchase", "amount": 50000, "player": "J. Smith"}),
                         content_type="application/json")
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "check_required"
    assert unknown and not cash.CashTransaction.objects.exists()
    table = new_table("BL", **BACKLINE_CONFIG, boxes=False)
    for command in ({"type": "sit", "seat": 1, "player": "A-1"}, {"type": "sit", "seat": 2, "player": "A-2"},
                    {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1},
                    {"type": "open_round", "bank": 10000}, {"type": "wager", "seat": 2, "ante": 1000}):
        assert command_execute(table_id=table.pk, command=command, actor="test").ok, command
    assert command_execute(table_id=table.pk, command=backline(2, "John Smith Jr", 500), actor="test").code == "check_required"
    assert set(ExclusionReview.objects.values_list("action", flat=True)) == {"chip_purchase", "backline"}


@pytest.fixture
def supervisor2(db):
    user = User.objects.create_user("supervisor2", password="supervisor2-pw")
    user.groups.add(Group.objects.get_or_create(name="supervisor")[0])
    return user


def test_a_supervisor_clears_a_held_seat_and_the_dealer_resends(db, people, tables, listed, supervisor2):
    t1, t2 = tables
    dealer = logged_in(people["dealer"])

    def sit_over_http(table, player, seat):
        answer = dealer.post(f"/api/tables/{table.pk}/commands", json.dumps({"type": "sit", "seat": seat, "player": player}),
                             content_type="application/json")
        return answer.json()["result"]

    assert sit_over_http(t1, "J. Smith", 1)["error"]["code"] == "check_required"
    review = ExclusionReview.objects.get()
    floor = logged_in(people["supervisor"])
    assert f'data-review="{review.pk}"' in floor.get("/floor/patrons/").content.decode()  # the floor sees it
    decide = f"/floor/patrons/reviews/{review.pk}/decide"
    # The dealer cannot clear it, nor compliance; a reason is required.
    assert dealer.post(decide, {"decision": "cleared", "reason": "not him"}).status_code == 403
    assert logged_in(people["compliance"]).post(decide, {"decision": "cleared", "reason": "not him"}).status_code == 403
    assert floor.post(decide, {"decision": "cleared", "reason": ""}).status_code == 400
    assert not ExclusionReviewDecision.objects.exists()
    assert floor.post(decide, {"decision": "cleared", "reason": "ID shows James Smith, born 1990"}).status_code == 302
    assert floor.post(decide, {"decision": "confirmed", "reason": "changed my mind"}).status_code == 409  # decided once
    audit = AuditEntry.objects.get(action="self_exclusion", detail__review=review.pk)
    assert audit.username == "supervisor" and audit.detail["decision"] == "cleared"
    # The dealer resends: the same seat id passes at that table, for that entry only.
    assert sit_over_http(t1, "J. Smith", 1)["ok"]
    assert sit_over_http(t1, "J Smith", 2)["error"]["code"] == "check_required"  # another seat id
    assert sit_over_http(t2, "J. Smith", 1)["error"]["code"] == "check_required"  # another table


def test_the_employee_who_sent_a_held_command_cannot_clear_it(db, people, tables, listed, supervisor2):
    """The insider: a supervisor drives the table and tries to clear their own hold, from a
    second session; a second supervisor can."""
    t1, _ = tables
    assert sit(t1, "John Smith Jr", 1, Actor.of(people["supervisor"])).code == "check_required"
    review = ExclusionReview.objects.get()
    other_session = logged_in(people["supervisor"])
    refused = other_session.post(f"/floor/patrons/reviews/{review.pk}/decide", {"decision": "cleared", "reason": "my regular"})
    assert refused.status_code == 400 and "second_person_required" in refused.content.decode()
    assert not ExclusionReviewDecision.objects.exists()
    with pytest.raises(PatronError, match="second_person_required"):
        identity.exclusion_review_decide(actor=Actor.of(people["supervisor"], session="tablet-2"), review_id=review.pk,
                                         decision="cleared", reason="my regular")
    # The service itself decides for a supervisor only, whatever calls it.
    for who in ("dealer", "compliance"):
        with pytest.raises(PatronError, match="not_authorized"):
            identity.exclusion_review_decide(actor=Actor.of(people[who]), review_id=review.pk, decision="cleared",
                                             reason="my regular")
    assert not ExclusionReviewDecision.objects.exists()
    identity.exclusion_review_decide(actor=Actor.of(supervisor2), review_id=review.pk, decision="cleared", reason="son, ID seen")
    assert sit(t1, "John Smith Jr", 1, Actor.of(people["supervisor"])).ok


def test_a_confirmed_near_match_is_refused_from_then_on(db, people, tables, listed, supervisor2):
    t1, t2 = tables
    assert sit(t1, "J. Smith", 1, Actor.of(people["dealer"])).code == "check_required"
    review = ExclusionReview.objects.get()
    identity.exclusion_review_decide(actor=Actor.of(supervisor2), review_id=review.pk, decision="confirmed",
                                     reason="ID is John Smith, listed")
    for table in (t1, t2):
        assert sit(table, "J. Smith", 1, Actor.of(people["dealer"])).code == "self_excluded"
        assert sit(table, "J Smith", 1, Actor.of(people["dealer"])).code == "self_excluded"  # folds alike
    assert ExclusionHit.objects.filter(player="J. Smith").count() == 2
    assert version(t1) == 0 and version(t2) == 0


def test_a_seat_id_that_folds_to_one_patron_is_seated_as_that_patron(db, tables, actors):
    """The rotation rules keep their own comparison ("P-2" and "P 2" are two people to the
    engine): the service gives the engine one id for one person (docs/rules-decisions.md)."""
    one = identity.patron_create(actor=actors["compliance"], number="P-3001", card="C-3", display_name="A", legal_name="Al Bee")
    table = new_table("BL", **BACKLINE_CONFIG, boxes=False)
    for command in ({"type": "sit", "seat": 1, "player": "p 3001"}, {"type": "sit", "seat": 2, "player": "A-2"},
                    {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1},
                    {"type": "open_round", "bank": 10000}, {"type": "wager", "seat": 2, "ante": 1000}):
        assert command_execute(table_id=table.pk, command=command, actor="test").ok, command
    # Already seated under another spelling: the engine sees the same person.
    assert command_execute(table_id=table.pk, command={"type": "sit", "seat": 3, "player": "P_3001"},
                           actor="test").code == "player_already_seated"
    identity.patron_create(actor=actors["compliance"], number="P-3002", card="C-4", display_name="B", legal_name="Bo Cee")
    assert command_execute(table_id=table.pk, command=backline(2, "c_4", 500), actor="test").ok
    state = Table.objects.get(pk=table.pk).state
    assert state["occupants"]["1"] == one.number
    assert [b["bettor"] for b in state["round"]["backlines"]] == ["P-3002"]
    # The round's record names the player-dealer by the patron's number.
    assert Round.objects.get(table=table).pd_player == "P-3001"


def test_a_seat_id_that_folds_to_two_patrons_is_left_as_typed(db, tables, actors):
    identity.patron_create(actor=actors["compliance"], number="P-30", display_name="A", legal_name="Al Bee")
    identity.patron_create(actor=actors["compliance"], number="P30", display_name="B", legal_name="Bo Cee")
    assert sit(tables[0], "p 30", 1, actors["dealer"]).ok
    assert Table.objects.get(pk=tables[0].pk).state["occupants"]["1"] == "p 30"
