"""A progressive award is a cash-out, paid once (issue 34, item 9): its payout row names it
(`award_round`, `award_seat`) and a second payout of the same award, a double tap or a
second person paying it again, is refused `award_paid` and writes nothing; the database
refuses it too (`cash_award_paid_once`)."""

from unittest import mock

import pytest
from django.db import IntegrityError

from patrons import cash
from patrons.identity import PatronError
from patrons.models import CashAlert, CashTransaction
from tests.patron_aml.test_cash_ledger import AWARD, confirmed_award, pay_award  # noqa: F401 (a fixture)


def test_an_award_is_cashed_out_once_and_counts_in_the_days_cash_out(confirmed_award):
    table, rnd, people = confirmed_award
    paid = pay_award(table, rnd, people["sue"])
    for again in (people["sue"], people["dan"]):  # the same person's double tap, another person
        with pytest.raises(PatronError) as refused:
            pay_award(table, rnd, again)
        assert refused.value.code == "award_paid"
        assert f"cash seq {paid.seq}" in str(refused.value)
    assert list(CashTransaction.objects.values_list("pk", flat=True)) == [paid.pk]
    # The $10,000.80 award is the winner's cash out of the day: above the CTR line.
    assert cash.day_total(f"patron:{paid.patron_id}", paid.gaming_day, "out") == AWARD
    assert CashAlert.objects.filter(kind="ctr_required", direction="out", transaction=paid).exists()
    assert cash.verify_chain() == []


def test_the_database_refuses_a_second_payout_of_an_award(confirmed_award):
    """Behind the service's check: with it gone, the unique constraint still refuses."""
    table, rnd, people = confirmed_award
    pay_award(table, rnd, people["sue"])
    with mock.patch("patrons.cash.award_already_paid", return_value=None), \
            mock.patch("patrons.cash._possible_duplicate", return_value=None), pytest.raises(IntegrityError):
        pay_award(table, rnd, people["dan"])


# Issue 34, item 9: the confirmation records who won; an award above the CTR line whose
# winner's identification is not on record, or whose winner is no record at all, is owed
# (not withheld) until a second person identifies the winner; then it is paid once.

from django.test import Client  # noqa: E402

from cardroom.models import AuditEntry  # noqa: E402
from tables.models import TableEvent  # noqa: E402
from patrons.identity import patron_create  # noqa: E402
from patrons.models import AwardCashOut  # noqa: E402
from tests.patron_aml.test_cash_ledger import WINNER_ID, confirm_an_award, owed_award  # noqa: E402,F401


def test_the_confirmation_records_the_award_as_a_cash_out_once(confirmed_award):
    table, rnd, people = confirmed_award
    award = AwardCashOut.objects.get()
    assert (award.table_id, award.round_id, award.seat, award.player, award.hand) == (table.pk, rnd.pk, 2, "P-2", "royal_first_five")
    assert (award.amount, award.confirmed_by, award.state, award.winner) == (AWARD, "sam", "due", "P-2")
    confirmed = TableEvent.objects.get(table=table, command_type="confirm_award")
    assert (confirmed.actor, confirmed.created_at) == ("sam", award.confirmed_at)  # the command's own record
    paid = pay_award(table, rnd, people["sue"])
    award.refresh_from_db()
    assert (award.state, award.payout_id) == ("paid", paid.pk)


def test_an_award_above_the_ctr_line_is_owed_until_a_second_person_identifies_its_winner(owed_award):
    table, rnd, people = owed_award
    award = AwardCashOut.objects.get()
    assert award.state == "owed" and "CTR line" in award.why_owed and award.winner == ""
    with pytest.raises(PatronError) as refused:  # the money waits for the winner's identification
        pay_award(table, rnd, people["sue"])
    assert refused.value.code == "award_owed"
    assert not CashTransaction.objects.exists()
    # The confirming supervisor may not also name the winner; a dealer may not at all.
    for actor, code in ((people["sam"], "second_person_required"), (people["dan"], "not_authorized")):
        with pytest.raises(PatronError) as refused:
            awards_identify(award, "P-2", actor)
        assert refused.value.code == code
    # A record without identification does not make a $10,000.80 award payable.
    with pytest.raises(PatronError) as refused:
        awards_identify(award, "P-2", people["sue"])
    assert refused.value.code == "identification_required"
    assert AwardCashOut.objects.get().state == "owed"
    patron_create(actor=people["sue"], number="P-77", display_name="Real Winner", legal_name="Rea L. Winner",
                  **{**WINNER_ID, "id_number": "D7700077"})
    identified = awards_identify(award, "P-77", people["sue"])
    assert (identified.state, identified.winner, identified.identified_by) == ("due", "P-77", "sue")
    assert AuditEntry.objects.filter(action="award", username="sue", detail__award=award.pk).exists()
    # Paid to the identified winner, not to whoever sat there, and for its amount.
    for player, amount in (("P-2", AWARD), ("P-77", AWARD - 1)):
        with pytest.raises(PatronError) as refused:
            cash.cash_record(table_id=table.pk, kind="cash_payout", amount=amount, player=player, actor=people["dan"],
                             award_round=rnd.pk, award_seat=2)
        assert refused.value.code == "award_mismatch"
    paid = cash.cash_record(table_id=table.pk, kind="cash_payout", amount=AWARD, player="P-77", actor=people["dan"],
                            award_round=rnd.pk, award_seat=2)
    assert cash.day_total(f"patron:{paid.patron_id}", paid.gaming_day, "out") == AWARD
    assert CashAlert.objects.filter(kind="ctr_required", direction="out", transaction=paid).exists()
    assert AwardCashOut.objects.get().state == "paid"


