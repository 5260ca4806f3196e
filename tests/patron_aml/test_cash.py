"""Cash at the table: the chain, the MTL, the day's totals across tables, the warning and
the CTR (patrons/cash.py)."""

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings

from cardroom.access import Actor
from cardroom.gaming_day import calendar
from patrons import cash, identity
from patrons.identity import PatronError
from patrons.models import CashAlert, CashTransaction


def buy(table, player, amount, actor, **kw):
    return cash.cash_record(table_id=table.pk, kind="chip_purchase", amount=amount, player=player, actor=actor, **kw)


def test_three_purchases_at_two_tables_make_a_ctr_candidate_and_warned_at_8000(tables, ann, actors):
    t1, t2 = tables
    first = buy(t1, "P-1001", 350000, actors["dealer"])
    assert not CashAlert.objects.exists()  # $3,500: an MTL entry, no alert
    assert first.mtl
    second = buy(t2, "p-1001", 450000, actors["supervisor"])  # typed in lower case: the same patron
    (warning,) = CashAlert.objects.all()
    assert (warning.kind, warning.total, warning.transaction_id, warning.table_id) == ("warning", 800000, second.pk, t2.pk)
    assert cash.ctr_candidates(first.gaming_day) == []  # $8,000 is no CTR
    third = buy(t1, "CC-77001", 250000, actors["dealer"])  # by club card
    assert not third.mtl  # $2,500 is under the MTL threshold
    ctr = CashAlert.objects.get(kind="ctr_required")
    assert (ctr.total, ctr.transaction_id, ctr.patron_id) == (1050000, third.pk, ann.pk)
    (candidate,) = cash.ctr_candidates(first.gaming_day)
    assert candidate["total"] == 1050000 and candidate["direction"] == "in"
    assert [t.pk for t in candidate["transactions"]] == [first.pk, second.pk, third.pk]
    assert {t.table_id for t in candidate["transactions"]} == {t1.pk, t2.pk}


def test_a_day_total_of_exactly_10000_is_no_ctr_and_one_cent_more_is(tables, ann, actors):
    """31 CFR 1021.311: a CTR is for MORE than $10,000 (issue 33, finding 12). A day total
    of exactly $10,000.00 raises no ctr_required alert and is no CTR candidate; one cent
    more is both."""
    t1, t2 = tables
    first = buy(t1, "P-1001", 600000, actors["dealer"])
    buy(t2, "P-1001", 400000, actors["dealer"])
    assert cash.day_total(f"patron:{ann.pk}", first.gaming_day, "in") == settings.CARDROOM_CTR_THRESHOLD_CENTS
    assert list(CashAlert.objects.values_list("kind", flat=True)) == ["warning"]
    assert cash.ctr_candidates(first.gaming_day) == []
    crossing = buy(t1, "P-1001", 1, actors["dealer"])
    ctr = CashAlert.objects.get(kind="ctr_required")
    assert (ctr.total, ctr.transaction_id) == (1000001, crossing.pk)
    (candidate,) = cash.ctr_candidates(first.gaming_day)
    assert candidate["total"] == 1000001


def test_six_oclock_exactly_is_the_new_gaming_day(tables, ann, settings):
    """The gaming day starts AT 06:00:00 local (CARDROOM_GAMING_DAY_START): a purchase at
    06:00:00 exactly counts in the new day, one a microsecond before in the previous one
    (issue 33, finding 12)."""
    t1, _ = tables
    system = Actor.system("test")
    zone = ZoneInfo(settings.TIME_ZONE)
    day = datetime(2026, 3, 10).date()
    start = datetime.combine(day, time(6, 0), tzinfo=zone)
    assert calendar().gaming_day(start) == day
    assert calendar().gaming_day(start - timedelta(microseconds=1)) == day - timedelta(days=1)
    assert calendar().day_bounds(day)[0] == start
    at_six = buy(t1, "P-1001", 500000, system, at=start)
    just_before = buy(t1, "P-1001", 500000, system, at=start - timedelta(microseconds=1))
    assert (at_six.gaming_day, just_before.gaming_day) == (day, day - timedelta(days=1))
    assert not CashAlert.objects.exists()  # $5,000 on each of two gaming days: no line crossed


def test_totals_are_per_gaming_day_and_per_direction(tables, ann, settings):
    t1, _ = tables
    system = Actor.system("test")
    zone = ZoneInfo(settings.TIME_ZONE)
    day = datetime(2026, 3, 10).date()
    start = datetime.combine(day, time(6, 0), tzinfo=zone)  # the gaming day starts at 06:00
    before = buy(t1, "P-1001", 600000, system, at=start - timedelta(minutes=5))  # the previous gaming day
    after = buy(t1, "P-1001", 500000, system, at=start + timedelta(minutes=5))
    assert calendar().gaming_day(before.created_at) != calendar().gaming_day(after.created_at)
    assert not CashAlert.objects.exists()  # $11,000 over two gaming days: no line crossed
    cash.cash_record(table_id=t1.pk, kind="cash_payout", amount=500000, player="P-1001", actor=system,
                     at=start + timedelta(minutes=6))
    assert not CashAlert.objects.exists()  # cash out is totalled apart from cash in
    third = buy(t1, "P-1001", 300000, system, at=start + timedelta(hours=23, minutes=50))  # 05:50 next morning
    assert third.gaming_day == after.gaming_day
    (warning,) = CashAlert.objects.all()
    assert (warning.kind, warning.total) == ("warning", 800000)


