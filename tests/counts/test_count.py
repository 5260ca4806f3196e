"""The count of a gaming day of simulated play: boxes, the two-person count, variance
thresholds, recounts, the shift close and its reopen."""

from datetime import time
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from cardroom.access import Actor
from collections_fees import counts
from collections_fees.counts import CountError
from collections_fees.models import BoxCount, BoxPlacement, CollectionEntry, CountSignature, DropCount, ShiftClose, VarianceApproval
from cardroom.sql import Filters
from collections_fees.selectors import daily_totals

from .play import DAY, count_shift, person, pieces, sign_and_close
from tests.playing import new_table

pytestmark = pytest.mark.django_db


def test_every_collection_entry_knows_the_box_that_was_on_its_table(day):
    first = day.tables[0]
    entries = CollectionEntry.objects.filter(gaming_day=DAY)
    assert entries.count() > 0 and not entries.filter(box__isnull=True).exists()
    for entry in entries:
        assert entry.box_id in {b.pk for b in day.boxes[(entry.table_id, entry.shift)]}
    # After the swap, the day shift's lines of the first table went into the spare box.
    spare = day.boxes[(first.pk, "day")][1]
    swapped = entries.filter(box=spare)
    assert swapped.filter(kind="fee").exists() and swapped.filter(kind="refund", reason="round_voided").exists()
    # The box is part of each line's hash: the chains still verify.
    out = StringIO()
    call_command("verify_logs", stdout=out)
    assert "0 broken chains" in out.getvalue(), out.getvalue()


def test_a_days_count_reconciles_to_the_cent_with_the_collection_log(day):
    for shift in ("day", "swing", "grave"):
        sign_and_close(day, count_shift(day, shift))
    counted = {}
    for count in BoxCount.objects.filter(sheet__gaming_day=DAY):
        assert count.variance == 0 and count.counted == sum(int(d) * n for d, n in count.denominations.items())
        counted[count.table_id] = counted.get(count.table_id, 0) + count.counted
    # A legacy drop count of the day gives way to the count team's.
    DropCount.objects.create(table=day.tables[0], gaming_day=DAY, amount=1, counted_by="old", counted_at=timezone.now())
    totals = {t["table_id"]: t for t in daily_totals(Filters(day_from=DAY, day_to=DAY))}
    assert counted == {table: t["expected"] for table, t in totals.items()} and all(v > 0 for v in counted.values())
    assert all(t["counted"] == t["expected"] and t["variance"] == 0 for t in totals.values())


def test_one_person_cannot_complete_a_count(day):
    sheet = count_shift(day, "day")
    alone = day.counters[0]
    counts.count_sign(sheet_id=sheet.pk, actor=alone)
    with pytest.raises(CountError) as again:
        counts.count_sign(sheet_id=sheet.pk, actor=alone)
    assert again.value.code == "one_person_count"
    with pytest.raises(CountError) as close:
        counts.shift_close(gaming_day=DAY, shift="day", actor=day.supervisor)
    assert close.value.code == "one_person_count"
    assert not ShiftClose.objects.exists()


def test_a_count_is_signed_from_a_persons_own_account_only(day):
    """A signature names the counter's own account (4 CCR 12385): a count-team actor with
    no account (a process, a shared login's name) cannot sign, and nothing is recorded."""
    sheet = count_shift(day, "day")
    nobody = Actor(name=day.counters[0].name, role="count_team", user_id=None)
    with pytest.raises(CountError) as refused:
        counts.count_sign(sheet_id=sheet.pk, actor=nobody)
    assert refused.value.code == "not_authorized"
    assert not CountSignature.objects.filter(sheet=sheet).exists()


def test_a_recount_after_a_signature_needs_both_signatures_again(day):
    sheet = count_shift(day, "swing")
    for counter in day.counters:
        counts.count_sign(sheet_id=sheet.pk, actor=counter)
    box_id = next(iter(counts.placed_boxes(sheet)))
    expected = counts.box_expected(box_id=box_id, gaming_day=DAY, shift="swing")
    counts.box_count_record(sheet_id=sheet.pk, box_id=box_id, denominations=pieces(expected), actor=day.counters[1])
    assert not counts.sheet_is_complete(sheet)
    assert BoxCount.objects.filter(sheet=sheet, box_id=box_id).count() == 2  # the first count stays on record
    counts.count_sign(sheet_id=sheet.pk, actor=day.counters[0])
    counts.count_sign(sheet_id=sheet.pk, actor=day.counters[1])
    assert counts.sheet_is_complete(sheet)


