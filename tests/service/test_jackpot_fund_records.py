"""The jackpot fund for compliance: the page listing each meter (amount, reserve, owed)
and its ledger's rows by gaming day and meter, and the jackpot export's manifest carrying
the meters' signed checkpoints, so the file is checked offline with the ledger key alone
(`verify_logs --checkpoints FILE.manifest.json`), as the collection log's is."""

import csv
import hashlib
import io
import json
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from cardroom.gaming_day import calendar
from collections_fees.models import JackpotCheckpoint, JackpotMeter
from tests.engine.test_sidebets import PROGRESSIVE

from tests.playing import new_table, run_ok
from .test_sidebets_service import D_COMMANDS, D_TABLE

OTHER_METER = {**PROGRESSIVE, "meter": {**PROGRESSIVE["meter"], "name": "UTH-PROG-2", "meter": 50000, "reserve": 0}}


def example_d_table():
    """Worked example D settled: meter UTH-PROG-1 holds its opening, two contributions
    and seat 2's full-house award."""
    table = new_table("D", **{k: v for k, v in D_TABLE.items() if k != "name"}, boxes=False)
    run_ok(table, *D_COMMANDS)
    return table


def today() -> str:
    return calendar().gaming_day(timezone.now()).isoformat()


@pytest.fixture
def officer(db):
    user = User.objects.create_user("olga", password="pw")
    user.groups.add(Group.objects.get_or_create(name="compliance")[0])
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_the_page_lists_each_meter_and_its_rows_filtered_by_meter_and_gaming_day(officer):
    example_d_table()
    other = new_table("E", side_bets={"progressive": OTHER_METER}, boxes=False)
    run_ok(other, *({"type": "sit", "seat": s, "player": f"E-{s}"} for s in (1, 2)),
           {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, {"type": "open_round", "bank": 1000},
           {"type": "wager", "seat": 2, "ante": 100, "progressive": True}, {"type": "no_more_bets"})

    page = officer.get("/compliance/jackpot/")  # this month: both meters, all their rows
    assert page.status_code == 200
    assert [(m["name"], m["meter"], m["reserve"], m["owed"], m["lines"]) for m in page.context["meters"]] == [
        ("UTH-PROG-1", 999160, 600040, 0, 4), ("UTH-PROG-2", 50080, 20, 0, 2)
    ]
    assert page.context["page"].paginator.count == 6

    one = officer.get("/compliance/jackpot/", {"meter": "UTH-PROG-1", "from": today(), "to": today()})
    (meter,) = one.context["meters"]
    assert (meter["contributions"], meter["contributed"], meter["awards"], meter["awards_paid"]) == (2, 200, 1, 1000)
    rows = list(one.context["page"])
    assert [(r["meter_name"], r["seq"], r["kind"], r["amount"]) for r in rows] == [
        ("UTH-PROG-1", 1, "opening", 1600000), ("UTH-PROG-1", 2, "contribution", 100),
        ("UTH-PROG-1", 3, "contribution", 100), ("UTH-PROG-1", 4, "award", 1000),
    ]
    text = one.content.decode()
    assert "$9,991.60" in text and "$6,000.40" in text and "jackpot/export.csv?" in text and "meter=UTH-PROG-1" in text

    yesterday = (calendar().gaming_day(timezone.now()) - timedelta(days=1)).isoformat()
    earlier = officer.get("/compliance/jackpot/", {"from": yesterday, "to": yesterday})
    assert earlier.context["page"].paginator.count == 0
    assert [(m["name"], m["lines"], m["meter"]) for m in earlier.context["meters"]] == [
        ("UTH-PROG-1", 0, 999160), ("UTH-PROG-2", 0, 50080)  # the fund now, whatever the days shown
    ]
    assert officer.get("/compliance/jackpot/", {"from": "2026-13-01"}).status_code == 400


def export_jackpot(tmp_path, *options):
    out = tmp_path / "jackpot.csv"
    call_command("export_collections", "--log", "jackpot", "--from", today(), "--to", today(), "--out", str(out),
                 "--by", "olga", "--no-progress", *options, stdout=io.StringIO())
    return out, json.loads((tmp_path / "jackpot.csv.manifest.json").read_text())


def verify_offline(manifest_path) -> tuple[int, str]:
    out = io.StringIO()
    try:
        call_command("verify_logs", "--checkpoints", str(manifest_path), stdout=out)
        return 0, out.getvalue()
    except SystemExit as exit_:
        return exit_.code, out.getvalue()


@pytest.mark.django_db(transaction=True)  # the export reads over its own connection: committed rows
def test_the_jackpot_export_carries_signed_meter_checkpoints_and_verifies_offline(tmp_path):
    example_d_table()
    out, manifest = export_jackpot(tmp_path, "--meter", "UTH-PROG-1")
    meter = JackpotMeter.objects.get(name="UTH-PROG-1")
    (signed,) = manifest["checkpoints"]  # written for the export: it reaches today
    assert {k: signed[k] for k in ("meter", "log", "gaming_day", "last_seq", "head", "rows")} == {
        "meter": meter.pk, "log": "jackpot", "gaming_day": today(), "last_seq": 4, "head": meter.entry_head, "rows": 4,
    }
    assert JackpotCheckpoint.objects.filter(meter=meter).count() == 1
    assert manifest["filters"]["meter"] == "UTH-PROG-1"
    assert verify_offline(f"{out}.manifest.json") == (0, "1 checkpoints checked, 0 problems\n")

    # A file without the award row, made consistent with its own manifest (SHA-256 and
    # size), still lacks a row the signed checkpoint vouches for.
    lines = out.read_text().splitlines(keepends=True)
    cut = "".join(lines[:-1]).encode()
    out.write_bytes(cut)
    (tmp_path / "jackpot.csv.manifest.json").write_text(json.dumps(
        {**manifest, "rows": 3, "file": {**manifest["file"], "sha256": hashlib.sha256(cut).hexdigest(), "bytes": len(cut)}}
    ))
    code, text = verify_offline(f"{out}.manifest.json")
    assert code == 1
    assert f"meter {meter.pk} gaming day {today()}: the export holds 3 rows up to seq 4, the checkpoint signed 4" in text


@pytest.mark.django_db(transaction=True)
def test_a_forged_meter_checkpoint_or_a_table_narrowed_export_does_not_pass(tmp_path):
    from cardroom.checkpoints import verify_export

    example_d_table()
    _, manifest = export_jackpot(tmp_path)
    records = list(csv.DictReader((tmp_path / "jackpot.csv").read_text().splitlines()))
    assert verify_export(manifest, records) == (1, [])
    assert {r["meter_id"] for r in records} == {str(manifest["checkpoints"][0]["meter"])}
    forged = {**manifest, "checkpoints": [{**c, "rows": c["rows"] - 1} for c in manifest["checkpoints"]]}
    (problem,) = verify_export(forged, records)[1]
    assert problem.endswith("its signature does not verify with key 'test' (forged, altered, or another key)")
    rewritten = [{**r, "row_hash": "e" * 64} if r["chain_seq"] == "4" else r for r in records]
    assert verify_export(manifest, rewritten)[1][0].endswith("row seq 4 is not the row the checkpoint signed (rewritten after it)")
    # A meter's chain runs across its tables: an export of one table's rows cannot hold it whole.
    _, narrowed = export_jackpot(tmp_path, "--table", str(records[1]["table_id"]))
    assert verify_export(narrowed, [])[1] == ["the export is narrowed by table: its rows cannot be checked against checkpoints"]
