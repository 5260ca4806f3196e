"""The witness (cardroom/witness.py): chain heads kept outside the database, and what
`verify_logs` finds with them (tables/integrity.py `verify_witness`, `cross_check`).

The ledger's commands (tests/compliance/ledger.py) witnessed their heads into the
ledger's own folder as they committed. The tests tamper with the database as its owner
would (test_tamper.py `tamper`: inside the test's transaction, rolled back afterwards),
or with a copy of the witness folder as someone holding the files would.
"""

import json
import logging
import multiprocessing
import shutil
import time

import pytest

from cardroom import witness
from rounds.models import Round
from tables.models import ChainCheckpoint, Table, TableEvent
from tables.services import command_execute
from tests.engine.helpers import dealt_round, seated_with_pd
from tests.playing import new_table, run

from .ledger import DAY1, DAY2
from .test_tamper import sql, tamper, verify_logs

pytestmark = pytest.mark.django_db


def last_settled_round(table) -> Round:
    return Round.objects.filter(table=table, status="settled").order_by("-number").first()


def events_of(rnd: Round):
    return TableEvent.objects.filter(table=rnd.table, created_at__gte=rnd.opened_at, created_at__lte=rnd.closed_at)


def cut_events_after(table, keep: int, *, rewind: bool = True) -> None:
    """As the database's owner: delete the table's events after seq `keep` (and the
    rotation-log rows pointing at them, which would otherwise hold them), and, with
    `rewind`, set the table's head and version to the kept last event."""
    doomed = list(TableEvent.objects.filter(table=table, seq__gt=keep).values_list("pk", flat=True))
    assert doomed
    tamper("tables_rotationlogentry", "DELETE FROM tables_rotationlogentry WHERE event_id = ANY(%s)", [doomed])
    tamper("tables_tableevent", "DELETE FROM tables_tableevent WHERE id = ANY(%s)", [doomed])
    if rewind:
        kept = TableEvent.objects.get(table=table, seq=keep)
        sql("UPDATE tables_table SET version = %s, event_head = %s WHERE id = %s", [keep, kept.row_hash, table.pk])


def test_the_untouched_ledger_agrees_with_its_witness(ledger):
    code, out = verify_logs()
    assert code == 0, out
    last = out.splitlines()[-1]
    assert last.endswith("and the records cross-checked, 0 problems")
    reading = witness.read()
    assert reading.problems == [] and reading.files >= 1
    # Every settled or voided round of the real tables was witnessed as it ended.
    ended = {(r.table_id, r.number, r.status) for r in Round.objects.exclude(status="in_progress")}
    assert ended and ended <= {(t, n, s) for t, n, s, _ in reading.rounds}


def test_the_issues_cut_of_todays_tail_is_named_the_same_day(ledger):
    """Issue 21 item 4: the owner deletes the table's last events of the day (the plays,
    the showdown and the settle of a settled round) and moves the head and version back
    to the last kept event. The chain is consistent and no day-end checkpoint covers the
    day, so the chain checks alone pass; the witness and the round cross-check do not."""
    a = ledger.table_a
    rnd = last_settled_round(a)
    assert rnd.gaming_day == DAY2
    first_play = events_of(rnd).filter(command_type="play").order_by("seq").first()
    settle = events_of(rnd).get(command_type="settle")
    witnessed_at = Table.objects.get(pk=a.pk).version
    keep = first_play.seq - 1
    cut_events_after(a, keep)

    code, out = verify_logs()
    assert code == 1
    assert "0 broken chains" in out  # the cut chain verifies against its rewound head
    assert (
        f"BROKEN table {a.pk} events: cut tail: the chain ends at seq {keep}, but seq {witnessed_at} was witnessed" in out
    )
    assert f"BROKEN table {a.pk} events: rewound head: the head is at seq {keep}, behind the witness of seq {witnessed_at}" in out
    assert f"BROKEN table {a.pk} round {rnd.number} is settled, but no event in its chain settled it" in out
    assert settle.seq > keep