def test_a_variance_above_the_threshold_needs_an_explanation_and_above_escalation_a_manager(day, settings):
    settings.CARDROOM_COUNT_EXPLAIN_ABOVE_CENTS = 2500
    settings.CARDROOM_COUNT_ESCALATE_ABOVE_CENTS = 10000
    sheet = counts.count_sheet_open(gaming_day=DAY, shift="grave", actor=day.counters[0])
    boxes = sorted(counts.placed_boxes(sheet))
    small, over = boxes[0], boxes[1]
    for box_id in boxes[2:]:
        counts.box_count_record(sheet_id=sheet.pk, box_id=box_id, actor=day.counters[0],
                                denominations=pieces(counts.box_expected(box_id=box_id, gaming_day=DAY, shift="grave")))
    expected_small = counts.box_expected(box_id=small, gaming_day=DAY, shift="grave")
    with pytest.raises(CountError) as unexplained:
        counts.box_count_record(sheet_id=sheet.pk, box_id=small, denominations=pieces(expected_small + 2501), actor=day.counters[0])
    assert unexplained.value.code == "explanation_required"
    assert not BoxCount.objects.filter(box_id=small).exists()
    # $25.00 exactly is within the threshold; $25.01 needs a reason.
    counts.box_count_record(sheet_id=sheet.pk, box_id=small, denominations=pieces(expected_small + 2500), actor=day.counters[0])
    expected_over = counts.box_expected(box_id=over, gaming_day=DAY, shift="grave")
    big = counts.box_count_record(sheet_id=sheet.pk, box_id=over, denominations=pieces(expected_over + 10001),
                                  explanation="a $100 bill found stuck in the slot", actor=day.counters[0])
    with pytest.raises(CountError) as unapproved:
        counts.count_sign(sheet_id=sheet.pk, actor=day.counters[0])
    assert unapproved.value.code == "approval_required"
    with pytest.raises(CountError) as not_a_manager:
        counts.variance_approve(count_id=big.pk, actor=day.supervisor)
    assert not_a_manager.value.code == "not_authorized"
    counts.variance_approve(count_id=big.pk, actor=day.manager, note="seen on camera")
    # Nothing else to approve: a variance within the escalation threshold, one approved already.
    for needs_none in (BoxCount.objects.get(box_id=small), big):
        with pytest.raises(CountError) as refused:
            counts.variance_approve(count_id=needs_none.pk, actor=day.manager)
        assert refused.value.code == "wrong_state"
    assert VarianceApproval.objects.count() == 1
    for counter in day.counters:
        counts.count_sign(sheet_id=sheet.pk, actor=counter)
    assert counts.sheet_is_complete(sheet)


def test_a_variance_of_exactly_the_escalation_threshold_is_explained_but_needs_no_manager(day, settings):
    """"Above" the threshold: $100.00 over, with the escalation threshold at $100.00, needs a
    reason (it is above the explanation threshold) and no manager; the count team signs."""
    settings.CARDROOM_COUNT_EXPLAIN_ABOVE_CENTS = 2500
    settings.CARDROOM_COUNT_ESCALATE_ABOVE_CENTS = 10000
    sheet = count_shift(day, "swing")
    box_id = sorted(counts.placed_boxes(sheet))[0]
    expected = counts.box_expected(box_id=box_id, gaming_day=DAY, shift="swing")
    with pytest.raises(CountError) as unexplained:
        counts.box_count_record(sheet_id=sheet.pk, box_id=box_id, denominations=pieces(expected + 10000), actor=day.counters[0])
    assert unexplained.value.code == "explanation_required"
    recount = counts.box_count_record(sheet_id=sheet.pk, box_id=box_id, denominations=pieces(expected + 10000),
                                      explanation="a $100 bill found in the slot", actor=day.counters[0])
    assert recount.variance == 10000 and not counts.needs_approval(recount)
    with pytest.raises(CountError) as nothing_to_approve:
        counts.variance_approve(count_id=recount.pk, actor=day.manager)
    assert nothing_to_approve.value.code == "wrong_state"
    for counter in day.counters:
        counts.count_sign(sheet_id=sheet.pk, actor=counter)
    assert counts.sheet_is_complete(sheet) and not VarianceApproval.objects.exists()


