"""Exports never carry a formula (issue 33): text people typed (seat ids, names, cash
notes, descriptions, counters' explanations, reasons) that begins with `=`, `+`, `-`,
`@`, a tab or a carriage return comes out of every CSV behind a single quote, and into
every workbook as a string cell; money stays numbers; the cash export still verifies
offline (`verify_logs --checkpoints`), the escape taken off before re-hashing.

The streamed CSVs are read over a connection of their own, which sees committed rows
only: the day is played once for this module and committed (as tests/counts/test_exports.py
does), then removed with TRUNCATE.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import zipfile
from datetime import time
from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection
from django.test import Client

from cardroom import spreadsheet
from collections_fees import counts
from patrons import cash, identity
from patrons.identity import PatronError
from tests.compliance.asgi import AsgiClient
from tests.counts.play import AFTER_THE_DAY, DAY, Clock, person, pieces
from tests.db_access import empty_tables, remove_committed
from tests import playing
from tests.engine.helpers import FEES, dealt_round, make_pd, sit

pytestmark = pytest.mark.django_db

# What an insider types where the product takes text.
LINK = '=HYPERLINK("http://evil.example/","click")'
TABLE_NAME = LINK
PLAYERS = {1: '=HYPERLINK("http://evil.example/","pd")', 2: "+1+cmd|' /C calc'!A0", 3: "@SUM(1+1)*cmd|' /C calc'!A0"}
PATRON_NUMBER = "-2+3+cmd|' /C calc'!A0"  # seated in seat 4, and the cash log's player
PATRON_NAME = "@SUM(A1:A9)"
DEALER = "@dealer-dee"  # a username may begin with @, + or -
VOID_REASON = '=HYPERLINK("http://evil.example/","void")'
BOX = "=BOX(1)"
EXPLANATION = '=HYPERLINK("http://evil.example/","short")'
NOTES = ["\t=1+1", "\r=1+1", "'=already quoted", "'tis a plain note", "-"]
LISTED = "=SUM(9)"  # on the state's self-exclusion list: a hit when named at a table
SHORT = 100  # the box counted $1 short: variance -100 cents

FORMULA_START = re.compile(r"['=+\-@\t\r]")


@pytest.fixture(scope="module")
def hostile_day(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        were_empty = empty_tables()
        clock = Clock()
        try:
            with mock.patch("django.utils.timezone.now", clock):
                yield play_hostile_day(clock)
        finally:
            remove_committed(were_empty)


def play_hostile_day(clock):
    supervisor, compliance = person("sup-sam", "supervisor"), person("officer-ola", "compliance")
    counter = person("count-cal", "count_team")
    clock.set(DAY, time(10, 0))
    patron = identity.patron_create(actor=compliance, number=PATRON_NUMBER, display_name=PATRON_NAME, legal_name="Ann Lee")
    identity.state_list_import(actor=compliance, filename="state.csv", content=f"name\n{LISTED}\n".encode())
    table = playing.new_table(TABLE_NAME, fee_schedule=FEES, boxes=False)
    box = counts.box_register(identifier=BOX, kind="fees", table_id=table.pk, actor=supervisor)
    counts.box_place(table_id=table.pk, box_id=box.pk, actor=supervisor)

    def run(commands):
        playing.run(table, *commands, actor=DEALER)

    run(sit({**PLAYERS, 4: PATRON_NUMBER}) + make_pd(1))
    run(dealt_round([2, 3, 4]))
    run([
        {"type": "open_round", "bank": 20000},
        {"type": "wager", "seat": 2, "ante": 500},
        {"type": "no_more_bets"},
        {"type": "void_round", "reason": VOID_REASON, "approved_by": "sup-sam"},
    ])
    for note in NOTES:  # each a purchase of its own: confirmed, not taken for a double tap
        cash.cash_record(table_id=table.pk, kind="chip_purchase", amount=300000, player=PATRON_NUMBER,
                         actor=supervisor, note=note, confirm=True)
    with pytest.raises(PatronError):
        cash.cash_record(table_id=table.pk, kind="chip_purchase", amount=100, player=LISTED, actor=supervisor)
    clock.set(*AFTER_THE_DAY)  # the day shift is over: its count begins
    sheet = counts.count_sheet_open(gaming_day=DAY, shift="day", actor=counter)
    expected = counts.box_expected(box_id=box.pk, gaming_day=DAY, shift="day")
    counts.box_count_record(sheet_id=sheet.pk, box_id=box.pk, denominations=pieces(expected - SHORT),
                            explanation=EXPLANATION, actor=counter)
    return {"table": table, "patron": patron, "compliance": compliance}


@pytest.fixture
def officer(hostile_day):
    client = Client()
    client.force_login(User.objects.get(pk=hostile_day["compliance"].user_id))
    return client


def csv_export(officer, path, params=None):
    response = AsgiClient(officer).get(path, params or {})
    assert response.status == 200, response.body
    return response, list(csv.DictReader(io.StringIO(response.body.decode("utf-8"), newline="")))


def assert_no_cell_starts_a_formula(rows):
    """Every cell a spreadsheet would read as a formula is a whole number (money, a
    sequence): text people typed begins with the quote."""
    for row in rows:
        for header, cell in row.items():
            if cell and cell[0] in spreadsheet.TRIGGERS:
                assert re.fullmatch(r"-\d+", cell), (header, cell)


ESCAPED = "'"


def exports(hostile_day):
    patron = hostile_day["patron"].pk
    return {
        "cash": ("/compliance/cash/export.csv", {"player": ESCAPED + PATRON_NUMBER, "display_name": ESCAPED + PATRON_NAME}),
        "mtl": ("/compliance/mtl/export.csv", {"player": ESCAPED + PATRON_NUMBER}),
        "ctr": ("/compliance/ctr/export.csv", {"player": ESCAPED + PATRON_NUMBER}, {"day": DAY.isoformat()}),
        "self_exclusion": ("/compliance/self-exclusion/export.csv", {"player": ESCAPED + LISTED}),
        "patron_history": (f"/compliance/patrons/{patron}/history.csv", {"player": ESCAPED + PATRON_NUMBER}),
        "rounds": ("/compliance/rounds/export.csv", {"table_name": ESCAPED + TABLE_NAME, "pd_player": ESCAPED + PLAYERS[1]}),
        "rotation": ("/compliance/rotation/export.csv", {"table_name": ESCAPED + TABLE_NAME, "dealer": ESCAPED + DEALER}),
        "collections": ("/compliance/collections/export.csv",
                        {"table_name": ESCAPED + TABLE_NAME, "dealer": ESCAPED + DEALER, "drop_box": ESCAPED + BOX}),
        "count_sheet": (f"/compliance/count/{DAY}/export.csv",
                        {"table_name": ESCAPED + TABLE_NAME, "box": ESCAPED + BOX, "explanation": ESCAPED + EXPLANATION}),
        "closer_summary": (f"/compliance/closer/{DAY}/export.csv",
                           {"table_name": ESCAPED + TABLE_NAME, "boxes": ESCAPED + BOX}),
    }


KINDS = ["cash", "mtl", "ctr", "self_exclusion", "patron_history", "rounds", "rotation", "collections", "count_sheet",
         "closer_summary"]


@pytest.mark.parametrize("kind", KINDS)
def test_typed_text_comes_out_of_every_csv_behind_a_quote(officer, hostile_day, kind):
    path, expected, *params = exports(hostile_day)[kind]
    _, rows = csv_export(officer, path, *params)
    assert rows
    for column, value in expected.items():
        assert value in {row[column] for row in rows}, (column, [row[column] for row in rows])
    assert_no_cell_starts_a_formula(rows)
    # Money stays a number (a negative amount too): never escaped.
    for row in rows:
        for header, cell in row.items():
            if header.endswith("_cents"):
                assert re.fullmatch(r"(-?\d+)?", cell), (header, cell)


def test_every_typed_column_of_the_logs_is_escaped(officer, hostile_day):
    """The rest of what people typed: the seat ids in the collection log and rotation, the
    void's reason in the round history, each cash note (a tab or carriage return first)."""
    _, lines = csv_export(officer, "/compliance/collections/export.csv")
    assert {line["person_id"] for line in lines} >= {ESCAPED + PLAYERS[1], ESCAPED + PLAYERS[2], ESCAPED + PATRON_NUMBER}
    _, rotation = csv_export(officer, "/compliance/rotation/export.csv")
    assert ESCAPED + PLAYERS[1] in {row["person_id"] for row in rotation}
    _, rounds = csv_export(officer, "/compliance/rounds/export.csv")
    assert ESCAPED + VOID_REASON in {row["void_reason"] for row in rounds}
    _, cash_rows = csv_export(officer, "/compliance/cash/export.csv")
    # A note starting with a quote and a trigger gets one more quote (so the escape comes
    # off exactly); one whose quote is not followed by a trigger, and plain text, do not.
    assert [row["note"] for row in cash_rows] == ["'\t=1+1", "'\r=1+1", "''=already quoted", "'tis a plain note", "'-"]
    assert all(row["employee"] == "sup-sam" for row in cash_rows)