def test_a_cut_tail_left_with_its_head_is_named_a_cut(ledger):
    a = ledger.table_a
    version = Table.objects.get(pk=a.pk).version
    cut_events_after(a, version - 2, rewind=False)
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert f"events: cut tail: the chain ends at seq {version - 2}, but seq {version} was witnessed" in out
    assert "rewound head" not in out


def test_a_rewound_head_over_an_intact_chain_is_named_a_rewind(ledger):
    a = ledger.table_a
    version = Table.objects.get(pk=a.pk).version
    kept = TableEvent.objects.get(table=a, seq=version - 1)
    sql("UPDATE tables_table SET version = %s, event_head = %s WHERE id = %s", [kept.seq, kept.row_hash, a.pk])
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert f"BROKEN table {a.pk} events: rewound head: the head is at seq {kept.seq}, behind the witness of seq {version}" in out
    assert "cut tail" not in out
    # The records disagree with each other too.
    assert f"BROKEN table {a.pk}: its version is {kept.seq}, its last event is seq {version}" in out


def test_a_witnessed_row_rewritten_is_named(ledger):
    a = ledger.table_a
    version = Table.objects.get(pk=a.pk).version
    last = TableEvent.objects.get(table=a, seq=version)
    forged = "e" * 64
    tamper("tables_tableevent", "UPDATE tables_tableevent SET row_hash = %s WHERE id = %s", [forged, last.pk])
    sql("UPDATE tables_table SET event_head = %s WHERE id = %s", [forged, a.pk])
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert f"BROKEN table {a.pk} events seq {version}: not the row witnessed (" in out


def test_a_settled_round_without_its_events_is_named_without_any_witness(ledger, settings, tmp_path):
    """The records cross-check on their own (an empty witness folder): a settled round
    whose settle event is gone."""
    settings.CARDROOM_WITNESS_DIR = tmp_path
    a = ledger.table_a
    rnd = last_settled_round(a)
    cut_events_after(a, events_of(rnd).get(command_type="settle").seq - 1)
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert f"BROKEN table {a.pk} round {rnd.number} is settled, but no event in its chain settled it" in out


# --- The witness files --------------------------------------------------------------------


@pytest.fixture
def witness_copy(ledger, settings, tmp_path):
    """A copy of the ledger's witness folder, now the configured one, to be damaged."""
    copy = tmp_path / "witness"
    shutil.copytree(ledger.witness_dir, copy)
    settings.CARDROOM_WITNESS_DIR = copy
    return copy


def witness_files(folder):
    return sorted(folder.glob("w-*.jsonl"))


def test_a_witness_file_cut_at_its_end_is_named_truncated(witness_copy, ledger):
    path = witness_files(witness_copy)[0]
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) >= 3
    path.write_bytes(b"".join(lines[:-2]))
    code, out = verify_logs("--table", str(ledger.table_a.pk))
    assert code == 1
    assert (
        f"BROKEN witness file {path.name} was truncated: the index recorded {len(lines)} lines, the file ends at line "
        f"{len(lines) - 2}" in out
    )


def test_lines_removed_from_a_witness_file_are_named(witness_copy, ledger):
    path = witness_files(witness_copy)[0]
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:1] + lines[3:]))
    code, out = verify_logs("--table", str(ledger.table_a.pk))
    assert code == 1
    assert f"BROKEN witness file {path.name}: lines 2 to 3 were removed: truncated" in out


def test_a_missing_witness_file_is_named(witness_copy, ledger):
    path = witness_files(witness_copy)[0]
    path.unlink()
    code, out = verify_logs("--table", str(ledger.table_a.pk))
    assert code == 1
    assert f"BROKEN witness file {path.name} (opened " in out and ") is missing" in out


def test_a_witness_file_the_index_lost_is_named(witness_copy, ledger):
    path = witness_files(witness_copy)[0]
    index = witness_copy / witness.INDEX
    kept = [line for line in index.read_bytes().splitlines(keepends=True) if path.name.encode() not in line]
    index.write_bytes(b"".join(kept))
    code, out = verify_logs("--table", str(ledger.table_a.pk))
    assert code == 1
    assert f"BROKEN witness file {path.name} is not in the witness index: its lines there were removed" in out