def test_a_closed_shift_refuses_late_entries(day):
    sheet = count_shift(day, "day")
    sign_and_close(day, sheet)
    box_id = next(iter(counts.placed_boxes(sheet)))
    before = BoxCount.objects.count()
    for late in (
        lambda: counts.box_count_record(sheet_id=sheet.pk, box_id=box_id, denominations={"100": 1}, actor=day.counters[0]),
        lambda: counts.count_sign(sheet_id=sheet.pk, actor=day.counters[0]),
        lambda: counts.shift_close(gaming_day=DAY, shift="day", actor=day.supervisor),
    ):
        with pytest.raises(CountError) as refused:
            late()
        assert refused.value.code == "shift_closed"
    assert BoxCount.objects.count() == before


def test_a_reopen_needs_a_managers_approval_of_someone_elses_request(day):
    sign_and_close(day, count_shift(day, "day"))
    with pytest.raises(CountError) as dealer:
        counts.shift_reopen_request(gaming_day=DAY, shift="day", reason="late box", actor=person("dee", "dealer"))
    assert dealer.value.code == "not_authorized"
    request = counts.shift_reopen_request(gaming_day=DAY, shift="day", reason="box EMERG-1 miscounted", actor=day.supervisor)
    assert counts.shift_is_closed(DAY, "day")  # asking is not reopening
    with pytest.raises(CountError) as supervisor:
        counts.shift_reopen_approve(request_id=request.pk, actor=day.supervisor)
    assert supervisor.value.code == "not_authorized"
    own = counts.shift_reopen_request(gaming_day=DAY, shift="day", reason="mine", actor=day.manager)
    with pytest.raises(CountError) as itself:
        counts.shift_reopen_approve(request_id=own.pk, actor=day.manager)
    assert itself.value.code == "own_request"
    assert counts.shift_is_closed(DAY, "day")
    counts.shift_reopen_approve(request_id=request.pk, actor=day.manager)
    assert not counts.shift_is_closed(DAY, "day")
    with pytest.raises(CountError) as twice:
        counts.shift_reopen_approve(request_id=request.pk, actor=person("mgr-max", "manager"))
    assert twice.value.code == "wrong_state"


def test_a_reopen_request_made_before_the_latest_close_is_not_approved(day):
    """Two requests to reopen the same close; the first is approved and the shift closed
    again. The second was asked of the earlier close: approving it now would reopen a
    close nobody asked about, so it is refused and writes nothing. A request made after
    the new close is approved."""
    sheet = count_shift(day, "day")
    sign_and_close(day, sheet)
    first = counts.shift_reopen_request(gaming_day=DAY, shift="day", reason="box EMERG-1 miscounted", actor=day.supervisor)
    stale = counts.shift_reopen_request(gaming_day=DAY, shift="day", reason="box EMERG-1 again", actor=day.counters[0])
    counts.shift_reopen_approve(request_id=first.pk, actor=day.manager)
    counts.shift_close(gaming_day=DAY, shift="day", actor=day.supervisor)
    closes = ShiftClose.objects.count()
    with pytest.raises(CountError) as refused:
        counts.shift_reopen_approve(request_id=stale.pk, actor=day.manager)
    assert refused.value.code == "wrong_state"
    assert counts.shift_is_closed(DAY, "day") and ShiftClose.objects.count() == closes
    fresh = counts.shift_reopen_request(gaming_day=DAY, shift="day", reason="one more look", actor=day.counters[0])
    counts.shift_reopen_approve(request_id=fresh.pk, actor=day.manager)
    assert not counts.shift_is_closed(DAY, "day")


def test_the_count_team_alone_counts_and_a_shift_is_counted_only_after_it_ends(day, clock):
    with pytest.raises(CountError) as supervisor:
        counts.count_sheet_open(gaming_day=DAY, shift="day", actor=day.supervisor)
    assert supervisor.value.code == "not_authorized"
    clock.set(DAY, time(13, 0))
    with pytest.raises(CountError) as early:
        counts.count_sheet_open(gaming_day=DAY, shift="day", actor=day.counters[0])
    assert early.value.code == "shift_not_over"


