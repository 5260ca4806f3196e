"""Patrons: lookup, identification only for compliance and supervisors (audited), and
the self-exclusion lists at the seat and at the cash (patrons/identity.py)."""

from datetime import date

import pytest
from django.contrib.auth.models import Group, User

from cardroom.access import Actor
from cardroom.models import AuditEntry
from patrons import cash, identity
from patrons.identity import PatronError
from patrons.models import CashTransaction, ExclusionHit
from tables.models import Table
from tables.services import command_execute

STATE_LIST = (
    b"name,date_of_birth,id_number,state_ref\n"
    b"Bob Stone,1970-02-03,X7654321,CA-SE-1\n"
    b"Carla Ruiz,,,CA-SE-2\n"
)


def sit(table, player, seat, actor):
    return command_execute(table_id=table.pk, command={"type": "sit", "player": player, "seat": seat}, actor=actor)


def test_lookup_by_number_card_or_name_catches_case_and_look_alikes(ann, actors):
    for query in ("P-1001", "p-1001", "\u0420-1001", "cc-77001", "ann lee", "Ann L."):  # \u0420: Cyrillic "Р"
        assert identity.patron_lookup(query, actor=actors["supervisor"]) == [ann.public()], query
    assert identity.patron_lookup("P-1002", actor=actors["supervisor"]) == []


def test_a_number_or_card_already_known_is_refused(ann, actors):
    with pytest.raises(PatronError, match="duplicate_patron"):
        identity.patron_create(actor=actors["compliance"], number="p-1001", display_name="X", legal_name="X Y")
    with pytest.raises(PatronError, match="not_authorized"):
        identity.patron_create(actor=actors["dealer"], number="P-2", display_name="X", legal_name="X Y")


def test_identification_is_not_visible_to_a_dealer_and_each_read_is_audited(ann, actors):
    with pytest.raises(PatronError, match="not_authorized"):
        identity.identification_read(ann, actor=actors["dealer"])
    assert not AuditEntry.objects.filter(action="identification_read").exists()
    seen = identity.identification_read(ann, actor=actors["supervisor"], why="CTR")
    assert seen["legal_name"] == "Ann Lee" and seen["id_number"] == "D1234567"
    identity.identification_read(ann, actor=actors["compliance"])
    reads = AuditEntry.objects.filter(action="identification_read").order_by("id")
    assert [(r.username, r.detail["patron"]) for r in reads] == [("supervisor", ann.pk), ("compliance", ann.pk)]
    # What a dealer's lookup gives: no identification field.
    (found,) = identity.patron_lookup("P-1001", actor=actors["dealer"])
    assert set(found) == {"patron", "number", "display_name"}


@pytest.fixture
def listed(actors, ann):
    identity.state_list_import(actor=actors["compliance"], filename="state.csv", content=STATE_LIST)
    return identity.patron_create(
        actor=actors["compliance"], number="P-2002", display_name="Bob S.", legal_name="BOB  STONE",
        id_number="x7654321",
    )


def test_a_self_excluded_patron_is_refused_a_seat(tables, listed, actors):
    t1, _ = tables
    for seat, player in enumerate(("P-2002", "Bob Stone", "b\u043eb stone"), start=1):  # \u043e: Cyrillic "о"
        outcome = sit(t1, player, seat, actors["dealer"])
        assert outcome.code in ("self_excluded", "mixed_script_id"), player
    assert sit(t1, "P-2002", 1, actors["dealer"]).code == "self_excluded"
    assert Table.objects.get(pk=t1.pk).version == 0  # nobody seated
    hits = ExclusionHit.objects.filter(action="seat", patron=listed)
    assert hits.exists() and hits.first().entry.state_ref == "CA-SE-1"
    assert sit(t1, "P-1001", 1, actors["dealer"]).ok  # Ann is not listed