def test_money_columns_stay_numbers(officer, hostile_day):
    _, sheet = csv_export(officer, f"/compliance/count/{DAY}/export.csv")
    assert [row["variance_cents"] for row in sheet] == [str(-SHORT)]
    _, closer = csv_export(officer, f"/compliance/closer/{DAY}/export.csv")
    assert [row["variance_cents"] for row in closer] == [str(-SHORT)]


def workbook_cells(content: bytes):
    from openpyxl import load_workbook

    with zipfile.ZipFile(io.BytesIO(content)) as package:
        sheets = [name for name in package.namelist() if name.startswith("xl/worksheets/")]
        xml = b"".join(package.read(name) for name in sheets)
    return xml, [cell for row in load_workbook(io.BytesIO(content)).active.iter_rows() for cell in row]


@pytest.mark.parametrize("path, hostile", [
    ("closer/{day}/closer.xlsx", {TABLE_NAME, BOX}),
    ("count/{day}/count.xlsx", {TABLE_NAME, BOX, EXPLANATION}),
])
def test_a_workbook_writes_typed_text_as_text_and_money_as_numbers(officer, hostile_day, path, hostile):
    response = officer.get("/compliance/" + path.format(day=DAY))
    assert response.status_code == 200
    xml, cells = workbook_cells(response.content)
    assert b"<f>" not in xml and b"<f " not in xml  # no formula anywhere in the sheet
    texts = {cell.value: cell for cell in cells if isinstance(cell.value, str)}
    for value in hostile:  # exactly what was typed, as a string cell
        assert value in texts and texts[value].data_type == "s", value
        assert texts[value].quotePrefix, value  # kept text when edited in Excel
    assert all(cell.data_type != "f" for cell in cells)
    assert -SHORT in [cell.value for cell in cells]  # variance_cents, a number
    assert -SHORT / 100 in [float(cell.value) for cell in cells if cell.data_type == "n" and cell.value is not None]