def test_each_step_is_refused_to_the_roles_it_is_not_for(day):
    """The service checks the role whatever page or script calls it."""
    dealer, officer = person("dee", "dealer"), person("officer-ola", "compliance")
    table, box = day.tables[0], day.boxes[(day.tables[0].pk, "day")][0]
    sheet = count_shift(day, "swing")
    count = BoxCount.objects.filter(sheet=sheet).first()
    steps = {
        "register": (lambda a: counts.box_register(identifier="X-1", kind="fees", table_id=table.pk, actor=a), counts.BOX_KEEPERS),
        "place": (lambda a: counts.box_place(table_id=table.pk, box_id=box.pk, actor=a, reason="r"), counts.BOX_KEEPERS),
        "open": (lambda a: counts.count_sheet_open(gaming_day=DAY, shift="day", actor=a), counts.COUNTERS),
        "count": (lambda a: counts.box_count_record(sheet_id=sheet.pk, box_id=count.box_id, denominations={}, actor=a), counts.COUNTERS),
        "sign": (lambda a: counts.count_sign(sheet_id=sheet.pk, actor=a), counts.COUNTERS),
        "approve": (lambda a: counts.variance_approve(count_id=count.pk, actor=a), counts.MANAGERS),
        "close": (lambda a: counts.shift_close(gaming_day=DAY, shift="swing", actor=a), counts.CLOSERS),
    }
    everyone = [dealer, officer, day.supervisor, day.manager, day.counters[0]]
    for name, (step, allowed) in steps.items():
        for actor in everyone:
            if actor.role in allowed:
                continue
            with pytest.raises(CountError) as refused:
                step(actor)
            assert refused.value.code == "not_authorized", (name, actor.role)


def test_the_tablet_and_the_floor_show_the_box_on_the_table_now(day, clock):
    """The box in force is read from the table's row (Table.boxes_placed), which a
    placement writes under the table's lock: a new shift starts with none, a placement and
    a swap show at once, each table shows its own, and the next shift starts empty again."""
    from datetime import timedelta

    from tables.floor import floor_rows
    from tables.selectors import table_snapshot

    first, second = day.tables[0], day.tables[1]  # the clock: the next gaming day's first shift
    boxes = lambda: {row["table"]: row["boxes"] for row in floor_rows()}  # noqa: E731
    assert boxes()[first.pk] == {"fees": None, "jackpot": None}
    for table in (first, second):
        box = counts.box_register(identifier=f"N{table.pk}", kind="fees", table_id=table.pk, actor=day.supervisor)
        counts.box_place(table_id=table.pk, box_id=box.pk, actor=day.supervisor)
    spare = counts.box_register(identifier="EMERG-9", kind="emergency", table_id=None, actor=day.supervisor)
    counts.box_place(table_id=first.pk, box_id=spare.pk, actor=day.supervisor, reason="box full")
    assert boxes()[first.pk] == {"fees": "EMERG-9", "jackpot": None}
    assert boxes()[second.pk]["fees"] == f"N{second.pk}"
    first.refresh_from_db()
    assert table_snapshot(first, "tablet")["boxes"]["fees"] == "EMERG-9"
    clock.set(DAY + timedelta(days=1), time(16, 0))  # the swing shift: no box placed yet
    assert boxes()[first.pk] == {"fees": None, "jackpot": None}


def test_a_swap_needs_a_reason_and_a_box_is_on_one_table_at_a_time(day, clock):
    clock.set(DAY, time(12, 0))
    first, second = day.tables[0], day.tables[1]
    spare = counts.box_register(identifier="EMERG-2", kind="emergency", table_id=None, actor=day.supervisor)
    with pytest.raises(CountError) as no_reason:
        counts.box_place(table_id=second.pk, box_id=spare.pk, actor=day.supervisor)
    assert no_reason.value.code == "swap_needs_reason"
    with pytest.raises(CountError) as in_use:
        counts.box_place(table_id=second.pk, box_id=day.boxes[(first.pk, "day")][1].pk, actor=day.supervisor, reason="x")
    assert in_use.value.code == "box_in_use"
    with pytest.raises(CountError) as other_table:
        counts.box_place(table_id=second.pk, box_id=day.boxes[(first.pk, "day")][0].pk, actor=day.supervisor, reason="x")
    assert other_table.value.code == "box_of_another_table"
    swap = counts.box_place(table_id=second.pk, box_id=spare.pk, actor=day.supervisor, reason="slot jammed")
    assert (swap.replaces.box.identifier, swap.placed_by, swap.reason) == (f"T{second.pk}-day", "sup-sam", "slot jammed")