def test_a_winner_who_is_no_record_is_owed_whatever_the_amount(confirmed_award):
    """A $5 award to a seat id that names no patron (the walk's P-303): nothing to pay to
    until a second person names the winner; a U-id is enough below the CTR line."""
    from patrons import awards, identity

    table, rnd, people = confirmed_award
    recorded = awards.award_confirmed(table_id=table.pk, round_id=rnd.pk, seat=3, player="P-303", hand="straight_flush",
                                      amount=500, actor=people["sam"], at=rnd.closed_at)
    assert recorded.state == "owed" and "no patron" in recorded.why_owed
    walk_in = identity.unidentified_create(actor=people["sue"], table_id=table.pk, description="tall, red cap, seat 3")
    identified = awards_identify(recorded, walk_in.player_id, people["sue"])
    assert (identified.state, identified.winner) == ("due", walk_in.player_id)


def awards_identify(award, player, actor):
    from patrons import awards

    return awards.award_identify(award_id=award.pk, player=player, actor=actor)


@pytest.mark.django_db(transaction=True)
def test_the_floor_shows_the_owed_award_and_a_second_supervisor_identifies_its_winner(owed_award):
    from django.contrib.auth.models import User

    table, rnd, people = owed_award
    award = AwardCashOut.objects.get()
    sam, sue = Client(), Client()
    sam.force_login(User.objects.get(username="sam"))
    sue.force_login(User.objects.get(username="sue"))
    page = sue.get("/floor/patrons/").content.decode()
    assert f'data-award="{award.pk}" data-state="owed"' in page and "Owed: identify the winner" in page
    assert "$10,000.80" in page
    patron_create(actor=people["sue"], number="P-77", display_name="Real Winner", legal_name="Rea L. Winner",
                  **{**WINNER_ID, "id_number": "D7700077"})
    url = f"/floor/patrons/awards/{award.pk}/identify"
    refused = sam.post(url, {"player": "P-77"})
    assert refused.status_code == 400 and "second_person_required" in refused.content.decode()
    assert AwardCashOut.objects.get().state == "owed"
    assert sue.post(url, {"player": "P-77"}).status_code == 302
    assert AwardCashOut.objects.get().state == "due"
    assert "Due: record its cash payout" in sue.get("/floor/patrons/").content.decode()


def test_a_winner_named_wrongly_is_corrected_before_payout_and_a_paid_award_is_not_renamed(owed_award):
    """A slip in the winner's number is corrected by naming the winner again (audited, with
    the one before), never by an edit; once paid, the award is the cash log's."""
    table, rnd, people = owed_award
    award = AwardCashOut.objects.get()
    for number, id_number in (("P-77", "D7700077"), ("P-78", "D7800078")):
        patron_create(actor=people["sue"], number=number, display_name=number, legal_name=f"Win {number}",
                      **{**WINNER_ID, "id_number": id_number})
    assert awards_identify(award, "P-77", people["sue"]).winner == "P-77"  # the slip
    corrected = awards_identify(award, "P-78", people["sue"])
    assert (corrected.state, corrected.winner) == ("due", "P-78")
    assert AuditEntry.objects.filter(action="award", detail__before="P-77", detail__winner="P-78").exists()
    with pytest.raises(PatronError) as confirmer:  # the confirming supervisor may not re-point it either
        awards_identify(award, "P-77", people["sam"])
    assert confirmer.value.code == "second_person_required"
    cash.cash_record(table_id=table.pk, kind="cash_payout", amount=AWARD, player="P-78", actor=people["dan"],
                     award_round=rnd.pk, award_seat=2)
    with pytest.raises(PatronError) as paid:
        awards_identify(award, "P-77", people["sue"])
    assert paid.value.code == "wrong_state" and AwardCashOut.objects.get().winner == "P-78"


