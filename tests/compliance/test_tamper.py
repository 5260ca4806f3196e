"""After-the-fact edits made directly in the database are detected.

(The app's own database role cannot make them: test_app_role.py.)

The ledger tables refuse UPDATE and DELETE by trigger; someone with the rights to switch
the triggers off (as these tests do, inside their own transaction, which is rolled back
afterwards) can still change rows. `verify_logs` must then name the first broken link of
the chain, and `verify_rounds` a settlement that no longer follows from its inputs.
"""

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.db import connection

from cardroom import hashchain
from collections_fees.models import CollectionEntry
from rounds.models import SettlementLine
from cardroom import checkpoints
from tables.models import ChainCheckpoint, Table, TableEvent

from tests.db_access import as_owner

from .ledger import DAY1, DAY2
from tests.playing import new_table

pytestmark = pytest.mark.django_db


def sql(statement, params=()):
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def tamper(table, statement, params=()):
    """Run `statement` with the append-only triggers of `table` off, then back on, as
    the tables' owner (the app role the suite runs as can do none of it)."""
    with as_owner():
        sql(f"ALTER TABLE {table} DISABLE TRIGGER USER")
        sql(statement, params)
        # Django's foreign keys are deferred: check them now, or the table cannot be
        # altered back while their checks are pending.
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


def chain_lines(out: str) -> list[str]:
    """verify_logs' report without its last line (the witness's count, tests/compliance/
    test_witness.py), which must say 0 problems: what these chain tests look at."""
    *lines, last = out.splitlines()
    assert last.endswith(" and the records cross-checked, 0 problems"), out
    return lines


def entry(table, seq):
    return CollectionEntry.objects.get(table=table, seq=seq)


def test_the_untouched_table_verifies(ledger):
    code, out = verify_logs("--table", str(ledger.table_a.pk))
    assert (code, chain_lines(out)) == (0, ["1 tables checked, 0 broken chains"])


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


def test_rehashing_an_altered_row_with_the_key_still_breaks_the_next_link(ledger):
    """Even someone holding the key who recomputes the altered row's own hash does not
    hide the edit: the next row still holds the old hash as its prev_hash."""
    a = ledger.table_a
    target = entry(a, 3)
    target.player = "SOMEONE-ELSE"
    forged = hashchain.link(target.prev_hash, target.chain_content(), target.hash_key)
    tamper(
        "collections_fees_collectionentry",
        "UPDATE collections_fees_collectionentry SET player = %s, row_hash = %s WHERE id = %s",
        [target.player, forged, target.pk],
    )
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert f"BROKEN table {a.pk} collections seq 4: does not link to the row before it" in out


def test_a_last_row_re_signed_with_the_key_and_the_head_left_alone_is_named(db):
    """The end of a chain is its seq AND its hash: someone holding the key who rewrites the
    last row and re-signs it (no row after it to break, no checkpoint over it yet), leaving
    the table's head as it was, is named at the end of the chain (issue 33, finding 12)."""
    from tables.integrity import verify_table
    from tables.services import command_execute

    table = new_table("T", boxes=False)
    for seat in (1, 2):
        assert command_execute(table_id=table.pk, command={"type": "sit", "seat": seat, "player": f"P-{seat}"},
                               actor="dealer-1").ok
    assert verify_table(Table.objects.get(pk=table.pk)) == []
    last = TableEvent.objects.filter(table=table).order_by("-seq").first()
    last.actor = "someone-else"
    forged = hashchain.link(last.prev_hash, last.chain_content(), last.hash_key)
    sql("SET CONSTRAINTS ALL IMMEDIATE")  # this test's own inserts: their deferred checks first
    tamper("tables_tableevent", "UPDATE tables_tableevent SET actor = %s, row_hash = %s WHERE id = %s",
           [last.actor, forged, last.pk])
    table = Table.objects.get(pk=table.pk)
    assert (table.version, table.event_head) == (last.seq, last.row_hash) != (last.seq, forged)
    (broken,) = verify_table(table)
    assert (broken.table, broken.log, broken.seq) == (table.pk, "events", None)
    assert f"chain ends at seq {last.seq}" in broken.problem