@pytest.mark.parametrize("table_id, box_id", [(None, 1), (999999, 1), ("x", 1)])
def test_placing_on_no_table_or_no_box_is_refused_and_writes_nothing(day, clock, table_id, box_id):
    clock.set(DAY, time(12, 0))
    before = BoxPlacement.objects.count()
    with pytest.raises(CountError) as refused:
        counts.box_place(table_id=table_id, box_id=box_id, actor=day.supervisor)
    assert refused.value.code == "not_found" and BoxPlacement.objects.count() == before


def test_moving_a_line_to_another_box_breaks_its_hash(day):
    """Whoever rewrites which box a fee went into (to hide a short box) is found."""
    from tests.compliance.test_tamper import sql, tamper, verify_logs

    sql("SET CONSTRAINTS ALL IMMEDIATE")  # the day's own inserts are checked first
    first = day.tables[0]
    entry = CollectionEntry.objects.filter(table=first, box__isnull=False).order_by("seq").first()
    other = day.boxes[(first.pk, "swing")][0]
    tamper("collections_fees_collectionentry", "UPDATE collections_fees_collectionentry SET box_id = %s WHERE id = %s",
           [other.pk, entry.pk])
    status, out = verify_logs("--table", str(first.pk))
    assert status == 1 and f"seq {entry.seq}: content altered" in out, out


def test_progressive_contributions_go_into_the_jackpot_box_and_its_count_expects_them(clock):
    """4 CCR 12384: jackpot collections are kept apart. Each progressive contribution is
    stamped with the jackpot box on the table (a void's reversal too), never the fee box,
    and the jackpot box's expected drop is contributions less reversals, to the cent."""
    from collections_fees.models import JackpotEntry, JackpotMeter
    from tables.integrity import verify_meter
    from tables.services import command_execute
    from tests.engine.helpers import FEES, seated_with_pd
    from tests.engine.test_sidebets import PROGRESSIVE

    clock.set(DAY, time(10, 0))
    supervisor = person("sup-sam", "supervisor")
    table = new_table("Jackpot 1", fee_schedule=FEES, side_bets={"progressive": PROGRESSIVE}, boxes=False)
    fee_box = counts.box_register(identifier=f"F{table.pk}", kind="fees", table_id=table.pk, actor=supervisor)
    jackpot_box = counts.box_register(identifier=f"J{table.pk}", kind="jackpot", table_id=table.pk, actor=supervisor)
    for box in (fee_box, jackpot_box):
        counts.box_place(table_id=table.pk, box_id=box.pk, actor=supervisor)
    betting = [
        {"type": "open_round", "bank": 100000},
        {"type": "wager", "seat": 2, "ante": 1000, "progressive": True},
        {"type": "wager", "seat": 3, "ante": 1000, "progressive": True},
        {"type": "no_more_bets"},
    ]
    void = {"type": "void_round", "reason": "misdeal", "approved_by": "sup-sam"}
    for command in (*seated_with_pd([1, 2, 3], pd=1), *betting, void, *betting):
        assert command_execute(table_id=table.pk, command=command, actor="dealer-dee").ok, command

    entries = JackpotEntry.objects.filter(table=table)
    assert {(e.kind, e.box_id) for e in entries} == {("contribution", jackpot_box.pk), ("reversal", jackpot_box.pk)}
    assert not CollectionEntry.objects.filter(table=table).exclude(box=fee_box).exists()
    wager = PROGRESSIVE["wager"]
    assert counts.box_expected(box_id=jackpot_box.pk, gaming_day=DAY, shift="day") == 4 * wager - 2 * wager
    fees = sum(e.amount if e.kind == "fee" else -e.amount for e in CollectionEntry.objects.filter(table=table))
    assert counts.box_expected(box_id=fee_box.pk, gaming_day=DAY, shift="day") == fees
    # The box is part of each row's hash: the fund's chain verifies as written.
    assert verify_meter(JackpotMeter.objects.get(name=PROGRESSIVE["meter"]["name"])) == []
