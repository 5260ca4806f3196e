"""Cash entries are corrected, never edited (issue 34, item 6 and reproduction 5): a
double tap records once (the entry's client id), the same patron, kind and amount within
two minutes asks for a confirmation (`possible_duplicate`), and a wrong entry is reversed
by a new row of the cash log, asked for by one person and approved by another, which the
totals, the CTR list, the alerts, the pages, the exports and `verify_logs` all follow."""

import io
import json
from dataclasses import replace
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from cardroom.access import Actor
from patrons import cash, selectors
from patrons.identity import PatronError
from patrons.models import CashAlert, CashReversalDecision, CashReversalRequest, CashTransaction
from tests.patron_aml.conftest import person
from tests.patron_aml.test_cash_ledger import tamper

PAYOUT = 364000  # reproduction 5: a $3,640 cash payout for PT-1001


def record(table, actor, amount=PAYOUT, kind="cash_payout", player="P-1001", **kw):
    return cash.cash_record(table_id=table.pk, kind=kind, amount=amount, player=player, actor=actor, **kw)


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def post_cash(client, table, body):
    return client.post(f"/api/tables/{table.pk}/cash", json.dumps(body), content_type="application/json")


@pytest.fixture
def sue(db):
    """A second supervisor: the other person of a two-person decision."""
    return Actor.of(person("sue", "supervisor"))


def reverse(original, *, asked_by, approved_by, reason="double tap at the table"):
    asked = cash.cash_reversal_request(seq=original.seq, reason=reason, actor=asked_by)
    return cash.cash_reversal_decide(request_id=asked.pk, approve=True, actor=approved_by)


def verify_logs() -> tuple[int, str]:
    out = io.StringIO()
    try:
        call_command("verify_logs", stdout=out)
    except SystemExit as exit_:
        return exit_.code, out.getvalue()
    return 0, out.getvalue()


# --- Reproduction 5 over HTTP: a double tap, then a real second entry ----------------------


def test_a_double_tap_records_once_and_a_second_payout_needs_the_dealers_confirmation(people, tables, ann):
    t1, _ = tables
    dealer = logged_in(people["dealer"])
    entry = {"kind": "cash_payout", "amount": PAYOUT, "player": "P-1001", "client_id": "tab1-7f3a"}
    first = post_cash(dealer, t1, entry)
    assert first.status_code == 200 and first.json()["replayed"] is False
    # The tablet resends the same entry (a double tap, a lost answer): the first is answered.
    again = post_cash(dealer, t1, entry)
    assert again.status_code == 200
    assert again.json()["replayed"] is True and again.json()["cash"] == first.json()["cash"]
    assert CashTransaction.objects.count() == 1
    # The same payout typed again as a new entry: refused, nothing recorded.
    twice = post_cash(dealer, t1, {**entry, "client_id": "tab1-8c21"})
    assert twice.status_code == 409 and twice.json()["error"]["code"] == "possible_duplicate"
    assert "confirm" in twice.json()["error"]["message"]
    assert CashTransaction.objects.count() == 1
    # The dealer says it is a second payout: recorded, once.
    confirmed = post_cash(dealer, t1, {**entry, "client_id": "tab1-8c21", "confirm": True})
    assert confirmed.status_code == 200 and confirmed.json()["cash"]["seq"] == first.json()["cash"]["seq"] + 1
    assert post_cash(dealer, t1, {**entry, "client_id": "tab1-8c21", "confirm": True}).json()["replayed"] is True
    assert CashTransaction.objects.count() == 2


@pytest.mark.parametrize("field, value", [("client_id", "x" * 65), ("client_id", "a b"), ("client_id", 7), ("confirm", "yes")])
def test_a_malformed_client_id_or_confirm_is_refused_and_records_nothing(people, tables, ann, field, value):
    body = {"kind": "chip_purchase", "amount": 100000, "player": "P-1001", field: value}
    answer = post_cash(logged_in(people["dealer"]), tables[0], body)
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_command"
    assert not CashTransaction.objects.exists()


