"""The command's writes are sent in one round trip (tables/recording.py `Writes`): the
rows they leave must be the rows the service wrote one statement at a time before.

A session that reaches every ledger writer (fees and their refunds when the bank runs
out and when a round is voided, the player-dealer's limit, a progressive award confirmed
by a supervisor and its fund lines, a TPPP player-dealer and the rotation log to a game
end) is played at fixed times, and every row it leaves in the ledger tables, the table
rows and the audit trail is compared with `ledger_session.json`: the same session as
main wrote it at 07f8a39, one statement at a time (regenerate it with
`LEDGER_SESSION_WRITE=1`, only from a commit whose writes are known good). Ids are
compared relative to the session's first row of each table, since the suite's other
tests move the sequences; the chain hashes, which cover those absolute ids, are checked
by re-verifying every chain instead."""

import json
import os
from datetime import date, time
from pathlib import Path
from unittest import mock

import pytest
from django.db.models import ForeignKey

from cardroom.access import Actor
from cardroom.models import AuditEntry
from collections_fees.models import CollectionEntry, JackpotEntry, JackpotMeter
from rounds.models import Decision, Round, RoundCard, SettlementLine, Wager
from tables.integrity import verify_meter, verify_table
from tables.record_checks import audit_chain_problems
from tables.models import RotationLogEntry, SeatOccupancy, Table, TableEvent
from tables.services import command_execute
from tests.compliance.ledger import Clock, Ledger, build_real_tables

from tests.playing import new_table, run_ok
from .test_rotation_policy_service import POLICY, _play_to_game_end
from .test_sidebets_service import PROGRESSIVE

pytestmark = pytest.mark.django_db

GOLDEN = Path(__file__).with_name("ledger_session.json")
MODELS = [
    Table, TableEvent, SeatOccupancy, RotationLogEntry, Round, Wager, RoundCard, Decision, SettlementLine,
    CollectionEntry, JackpotMeter, JackpotEntry, AuditEntry,
]
# Hashes cover absolute ids (verified below instead); `at` of the audit is the clock's.
# `drivers_version` is newer than the recording (the table row's count of assignment
# changes, moved by a trigger: tests/service/test_drivers_version.py).
SKIPPED = {"row_hash", "prev_hash", "event_head", "collection_head", "entry_head", "drivers_version", "audit_head"}
# Columns newer than the recording, skipped on their model only. A rotation entry's
# `gaming_day` is its event's (which the recording holds), recorded on the entry so the
# rotation log's index leads with it: tests/service/test_rotation_gaming_day.py. The
# table's audit chain (its head on the table row, the link on each command's audit row)
# is verified below with the other chains.
SKIPPED_OF = {RotationLogEntry: {"gaming_day"}, Table: {"audit_seq"}, AuditEntry: {"seq", "hash_key"}}


def play_session():
    clock = Clock()
    with mock.patch("django.utils.timezone.now", clock):
        build_real_tables(Ledger(), clock)
        clock.set(date(2026, 3, 4), time(12, 0))
        table = new_table("Royal", side_bets={"progressive": PROGRESSIVE}, boxes=False)
        run_ok(
            table,
            *({"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)),
            {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1},
            {"type": "open_round", "bank": 1000}, {"type": "wager", "seat": 2, "ante": 100, "progressive": True},
            {"type": "no_more_bets"}, {"type": "check", "seat": 2}, {"type": "flop", "cards": ["Qs", "Js", "Ts"]},
            {"type": "check", "seat": 2}, {"type": "turn_river", "cards": ["2c", "3d"]},
            {"type": "play", "seat": 2, "multiple": 1},
            {"type": "showdown", "player_dealer": ["4c", "5d"], "hands": {"2": ["As", "Ks"]}},
        )
        supervisor = Actor(name="sup", role="supervisor", user_id=None)
        assert command_execute(table_id=table.pk, command={"type": "confirm_award", "seat": 2}, actor=supervisor).ok
        run_ok(table, {"type": "settle"})
        rotation = new_table("2A", rotation_policy=POLICY, boxes=False)
        assert _play_to_game_end(rotation)["game_ended"] == "rotation_window"


# Columns that hold another table's id without being a foreign key.
PLAIN_IDS = {(AuditEntry, "table_id"): Table}


def rows_of_session() -> dict:
    """Every row of MODELS, every id relative to the first row of its table: the session's
    own rows are the only ones in the test's database, but the sequences have moved on by
    whatever the tests before it inserted."""
    firsts = {}

    def relative(model, value):
        if model not in firsts:
            firsts[model] = model._base_manager.order_by("pk").values_list("pk", flat=True).first() or 0
        return value - firsts[model]

    dump = {}
    for model in MODELS:
        fields = [f for f in model._meta.concrete_fields if f.attname not in SKIPPED | SKIPPED_OF.get(model, set())]
        rows = []
        for row in model.objects.order_by("pk").values_list(*(f.attname for f in fields)):
            values = {}
            for f, value in zip(fields, row):
                target = (
                    model if f.primary_key
                    else f.related_model if isinstance(f, ForeignKey)
                    else PLAIN_IDS.get((model, f.attname))
                )
                values[f.attname] = relative(target, value) if target is not None and value is not None else value
            rows.append(values)
        dump[model._meta.label] = rows
    # Through JSON both ways, as the file holds them (dates and times as text).
    return json.loads(json.dumps(dump, sort_keys=True, default=str))


def as_text(rows: dict) -> str:
    """The file's layout: a row a line, so that a difference reads as one."""
    tables = [
        json.dumps(label) + ": [\n" + ",\n".join(json.dumps(row, sort_keys=True, separators=(",", ":")) for row in rows[label]) + "\n]"
        for label in sorted(rows)
    ]
    return "{\n" + ",\n".join(tables) + "\n}\n"


def test_a_session_leaves_the_rows_main_wrote_one_statement_at_a_time():
    play_session()
    rows = rows_of_session()
    if os.environ.get("LEDGER_SESSION_WRITE"):
        GOLDEN.write_text(as_text(rows))
    expected = json.loads(GOLDEN.read_text())
    assert rows.keys() == expected.keys()
    for label in rows:
        assert len(rows[label]) == len(expected[label]), label
        for got, want in zip(rows[label], expected[label]):
            assert got == want, label
    # The chains: every link re-computed from the rows as stored.
    for table in Table.objects.all():
        assert verify_table(table) == [], table.name
        assert audit_chain_problems([table]) == [], table.name
        assert table.audit_seq == table.version  # one chained audit row per accepted command
    for meter in JackpotMeter.objects.all():
        assert verify_meter(meter) == [], meter.name
    assert sum(len(v) for v in rows.values()) > 500