def rehash_whole_chain(table, *, hash_key=None):
    """What someone with the app's database login but without the key can do: edit a
    row, then recompute every hash of the chain with plain SHA-256 and move the head."""
    head = hashchain.GENESIS
    rows = list(CollectionEntry.objects.filter(table=table).order_by("seq"))
    rows[1].amount += 100
    for row in rows:
        row.prev_hash = head
        row.hash_key = row.hash_key if hash_key is None else hash_key
        row.row_hash = head = hashchain.link(head, row.chain_content(), hashchain.LEGACY)
        tamper(
            "collections_fees_collectionentry",
            "UPDATE collections_fees_collectionentry SET amount = %s, prev_hash = %s, row_hash = %s, hash_key = %s "
            "WHERE id = %s",
            [row.amount, row.prev_hash, row.row_hash, row.hash_key, row.pk],
        )
    sql("UPDATE tables_table SET collection_head = %s WHERE id = %s", [head, table.pk])


def test_a_chain_rehashed_without_the_key_is_reported_at_its_first_row(ledger):
    a = ledger.table_a
    rehash_whole_chain(a)
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert (
        f"BROKEN table {a.pk} collections seq 1: re-hashed without the ledger key: its hash is a plain SHA-256, "
        "not an HMAC under key 'test'" in out
    )


def test_a_chain_rehashed_as_if_it_predated_the_key_is_reported(ledger):
    """Marking the rows as hashed before the chains were keyed does not help: only a
    chain sealed by the keying migration may hold unkeyed rows, and only up to the seal."""
    a = ledger.table_a
    rehash_whole_chain(a, hash_key=hashchain.LEGACY)
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert (
        f"BROKEN table {a.pk} collections seq 1: hashed without the ledger key (plain SHA-256) after the chain "
        "was keyed (unkeyed rows end at seq 0)" in out
    )


def test_unkeyed_rows_verify_up_to_the_legacy_seal_only(ledger, settings, tmp_path):
    """Rows written before the chains were keyed (plain SHA-256, hash_key "") verify when
    a signed legacy checkpoint seals them, as the keying migration does."""
    settings.CARDROOM_WITNESS_DIR = tmp_path  # such rows predate the witness too
    b = ledger.table_b
    rows = list(CollectionEntry.objects.filter(table=b).order_by("seq"))
    assert len(rows) >= 2
    head = hashchain.GENESIS
    for row in rows:
        row.prev_hash, row.hash_key = head, hashchain.LEGACY
        row.row_hash = head = hashchain.link(head, row.chain_content(), hashchain.LEGACY)
        tamper(
            "collections_fees_collectionentry",
            "UPDATE collections_fees_collectionentry SET prev_hash = %s, row_hash = %s, hash_key = '' WHERE id = %s",
            [row.prev_hash, row.row_hash, row.pk],
        )
    sql("UPDATE tables_table SET collection_head = %s WHERE id = %s", [head, b.pk])
    sealed = rows[-2]  # the seal covers all but the last row
    table = Table.objects.get(pk=b.pk)
    table.collection_seq, table.collection_head = sealed.seq, sealed.row_hash
    checkpoints.write(table, gaming_day=sealed.gaming_day, kind="legacy", logs=("collections",))
    code, out = verify_logs("--table", str(b.pk))
    assert code == 1
    assert f"collections seq {rows[-1].seq}: hashed without the ledger key" in out
    assert f"unkeyed rows end at seq {sealed.seq}" in out

    table.collection_seq, table.collection_head = rows[-1].seq, rows[-1].row_hash
    checkpoints.write(table, gaming_day=rows[-1].gaming_day, kind="legacy", logs=("collections",))
    code, out = verify_logs("--table", str(b.pk))
    assert (code, chain_lines(out)) == (0, ["1 tables checked, 0 broken chains"])