def test_the_daily_summary_workbook_writes_typed_text_as_text(officer, hostile_day):
    response = officer.get("/compliance/collections/summary.xlsx", {"from": DAY, "to": DAY})
    xml, cells = workbook_cells(response.content)
    assert b"<f>" not in xml and b"<f " not in xml
    assert any(cell.value == TABLE_NAME and cell.data_type == "s" for cell in cells)


def verify(manifest_path) -> tuple[int, str]:
    out = io.StringIO()
    try:
        call_command("verify_logs", "--checkpoints", str(manifest_path), stdout=out)
    except SystemExit as exit_:
        return exit_.code, out.getvalue()
    return 0, out.getvalue()


def export_to_files(officer, path, tmp_path):
    response, rows = csv_export(officer, path)
    manifest = officer.get(f"/compliance/exports/{response.headers['x-export-id']}/manifest.json").json()
    (tmp_path / manifest["file"]["name"]).write_bytes(response.body)
    manifest_path = tmp_path / "export.manifest.json"
    manifest_path.write_text(json.dumps(manifest))
    return tmp_path / manifest["file"]["name"], manifest_path, manifest, rows


def test_the_cash_export_with_hostile_ids_and_notes_verifies_offline(officer, hostile_day, tmp_path):
    csv_path, manifest_path, manifest, rows = export_to_files(officer, "/compliance/cash/export.csv", tmp_path)
    assert {row["player"] for row in rows} == {ESCAPED + PATRON_NUMBER}  # escaped in the file
    code, out = verify(manifest_path)
    assert code == 0 and f"{len(NOTES)} cash rows checked, 0 problems" in out, out
    # The escape is taken off exactly: a note forged into the escaped form of another
    # value ('=already quoted, one quote fewer) does not verify.
    forged = csv_path.read_bytes().replace(b"''=already quoted", b"'=already quoted")
    csv_path.write_bytes(forged)
    manifest["file"].update(sha256=hashlib.sha256(forged).hexdigest(), bytes=len(forged))
    manifest_path.write_text(json.dumps(manifest))
    code, out = verify(manifest_path)
    assert code == 1 and "cash row seq 3: its hash does not verify" in out, out


