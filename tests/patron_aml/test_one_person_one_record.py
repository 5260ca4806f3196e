"""One person, one record (issue 34, item 1): a second record of a known ID is refused, a
namesake born the same day is recorded only when confirmed, possible duplicates are listed
for compliance, and two records of one person are merged under two compliance officers,
after which the person's cash totals, alerts, CTR, history and exports count both records
(patrons/identity.py `person_of`, patrons/cash.py `merge_request` / `merge_approve`)."""

from datetime import date

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone

from cardroom.access import Actor
from cardroom.gaming_day import calendar
from cardroom.models import AuditEntry
from patrons import cash, identity, selectors
from patrons.identity import PatronError
from patrons.models import CashAlert, Patron, PatronMerge, PatronMergeRequest
from tests.patron_aml.conftest import person

BORN = date(1971, 5, 6)


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def compliance2(people):
    return people["compliance2"]  # the second compliance officer (tests/patron_aml/conftest.py)


@pytest.fixture
def p4001(actors):
    return identity.patron_create(
        actor=actors["supervisor"], number="P-4001", display_name="Jo S.", legal_name="John Smith", date_of_birth=BORN,
        id_type="drivers_license", id_number="D7654321", id_issuer="CA",
    )


def create(actor, number, **fields):
    values = {"display_name": "Jo S.", "legal_name": "John Smith", "date_of_birth": BORN, "id_type": "drivers_license",
              "id_number": "D7654321", "id_issuer": "CA", **fields}
    return identity.patron_create(actor=actor, number=number, **values)


def buy(table, player, amount, actor):
    # Four equal purchases minutes apart are four (confirmed: not a double tap).
    return cash.cash_record(table_id=table.pk, kind="chip_purchase", amount=amount, player=player, actor=actor,
                            confirm=True)


# --- a second record of one person --------------------------------------------------------


def test_the_same_id_written_another_way_is_refused_naming_the_record(p4001, actors):
    """The reproduction's P-4002: the same ID type, number and issuer (the number spaced
    and in lower case, the issuer in lower case) is refused `duplicate_patron`, naming
    P-4001, and nothing is written."""
    for spelled in ({}, {"id_number": "d 765-4321", "id_issuer": "ca", "id_type": "Drivers License"}):
        with pytest.raises(PatronError, match="duplicate_patron") as refused:
            create(actors["supervisor"], "P-4002", legal_name="Jon Smyth", date_of_birth=None, **spelled)
        assert "P-4001" in refused.value.message
    assert list(Patron.objects.values_list("number", flat=True)) == ["P-4001"]
    # Another issuer's or another type's document of the same number is another ID.
    create(actors["supervisor"], "P-4003", legal_name="Ann Other", id_issuer="NV")
    create(actors["supervisor"], "P-4004", legal_name="Bea Other", id_type="passport")


def test_the_same_legal_name_and_birth_day_asks_for_a_confirmation_that_is_audited(p4001, actors):
    """Two people may share a name and a birthday: recorded only when confirmed, and the
    confirmation names the other record in the audit trail. The name compares folded."""
    with pytest.raises(PatronError, match="possible_duplicate_patron") as asked:
        create(actors["supervisor"], "P-4002", legal_name="SMITH, Jóhn", id_type="passport", id_number="X1")
    assert "P-4001" in asked.value.message
    assert not Patron.objects.filter(number="P-4002").exists()
    twin = create(actors["supervisor"], "P-4002", legal_name="SMITH, Jóhn", id_type="passport", id_number="X1",
                  confirm=True)
    (confirmed,) = AuditEntry.objects.filter(action="patron", detail__namesakes__isnull=False)
    assert (confirmed.username, confirmed.detail) == ("supervisor", {"patron": twin.pk, "namesakes": [p4001.pk]})
    # Born another day: another person, no question.
    create(actors["supervisor"], "P-4005", date_of_birth=date(1980, 1, 1), id_number="")


def test_the_patron_page_asks_for_the_confirmation_in_words(people, p4001):
    supervisor = logged_in(people["supervisor"])
    form = {"number": "P-4002", "display_name": "Jo", "legal_name": "john smith", "date_of_birth": BORN.isoformat()}
    asked = supervisor.post("/compliance/patrons/", form)
    page = asked.content.decode()
    assert asked.status_code == 400 and "possible_duplicate_patron" in page and 'name="confirm"' in page
    assert 'value="P-4002"' in page  # the form as sent, to confirm without typing it again
    assert not Patron.objects.filter(number="P-4002").exists()
    assert supervisor.post("/compliance/patrons/", {**form, "confirm": "on"}).status_code == 302
    assert Patron.objects.filter(number="P-4002").exists()
    same_id = {**form, "number": "P-4009", "id_type": "drivers_license", "id_number": "D7654321", "id_issuer": "CA"}
    refused = supervisor.post("/compliance/patrons/", {**same_id, "confirm": "on"})
    assert refused.status_code == 400 and "duplicate_patron" in refused.content.decode()


# --- possible duplicates, and the merge under two people -----------------------------------


