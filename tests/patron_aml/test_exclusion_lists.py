"""The self-exclusion lists changed carefully (issue 34, item 5; reproduction 4).

A state-list upload that removes anyone shows its diff (added, removed); its additions are
listed at once, its removals only once a second compliance person (another user id)
confirms; a header-only list is refused `empty_list`. The house's list has a page: a
patron added at once, removed under two people. Every step leaves an audit row, and the
uploader confirming their own removal from a second session is refused. The rules:
docs/patrons.md, "Self-exclusion"."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from cardroom.models import AuditEntry
from patrons import identity
from patrons.identity import PatronError
from patrons.models import ExclusionEntry, ExclusionImport, ExclusionRemoval, ExclusionRemovalDecision
from tables.services import command_execute

from .test_record_tampers import tamper
from tests.compliance.test_tamper import verify_logs

pytestmark = pytest.mark.django_db

PEOPLE = [f"Listed Person {i:04d}" for i in range(999)]
FIRST = ("name\n" + "\n".join(["John Smith", *PEOPLE]) + "\n").encode()  # 1,000 rows
# The next month's list: 1,000 rows too, John Smith gone and Pete Listed new.
SECOND = ("name\n" + "\n".join([*PEOPLE, "Pete Listed"]) + "\n").encode()


def sit(table, player, seat, actor):
    return command_execute(table_id=table.pk, command={"type": "sit", "player": player, "seat": seat}, actor=actor)


def session_of(user) -> Client:
    """A browser session of `user` (each call a new session: another tab, another desk)."""
    client = Client()
    client.force_login(user)
    return client


def upload(client: Client, content: bytes, name: str = "state.csv"):
    return client.post("/compliance/self-exclusion/state-list/",
                       {"list": SimpleUploadedFile(name, content, content_type="text/csv")})


@pytest.fixture
def john(actors):
    return identity.patron_create(actor=actors["compliance"], number="P-1001", card="C-9001",
                                  display_name="John S.", legal_name="John Smith")


@pytest.fixture
def pete(actors):
    return identity.patron_create(actor=actors["compliance"], number="P-1002", display_name="Pete L.",
                                  legal_name="Pete Listed")


def test_a_shorter_list_shows_its_diff_and_drops_nobody_until_a_second_person_confirms(people, tables, john, pete, actors):
    """Reproduction 4: a 1,000-row upload dropped John Smith, who then sat. Now the page
    shows who the upload adds and removes; Pete (added) is refused at once, John (removed)
    stays refused until compliance2 confirms, and then sits."""
    officer, second = session_of(people["compliance"]), session_of(people["compliance2"])
    assert upload(officer, FIRST).status_code == 302
    answer = upload(officer, SECOND, "state-2.csv")
    batch = ExclusionImport.objects.get(filename="state-2.csv")
    assert answer.status_code == 302 and answer["Location"] == f"/compliance/self-exclusion/imports/{batch.pk}/"
    page = officer.get(answer["Location"]).content.decode()
    removed, added = page.split('id="diff-removed"')[1].split('id="diff-added"')
    assert "John Smith" in removed and "Pete Listed" not in removed and "Listed Person" not in removed
    assert "Pete Listed" in added and "John Smith" not in added and "Listed Person" not in added
    assert "Removed (1)" in page and "Added (1," in page and 'data-status="waiting"' in page
    assert (batch.added, batch.removed) == (1, 1)

    assert sit(tables[0], "P-1002", 1, actors["dealer"]).code == "self_excluded"  # added: at once
    assert sit(tables[0], "P-1001", 2, actors["dealer"]).code == "self_excluded"  # removal waits

    assert "Confirm the removal" not in page  # not for the uploader
    confirmed = second.post(f"/compliance/self-exclusion/removals/{batch.removal.pk}/decide", {"outcome": "confirmed"})
    assert confirmed.status_code == 302
    assert sit(tables[0], "P-1001", 2, actors["dealer"]).ok
    assert sit(tables[0], "P-1002", 3, actors["dealer"]).code == "self_excluded"
    assert identity.entries_in_force().count() == 1000
    page = officer.get(f"/compliance/self-exclusion/imports/{batch.pk}/").content.decode()
    assert 'data-status="confirmed"' in page and "confirmed by compliance2" in page


def test_the_uploader_confirming_their_own_removal_from_a_second_session_is_refused(people, tables, john, actors):
    """The insider: one person, two sessions (another tab or desk) is still one person."""
    first_session = session_of(people["compliance"])
    upload(first_session, FIRST)
    upload(first_session, SECOND)
    removal = ExclusionRemoval.objects.get()
    other_session = session_of(people["compliance"])
    answer = other_session.post(f"/compliance/self-exclusion/removals/{removal.pk}/decide", {"outcome": "confirmed"})
    assert answer.status_code == 400 and "second_person_required" in answer.content.decode()
    assert not ExclusionRemovalDecision.objects.exists()
    assert sit(tables[0], "P-1001", 1, actors["dealer"]).code == "self_excluded"
    # Nor through the service, whatever the session.
    with pytest.raises(PatronError) as refused:
        identity.removal_decide(actor=actors["compliance"], removal_id=removal.pk, outcome="confirmed")
    assert refused.value.code == "second_person_required"


@pytest.mark.parametrize("who", ["supervisor", "dealer"])
def test_only_compliance_confirms_a_removal(people, tables, john, actors, who):
    identity.state_list_import(actor=actors["compliance"], filename="1.csv", content=FIRST)
    batch = identity.state_list_import(actor=actors["compliance"], filename="2.csv", content=SECOND)
    with pytest.raises(PatronError) as refused:
        identity.removal_decide(actor=actors[who], removal_id=batch.removal.pk, outcome="confirmed")
    assert refused.value.code == "not_authorized"
    answer = session_of(people[who]).post(f"/compliance/self-exclusion/removals/{batch.removal.pk}/decide",
                                          {"outcome": "confirmed"})
    assert answer.status_code == 403
    assert sit(tables[0], "P-1001", 1, actors["dealer"]).code == "self_excluded"


@pytest.mark.parametrize("content", [b"name\n", b"name,date_of_birth,id_number,state_ref\r\n", b"\xef\xbb\xbfname\n"],
                         ids=["header", "every column", "with a BOM"])
def test_a_header_only_list_is_refused_and_the_list_in_force_is_kept(people, tables, john, actors, content):
    officer = session_of(people["compliance"])
    upload(officer, FIRST)
    answer = upload(officer, content, "empty.csv")
    assert answer.status_code == 400 and "empty_list" in answer.content.decode()
    assert not ExclusionImport.objects.filter(filename="empty.csv").exists()
    assert identity.entries_in_force().count() == 1000
    assert sit(tables[0], "P-1001", 1, actors["dealer"]).code == "self_excluded"


def test_a_list_that_removes_nobody_is_in_force_at_once(people, tables, actors):
    first = identity.state_list_import(actor=actors["compliance"], filename="1.csv", content=b"name\nBob Stone\n")
    longer = identity.state_list_import(actor=actors["compliance"], filename="2.csv",
                                        content=b'name\n"STONE, bob"\nCarla Ruiz\n')  # Bob, as the state writes him now
    assert (longer.added, longer.removed) == (1, 0)
    assert not ExclusionRemoval.objects.exists()
    assert identity.state_imports_in_force() == [longer.pk]  # alone: the first one is replaced
    assert first.pk not in identity.state_imports_in_force()


def test_a_declined_removal_keeps_everyone_and_a_later_list_in_force_supersedes_it(people, tables, john, actors):
    identity.state_list_import(actor=actors["compliance"], filename="1.csv", content=FIRST)
    wrong = identity.state_list_import(actor=actors["compliance"], filename="2.csv", content=b"name\nSomeone Else\n")
    assert wrong.removed == 1000
    page = session_of(people["compliance2"]).get(f"/compliance/self-exclusion/imports/{wrong.pk}/").content.decode()
    assert "Removed (1000)" in page and "The first 200 shown" in page and "Confirm the removal" in page
    assert "John Smith" in page and page.count("Listed Person") == 199  # the first 200 by name: John, then 199
    identity.removal_decide(actor=actors["compliance2"], removal_id=wrong.removal.pk, outcome="declined",
                            reason="the wrong file")
    assert sit(tables[0], "P-1001", 1, actors["dealer"]).code == "self_excluded"
    assert identity.removal_status(wrong.removal) == "declined"
    with pytest.raises(PatronError) as refused:  # decided once
        identity.removal_decide(actor=actors["compliance2"], removal_id=wrong.removal.pk, outcome="confirmed")
    assert refused.value.code == "wrong_state"
    # The next month's list is diffed against all that is in force (Someone Else too).
    nxt = identity.state_list_import(actor=actors["compliance"], filename="3.csv", content=SECOND)
    assert (nxt.added, nxt.removed) == (1, 2)  # Pete in; John and Someone Else out, once confirmed
    identity.removal_decide(actor=actors["compliance2"], removal_id=nxt.removal.pk, outcome="confirmed")
    assert identity.state_imports_in_force() == [nxt.pk]
    assert sit(tables[0], "P-1001", 1, actors["dealer"]).ok


def test_an_older_waiting_removal_cannot_be_confirmed_once_a_later_list_is_in_force(people, john, actors):
    identity.state_list_import(actor=actors["compliance"], filename="1.csv", content=FIRST)
    older = identity.state_list_import(actor=actors["compliance"], filename="2.csv", content=SECOND)
    newer = identity.state_list_import(actor=actors["compliance"], filename="3.csv", content=b"name\nPete Listed\n")
    identity.removal_decide(actor=actors["compliance2"], removal_id=newer.removal.pk, outcome="confirmed")
    assert identity.removal_status(older.removal) == "superseded"
    with pytest.raises(PatronError) as refused:
        identity.removal_decide(actor=actors["compliance2"], removal_id=older.removal.pk, outcome="confirmed")
    assert refused.value.code == "wrong_state"
    assert identity.entries_in_force().get().name == "Pete Listed"


# --- the house's list ---------------------------------------------------------------------


def test_the_house_list_page_adds_at_once_and_removes_under_two_people(people, tables, john, actors):
    officer, supervisor = session_of(people["compliance"]), session_of(people["supervisor"])
    # A patron asks the floor to be excluded: listed at once, by card, as the floor reads it.
    assert supervisor.post("/compliance/self-exclusion/house/", {"patron": "c-9001", "reason": "asked"}).status_code == 302
    assert sit(tables[0], "P-1001", 1, actors["dealer"]).code == "self_excluded"
    again = supervisor.post("/compliance/self-exclusion/house/", {"patron": "P-1001"})
    assert again.status_code == 400 and "already_listed" in again.content.decode()
    entry = ExclusionEntry.objects.get(source="house")
    page = officer.get("/compliance/self-exclusion/house/").content.decode()
    assert "P-1001" in page and "asked" in page and "Ask to remove" in page

    # A supervisor may not ask for a removal; compliance asks, with a reason.
    refused = supervisor.post("/compliance/self-exclusion/house/", {"action": "remove", "entry": entry.pk, "reason": "x"})
    assert refused.status_code == 403 and not ExclusionRemoval.objects.exists()
    no_reason = officer.post("/compliance/self-exclusion/house/", {"action": "remove", "entry": entry.pk, "reason": ""})
    assert no_reason.status_code == 400 and not ExclusionRemoval.objects.exists()
    asked = officer.post("/compliance/self-exclusion/house/",
                         {"action": "remove", "entry": entry.pk, "reason": "exclusion period over"})
    assert asked.status_code == 302
    removal = ExclusionRemoval.objects.get()
    assert sit(tables[0], "P-1001", 1, actors["dealer"]).code == "self_excluded"  # still listed

    # The requester, from another session, cannot confirm; the second person does.
    own = session_of(people["compliance"]).post(f"/compliance/self-exclusion/removals/{removal.pk}/decide",
                                                {"outcome": "confirmed"})
    assert own.status_code == 400 and "second_person_required" in own.content.decode()
    assert sit(tables[0], "P-1001", 1, actors["dealer"]).code == "self_excluded"
    done = session_of(people["compliance2"]).post(f"/compliance/self-exclusion/removals/{removal.pk}/decide",
                                                  {"outcome": "confirmed", "reason": "checked the file"})
    assert done.status_code == 302 and done["Location"] == "/compliance/self-exclusion/house/"
    assert sit(tables[0], "P-1001", 1, actors["dealer"]).ok
    page = officer.get("/compliance/self-exclusion/house/").content.decode()
    assert "Nobody on the house's list" in page and "confirmed by compliance2" in page


def test_a_house_list_addition_of_an_unknown_patron_is_refused(people):
    answer = session_of(people["compliance"]).post("/compliance/self-exclusion/house/", {"patron": "P-9999"})
    assert answer.status_code == 400 and "unknown_patron" in answer.content.decode()
    assert not ExclusionEntry.objects.exists()


def test_every_change_of_a_list_is_audited(people, john, actors):
    identity.state_list_import(actor=actors["compliance"], filename="1.csv", content=FIRST)
    batch = identity.state_list_import(actor=actors["compliance"], filename="2.csv", content=SECOND)
    identity.removal_decide(actor=actors["compliance2"], removal_id=batch.removal.pk, outcome="confirmed")
    entry = identity.house_list_add(actor=actors["supervisor"], patron_id=john.pk, reason="asked")
    house = identity.house_list_remove_request(actor=actors["compliance"], entry_id=entry.pk, reason="over")
    identity.removal_decide(actor=actors["compliance"], removal_id=house.pk, outcome="declined")  # withdrawn
    rows = [(a.username, a.action, a.detail.get("outcome") or a.detail.get("requested") or a.detail.get("removed"))
            for a in AuditEntry.objects.filter(action__in=("self_exclusion", "list_removal")).order_by("id")]
    assert rows == [
        ("compliance", "self_exclusion", 0),  # the first list: removed nobody
        ("compliance", "self_exclusion", 1),  # the second: removes John
        ("compliance", "list_removal", 1),  # its removal filed
        ("compliance2", "list_removal", "confirmed"),
        ("supervisor", "self_exclusion", None),  # the house's list: John added
        ("compliance", "list_removal", 1),
        ("compliance", "list_removal", "declined"),
    ]


def test_a_confirmation_deleted_or_forged_is_named_by_verify_logs(people, john, actors):
    identity.state_list_import(actor=actors["compliance"], filename="1.csv", content=FIRST)
    batch = identity.state_list_import(actor=actors["compliance"], filename="2.csv", content=SECOND)
    decision = identity.removal_decide(actor=actors["compliance2"], removal_id=batch.removal.pk, outcome="confirmed")
    code, out = verify_logs()
    assert code == 0, out
    tamper("patrons_exclusionremovaldecision", "UPDATE patrons_exclusionremovaldecision SET decided_by = 'x' WHERE id = %s",
           [decision.pk])
    code, out = verify_logs()
    assert code == 1 and f"self-exclusion removal {batch.removal.pk}'s decision" in out, out
    tamper("patrons_exclusionremovaldecision", "DELETE FROM patrons_exclusionremovaldecision WHERE id = %s", [decision.pk])
    code, out = verify_logs()
    assert code == 1 and "does not hold the decision: deleted" in out, out


def test_a_house_entry_is_asked_off_once_at_a_time_and_not_after_it_is_off(john, actors):
    entry = identity.house_list_add(actor=actors["compliance"], patron_id=john.pk, reason="asked")
    removal = identity.house_list_remove_request(actor=actors["compliance"], entry_id=entry.pk, reason="over")
    with pytest.raises(PatronError) as twice:  # a second request beside the waiting one
        identity.house_list_remove_request(actor=actors["compliance2"], entry_id=entry.pk, reason="over")
    assert twice.value.code == "wrong_state"
    identity.removal_decide(actor=actors["compliance2"], removal_id=removal.pk, outcome="confirmed")
    with pytest.raises(PatronError) as gone:  # off the list: nothing left to remove
        identity.house_list_remove_request(actor=actors["compliance"], entry_id=entry.pk, reason="again")
    assert gone.value.code == "unknown_entry"
    assert ExclusionRemoval.objects.count() == 1
    # Listed again later (they ask again): a new entry, in force at once.
    again = identity.house_list_add(actor=actors["supervisor"], patron_id=john.pk, reason="asked again")
    assert list(identity.entries_in_force()) == [again]