def test_a_missing_index_is_named(witness_copy, ledger):
    (witness_copy / witness.INDEX).unlink()
    code, out = verify_logs("--table", str(ledger.table_a.pk))
    assert code == 1
    assert f"BROKEN the witness index {witness_copy / witness.INDEX} is missing" in out


def test_an_edited_witness_line_is_not_trusted(witness_copy, ledger):
    """Someone with the files but not the key cannot move a witnessed head back."""
    path = witness_files(witness_copy)[0]
    lines = path.read_bytes().splitlines(keepends=True)
    doc = json.loads(lines[-1])
    doc["heads"] = [[log, owner, seq - 1, head] for log, owner, seq, head in doc["heads"]]
    lines[-1] = json.dumps(doc).encode() + b"\n"
    path.write_bytes(b"".join(lines))
    code, out = verify_logs("--table", str(ledger.table_a.pk))
    assert code == 1
    assert f"BROKEN witness file {path.name} after line {len(lines) - 1}: a line not signed with the ledger key" in out


# --- Writing ------------------------------------------------------------------------------


def play_a_round(name="Witnessed"):
    table = new_table(name, boxes=False)
    run(table, *seated_with_pd([1, 2, 3], pd=1), *dealt_round([2, 3]), actor="test")
    return table


def lines_of(folder):
    return [json.loads(line) for path in witness_files(folder) for line in path.read_bytes().splitlines()]