def test_a_listed_or_unknown_winner_is_refused_and_nothing_changes(owed_award):
    from patrons import identity

    table, rnd, people = owed_award
    award = AwardCashOut.objects.get()
    listed = patron_create(actor=people["sue"], number="P-66", display_name="Listed", legal_name="Lis Ted",
                           **{**WINNER_ID, "id_number": "D6600066"})
    identity.state_list_import(actor=compliance_person(), filename="s.csv", content=b"name\nLis Ted\n")
    for player, code in (("P-66", "self_excluded"), ("P-404", "unknown_patron"), ("", "unknown_patron")):
        with pytest.raises(PatronError) as refused:
            awards_identify(award, player, people["sue"])
        assert refused.value.code == code, player
    with pytest.raises(PatronError) as unknown:
        from patrons import awards

        awards.award_identify(award_id=award.pk + 999, player="P-2", actor=people["sue"])
    assert unknown.value.code == "unknown_award"
    assert AwardCashOut.objects.get().state == "owed" and listed.pk


def compliance_person():
    from cardroom.access import Actor
    from tests.service.test_access import person

    return Actor.of(person("cora", "compliance"))


# A payout corrected (issue 38's review): an award paid to the wrong person is reversed by
# two people, which makes it due again; the right winner is named and paid once.


def test_an_award_paid_to_the_wrong_person_is_reversed_by_two_people_and_paid_once_to_its_winner(owed_award):
    import json

    from django.contrib.auth.models import User

    from patrons.models import CashReversalDecision

    table, rnd, people = owed_award
    award = AwardCashOut.objects.get()
    for number, id_number in (("P-77", "D7700077"), ("P-78", "D7800078")):
        patron_create(actor=people["sue"], number=number, display_name=number, legal_name=f"Win {number}",
                      **{**WINNER_ID, "id_number": id_number})
    sam, sue, dan = (Client() for _ in range(3))
    for client, name in ((sam, "sam"), (sue, "sue"), (dan, "dan")):
        client.force_login(User.objects.get(username=name))

    def pay(client, player):
        body = {"kind": "cash_payout", "amount": AWARD, "player": player, "award_round": rnd.pk, "award_seat": 2}
        return client.post(f"/api/tables/{table.pk}/cash", json.dumps(body), content_type="application/json")

    # Sue names the winner with a slip (P-77) and records the payout herself: sam confirmed it.
    assert sue.post(f"/floor/patrons/awards/{award.pk}/identify", {"player": "P-77"}).status_code == 302
    wrong = pay(sue, "P-77")
    assert wrong.status_code == 200, wrong.content
    wrong_seq = wrong.json()["cash"]["seq"]
    assert AwardCashOut.objects.get().state == "paid"
    refused = pay(dan, "P-77")  # paid once: a second payout without a reversal is refused
    assert refused.json()["error"]["code"] == "award_paid" and CashTransaction.objects.count() == 1

    # The dealer asks for the reversal at the table; the two-person rules of a reversal hold.
    asked = dan.post(f"/api/tables/{table.pk}/cash/{wrong_seq}/reversal",
                     json.dumps({"reason": "paid to P-77: the winner is P-78"}), content_type="application/json")
    assert asked.status_code == 200, asked.content
    request_id = asked.json()["reversal_request"]
    by_recorder = sue.post("/compliance/cash/reversals/", {"decide": request_id, "approve": "yes"})
    assert by_recorder.status_code == 403 and b"second_person_required" in by_recorder.content
    assert not CashTransaction.objects.filter(reverses__isnull=False).exists()
    assert AwardCashOut.objects.get().state == "paid"
    assert sam.post("/compliance/cash/reversals/", {"decide": request_id, "approve": "yes"}).status_code == 302

    # The award is due again; its payout row and the reversal stay in the log.
    original = CashTransaction.objects.get(seq=wrong_seq)
    reversal = CashReversalDecision.objects.get(request_id=request_id).reversal
    assert (reversal.reverses_id, reversal.amount, reversal.employee) == (original.pk, AWARD, "sam")
    assert (original.award_round_id, original.award_seat, original.player) == (rnd.pk, 2, "P-77")
    award.refresh_from_db()
    assert (award.state, award.payout_id) == ("due", None)
    assert f'data-award="{award.pk}" data-state="due"' in sue.get("/floor/patrons/").content.decode()

    # The right winner is named (not by the confirming supervisor) and paid once.
    named = sam.post(f"/floor/patrons/awards/{award.pk}/identify", {"player": "P-78"})
    assert named.status_code == 400 and "second_person_required" in named.content.decode()
    assert sue.post(f"/floor/patrons/awards/{award.pk}/identify", {"player": "P-78"}).status_code == 302
    assert pay(dan, "P-77").json()["error"]["code"] == "award_mismatch"
    assert pay(sam, "P-78").json()["error"]["code"] == "second_person_required"
    right = pay(dan, "P-78")
    assert right.status_code == 200, right.content
    award.refresh_from_db()
    assert (award.state, award.payout.seq, award.winner) == ("paid", right.json()["cash"]["seq"], "P-78")
    again = pay(sue, "P-78")
    assert again.json()["error"]["code"] == "award_paid" and str(right.json()["cash"]["seq"]) in again.json()["error"]["message"]
    assert CashTransaction.objects.count() == 3  # the wrong payout, its reversal, the right payout

    # The cash out of the day counts for the winner only; the log verifies.
    day = original.gaming_day
    wrong_patron, right_patron = (CashTransaction.objects.get(seq=seq).patron_id
                                  for seq in (wrong_seq, right.json()["cash"]["seq"]))
    assert cash.day_total(f"patron:{wrong_patron}", day, "out") == 0
    assert cash.day_total(f"patron:{right_patron}", day, "out") == AWARD
    assert cash.verify_chain() == []
    assert AuditEntry.objects.filter(action="cash", detail__award_round=rnd.pk, detail__award_seat=2).exists()