def test_possible_duplicate_is_the_same_person_kind_and_amount_within_two_minutes(tables, ann, actors):
    t1, t2 = tables
    system = Actor.system("replay")
    start = timezone.now() - timedelta(hours=1)
    record(t1, system, at=start)
    # Same person under her club card, at another table: still the same entry.
    with pytest.raises(PatronError) as refused:
        record(t2, system, player="CC-77001", at=start + timedelta(seconds=119))
    assert refused.value.code == "possible_duplicate"
    # Another amount, or another kind, is another entry.
    record(t1, system, amount=PAYOUT + 100, at=start + timedelta(seconds=30))
    record(t1, system, kind="chip_purchase", at=start + timedelta(seconds=40))
    # Two minutes later, the same payout is no longer taken for a double tap.
    record(t1, system, at=start + timedelta(seconds=121))
    assert CashTransaction.objects.count() == 4


# --- A correction: a reversal asked for by one person, approved by another -----------------


def test_a_doubled_payout_is_reversed_by_a_new_row_approved_by_another_person(tables, ann, actors):
    t1, _ = tables
    original = record(t1, actors["dealer"])
    doubled = record(t1, actors["dealer"], confirm=True)
    day = original.gaming_day
    assert cash.day_total(f"patron:{ann.pk}", day, "out") == 2 * PAYOUT
    asked = cash.cash_reversal_request(seq=doubled.seq, reason="double tap: one payout", actor=actors["dealer"])
    assert CashTransaction.objects.count() == 2  # nothing written to the log until approved
    decision = cash.cash_reversal_decide(request_id=asked.pk, approve=True, actor=actors["supervisor"])
    reversal = decision.reversal
    assert (reversal.seq, reversal.reverses_id, reversal.kind, reversal.amount, reversal.patron_id, reversal.employee) == (
        doubled.seq + 1, doubled.pk, "cash_payout", PAYOUT, ann.pk, "supervisor")
    assert reversal.mtl and "double tap: one payout" in reversal.note
    # Both rows stay; the total counts the original less the reversal.
    doubled.refresh_from_db()
    assert doubled.amount == PAYOUT and CashTransaction.objects.count() == 3
    assert cash.day_total(f"patron:{ann.pk}", day, "out") == PAYOUT
    history = selectors.history_rows(ann)["cash"]
    assert [(t.seq, t.reverses_id) for t in history] == [(3, doubled.pk), (2, None), (1, None)]
    mtl = selectors.cash_rows({}, mtl_only=True)
    assert [t.seq for t in mtl] == [3, 2, 1]
    # Once only: approved again, asked again, or the reversal itself reversed.
    with pytest.raises(PatronError) as twice:
        cash.cash_reversal_decide(request_id=asked.pk, approve=True, actor=actors["compliance"])
    assert twice.value.code == "already_decided"
    for seq, code in ((doubled.seq, "already_reversed"), (reversal.seq, "not_reversible")):
        with pytest.raises(PatronError) as refused:
            cash.cash_reversal_request(seq=seq, reason="again", actor=actors["compliance"])
        assert refused.value.code == code
    assert CashTransaction.objects.count() == 3 and CashReversalDecision.objects.count() == 1


def test_the_requester_cannot_approve_their_own_reversal_from_a_second_session(tables, ann, actors, sue):
    t1, _ = tables
    entry = record(t1, actors["dealer"])
    asked = cash.cash_reversal_request(seq=entry.seq, reason="wrong patron", actor=actors["supervisor"])
    # The same supervisor, logged in on another tablet: the same person.
    other_tablet = replace(actors["supervisor"], session="tablet-2", address="10.0.0.9")
    with pytest.raises(PatronError) as refused:
        cash.cash_reversal_decide(request_id=asked.pk, approve=True, actor=other_tablet)
    assert refused.value.code == "second_person_required"
    assert CashTransaction.objects.count() == 1 and not CashReversalDecision.objects.exists()
    # A dealer cannot approve; another supervisor can.
    with pytest.raises(PatronError) as dealer:
        cash.cash_reversal_decide(request_id=asked.pk, approve=True, actor=actors["dealer"])
    assert dealer.value.code == "not_authorized"
    assert cash.cash_reversal_decide(request_id=asked.pk, approve=True, actor=sue).reversal.reverses_id == entry.pk


