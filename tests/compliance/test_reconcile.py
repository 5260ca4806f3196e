"""Totals reconcile with the rounds; refunds are their own rows, each pointing at a fee of
the same round; the generated ledger holds 100,000 fee lines and verifies."""

from collections import defaultdict

import pytest
from django.core.management import call_command
from django.db.models import F

from collections_fees.models import CollectionEntry
from cardroom.sql import Filters
from collections_fees.selectors import collection_line_sums, daily_totals
from rounds.models import Round
from tables.models import TableEvent

from .ledger import DAY1, DAY2, VOLUME_DAYS, VOLUME_FEES_PER_DAY

pytestmark = pytest.mark.django_db


def test_the_ledger_has_100000_generated_fee_lines_and_its_chains_verify(ledger, capsys):
    assert CollectionEntry.objects.filter(table=ledger.volume, kind="fee").count() >= 100_000
    assert ledger.volume_fee_lines == VOLUME_FEES_PER_DAY * len(VOLUME_DAYS) == 100_000
    call_command("verify_logs")
    out = capsys.readouterr().out
    assert "0 broken chains" in out, out


def test_daily_totals_equal_what_the_rounds_reported_to_the_dealer(ledger):
    """Independent source: the results the command service returned at the table, kept in
    the event log: `fees` at no_more_bets, `fee_refunds` at settle, `refunds` at void_round.
    Each is counted on the gaming day of its event."""
    expected = defaultdict(lambda: {"fees": 0, "refunds": 0})
    for table in (ledger.table_a, ledger.table_b):
        for event in TableEvent.objects.filter(table=table, command_type__in=["no_more_bets", "settle", "void_round"]):
            key = (table.pk, event.gaming_day)
            if event.command_type == "no_more_bets":
                expected[key]["fees"] += sum(f["amount"] for f in event.result["fees"])
            elif event.command_type == "settle":
                expected[key]["refunds"] += sum(f["amount"] for f in event.result["fee_refunds"])
            else:
                expected[key]["refunds"] += sum(f["amount"] for f in event.result["refunds"])
    totals = {
        (t["table_id"], t["gaming_day"]): t
        for t in daily_totals(Filters(day_from=DAY1, day_to=DAY2))
        if t["table_id"] in (ledger.table_a.pk, ledger.table_b.pk)
    }
    assert set(totals) == set(expected)
    for key, want in expected.items():
        got = totals[key]
        assert (got["fees"], got["refunds"], got["expected"]) == (want["fees"], want["refunds"], want["fees"] - want["refunds"]), key
    # Refunds of both kinds happened on table A's first day.
    assert expected[(ledger.table_a.pk, DAY1)]["refunds"] > 0


def test_per_round_fees_and_refunds_match_the_round_records(ledger):
    for rnd in Round.objects.filter(table__in=[ledger.table_a, ledger.table_b]).exclude(status="in_progress"):
        entries = list(CollectionEntry.objects.filter(round=rnd))
        refunded = sorted((e.seat, e.amount) for e in entries if e.kind == "refund")
        if rnd.status == "settled":
            # The settlement as shown to the dealer lists the refunds it caused.
            assert refunded == sorted((r["seat"], r["amount"]) for r in rnd.settlement["fee_refunds"]), rnd.number
        else:
            assert refunded == sorted((e.seat, e.amount) for e in entries if e.kind == "fee"), rnd.number


def test_every_refund_points_at_a_fee_of_the_same_round_and_amount(ledger):
    refunds = CollectionEntry.objects.filter(kind="refund")
    assert refunds.count() > 2000
    assert refunds.exclude(refund_of__kind="fee").count() == 0
    assert refunds.exclude(refund_of__round=F("round")).count() == 0
    assert refunds.exclude(refund_of__amount=F("amount")).count() == 0
    assert refunds.exclude(refund_of__table=F("table")).count() == 0


def test_refunds_for_voids_and_uncovered_seats_are_their_own_rows(ledger):
    exhausted, voided = ledger.rounds["exhausted"], ledger.rounds["voided"]
    uncovered = list(CollectionEntry.objects.filter(round=exhausted, kind="refund").values_list("seat", "reason"))
    assert uncovered == [(1, "bank_could_not_act"), (2, "bank_could_not_act")]
    voids = list(CollectionEntry.objects.filter(round=voided, kind="refund").values_list("seat", "payer", "reason"))
    assert voids == [(1, "player", "round_voided"), (2, "player", "round_voided"), (3, "player_dealer", "round_voided")]


def test_line_sums_follow_the_filters(ledger):
    day = VOLUME_DAYS[0]
    sums = collection_line_sums(Filters(day_from=day, day_to=day, table=ledger.volume.pk))
    assert sums["fee_lines"] == VOLUME_FEES_PER_DAY and sums["refund_lines"] == VOLUME_FEES_PER_DAY // 50
    assert sums["net"] == sums["fees"] - sums["refunds"]
    players_only = collection_line_sums(Filters(day_from=day, day_to=day, table=ledger.volume.pk, payer="player"))
    assert players_only["fee_lines"] == VOLUME_FEES_PER_DAY - len(range(0, VOLUME_FEES_PER_DAY, 6))  # seat 1 banks


def test_line_sums_from_the_daily_totals_are_the_lines_own(ledger):
    """The collection log adds its daily totals up instead of reading the lines again when
    no filter beyond theirs is set: the same figures as the lines' own sums, refunds and
    the test ledger's played days included; with a filter the totals do not honour (payer),
    the lines are read."""
    for filters in (
        Filters(day_from=DAY1, day_to=DAY2),
        Filters(day_from=VOLUME_DAYS[0], day_to=VOLUME_DAYS[2], table=ledger.volume.pk),
    ):
        lines = collection_line_sums(filters)
        assert lines["refund_lines"] > 0 and lines["fee_lines"] > 0, lines
        assert collection_line_sums(filters, daily=daily_totals(filters)) == lines
    payer = Filters(day_from=VOLUME_DAYS[0], day_to=VOLUME_DAYS[0], table=ledger.volume.pk, payer="player")
    narrower = collection_line_sums(payer, daily=daily_totals(payer))
    assert narrower == collection_line_sums(payer)
    assert narrower["fee_lines"] < collection_line_sums(Filters(day_from=VOLUME_DAYS[0], day_to=VOLUME_DAYS[0], table=ledger.volume.pk))["fee_lines"]