def test_an_inserted_row_is_reported_as_inserted(ledger):
    """A row slipped in between seq 2 and 3 (the later rows renumbered to make room)."""
    a = ledger.table_a
    second, third = entry(a, 2), entry(a, 3)
    tamper(
        "collections_fees_collectionentry",
        "UPDATE collections_fees_collectionentry SET seq = seq + 1000000 WHERE table_id = %s AND seq >= 3",
        [a.pk],
    )
    tamper(
        "collections_fees_collectionentry",
        "UPDATE collections_fees_collectionentry SET seq = seq - 999999 WHERE table_id = %s AND seq >= 1000000",
        [a.pk],
    )
    forged = CollectionEntry(
        table=a, seq=3, round_id=third.round_id, event_id=third.event_id, kind="fee", seat=third.seat,
        player="NOBODY", payer="player", amount=99900, basis=third.basis, rate_index=third.rate_index,
        schedule_id=third.schedule_id, created_at=third.created_at, gaming_day=third.gaming_day,
        shift=third.shift, prev_hash=second.row_hash, hash_key=second.hash_key,
    )
    forged.row_hash = hashchain.link(forged.prev_hash, forged.chain_content(), hashchain.LEGACY)
    forged.save(force_insert=True)
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert f"BROKEN table {a.pk} collections seq 3: row inserted: the row after it links to seq 2, not to it" in out


def test_a_truncated_tail_with_a_rewound_head_is_caught_by_the_day_checkpoint(ledger):
    """Delete the last rows and move the table's head back to the row before them: the
    chain is consistent with the table row, but not with the signed end-of-day checkpoint
    the first command of DAY2 wrote for DAY1."""
    a = ledger.table_a
    day1 = ChainCheckpoint.objects.get(table=a, log="collections", kind="day_end", gaming_day=DAY1)
    keep = day1.last_seq - 2
    kept = entry(a, keep)
    tamper(
        "collections_fees_collectionentry",
        "DELETE FROM collections_fees_collectionentry WHERE table_id = %s AND seq > %s",
        [a.pk, keep],
    )
    sql("UPDATE tables_table SET collection_seq = %s, collection_head = %s WHERE id = %s", [keep, kept.row_hash, a.pk])
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert (
        f"BROKEN table {a.pk} collections end of chain: chain ends at seq {keep}, but the checkpoint of gaming day "
        f"{DAY1} signed seq {day1.last_seq}: rows after seq {keep} were removed and the head rewound" in out
    )


def test_a_forged_checkpoint_is_reported_and_not_trusted(ledger):
    a = ledger.table_a
    day1 = ChainCheckpoint.objects.get(table=a, log="collections", kind="day_end", gaming_day=DAY1)
    forged = ChainCheckpoint.objects.create(
        table=a, log="collections", kind="on_demand", gaming_day=DAY1, last_seq=day1.last_seq, head="f" * 64,
        rows=day1.rows, key_id="test", signature="0" * 64, created_at=day1.created_at,
    )
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert chain_lines(out) == [
        f"BROKEN table {a.pk} collections seq {day1.last_seq}: checkpoint {forged.pk} (on_demand, gaming day {DAY1}) "
        "does not carry a valid signature of key 'test': forged or altered, not used",
        "1 tables checked, 1 broken chains",
    ]