def test_whoever_recorded_the_entry_cannot_approve_its_reversal(tables, ann, actors, sue):
    t1, _ = tables
    entry = record(t1, actors["supervisor"])
    asked = cash.cash_reversal_request(seq=entry.seq, reason="wrong amount", actor=actors["compliance"])
    with pytest.raises(PatronError) as refused:
        cash.cash_reversal_decide(request_id=asked.pk, approve=True, actor=actors["supervisor"])
    assert refused.value.code == "second_person_required"
    declined = cash.cash_reversal_decide(request_id=asked.pk, approve=False, actor=sue)
    assert declined.reversal is None and CashTransaction.objects.count() == 1


def test_a_request_needs_a_reason_and_a_dealer_asks_only_at_their_own_table(tables, ann, actors, people):
    t1, _ = tables
    entry = record(t1, actors["supervisor"])
    with pytest.raises(PatronError) as bare:
        cash.cash_reversal_request(seq=entry.seq, reason="  ", actor=actors["dealer"])
    assert bare.value.code == "reason_required"
    other = Actor.of(person("dora", "dealer"))  # assigned to no table
    with pytest.raises(PatronError) as stranger:
        cash.cash_reversal_request(seq=entry.seq, reason="wrong patron", actor=other)
    assert stranger.value.code == "not_authorized"
    assert not CashReversalRequest.objects.exists()


# --- Totals, CTR and alerts follow reversals -------------------------------------------------


def test_the_ctr_list_and_alerts_count_originals_less_reversals(tables, ann, actors, sue):
    t1, t2 = tables
    buys = [record(t, actors["dealer"], amount=350000, kind="chip_purchase", confirm=True) for t in (t1, t2, t1)]
    day = buys[0].gaming_day
    (candidate,) = cash.ctr_candidates(day)
    assert candidate["total"] == 1050000
    assert sorted(CashAlert.objects.values_list("kind", flat=True)) == ["ctr_required", "warning"]
    reverse(buys[2], asked_by=actors["dealer"], approved_by=actors["supervisor"])
    # $7,000 net: no CTR candidate any more, on the page as in the list.
    assert cash.day_total(f"patron:{ann.pk}", day, "in") == 700000
    assert cash.ctr_candidates(day) == []
    page = logged_in(sue_user()).get(f"/compliance/ctr/?day={day.isoformat()}")
    assert b"P-1001" not in page.content
    # Back over the line: the lines already alerted are not alerted again, and the alerts
    # verify against the log (replayed with its reversals).
    record(t2, actors["dealer"], amount=350001, kind="chip_purchase")
    (candidate,) = cash.ctr_candidates(day)
    assert candidate["total"] == 1050001 and [t.pk for t in candidate["transactions"]][:3] == [b.pk for b in buys]
    assert CashAlert.objects.filter(kind="ctr_required").count() == 1
    assert cash.verify_alerts() == []


def sue_user():
    from django.contrib.auth.models import User

    return User.objects.get(username="sue")


def test_a_reversal_of_a_linked_unidentified_patrons_entry_counts_for_the_patron(tables, ann, actors):
    from patrons import identity

    t1, _ = tables
    stranger = identity.unidentified_create(table_id=t1.pk, description="man, 40s, red cap", actor=actors["dealer"])
    entry = record(t1, actors["dealer"], kind="chip_purchase", amount=500000, player=stranger.player_id)
    record(t1, actors["dealer"], kind="chip_purchase", amount=400000)
    cash.patron_link(unidentified_id=stranger.pk, patron_id=ann.pk, actor=actors["compliance"])
    assert cash.day_total(f"patron:{ann.pk}", entry.gaming_day, "in") == 900000
    reverse(entry, asked_by=actors["compliance"], approved_by=actors["supervisor"])
    assert cash.day_total(f"patron:{ann.pk}", entry.gaming_day, "in") == 400000
    assert cash.verify_alerts() == []


# --- The ledger: verify_logs passes after reversals and names a tampered one ----------------