def test_a_settle_is_witnessed_after_its_commit_never_inside(witness_dir, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        table = play_a_round()
        assert witness_files(witness_dir) == []  # nothing written inside the transaction
    lines = lines_of(witness_dir)
    settle = [line for line in lines if line["why"] == "settle"]
    assert len(settle) == 1 and settle[0]["rounds"] == [[table.pk, 1, "settled"]]
    table.refresh_from_db()
    assert ["events", table.pk, table.version, table.event_head] in settle[0]["heads"]
    assert ["collections", table.pk, table.collection_seq, table.collection_head] in settle[0]["heads"] or (
        table.collection_seq == 0
    )


def test_other_commands_are_witnessed_within_the_interval(witness_dir, settings, django_capture_on_commit_callbacks):
    settings.CARDROOM_WITNESS_INTERVAL = 0.2
    table = new_table("Quiet", boxes=False)
    with django_capture_on_commit_callbacks(execute=True):
        assert command_execute(table_id=table.pk, command={"type": "sit", "seat": 1, "player": "P-1"}, actor="test").ok
    assert lines_of(witness_dir) == []  # not at once: no round ended
    deadline = time.monotonic() + 5
    while not lines_of(witness_dir) and time.monotonic() < deadline:
        time.sleep(0.05)
    table.refresh_from_db()
    (line,) = lines_of(witness_dir)
    assert line["why"] == "interval" and line["heads"] == [["events", table.pk, table.version, table.event_head]]
    index = [json.loads(raw) for raw in (witness_dir / witness.INDEX).read_bytes().splitlines()]
    assert [entry["event"] for entry in index] == ["open", "mark"] and index[1]["lines"] == 1


def test_a_failed_witness_write_loses_no_command_and_is_logged_loudly(
    witness_dir, settings, caplog, django_capture_on_commit_callbacks
):
    witness_dir.mkdir()
    blocked = witness_dir / "blocked"
    blocked.write_text("a file where the witness folder should be")
    settings.CARDROOM_WITNESS_DIR = blocked
    with caplog.at_level(logging.CRITICAL, logger="cardroom.witness"), django_capture_on_commit_callbacks(execute=True):
        table = play_a_round()
    assert Round.objects.get(table=table, number=1).status == "settled"  # the command stands
    assert any(r.levelno == logging.CRITICAL and "WITNESS WRITE FAILED" in r.getMessage() for r in caplog.records)
    # The folder is back: the heads kept pending are written by the next write.
    blocked.unlink()
    witness.flush()
    table.refresh_from_db()
    heads = [head for line in lines_of(blocked) for head in line["heads"]]
    assert ["events", table.pk, table.version, table.event_head] in heads
    assert [table.pk, 1, "settled"] in [r for line in lines_of(blocked) for r in line["rounds"]]


FORKED_DB = "5e1f0c1e-0000-4000-8000-00000000000f"  # the children do not open the database


def _write_many(count):
    for i in range(1, count + 1):
        witness.committed(
            [("events", 10_000 + i % 7, i, f"{i:064x}")], rounds=[(10_000, i, "settled")], urgent=True, database=FORKED_DB
        )
    witness.flush()


def test_several_processes_write_one_folder_without_a_lock(witness_dir):
    """Four processes (as Daphne workers would) each append to their own file and to the
    shared index at once: every line lands whole, every file verifies."""
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_write_many, args=(300,)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
        assert worker.exitcode == 0
    reading = witness.read(witness_dir, database=FORKED_DB)
    assert reading.problems == []
    assert (reading.files, reading.lines, len(reading.rounds)) == (4, 1200, 1200)


# --- The witness belongs to one database --------------------------------------------------

OTHER_KEY = "other:a-second-database-with-its-own-ledger-key-0123456789"


def this_database():
    return witness.database_identity().uuid


def witness_as_another_database(settings, heads, *, rounds=()):
    """What a second database used from the same checkout does: its own identity and its
    own ledger key (each embedded database generates one), the same folder."""
    own_key = settings.CARDROOM_LEDGER_KEY
    settings.CARDROOM_LEDGER_KEY = OTHER_KEY
    try:
        witness.committed(heads, rounds=rounds, urgent=True, database="5e1f0c1e-0000-4000-8000-000000000002")
        witness.close()
    finally:
        settings.CARDROOM_LEDGER_KEY = own_key


def test_every_witness_and_index_line_names_its_database(witness_dir, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        play_a_round()
    witness.close()
    index = [json.loads(raw) for raw in (witness_dir / witness.INDEX).read_bytes().splitlines()]
    assert lines_of(witness_dir) and index
    assert {line["db"] for line in lines_of(witness_dir) + index} == {this_database()}


def test_two_databases_writing_one_folder_each_verify_clean(
    witness_dir, settings, django_capture_on_commit_callbacks
):
    """Issue 33 finding 6: a second database (another identity, another ledger key) writes
    into this database's folder; this database's untouched records still verify clean, and
    the other's lines are named as that, not as forged ones."""
    with django_capture_on_commit_callbacks(execute=True):
        table = play_a_round()
    witness.close()
    # The other database's tables have the same ids as this one's: its heads must not be
    # held against this database's chains either.
    witness_as_another_database(settings, [("events", table.pk, 999, "f" * 64)], rounds=[(table.pk, 1, "voided")])

    code, out = verify_logs()
    assert code == 0, out
    assert "NOTE 4 lines of another database (id 5e1f0c1e-0000-4000-8000-000000000002): not checked" in out
    assert "forged" not in out and "BROKEN" not in out
    assert out.splitlines()[-1].endswith("and the records cross-checked, 0 problems")


def test_a_line_of_this_database_relabelled_as_another_is_named_a_removal(
    witness_dir, settings, django_capture_on_commit_callbacks
):
    """Someone with the files but not the key cannot hide a line by making it another
    database's: this database's file then lacks it."""
    with django_capture_on_commit_callbacks(execute=True):
        play_a_round()
        play_a_round("Second")
    witness.close()
    (path,) = witness_files(witness_dir)
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) >= 2
    doc = json.loads(lines[0])
    doc["db"] = "5e1f0c1e-0000-4000-8000-000000000003"
    lines[0] = json.dumps(doc).encode() + b"\n"
    path.write_bytes(b"".join(lines))
    code, out = verify_logs()
    assert code == 1
    assert f"BROKEN witness file {path.name}: lines 1 to 1 were removed: truncated" in out


def test_the_default_witness_folder_moves_with_the_local_database(tmp_path):
    """CARDROOM_LOCALDB_DIR moves the database, its ledger key and its witness together,
    so a second database run from the checkout writes a witness of its own."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("CARDROOM_WITNESS_DIR", "DJANGO_SETTINGS_MODULE")}
    env.update(CARDROOM_LOCALDB_DIR=str(tmp_path / "second"), DJANGO_SETTINGS_MODULE="config.settings.base")
    env["DATABASE_URL"] = "postgresql://nobody@127.0.0.1:1/none"  # settings only: nothing connects
    code = "from django.conf import settings as s; print(s.CARDROOM_WITNESS_DIR); print(s.CARDROOM_LEDGER_DEV_KEY_FILE)"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    witness_folder, key_file = done.stdout.split()
    assert witness_folder == str(tmp_path / "second" / "witness")
    assert key_file == str(tmp_path / "second" / "ledger-key")


# --- Deletions the database's own rows name -----------------------------------------------


def test_the_deleted_witness_folder_is_named_by_the_databases_rows(
    witness_dir, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """Issue 33 finding 5: every witness file and the index deleted while the database
    holds the commands they witnessed."""
    from tables import integrity

    with django_capture_on_commit_callbacks(execute=True):
        table = play_a_round()
    witness.close()
    table.refresh_from_db()
    code, out = verify_logs()
    assert code == 0, out  # the untouched witness covers the rows

    shutil.rmtree(witness_dir)
    # Within the interval the rows may not be written yet: no problem (an hour's interval,
    # so the check does not hang on how fast a loaded machine runs the test).
    settings.CARDROOM_WITNESS_INTERVAL = 3600
    code, out = verify_logs()
    assert code == 0, out
    # Past it (the interval and its slack gone by), the rows are in no line.
    settings.CARDROOM_WITNESS_INTERVAL = 0
    monkeypatch.setattr(integrity, "WITNESS_SLACK_SECONDS", 0)
    code, out = verify_logs()
    assert code == 1
    assert (
        f"BROKEN table {table.pk} events: {table.version} rows written since the witness began (seq 1 to {table.version}, "
        in out
    )
    assert f"are in no witness line of this database (id {this_database()}): witness files or lines deleted" in out


def test_a_witnessed_head_covers_the_rows_before_it(
    witness_dir, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """Only the rows past the last witnessed head count: a lost last line names its rows."""
    from tables import integrity

    settings.CARDROOM_WITNESS_INTERVAL = 0
    monkeypatch.setattr(integrity, "WITNESS_SLACK_SECONDS", 0)
    with django_capture_on_commit_callbacks(execute=True):
        table = play_a_round()
    witness.close()
    witnessed = Table.objects.get(pk=table.pk).version
    # Committed (in the test's transaction) and never witnessed: its line was lost.
    assert command_execute(table_id=table.pk, command={"type": "sit", "seat": 4, "player": "P-4"}, actor="test").ok
    code, out = verify_logs()
    assert code == 1
    assert f"BROKEN table {table.pk} events: 1 rows written since the witness began (seq {witnessed + 1} to {witnessed + 1}, " in out


def test_the_day_end_checkpoints_deleted_are_named(ledger):
    """Issue 33 finding 5: every checkpoint deleted. Table A's first gaming day was closed
    by the second day's first command, which signed where both chains stood."""
    a = ledger.table_a
    assert ChainCheckpoint.objects.filter(table=a, kind="day_end", gaming_day=DAY1).count() == 2
    code, out = verify_logs("--table", str(a.pk))
    assert code == 0, out
    tamper("tables_chaincheckpoint", "DELETE FROM tables_chaincheckpoint")
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    for log in ("events", "collections"):
        assert f"BROKEN table {a.pk} {log}: gaming day {DAY1} is closed (its " in out
    assert "but has no day-end checkpoint: deleted" in out
    assert f"gaming day {DAY2} is closed" not in out  # the table's current day is not closed