def test_a_row_rewritten_with_the_key_after_its_checkpoint_is_reported(ledger):
    """Whoever holds the key can re-sign an edited chain, but not the checkpoints already
    exported: the checkpointed row no longer has the signed head."""
    a = ledger.table_a
    day1 = ChainCheckpoint.objects.get(table=a, log="collections", kind="day_end", gaming_day=DAY1)
    head = hashchain.GENESIS
    rows = list(CollectionEntry.objects.filter(table=a).order_by("seq"))
    rows[0].player = "SOMEONE-ELSE"
    for row in rows:
        row.prev_hash = head
        row.row_hash = head = hashchain.link(head, row.chain_content(), row.hash_key)
        tamper(
            "collections_fees_collectionentry",
            "UPDATE collections_fees_collectionentry SET player = %s, prev_hash = %s, row_hash = %s WHERE id = %s",
            [row.player, row.prev_hash, row.row_hash, row.pk],
        )
    sql("UPDATE tables_table SET collection_head = %s WHERE id = %s", [head, a.pk])
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert (
        f"collections seq {day1.last_seq}: not the row the checkpoint of gaming day {DAY1} signed: rewritten after it"
        in out
    )


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
    assert chain_lines(out) == [
        f"BROKEN table {v.pk} collections seq 50000: content altered since it was written "
        "(its HMAC under key 'test' does not match)",
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


def export_with_manifest(table, tmp_path):
    out = tmp_path / "collections.csv"
    call_command(
        "export_collections", "--from", str(DAY1), "--to", str(DAY2), "--table", str(table.pk), "--out", str(out),
        "--no-progress", stdout=io.StringIO(),
    )
    return out, json.loads((tmp_path / "collections.csv.manifest.json").read_text())


def test_an_export_carries_its_checkpoints_and_verifies_offline(ledger, tmp_path):
    a = ledger.table_a
    out, manifest = export_with_manifest(a, tmp_path)
    day1 = ChainCheckpoint.objects.get(table=a, log="collections", kind="day_end", gaming_day=DAY1)
    assert checkpoints.document(day1) in manifest["checkpoints"]
    code, text = verify_logs("--checkpoints", f"{out}.manifest.json")
    assert (code, text) == (0, f"{len(manifest['checkpoints'])} checkpoints checked, 0 problems\n")


def test_an_export_of_a_rewound_chain_fails_offline(ledger, tmp_path):
    """A chain truncated (head rewound) before the export gives a file consistent with its
    own SHA-256, but it lacks rows the signed checkpoint vouches for; a row rewritten after
    its checkpoint, or a forged checkpoint, fails too. Only the key is needed."""
    a = ledger.table_a
    _, manifest = export_with_manifest(a, tmp_path)
    records = list(csv.DictReader((tmp_path / "collections.csv").read_text().splitlines()))
    day1 = ChainCheckpoint.objects.get(table=a, log="collections", kind="day_end", gaming_day=DAY1)
    assert checkpoints.verify_export(manifest, records) == (len(manifest["checkpoints"]), [])

    truncated = [r for r in records if int(r["chain_seq"]) < day1.last_seq]
    assert checkpoints.verify_export(manifest, truncated)[1] == [
        f"table {a.pk} gaming day {DAY1}: the export holds {day1.rows - 1} rows up to seq {day1.last_seq}, "
        f"the checkpoint signed {day1.rows}"
    ]
    rewritten = [{**r, "row_hash": "e" * 64} if int(r["chain_seq"]) == day1.last_seq else r for r in records]
    assert checkpoints.verify_export(manifest, rewritten)[1] == [
        f"table {a.pk} gaming day {DAY1}: row seq {day1.last_seq} is not the row the checkpoint signed (rewritten after it)"
    ]
    forged = {**manifest, "checkpoints": [{**c, "rows": c["rows"] + 1} for c in manifest["checkpoints"]]}
    assert checkpoints.verify_export(forged, records)[1][0].endswith(
        "its signature does not verify with key 'test' (forged, altered, or another key)"
    )


@pytest.mark.parametrize("path", ["/compliance/collections/summary.xlsx", "/compliance/rounds/export.csv"])
def test_an_export_without_checkpoints_verifies_offline_by_its_sha256(ledger, officer_client, asgi, tmp_path, path):
    """A workbook, a print or a CSV of rows that are no chain (rounds, counts) carries no
    checkpoints: offline, its bytes are held against its manifest, and a changed byte fails."""
    response = asgi.get(path, {"from": str(DAY1), "to": str(DAY2)})  # as Daphne serves it (streamed)
    content = response.body
    link = {k.lower(): v for k, v in response.headers.items()}["link"]
    manifest = officer_client.get(link.split(">")[0].lstrip("<")).json()
    exported = tmp_path / manifest["file"]["name"]
    exported.write_bytes(content)
    (tmp_path / "export.manifest.json").write_text(json.dumps(manifest))
    code, text = verify_logs("--checkpoints", str(tmp_path / "export.manifest.json"))
    assert (code, text) == (
        0, f"a {manifest['kind']} export carries no checkpoints: its SHA-256 and size checked\n0 checkpoints checked, 0 problems\n"
    )
    exported.write_bytes(content[:-1] + bytes([content[-1] ^ 1]))
    code, text = verify_logs("--checkpoints", str(tmp_path / "export.manifest.json"))
    assert code == 1 and f"BROKEN {exported} is not the file the manifest describes (SHA-256 or size differs)" in text