def test_a_namesake_born_on_another_day_is_not_refused_a_seat_as_if_listed(tables, actors):
    """The list names Dana Cruz born 1950-01-01; the patron Dana Cruz born 1985-06-07 is
    another person and sits (issue 33, finding 12). The same name born that day, or a
    patron whose date of birth the house does not know, is refused."""
    t1, _ = tables
    identity.state_list_import(actor=actors["compliance"], filename="state.csv",
                               content=b"name,date_of_birth\nDana Cruz,1950-01-01\n")
    namesake = identity.patron_create(actor=actors["compliance"], number="P-3001", display_name="Dana C.",
                                      legal_name="Dana Cruz", date_of_birth=date(1985, 6, 7))
    listed = identity.patron_create(actor=actors["compliance"], number="P-3002", display_name="Dana C.",
                                    legal_name="DANA CRUZ", date_of_birth=date(1950, 1, 1))
    unknown_birth = identity.patron_create(actor=actors["compliance"], number="P-3003", display_name="Dana C.",
                                           legal_name="Dana Cruz")
    assert sit(t1, namesake.number, 1, actors["dealer"]).ok
    assert not ExclusionHit.objects.exists()
    assert sit(t1, listed.number, 2, actors["dealer"]).code == "self_excluded"
    assert sit(t1, unknown_birth.number, 3, actors["dealer"]).code == "self_excluded"
    assert set(ExclusionHit.objects.values_list("patron__number", flat=True)) == {"P-3002", "P-3003"}
    assert Table.objects.get(pk=t1.pk).state["occupants"] == {"1": "P-3001"}


@pytest.mark.parametrize("who", ["admin", "superuser", "manager", "count_team"])
def test_the_service_refuses_identification_to_anyone_but_compliance_and_supervisors(ann, who):
    """Not the pages alone: `identification_read` itself refuses an admin (and a Django
    superuser, whose role is admin), a manager, the count team (issue 33, finding 12)."""
    user = User.objects.create_user(f"{who}-1", password="pw", is_superuser=who == "superuser")
    if who != "superuser":
        user.groups.add(Group.objects.get_or_create(name=who)[0])
    with pytest.raises(PatronError) as refused:
        identity.identification_read(ann, actor=Actor.of(user), why="curious")
    assert refused.value.code == "not_authorized"
    assert not AuditEntry.objects.filter(action="identification_read").exists()


def test_the_house_list_sits_beside_the_states(tables, ann, actors):
    assert sit(tables[0], "P-1001", 1, actors["dealer"]).ok
    identity.house_list_add(actor=actors["supervisor"], patron_id=ann.pk, reason="asked to be excluded")
    assert sit(tables[1], "cc-77001", 1, actors["dealer"]).code == "self_excluded"


def test_a_new_state_list_replaces_the_one_in_force_once_a_second_person_confirms(tables, listed, actors):
    """Issue 34: a shorter list drops Bob only when another compliance person confirms
    (tests/patron_aml/test_exclusion_lists.py holds the rest)."""
    batch = identity.state_list_import(actor=actors["compliance"], filename="state2.csv", content=b"name\nCarla Ruiz\n")
    assert sit(tables[0], "P-2002", 1, actors["dealer"]).code == "self_excluded"
    identity.removal_decide(actor=actors["compliance2"], removal_id=batch.removal.pk, outcome="confirmed")
    assert sit(tables[0], "P-2002", 1, actors["dealer"]).ok


def test_chip_purchases_and_payouts_to_a_listed_patron_are_refused(tables, listed, actors):
    for kind in ("chip_purchase", "cash_payout"):
        with pytest.raises(PatronError, match="self_excluded"):
            cash.cash_record(table_id=tables[0].pk, kind=kind, amount=500000, player="P-2002", actor=actors["dealer"])
    assert not CashTransaction.objects.exists()
    assert sorted(ExclusionHit.objects.values_list("action", flat=True)) == ["cash_payout", "chip_purchase"]


@pytest.mark.parametrize(
    "content, message",
    [
        (b"who,date_of_birth\nBob,1970-01-01\n", "header"),
        (b"name,date_of_birth\nBob,03/02/1970\n", "line 2"),
        (b"name\n\n,\n", "line"),
        (b"\xff\xfe", "UTF-8"),
    ],
)
def test_a_bad_state_list_is_refused_whole(actors, content, message):
    with pytest.raises(PatronError, match=message) as refused:
        identity.state_list_import(actor=actors["compliance"], filename="bad.csv", content=content)
    assert refused.value.code == "invalid_list"
    assert not identity.entries_in_force().exists()