def test_verify_logs_passes_after_reversals_and_names_a_tampered_reversal(tables, ann, actors, django_capture_on_commit_callbacks):
    t1, _ = tables
    with django_capture_on_commit_callbacks(execute=True):
        entry = record(t1, actors["dealer"])
        other = record(t1, actors["dealer"], amount=120000)
        reversal = reverse(entry, asked_by=actors["dealer"], approved_by=actors["supervisor"]).reversal
    code, out = verify_logs()
    assert code == 0, out
    # The reversal pointed at the other entry (the insider's "correction" of the correction).
    tamper(("UPDATE patrons_cashtransaction SET reverses_id = %s WHERE seq = %s", (other.pk, reversal.seq)))
    code, out = verify_logs()
    assert code == 1
    assert any(line.startswith(f"BROKEN cash log seq {reversal.seq}: content altered") for line in out.splitlines()), out


# --- The pages: a dealer asks on the table's endpoint, another person approves on the page --


def test_a_dealer_asks_over_http_and_a_supervisor_approves_on_the_reversals_page(people, tables, ann, actors):
    t1, t2 = tables
    entry = record(t1, actors["dealer"])
    dealer, supervisor = logged_in(people["dealer"]), logged_in(people["supervisor"])
    wrong_table = dealer.post(f"/api/tables/{t2.pk}/cash/{entry.seq}/reversal", json.dumps({"reason": "double tap"}),
                              content_type="application/json")
    assert wrong_table.status_code == 400 and wrong_table.json()["error"]["code"] == "unknown_cash"
    asked = dealer.post(f"/api/tables/{t1.pk}/cash/{entry.seq}/reversal", json.dumps({"reason": "double tap"}),
                        content_type="application/json")
    assert asked.status_code == 200, asked.content
    # The dealer is no approver: the page is not theirs.
    assert dealer.get("/compliance/cash/reversals/").status_code in (302, 403)
    page = supervisor.get("/compliance/cash/reversals/")
    assert b"double tap" in page.content and b"Approve" in page.content
    request_id = asked.json()["reversal_request"]
    done = supervisor.post("/compliance/cash/reversals/", {"decide": request_id, "approve": "yes"})
    assert done.status_code == 302
    reversal = CashTransaction.objects.get(reverses=entry)
    assert reversal.employee == "supervisor"
    again = supervisor.post("/compliance/cash/reversals/", {"decide": request_id, "approve": "yes"})
    assert again.status_code == 409 and b"already_decided" in again.content
    detail = supervisor.get(f"/compliance/patrons/{ann.pk}/")
    assert f"reversal of cash #{entry.seq}".encode() in detail.content
    mtl = supervisor.get("/compliance/mtl/")
    assert f"reversal of #{entry.seq}".encode() in mtl.content


@pytest.mark.django_db(transaction=True)  # the exports read committed rows
def test_both_rows_show_in_the_exports_and_the_cash_export_verifies_offline(people, tables, ann, actors, tmp_path):
    from tests.compliance.asgi import AsgiClient
    from tests.patron_aml.test_pages import _export, verify

    t1, _ = tables
    buys = [record(t1, actors["dealer"], amount=550000, kind="chip_purchase", confirm=True) for _ in range(2)]
    sue = Actor.of(person("sue", "supervisor"))
    reversal = reverse(buys[1], asked_by=actors["dealer"], approved_by=sue).reversal
    officer = logged_in(people["compliance"])
    asgi = AsgiClient(officer)
    asgi.client = officer
    csv_path, manifest_path, manifest = _export(asgi, "/compliance/cash/export.csv", tmp_path, "cash")
    assert manifest["rows"] == 3
    code, out = verify(manifest_path)
    assert code == 0, out  # the reversal re-hashes offline with its `reverses`
    lines = csv_path.read_text().splitlines()
    header = lines[0].split(",")
    last = dict(zip(header, lines[-1].split(","), strict=False))
    assert (last["chain_seq"], last["reverses_id"]) == (str(reversal.seq), str(buys[1].pk))
    history_path, _, _ = _export(asgi, f"/compliance/patrons/{ann.pk}/history.csv", tmp_path, "patron_history")
    assert f"reversal of cash #{buys[1].seq}" in history_path.read_text()
    # $11,000 less $5,500: no CTR candidate, so the CTR export is empty.
    _, _, ctr = _export(asgi, "/compliance/ctr/export.csv", tmp_path, "ctr", {"day": buys[0].gaming_day.isoformat()})
    assert ctr["rows"] == 0