@pytest.fixture
def p4002(actors, p4001):
    """The second record of the same person: recorded under another document and a
    confirmation (as it was before the ID rule), so the two records exist."""
    return create(actors["supervisor"], "P-4002", display_name="Johnny", legal_name="J. Smith", id_type="passport",
                  id_number="X9", id_issuer="US")


def test_possible_duplicates_are_listed_for_compliance_only_and_the_listing_is_audited(people, p4001, p4002, actors):
    create(actors["supervisor"], "P-4010", legal_name="Jane Doe", id_number="")
    create(actors["supervisor"], "P-4011", legal_name="John Smith", date_of_birth=date(1990, 1, 1), id_number="")
    (pair,) = selectors.possible_duplicates()  # J. Smith is near John Smith; the others differ in name or birthday
    assert ({pair["first"].number, pair["second"].number}, pair["why"]) == (
        {"P-4001", "P-4002"}, "near legal name, same date of birth")
    page = logged_in(people["compliance"]).get("/compliance/patrons/duplicates/")
    assert page.status_code == 200 and "P-4002" in page.content.decode()
    assert "1971" not in page.content.decode()  # numbers and display names only
    listed = AuditEntry.objects.get(action="identification_read", summary="possible duplicate patrons listed")
    assert listed.detail == {"pairs": [[p4001.pk, p4002.pk]]}
    assert logged_in(people["supervisor"]).get("/compliance/patrons/duplicates/").status_code == 403


def test_reproduction_two_records_alternating_2900_become_one_persons_11600_after_the_merge(
        people, compliance2, tables, actors, p4001, p4002):
    t1, t2 = tables
    rows = [buy(table, player, 290000, actors["dealer"])
            for table, player in ((t1, "P-4001"), (t2, "P-4002"), (t1, "P-4001"), (t2, "P-4002"))]
    day = rows[0].gaming_day
    officer, second = logged_in(people["compliance"]), logged_in(compliance2)
    assert cash.ctr_candidates(day) == [] and not CashAlert.objects.exists()  # $5,800 a record, as far as totals knew
    assert "No CTR candidate" in officer.get(f"/compliance/ctr/?day={day}").content.decode()

    asked = officer.post("/compliance/patrons/duplicates/",
                         {"action": "request", "survivor": p4001.pk, "merged": p4002.pk, "reason": "same passport photo"})
    assert asked.status_code == 302
    request = PatronMergeRequest.objects.get()
    # Asked is not done: the totals wait for the second officer.
    assert cash.ctr_candidates(day) == []
    # The requester cannot approve: not from this session, not from a second one.
    for requester in (officer, logged_in(people["compliance"])):
        refused = requester.post("/compliance/patrons/duplicates/", {"action": "approve", "request": request.pk})
        assert refused.status_code == 400 and "second_person_required" in refused.content.decode()
    with pytest.raises(PatronError, match="not_authorized"):
        cash.merge_approve(request_id=request.pk, actor=actors["supervisor"])
    assert not PatronMerge.objects.exists()

    assert second.post("/compliance/patrons/duplicates/", {"action": "approve", "request": request.pk}).status_code == 302
    merge = PatronMerge.objects.get()
    assert (merge.requested_by, merge.approved_by, merge.survivor_id, merge.merged_id) == (
        "compliance", "compliance2", p4001.pk, p4002.pk)
    (candidate,) = cash.ctr_candidates(day)
    assert (candidate["total"], candidate["patron"]["number"]) == (1160000, "P-4001")
    assert [t.pk for t in candidate["transactions"]] == [r.pk for r in rows]
    page = officer.get(f"/compliance/ctr/?day={day}").content.decode()
    assert "$11,600.00" in page and "P-4001" in page
    # The merge crossed both lines: the alerts name the person's surviving record and the merge.
    alerts = {a.kind: a for a in CashAlert.objects.all()}
    assert {k: (a.total, a.patron_id, a.merge_id, a.transaction_id) for k, a in alerts.items()} == {
        "warning": (1160000, p4001.pk, merge.pk, rows[3].pk), "ctr_required": (1160000, p4001.pk, merge.pk, rows[3].pk)}
    assert cash.verify_alerts() == []
    # The cash rows were not rewritten: each keeps the record it was written under.
    assert [r.patron_id for r in sorted(rows, key=lambda r: r.seq)] == [p4001.pk, p4002.pk, p4001.pk, p4002.pk]
    # From then on, a purchase under either record counts toward the one person.
    buy(t1, "P-4002", 10000, actors["dealer"])
    assert cash.day_total(f"patron:{p4001.pk}", day, "in") == 1170000
    # The history of either record is the person's.
    for record in (p4001, p4002):
        history = selectors.history_rows(record)
        assert len(history["cash"]) == 5 and {"P-4001", "P-4002"} <= set(history["ids"])
    assert "Merged into" in officer.get(f"/compliance/patrons/{p4002.pk}/").content.decode()


