"""The rotation log (who was offered the bank, who accepted) is held against the chained
events that recorded each entry (tables/record_checks.py `rotation_log_problems`): an
owner who changes a row's player, or deletes or adds a row, is named by `verify_logs`."""

import pytest

from tables.models import RotationLogEntry

from .test_tamper import tamper, verify_logs

pytestmark = pytest.mark.django_db


def an_accept(table) -> RotationLogEntry:
    return RotationLogEntry.objects.filter(table=table, action="accept").select_related("event").order_by("id").first()


def test_the_untouched_rotation_log_agrees_with_its_events(ledger):
    code, out = verify_logs("--table", str(ledger.table_a.pk))
    assert code == 0, out
    assert RotationLogEntry.objects.filter(table=ledger.table_a).count() > 5


def test_a_rotation_rows_player_changed_is_named(ledger):
    a = ledger.table_a
    accept = an_accept(a)
    tamper("tables_rotationlogentry", "UPDATE tables_rotationlogentry SET player = %s WHERE id = %s", ["P-9", accept.pk])
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert (
        f"BROKEN table {a.pk} rotation log entry {accept.pk} (event seq {accept.event.seq}) reads accept seat "
        f"{accept.seat} player 'P-9', its event recorded accept seat {accept.seat} player {accept.player!r}: altered"
    ) in out, out


def test_a_deleted_rotation_row_is_named(ledger):
    a = ledger.table_a
    accept = an_accept(a)
    tamper("tables_rotationlogentry", "DELETE FROM tables_rotationlogentry WHERE id = %s", [accept.pk])
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert (
        f"BROKEN table {a.pk} rotation log: event seq {accept.event.seq} recorded accept seat {accept.seat} "
        f"player {accept.player!r}, the log has no such entry: deleted"
    ) in out, out


def test_an_added_rotation_row_is_named(ledger):
    a = ledger.table_a
    accept = an_accept(a)
    tamper(
        "tables_rotationlogentry",
        "INSERT INTO tables_rotationlogentry (table_id, event_id, action, seat, player, round_number, badge, reason, "
        "created_at, gaming_day) SELECT table_id, event_id, 'decline', 5, 'P-5', round_number, badge, reason, "
        "created_at, gaming_day FROM tables_rotationlogentry WHERE id = %s",
        [accept.pk],
    )
    added = RotationLogEntry.objects.filter(table=a).order_by("-id").first()
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert (
        f"BROKEN table {a.pk} rotation log entry {added.pk} (event seq {accept.event.seq}) reads decline seat 5 "
        "player 'P-5', which its event did not record: inserted"
    ) in out, out