def test_the_cash_log_is_a_chain(tables, ann, actors):
    rows = [buy(tables[0], "P-1001", 1000 * n, actors["dealer"]) for n in (1, 2, 3)]
    assert [r.seq for r in rows] == [1, 2, 3]
    assert rows[1].prev_hash == rows[0].row_hash and rows[2].prev_hash == rows[1].row_hash
    assert cash.verify_chain() == []


@pytest.mark.parametrize(
    "kind, amount, player, code",
    [
        ("chip_purchase", 0, "P-1001", "invalid_amount"),
        ("chip_purchase", 10.5, "P-1001", "invalid_amount"),
        ("chip_purchase", True, "P-1001", "invalid_amount"),
        ("refund", 1000, "P-1001", "invalid_command"),
        ("chip_purchase", 1000, "P-9999", "unknown_patron"),
        ("chip_purchase", 1000, "U-424242", "unknown_patron"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(tables, ann, actors, kind, amount, player, code):
    with pytest.raises(PatronError) as refused:
        cash.cash_record(table_id=tables[0].pk, kind=kind, amount=amount, player=player, actor=actors["dealer"])
    assert refused.value.code == code
    assert not CashTransaction.objects.exists()


def test_a_person_cannot_date_a_transaction_and_compliance_cannot_record(tables, ann, actors):
    with pytest.raises(PatronError, match="not_authorized"):
        buy(tables[0], "P-1001", 1000, actors["dealer"], at=datetime(2026, 1, 1, tzinfo=ZoneInfo("UTC")))
    with pytest.raises(PatronError, match="not_authorized"):
        buy(tables[0], "P-1001", 1000, actors["compliance"])
    assert not CashTransaction.objects.exists()


def test_an_unidentified_patrons_mtl_entry_is_linked_later(tables, ann, actors):
    stranger = identity.unidentified_create(table_id=tables[0].pk, description="man, 40s, red cap", actor=actors["dealer"])
    entry = buy(tables[0], stranger.player_id, 700000, actors["dealer"])
    assert entry.mtl and entry.patron_id is None and entry.unidentified_id == stranger.pk
    buy(tables[1], "P-1001", 200000, actors["dealer"])
    assert not CashAlert.objects.exists()  # $7,000 and $2,000: two people as far as we know
    link = cash.patron_link(unidentified_id=stranger.pk, patron_id=ann.pk, actor=actors["compliance"])
    (warning,) = CashAlert.objects.all()  # together they reach $9,000
    assert (warning.kind, warning.total, warning.patron_id, warning.link_id) == ("warning", 900000, ann.pk, link.pk)
    assert cash.day_total(f"patron:{ann.pk}", entry.gaming_day, "in") == 900000
    # From then on the U-id is the patron's: a later purchase under it counts toward hers.
    # (The same $2,000 as hers a moment ago: the same person now, so confirmed as a second
    # purchase, not a double tap: docs/patrons.md "Possible duplicate".)
    buy(tables[0], stranger.player_id, 200000, actors["dealer"], confirm=True)
    assert CashAlert.objects.filter(kind="ctr_required", patron=ann).exists()
    with pytest.raises(PatronError, match="already_linked"):
        cash.patron_link(unidentified_id=stranger.pk, patron_id=ann.pk, actor=actors["compliance"])
    with pytest.raises(PatronError, match="not_authorized"):
        cash.patron_link(unidentified_id=stranger.pk, patron_id=ann.pk, actor=actors["dealer"])


def test_thresholds_default_to_the_regulations():
    assert (settings.CARDROOM_MTL_THRESHOLD_CENTS, settings.CARDROOM_CASH_WARNING_CENTS,
            settings.CARDROOM_CTR_THRESHOLD_CENTS) == (300000, 800000, 1000000)


def test_cash_alerts_are_under_the_append_only_triggers(tables, ann, actors):
    """A warning or a CTR mark, once written, is neither edited nor deleted: not by the
    app's login, and not by the owner either, whom the append-only trigger refuses
    (issue 33, finding 12)."""
    from tests.db_access import assert_refused_to_both

    buy(tables[0], "P-1001", 1000001, actors["dealer"])
    warning, ctr = CashAlert.objects.order_by("id")
    assert (warning.kind, ctr.kind) == ("warning", "ctr_required")
    assert_refused_to_both(lambda: CashAlert.objects.filter(pk=ctr.pk).update(total=1))
    assert_refused_to_both(lambda: CashAlert.objects.filter(pk=ctr.pk).update(kind="warning"))
    assert_refused_to_both(lambda: CashAlert.objects.filter(pk=warning.pk).delete())
    assert list(CashAlert.objects.order_by("id").values_list("kind", "total")) == [
        ("warning", 1000001), ("ctr_required", 1000001)]