def test_the_collection_export_with_hostile_seat_ids_verifies_against_its_checkpoints(officer, hostile_day, tmp_path):
    _, manifest_path, manifest, rows = export_to_files(officer, "/compliance/collections/export.csv", tmp_path)
    assert ESCAPED + PATRON_NUMBER in {row["person_id"] for row in rows} and manifest["checkpoints"]
    code, out = verify(manifest_path)
    assert code == 0, out


# --- The escape itself ---------------------------------------------------------------------

SAMPLES = ["", "plain", "=1+1", "+1", "-1", "@x", "\tx", "\rx", "'", "'x", "'=x", "''=x", "'''@x", "x=1", " =1",
           "\n=1", "=", "'-", "''", "-500", "'tis", "é=", "=é"]


def test_unescape_undoes_escape_exactly_and_only_triggers_are_escaped():
    for value in SAMPLES:
        escaped = spreadsheet.escape(value)
        assert spreadsheet.unescape(escaped) == value, value
        assert not escaped or escaped[0] not in spreadsheet.TRIGGERS, value
        # Only a value that would start a formula (after any quotes) changes.
        assert (escaped != value) == bool(re.match(r"'*[=+\-@\t\r]", value)), value
    # Two different values never escape to the same cell.
    assert len({spreadsheet.escape(v) for v in SAMPLES}) == len(SAMPLES)


def test_the_sql_escape_is_the_python_escape():
    with connection.cursor() as cursor:
        for value in [*SAMPLES, None]:
            sql = f"SELECT {spreadsheet.escaped_sql('%s')}"
            cursor.execute(sql, [value] * sql.count("%s"))
            assert cursor.fetchone()[0] == spreadsheet.escape(value), repr(value)


def test_every_export_escapes_the_columns_people_type_and_never_money_sequences_or_hashes():
    """The columns of every CSV export, by name: the ones that hold what people typed
    (ids, names, notes, descriptions, explanations, reasons, box identifiers) are escaped;
    a column of cents, a sequence, an id number, a hash or a time never is."""
    from collections_fees import handovers, round_selectors, selectors
    from patrons import selectors as patron_selectors

    typed = {
        "table_name", "person_id", "player", "pd_player", "dealer", "reason", "void_reason", "void_approved_by",
        "drop_box", "box", "boxes", "explanation", "approved_by", "counted_by", "banked_by", "meter", "tppp_badge",
        "patron_number", "display_name", "unidentified_description", "employee", "note", "state_ref",
        "incoming_dealer", "outgoing_dealer", "plan_made_by", "rule_set",
    }
    never = re.compile(r".*(_cents|_seq|_hash|_utc|_local|_iso)|hash_key|gaming_day|seat|round_number|(?!person_id).*_id")
    specs = {
        "collections": selectors.COLLECTION_EXPORT_COLUMNS, "jackpot": selectors.JACKPOT_EXPORT_COLUMNS,
        "count_sheet": selectors.COUNT_SHEET_EXPORT_COLUMNS, "closer": selectors.CLOSER_EXPORT_COLUMNS,
        "rounds": round_selectors.ROUND_EXPORT_COLUMNS, "rotation": round_selectors.ROTATION_EXPORT_COLUMNS,
        "offers": round_selectors.OFFER_EXPORT_COLUMNS, "handovers": handovers.HANDOVER_EXPORT_COLUMNS,
        "cash": patron_selectors.CASH_COLUMNS, "ctr": patron_selectors.CTR_COLUMNS,
        "hits": patron_selectors.HITS_COLUMNS, "history": patron_selectors.HISTORY_COLUMNS,
    }
    for name, columns in specs.items():
        escaped = spreadsheet.escaped_headers(columns)
        headers = {header for header, _ in columns}
        assert escaped == headers & typed, (name, escaped ^ (headers & typed))
        assert not any(never.fullmatch(header) for header in escaped), (name, escaped)