def test_only_compliance_imports_the_state_list(actors):
    with pytest.raises(PatronError, match="not_authorized"):
        identity.state_list_import(actor=actors["supervisor"], filename="s.csv", content=STATE_LIST)


def test_identification_is_never_in_a_table_payload(tables, ann, actors):
    from tables.selectors import table_snapshot
    from rounds.visibility import LIVE, TABLET

    assert sit(tables[0], "CC-77001", 1, actors["dealer"]).ok
    table = Table.objects.get(pk=tables[0].pk)
    for audience in (TABLET, LIVE):  # what the sockets and the state API send
        payload = str(table_snapshot(table, audience))
        # Seated by card, the seat holds the patron's number (docs/rules-decisions.md).
        assert "P-1001" in payload
        for secret in ("Ann Lee", "D1234567", "drivers_license", "CC-77001"):
            assert secret not in payload


def test_the_patron_ledgers_are_append_only(tables, ann, actors):
    from tests.db_access import assert_refused_to_both

    row = cash.cash_record(table_id=tables[0].pk, kind="chip_purchase", amount=1000, player="P-1001", actor=actors["dealer"])
    stranger = identity.unidentified_create(table_id=tables[0].pk, description="woman in blue", actor=actors["dealer"])
    link = cash.patron_link(unidentified_id=stranger.pk, patron_id=ann.pk, actor=actors["supervisor"])
    assert_refused_to_both(lambda: CashTransaction.objects.filter(pk=row.pk).update(amount=1))
    assert_refused_to_both(lambda: CashTransaction.objects.filter(pk=row.pk).delete())
    assert_refused_to_both(lambda: type(link).objects.filter(pk=link.pk).update(reason="x"))


def test_a_patron_linked_to_a_tppp_sits_as_a_tppp_only_under_that_company_and_badge(tables, actors):
    from tables.services import command_execute

    identity.patron_create(actor=actors["compliance"], number="P-3003", display_name="Tess P.", legal_name="Tess Park",
                           tppp_company="Acme TPPS", tppp_badge="B-77")
    with pytest.raises(PatronError, match="both the company and the badge"):
        identity.patron_create(actor=actors["compliance"], number="P-3004", display_name="X", legal_name="X Y",
                               tppp_badge="B-78")
    t1 = tables[0]
    licence = {"badge": "B-78", "company": "Acme TPPS", "expires": "2099-06-30"}
    for wrong in (licence, {**licence, "badge": "B-77", "company": "Other TPPS"}):
        refused = command_execute(table_id=t1.pk, actor=actors["dealer"],
                                  command={"type": "sit", "seat": 1, "player": "P-3003", "tppp": wrong})
        assert refused.code == "tppp_mismatch", wrong
    assert Table.objects.get(pk=t1.pk).version == 0
    right = {**licence, "badge": "b-77", "company": "ACME TPPS"}  # case is not a different badge
    assert command_execute(table_id=t1.pk, actor=actors["dealer"],
                           command={"type": "sit", "seat": 1, "player": "P-3003", "tppp": right}).ok


def test_once_linked_a_u_id_sits_as_its_patron_and_its_rotation_follows_the_link(tables, ann, actors):
    from patrons.selectors import history_rows
    from tables.services import command_execute

    t1 = tables[0]
    stranger = identity.unidentified_create(table_id=t1.pk, description="man, 40s, red cap", actor=actors["dealer"])
    u_id = stranger.player_id
    for command in ({"type": "sit", "seat": 1, "player": u_id}, {"type": "sit", "seat": 2, "player": "P-9"},
                    {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, {"type": "leave", "seat": 1}):
        assert command_execute(table_id=t1.pk, command=command, actor=actors["dealer"]).ok, command
    cash.patron_link(unidentified_id=stranger.pk, patron_id=ann.pk, actor=actors["supervisor"])
    # The rotation the U-id made is in the patron's history.
    assert {(e.player, e.action) for e in history_rows(ann)["rotation"]} >= {(u_id, "offer"), (u_id, "accept")}
    # From now on the patron governs: the U-id sits as her number, one person at one seat.
    assert sit(t1, u_id, 3, actors["dealer"]).ok
    assert Table.objects.get(pk=t1.pk).state["occupants"]["3"] == "P-1001"
    assert sit(t1, "P-1001", 4, actors["dealer"]).code == "player_already_seated"
