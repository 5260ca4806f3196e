"""The command service on PostgreSQL: ledger rows, the event log, idempotency, versions,
append-only enforcement, publishing after commit, and a constant query count."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from cardroom.audit import link_pending
from collections_fees.models import CollectionEntry
from rounds.models import Decision, Round, RoundCard, SettlementLine, Wager
from tables.models import RejectedCommand, RotationLogEntry, SeatOccupancy, TableConfig, TableEvent
from tables.lifecycle import table_configure
from tables.services import command_execute

from tests.db_access import assert_refused_to_both
from tests.engine.helpers import FEES, example_b, seated_with_pd

from tests.service.conftest import full_round
from tests.playing import results as run, run_ok

pytestmark = pytest.mark.django_db


def example_b_commands():
    """Worked example B of game-rules section 11 (the bank runs out), cards entered by hand."""
    return [*example_b(dealt=False), {"type": "settle"}]


def test_worked_example_b_is_recorded_in_the_ledger(make_table):
    table = make_table(fee_schedule=FEES)
    results = run_ok(table, *example_b_commands())
    settled = results[-1]
    assert settled["pd_net"] == -4000 and settled["balance"] == 0 and settled["exhausted"] is True
    assert settled["fee_refunds"] == [{"seat": 4, "amount": 100}]

    rnd = Round.objects.get(table=table, number=1)
    assert rnd.status == "settled" and rnd.pd_net == -4000 and rnd.exhausted is True
    assert rnd.config == table.config and rnd.fee_schedule == table.config.fee_schedule
    lines = list(SettlementLine.objects.filter(round=rnd).values_list("seat", "wager", "result", "amount", "uncovered"))
    assert lines == [
        (2, "ante", "win", 500, 0),
        (2, "play", "win", 2000, 0),
        (2, "blind", "win", 750, 0),
        (3, "ante", "win", 500, 0),
        (3, "play", "win", 250, 750),
        (3, "blind", "no_action", 0, 0),
        (3, "trips", "no_action", 0, 0),
        (4, "ante", "no_action", 0, 0),
        (4, "play", "no_action", 0, 0),
        (4, "blind", "no_action", 0, 0),
    ]
    # Fees at no more bets in seat order, the refund as its own row pointing at the fee.
    fees = list(CollectionEntry.objects.filter(round=rnd).values_list("kind", "seat", "payer", "amount"))
    assert fees == [
        ("fee", 1, "player_dealer", 150),
        ("fee", 2, "player", 100),
        ("fee", 3, "player", 100),
        ("fee", 4, "player", 100),
        ("refund", 4, "player", 100),
    ]
    refund = CollectionEntry.objects.get(kind="refund")
    assert refund.refund_of.kind == "fee" and refund.refund_of.seat == 4 and refund.reason == "bank_could_not_act"
    # Wagers as locked at no more bets, plus each Play when it was bet.
    assert Wager.objects.filter(round=rnd, kind="play").count() == 3
    assert Wager.objects.filter(round=rnd, seat=3, kind="trips").get().amount == 300
    assert Decision.objects.filter(round=rnd).count() == 6
    assert RoundCard.objects.filter(round=rnd).count() == 5 + 2 + 3 * 2
    # The event log: one event per accepted command, seq strictly increasing from 1.
    seqs = list(TableEvent.objects.filter(table=table).values_list("seq", flat=True))
    assert seqs == list(range(1, len(results) + 1))
    table.refresh_from_db()
    assert table.version == len(results)
    assert list(RotationLogEntry.objects.filter(table=table).values_list("action", "seat")) == [
        ("offer", 1),
        ("accept", 1),
    ]
    assert SeatOccupancy.objects.filter(table=table, left_at__isnull=True).count() == 4


def test_limit_reached_starts_offers_and_is_logged(make_table):
    table = make_table()
    run_ok(table, *seated_with_pd([1, 2, 3], pd=2), *full_round([1, 3]))
    second = run_ok(table, *full_round([1, 3]))[-1]
    assert second["next_offer"] == 3 and second["player_dealer_next"] is None
    run_ok(table, {"type": "decline_bank", "seat": 3}, {"type": "decline_bank", "seat": 1})
    log = list(RotationLogEntry.objects.filter(table=table).values_list("action", "seat", "player"))
    assert log[-6:] == [
        ("limit_reached", 2, "P-2"),
        ("offer", 3, "P-3"),
        ("decline", 3, "P-3"),
        ("offer", 1, "P-1"),
        ("decline", 1, "P-1"),
        ("stopped", None, None),
    ]
    refused = run(table, {"type": "open_round", "bank": 1000})[0]
    assert refused["error"]["code"] == "no_player_dealer"


def snapshot_of_everything(table):
    table.refresh_from_db()
    return (
        table.version,
        table.state,
        list(TableEvent.objects.filter(table=table).values_list("seq", "command", "result")),
        Round.objects.filter(table=table).count(),
        CollectionEntry.objects.filter(table=table).count(),
        RotationLogEntry.objects.filter(table=table).count(),
    )


@pytest.mark.parametrize(
    "command, code",
    [
        ({"type": "wager", "seat": 2, "ante": 0}, "invalid_amount"),
        ({"type": "wager", "seat": 9, "ante": 500}, "unknown_seat"),
        ({"type": "settle"}, "wrong_state"),
        ({"type": "pass_bank"}, "wrong_state"),
        ({"type": "nonsense"}, "invalid_command"),
        ({"type": "flop", "cards": ["Zz", "2c", "3c"]}, "wrong_state"),
        ({"type": "wager", "seat": 1, "ante": 500}, "seat_is_player_dealer"),
        ({"type": "void_round", "reason": "misdeal"}, "approval_required"),
    ],
)
def test_a_refused_command_changes_nothing(make_table, command, code):
    table = make_table()
    run_ok(table, *seated_with_pd([1, 2, 3], pd=1), {"type": "open_round", "bank": 5000})
    before = snapshot_of_everything(table)
    outcome = command_execute(table_id=table.pk, command=command, actor="dealer-1")
    assert outcome.result["ok"] is False and outcome.result["error"]["code"] == code
    assert snapshot_of_everything(table) == before
    assert RejectedCommand.objects.filter(table=table, code=code).count() == 1


def test_a_repeated_command_id_is_answered_once_and_applied_once(make_table):
    table = make_table()
    sit = {"type": "sit", "seat": 1, "player": "P-1", "id": "tablet-1:0001"}
    first = command_execute(table_id=table.pk, command=sit, actor="dealer-1")
    again = command_execute(table_id=table.pk, command=dict(sit), actor="dealer-1")
    assert first.result == {"ok": True} and again.result == first.result
    assert again.replayed and again.version == first.version == 1
    assert TableEvent.objects.filter(table=table).count() == 1
    # A refused command keeps its answer too, even once it could succeed.
    early = {"type": "accept_bank", "seat": 1, "id": "tablet-1:0002"}
    refused = command_execute(table_id=table.pk, command=early, actor="dealer-1").result
    run_ok(table, {"type": "offer_bank", "seat": 1})
    assert command_execute(table_id=table.pk, command=early, actor="dealer-1").result == refused
    assert refused["error"]["code"] == "not_offered"


def test_a_command_id_is_answered_from_its_own_table_only(make_table):
    """The earlier answer of an id is looked up at the table it was sent to, in both logs:
    the same id at another table is a new command there, accepted or refused afresh."""
    first, second = make_table(), make_table()
    sit = {"type": "sit", "seat": 1, "player": "P-1", "id": "tablet:0001"}
    early = {"type": "accept_bank", "seat": 1, "id": "tablet:0002"}
    assert command_execute(table_id=first.pk, command=sit, actor="dealer-1").result == {"ok": True}
    assert command_execute(table_id=first.pk, command=early, actor="dealer-1").result["error"]["code"] == "not_offered"
    # At the second table the seat is still free: the sit is applied there, not answered.
    again = command_execute(table_id=second.pk, command=dict(sit), actor="dealer-1")
    assert again.result == {"ok": True} and not again.replayed and again.version == 1
    run_ok(second, {"type": "offer_bank", "seat": 1})
    # The refusal at the first table is not the second table's answer: there it is offered.
    accepted = command_execute(table_id=second.pk, command=dict(early), actor="dealer-1")
    assert accepted.result["ok"] is True and not accepted.replayed
    # And each table answers its own repeats from its own log, with the first answer.
    assert command_execute(table_id=first.pk, command=dict(early), actor="dealer-1").replayed
    assert command_execute(table_id=second.pk, command=dict(early), actor="dealer-1").result == accepted.result


def test_a_stale_version_is_refused_with_the_current_state(make_table):
    table = make_table()
    run_ok(table, {"type": "sit", "seat": 1, "player": "P-1"})
    ok = command_execute(table_id=table.pk, command={"type": "sit", "seat": 2, "player": "P-2", "version": 1}, actor="a")
    assert ok.result["ok"] and ok.version == 2
    stale = command_execute(table_id=table.pk, command={"type": "sit", "seat": 3, "player": "P-3", "version": 1}, actor="b")
    assert stale.result["error"]["code"] == "stale_version"
    assert stale.result["state"]["version"] == 2
    assert sorted(stale.result["state"]["game"]["occupants"]) == ["1", "2"]


def test_a_command_whose_version_is_ahead_of_the_tables_is_refused(make_table):
    """A version the table has not reached is as stale as one it has passed: the tablet
    saw a state that never was, and nothing is done (issue 33, finding 12)."""
    table = make_table()
    run_ok(table, {"type": "sit", "seat": 1, "player": "P-1"})
    for ahead in (2, 10**6):
        outcome = command_execute(table_id=table.pk, command={"type": "sit", "seat": 2, "player": "P-2", "version": ahead},
                                  actor="a")
        assert outcome.result["error"]["code"] == "stale_version", ahead
        assert outcome.result["state"]["version"] == 1
    table.refresh_from_db()
    assert table.version == 1 and table.state["occupants"] == {"1": "P-1"}
    assert TableEvent.objects.filter(table=table).count() == 1


@pytest.mark.parametrize(
    "model, kwargs",
    [
        (TableEvent, {}),
        (SettlementLine, {}),
        (CollectionEntry, {}),
        (Wager, {}),
        (RoundCard, {}),
        (TableConfig, {}),
    ],
)
def test_ledger_rows_cannot_be_updated_or_deleted(make_table, model, kwargs):
    table = make_table(fee_schedule=FEES)
    run_ok(table, *example_b_commands())
    row = model.objects.filter(**kwargs).first()
    assert row is not None
    for statement in (
        lambda: model.objects.filter(pk=row.pk).update(**_some_change(model)),
        lambda: _sql_delete(model, row.pk),
    ):
        assert_refused_to_both(statement)
    assert model.objects.filter(pk=row.pk).exists()


def _sql_delete(model, pk):
    """DELETE straight in SQL, as someone bypassing the application would."""
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {model._meta.db_table} WHERE id = %s", [pk])


def _some_change(model):
    return {
        TableEvent: {"actor": "someone-else"},
        SettlementLine: {"amount": 1},
        CollectionEntry: {"amount": 1},
        Wager: {"amount": 1},
        RoundCard: {"card": "2c"},
        TableConfig: {"dealing": "shoe"},
    }[model]


def test_a_settled_round_is_frozen_but_an_open_one_moves(make_table):
    table = make_table()
    run_ok(table, *seated_with_pd([1, 2], pd=1), {"type": "open_round", "bank": 5000})
    open_round = Round.objects.get(table=table, number=1)
    Round.objects.filter(pk=open_round.pk).update(street="betting")  # allowed while in progress
    run_ok(table, *full_round([2])[1:])
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        Round.objects.filter(pk=open_round.pk).update(pd_net=0)
    assert_refused_to_both(lambda: _sql_delete(Round, open_round.pk))


def test_a_void_refunds_every_fee_and_does_not_count_for_rotation(make_table):
    table = make_table(fee_schedule=FEES, max_consecutive_banks=1)
    run_ok(table, *seated_with_pd([1, 2, 3], pd=1), {"type": "open_round", "bank": 5000})
    run_ok(table, {"type": "wager", "seat": 2, "ante": 500}, {"type": "no_more_bets"})
    voided = run_ok(table, {"type": "void_round", "reason": "shuffler jam", "approved_by": "sup-7"})[0]
    assert voided["refunds"] == [{"seat": 1, "payer": "player_dealer", "amount": 50}, {"seat": 2, "payer": "player", "amount": 100}]
    rnd = Round.objects.get(table=table, number=1)
    assert rnd.status == "voided" and rnd.void_approved_by == "sup-7" and rnd.void_reason == "shuffler jam"
    fees = CollectionEntry.objects.filter(round=rnd)
    assert sum(e.amount for e in fees if e.kind == "fee") == sum(e.amount for e in fees if e.kind == "refund") == 150
    # With a limit of one, the PD may still bank: the voided round did not count.
    assert run_ok(table, {"type": "open_round", "bank": 5000})[0]["round"] == 2


def test_configuration_changes_make_new_versions_and_rounds_keep_theirs(make_table):
    table = make_table(fee_schedule=FEES)
    run_ok(table, *seated_with_pd([1, 2], pd=1), *full_round([2]))
    first_config = table.config
    table_configure(table_id=table.pk, config={"paytable": "UTH-04", "fee_schedule": FEES}, changed_by="sup-1")
    table.refresh_from_db()
    assert table.config.version == 2 and table.config.paytable == "UTH-04"
    assert table.config.fee_schedule_id == first_config.fee_schedule_id  # same fees: no new schedule version
    assert TableConfig.objects.get(pk=first_config.pk).paytable == "UTH-01"
    run_ok(table, *full_round([2]))
    assert [r.config.version for r in Round.objects.filter(table=table).order_by("number")] == [1, 2]


def test_a_configuration_change_keeps_every_key_it_does_not_name(make_table):
    """A supervisor who switches the rotation policy on must not silently drop the table's
    collection fees or pay table back to the defaults; null is how a key is removed."""
    table = make_table(fee_schedule=FEES, paytable="UTH-02", side_bets={"pairs": {"paytable": "UPB-1"}})
    table_configure(table_id=table.pk, config={"rotation_policy": {}}, changed_by="sup-1")
    table.refresh_from_db()
    config = table.state["config"]
    assert config["paytable"] == "UTH-02" and config["fee_schedule"]["rates"] == FEES["rates"]
    assert config["side_bets"] == {"pairs": {"paytable": "UPB-1"}} and config["rotation_policy"]["window_minutes"] == 40
    table_configure(table_id=table.pk, config={"side_bets": None, "rotation_policy": None}, changed_by="sup-1")
    table.refresh_from_db()
    config = table.state["config"]
    assert config["side_bets"] is None and config["rotation_policy"] is None and config["paytable"] == "UTH-02"
    assert table.config.version == 3


def test_events_are_published_only_after_commit(make_table, django_capture_on_commit_callbacks):
    table = make_table()
    with django_capture_on_commit_callbacks() as callbacks:
        run(table, {"type": "sit", "seat": 1, "player": "P-1"}, {"type": "sit", "seat": 1, "player": "P-2"})
    # After commit, for the accepted sit alone: its publication and its witnessed heads
    # (cardroom/witness.py); the refused second sit publishes and witnesses nothing: its
    # audit row alone is linked into the house audit chain (cardroom/audit.py), after the
    # commit so the command's own transaction never waits on that chain's head.
    publications = [c for c in callbacks if getattr(c, "func", None) is not None and c.func.__name__ == "_send_changed"]
    assert len(publications) == 1 and publications[0].args[1] == "sit"
    # Linking runs once per transaction: registered by this block, or already by an audit
    # row written earlier in the test's transaction (the table's boxes placed).
    pending = [item[1] for item in connection.run_on_commit]
    assert [c for c in callbacks if c is link_pending] == [link_pending] or link_pending in pending
    assert len([c for c in callbacks if c is not link_pending]) == 2


def test_queries_per_command_do_not_grow_with_seats(make_table):
    """Every command of a round costs the same number of queries with 1 or 7 players."""

    def queries_per_command(players):
        table = make_table(seats=8, fee_schedule=FEES)
        run_ok(table, *seated_with_pd(players + [8], pd=8))
        counts = {}
        for command in full_round(players):
            with CaptureQueriesContext(connection) as ctx:
                result = command_execute(table_id=table.pk, command=command, actor="dealer")
            assert result.ok, result.result
            counts.setdefault(command["type"], set()).add(len(ctx.captured_queries))
        return counts

    few, many = queries_per_command([1]), queries_per_command([1, 2, 3, 4, 5, 6, 7])
    assert few == many
    assert max(max(v) for v in many.values()) <= 12


@pytest.mark.parametrize(
    "command, code",
    [
        ({"type": "sit", "seat": 1, "player": "P\x00-1"}, "invalid_command"),  # PostgreSQL refuses NUL
        ({"type": "sit", "seat": 1, "player": "P-1", "id": "t\x00:1"}, "invalid_command"),  # in the id too
        ({"type": "sit\x00", "seat": 1, "player": "P-1"}, "invalid_command"),  # and in the type
        ({"type": "sit", "seat": 1, "player": "P-\ud800"}, "invalid_command"),  # a lone surrogate is no UTF-8
        ({"type": "sit", "seat": 1, "player": "P-1", "id": "t:\udfff"}, "invalid_command"),
        ({"type": "sit", "seat": 1, "player": "P-1", "note": float("nan")}, "invalid_command"),
        ({"type": "sit", "seat": 1, "player": "P" * 65}, "invalid_command"),
        ({"type": "sit", "seat": 1, "player": "P-1", "note": 1.5}, "invalid_command"),  # floats do not re-hash
        ({"type": "open_round", "bank": 10**30}, "invalid_amount"),  # beyond a 64-bit ledger column
    ],
)
def test_values_the_ledger_cannot_record_are_refused_cleanly(make_table, command, code):
    table = make_table()
    if command["type"] == "open_round":
        run_ok(table, *seated_with_pd([1, 2], pd=1))
    before = snapshot_of_everything(table)
    result = command_execute(table_id=table.pk, command=command, actor="dealer-1").result
    assert result["error"]["code"] == code
    assert snapshot_of_everything(table) == before


def test_a_command_id_costs_one_query(make_table):
    """Looking up an earlier answer for an id is one query, whether or not there is one."""
    table = make_table()

    def queries(command):
        with CaptureQueriesContext(connection) as ctx:
            command_execute(table_id=table.pk, command=command, actor="dealer")
        return len(ctx.captured_queries)

    without_id = queries({"type": "sit", "seat": 1, "player": "P-1"})
    with_id = queries({"type": "sit", "seat": 2, "player": "P-2", "id": "t:2"})
    refused_with_id = queries({"type": "sit", "seat": 2, "player": "P-3", "id": "t:3"})
    refused_without_id = queries({"type": "sit", "seat": 2, "player": "P-4"})
    replayed = queries({"type": "sit", "seat": 2, "player": "P-2", "id": "t:2"})
    replayed_refusal = queries({"type": "sit", "seat": 2, "player": "P-3", "id": "t:3"})
    print(f"queries: accepted {without_id} / with id {with_id}; refused {refused_without_id} / with id "
          f"{refused_with_id}; replayed accepted {replayed}, replayed refusal {replayed_refusal}")
    assert with_id == without_id + 1 and refused_with_id == refused_without_id + 1


def test_the_refused_command_log_cannot_be_updated_or_deleted(make_table):
    """A refusal is kept so that a retry of its id gets the same answer: nobody may edit
    or remove it afterwards (tables/migrations/0012), not even to 'tidy' the log."""
    table = make_table()
    refused = command_execute(table_id=table.pk, command={"type": "accept_bank", "seat": 1, "id": "t:1"}, actor="d")
    assert refused.result["error"]["code"] == "not_offered"
    row = RejectedCommand.objects.get(table=table, command_id="t:1")
    for statement in (
        lambda: RejectedCommand.objects.filter(pk=row.pk).update(code="accepted"),
        lambda: _sql_delete(RejectedCommand, row.pk),
    ):
        assert_refused_to_both(statement)
    assert RejectedCommand.objects.get(pk=row.pk).code == "not_offered"