def test_whoever_reversed_an_awards_payout_does_not_name_its_next_winner(owed_award):
    """One supervisor with the dealer's tablet: the winner is paid, the tablet asks for the
    payout's reversal and the supervisor approves it, then names an accomplice as the
    winner. Neither the one who asked nor the one who approved names the winner again."""
    table, rnd, people = owed_award
    award = AwardCashOut.objects.get()
    for number, id_number in (("P-77", "D7700077"), ("P-78", "D7800078")):
        patron_create(actor=people["sue"], number=number, display_name=number, legal_name=f"Win {number}",
                      **{**WINNER_ID, "id_number": id_number})
    awards_identify(award, "P-77", people["sue"])  # sam confirmed it; sue names the real winner
    paid = cash.cash_record(table_id=table.pk, kind="cash_payout", amount=AWARD, player="P-77",
                            award_round=rnd.pk, award_seat=2, actor=people["dan"])
    asked = cash.cash_reversal_request(seq=paid.seq, reason="wrong person", actor=people["dan"])
    cash.cash_reversal_decide(request_id=asked.pk, approve=True, actor=people["sue"])
    before = AwardCashOut.objects.get()
    assert before.state == "due"
    for who in ("sue", "dan"):  # the approver, and the tablet's person who asked
        with pytest.raises(PatronError) as refused:
            awards_identify(award, "P-78", people[who])
        assert refused.value.code in ("second_person_required", "not_authorized")
    after = AwardCashOut.objects.get()
    assert (after.winner, after.identified_by) == (before.winner, before.identified_by) == ("P-77", "sue")
    # A third person may (sam confirmed it, so not sam either).
    from cardroom.access import Actor
    from tests.service.test_access import person

    assert awards_identify(award, "P-78", Actor.of(person("tia", "supervisor"))).winner == "P-78"


def test_the_database_refuses_a_second_payout_while_the_first_stands_and_allows_one_after_its_reversal(confirmed_award):
    """Behind the service's checks: the trigger `cash_award_paid_once` refuses a second
    payout of an award whose payout stands, and lets the one after a reversal through."""
    table, rnd, people = confirmed_award
    first = pay_award(table, rnd, people["sue"])
    asked = cash.cash_reversal_request(seq=first.seq, reason="paid twice over", actor=people["dan"])
    cash.cash_reversal_decide(request_id=asked.pk, approve=True, actor=people["sam"])
    second = pay_award(table, rnd, people["sue"])
    with mock.patch("patrons.cash.award_already_paid", return_value=None), \
            mock.patch("patrons.cash._possible_duplicate", return_value=None), pytest.raises(IntegrityError) as refused:
        pay_award(table, rnd, people["dan"])
    assert "cash_award_paid_once" in str(refused.value.__cause__.diag.constraint_name)
    assert CashTransaction.objects.filter(award_round=rnd, award_seat=2).count() == 2 and second.reverses_id is None