def test_the_ctr_export_counts_the_person(compliance2, tables, actors, p4001, p4002):
    from django.db import connection

    rows = [buy(t, p, 290000, actors["dealer"]) for t, p in zip(tables * 2, ("P-4001", "P-4002") * 2)]
    query = selectors.ctr_query(rows[0].gaming_day, 1000000)
    with connection.cursor() as cursor:
        cursor.execute(query.export_sql(), query.params)
        assert cursor.fetchall() == []
    request = cash.merge_request(survivor_id=p4001.pk, merged_id=p4002.pk, reason="one person", actor=actors["compliance"])
    cash.merge_approve(request_id=request.pk, actor=Actor.of(compliance2))
    query = selectors.ctr_query(rows[0].gaming_day, 1000000)
    with connection.cursor() as cursor:
        cursor.execute(query.export_sql(), query.params)
        exported = [dict(zip(query.headers, row)) for row in cursor.fetchall()]
    assert [(r["subject"], r["day_total_cents"], r["patron_number"], r["player"]) for r in exported] == [
        (f"patron:{p4001.pk}", 1160000, "P-4001", p) for p in ("P-4001", "P-4002", "P-4001", "P-4002")]


def test_a_merged_record_is_merged_once_and_a_survivor_merged_later_carries_its_records(
        compliance2, tables, actors, p4001, p4002):
    """Decided: a record already merged is refused (`already_merged`), as a survivor, so
    merges never form a cycle; a surviving record merged later into a third carries the
    records merged into it (resolved transitively)."""
    second = Actor.of(compliance2)

    def merge(survivor, merged):
        request = cash.merge_request(survivor_id=survivor.pk, merged_id=merged.pk, reason="one person",
                                     actor=actors["compliance"])
        return cash.merge_approve(request_id=request.pk, actor=second)

    third = create(actors["supervisor"], "P-4003", legal_name="Jack Smith", id_number="")
    stale = cash.merge_request(survivor_id=third.pk, merged_id=p4002.pk, reason="waits", actor=actors["compliance"])
    merge(p4001, p4002)
    # A request that waited while its record was merged elsewhere is refused at approval.
    with pytest.raises(PatronError, match="already_merged"):
        cash.merge_approve(request_id=stale.pk, actor=second)
    for survivor, merged in ((third, p4002), (p4002, third)):
        with pytest.raises(PatronError, match="already_merged"):
            cash.merge_request(survivor_id=survivor.pk, merged_id=merged.pk, reason="x", actor=actors["compliance"])
    with pytest.raises(PatronError, match="invalid_patron"):
        cash.merge_request(survivor_id=third.pk, merged_id=third.pk, reason="x", actor=actors["compliance"])
    with pytest.raises(PatronError, match="invalid_patron"):
        cash.merge_request(survivor_id=third.pk, merged_id=p4001.pk, reason="  ", actor=actors["compliance"])
    late = cash.merge_request(survivor_id=third.pk, merged_id=p4001.pk, reason="one", actor=actors["compliance"])
    buy(tables[0], "P-4002", 600000, actors["dealer"])
    buy(tables[0], "P-4003", 500000, actors["dealer"])
    cash.merge_approve(request_id=late.pk, actor=second)
    for record in (p4001, p4002, third):
        assert identity.person_of(record.pk) == identity.Person(third.pk, (p4001.pk, p4002.pk, third.pk))
    (candidate,) = cash.ctr_candidates(calendar().gaming_day(timezone.now()))
    assert (candidate["total"], candidate["patron"]["number"]) == (1100000, "P-4003")
    assert cash.verify_alerts() == []


def test_merges_are_append_only_and_two_people_by_the_database_too(compliance2, actors, p4001, p4002):
    from tests.db_access import assert_refused_to_both

    request = cash.merge_request(survivor_id=p4001.pk, merged_id=p4002.pk, reason="one person", actor=actors["compliance"])
    merge = cash.merge_approve(request_id=request.pk, actor=Actor.of(compliance2))
    assert_refused_to_both(lambda: PatronMerge.objects.filter(pk=merge.pk).update(approved_by="compliance"))
    assert_refused_to_both(lambda: PatronMerge.objects.filter(pk=merge.pk).delete())
    assert_refused_to_both(lambda: PatronMergeRequest.objects.filter(pk=request.pk).update(requested_by="x"))
    third = create(actors["supervisor"], "P-4003", legal_name="Jack Smith", id_number="")
    again = cash.merge_request(survivor_id=p4001.pk, merged_id=third.pk, reason="one", actor=actors["compliance"])
    with pytest.raises(IntegrityError, match="merge_two_people"), transaction.atomic():
        PatronMerge.objects.create(
            request=again, survivor=p4001, merged=third, reason="x", requested_by="compliance",
            requester_user_id=again.requester_user_id, requested_at=again.requested_at, approved_by="compliance",
            approver_user_id=again.requester_user_id, approved_at=timezone.now(),
        )
    audit = AuditEntry.objects.filter(action="patron_merge").order_by("id")
    assert [(a.username, a.detail.get("merge")) for a in audit] == [
        ("compliance", None), ("compliance2", merge.pk), ("compliance", None)]

