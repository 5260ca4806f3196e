"""After-the-fact edits made directly in the database are detected.

The ledger tables refuse UPDATE and DELETE by trigger; someone with the rights to switch
the triggers off (as these tests do, inside their own transaction, which is rolled back
afterwards) can still change rows. `verify_logs` must then name the first broken link of
the chain, and `verify_rounds` a settlement that no longer follows from its inputs.
"""

import io

import pytest
from django.core.management import call_command
from django.db import connection

from cardroom import hashchain
from collections_fees.models import CollectionEntry
from rounds.models import SettlementLine
from tables.models import TableEvent

from .ledger import DAY1

pytestmark = pytest.mark.django_db


def sql(statement, params=()):
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def tamper(table, statement, params=()):
    """Run `statement` with the append-only triggers of `table` off, then back on."""
    sql(f"ALTER TABLE {table} DISABLE TRIGGER USER")
    sql(statement, params)
    # Django's foreign keys are deferred: check them now, or the table cannot be altered
    # back while their checks are pending.
    sql("SET CONSTRAINTS ALL IMMEDIATE")
    sql(f"ALTER TABLE {table} ENABLE TRIGGER USER")


def verify_logs(*args) -> tuple[int, str]:
    out = io.StringIO()
    try:
        call_command("verify_logs", *args, stdout=out)
        code = 0
    except SystemExit as exit_:
        code = exit_.code
    return code, out.getvalue()


def entry(table, seq):
    return CollectionEntry.objects.get(table=table, seq=seq)


def test_the_untouched_table_verifies(ledger):
    assert verify_logs("--table", str(ledger.table_a.pk)) == (0, "1 tables checked, 0 broken chains\n")


def test_an_altered_fee_amount_is_reported_at_its_seq(ledger):
    a = ledger.table_a
    target = CollectionEntry.objects.filter(table=a, kind="fee").order_by("seq")[4]
    tamper("collections_fees_collectionentry", "UPDATE collections_fees_collectionentry SET amount = 1 WHERE id = %s", [target.pk])
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert f"BROKEN table {a.pk} collections seq {target.seq}: content altered since it was written" in out


def test_a_deleted_fee_line_is_reported_where_it_is_missing(ledger):
    a = ledger.table_a
    target = CollectionEntry.objects.filter(table=a, kind="fee", refund__isnull=True).order_by("seq")[2]
    tamper("collections_fees_collectionentry", "DELETE FROM collections_fees_collectionentry WHERE id = %s", [target.pk])
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert (
        f"BROKEN table {a.pk} collections seq {target.seq}: row missing (next stored row is seq {target.seq + 1})" in out
    )


def test_deleting_the_last_line_is_reported_at_the_end_of_the_chain(ledger):
    a = ledger.table_a
    last = CollectionEntry.objects.filter(table=a).order_by("-seq").first()
    tamper("collections_fees_collectionentry", "DELETE FROM collections_fees_collectionentry WHERE id = %s", [last.pk])
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert f"collections end of chain: chain ends at seq {last.seq - 1}, the table recorded {last.seq}" in out


def test_rehashing_an_altered_row_breaks_the_next_link(ledger):
    """Recomputing the altered row's own hash does not hide the edit: the next row still
    holds the old hash as its prev_hash."""
    a = ledger.table_a
    target = entry(a, 3)
    target.player = "SOMEONE-ELSE"
    forged = hashchain.link(target.prev_hash, target.chain_content())
    tamper(
        "collections_fees_collectionentry",
        "UPDATE collections_fees_collectionentry SET player = %s, row_hash = %s WHERE id = %s",
        [target.player, forged, target.pk],
    )
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert f"BROKEN table {a.pk} collections seq 4: does not link to the row before it" in out


def test_an_altered_event_is_reported_in_the_event_chain(ledger):
    a = ledger.table_a
    event = TableEvent.objects.get(table=a, command_type="void_round")
    tamper("tables_tableevent", "UPDATE tables_tableevent SET actor = 'nobody' WHERE id = %s", [event.pk])
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert f"BROKEN table {a.pk} events seq {event.seq}: content altered since it was written" in out
    assert "collections" not in out.split("\n")[0]


def test_an_edit_deep_in_100000_generated_lines_is_found_at_its_seq(ledger):
    v = ledger.volume
    target = entry(v, 50_000)
    tamper(
        "collections_fees_collectionentry",
        "UPDATE collections_fees_collectionentry SET gaming_day = gaming_day + 1 WHERE id = %s",
        [target.pk],
    )
    code, out = verify_logs("--table", str(v.pk))
    assert code == 1
    assert out.splitlines() == [
        f"BROKEN table {v.pk} collections seq 50000: content altered since it was written",
        "1 tables checked, 1 broken chains",
    ]


def test_verify_rounds_reports_a_tampered_settlement_line(ledger, officer_client):
    rnd = ledger.rounds["exhausted"]
    out = io.StringIO()
    call_command("verify_rounds", "--from", str(DAY1), "--to", str(DAY1), stdout=out)
    assert out.getvalue().endswith(" differences\n") and ", 0 differences" in out.getvalue()

    line = SettlementLine.objects.get(round=rnd, order=2)
    tamper("rounds_settlementline", "UPDATE rounds_settlementline SET amount = amount + 100 WHERE id = %s", [line.pk])
    out = io.StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command("verify_rounds", "--from", str(DAY1), "--to", str(DAY1), stdout=out)
    assert exit_.value.code == 1
    stored = (line.seat, line.wager, line.stake, line.result, line.amount + 100, line.uncovered)
    recomputed = (line.seat, line.wager, line.stake, line.result, line.amount, line.uncovered)
    assert (
        f"DIFFERENCE table {rnd.table_id} round {rnd.number}: settlement line 2: stored {stored}, recomputed {recomputed}"
        in out.getvalue()
    )
    # The round's page says so too.
    page = officer_client.get(f"/compliance/rounds/{rnd.pk}/").content.decode()
    assert "DIFFERS from the stored inputs" in page and "settlement line 2" in page
