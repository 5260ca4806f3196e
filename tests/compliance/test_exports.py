"""Streamed CSV exports on 100,000+ fee lines: they start sending before the result has
been read, their memory stays flat, their manifest matches the bytes, the command line
writes the same bytes, and what they contain (refund rows, filters, rotation, rounds)."""

import csv
import hashlib
import io
import json
import tracemalloc

import psycopg
import pytest
from asgiref.sync import async_to_sync
from django.core.management import call_command

from collections_fees.exports import CsvExport
from collections_fees.models import CollectionEntry, ExportManifest
from cardroom.sql import Filters
from collections_fees.selectors import collection_lines_query
from tests.db_access import owner_connection_params

from .ledger import DAY1, DAY2, VOLUME_DAYS, VOLUME_FEES_PER_DAY

pytestmark = pytest.mark.django_db

EXPORT = "/compliance/collections/export.csv"
PER_DAY_ROWS = VOLUME_FEES_PER_DAY + VOLUME_FEES_PER_DAY // 50


def records(body: bytes) -> list[dict]:
    return list(csv.DictReader(io.StringIO(body.decode("utf-8"))))


async def copy_still_running() -> bool:
    """Whether a connection other than ours is still executing an export's COPY."""
    # The observer is the owner: the app role's exports run as the app role, and only the
    # session's own role (or a superuser) sees the query text in pg_stat_activity.
    async with await psycopg.AsyncConnection.connect(**owner_connection_params(), autocommit=True) as conn:
        cursor = await conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
            "AND query LIKE 'COPY (SELECT%' AND pid <> pg_backend_pid()"
        )
        return (await cursor.fetchone())[0] > 0


def test_the_first_chunk_is_sent_while_most_rows_are_still_unread(ledger):
    export = CsvExport(
        kind="collections",
        query=collection_lines_query(Filters(table=ledger.volume.pk)),
        filters={"table": ledger.volume.pk},
        requested_by="test",
    )
    total = PER_DAY_ROWS * len(VOLUME_DAYS)

    async def first_chunk():
        stream = export.stream()
        chunk = await anext(stream)
        seen = (chunk, export.rows, await copy_still_running())
        await stream.aclose()  # the client goes away
        return seen

    chunk, rows_read, running = async_to_sync(first_chunk)()
    assert chunk.startswith(b"gaming_day,shift,time_utc,time_local,table_id,")
    # ~400 of 102,000 rows had been read from PostgreSQL when the first bytes left, and
    # the server was still sending the rest.
    assert 0 < rows_read < total / 50, rows_read
    assert chunk.count(b"\n") == rows_read + 1
    assert running
    # An export that did not finish has no manifest.
    assert not ExportManifest.objects.filter(pk=export.export_id).exists()
    assert not async_to_sync(copy_still_running)()  # the COPY was cancelled


def export_peak(asgi, params) -> tuple[object, int]:
    """Stream an export through the ASGI handler, the body discarded as it arrives; the
    peak of Python memory allocated meanwhile (tracemalloc), above where it started."""
    tracemalloc.start()
    try:
        start, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        response = asgi.get(EXPORT, params, keep_body=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return response, peak - start


def test_memory_stays_flat_from_10000_to_100000_rows(ledger, asgi):
    table = ledger.volume.pk
    asgi.get(EXPORT, {"table": table, "from": DAY2, "to": DAY2})  # warm up (imports, first connection)
    small, small_peak = export_peak(asgi, {"table": table, "from": VOLUME_DAYS[0], "to": VOLUME_DAYS[0]})
    large, large_peak = export_peak(asgi, {"table": table, "from": VOLUME_DAYS[0], "to": VOLUME_DAYS[-1]})
    assert small.status == large.status == 200
    small_rows = ExportManifest.objects.get(pk=small.headers["x-export-id"]).rows
    large_rows = ExportManifest.objects.get(pk=large.headers["x-export-id"]).rows
    assert (small_rows, large_rows) == (PER_DAY_ROWS, PER_DAY_ROWS * len(VOLUME_DAYS))
    assert large.chunks > 100  # sent in many pieces, not as one body
    # Ten times the rows, about the same memory; a small fraction of the bytes sent.
    assert large_peak < 4 * 1024 * 1024, large_peak
    assert large_peak < 1.5 * small_peak, (small_peak, large_peak)
    assert large_peak < large.size / 5, (large_peak, large.size)


def test_under_asgi_the_first_body_chunk_leaves_while_postgresql_is_still_sending(ledger, asgi):
    seen = {}

    async def on_first_chunk(body):
        seen["running"] = await copy_still_running()
        seen["rows"] = body.count(b"\n") - 1

    response = asgi.get(EXPORT, {"table": ledger.volume.pk}, keep_body=False, on_first_chunk=on_first_chunk)
    assert response.status == 200 and response.headers["content-type"] == "text/csv; charset=utf-8"
    assert seen["running"] and seen["rows"] < 1000, seen


def test_the_manifest_matches_the_bytes_sent(ledger, asgi, officer_client):
    params = {"table": ledger.table_a.pk, "from": DAY1, "to": DAY2}
    response = asgi.get(EXPORT, params)
    export_id = response.headers["x-export-id"]
    assert f"/compliance/exports/{export_id}/manifest.json" in response.headers["link"]
    assert response.headers["content-disposition"].startswith('attachment; filename="collections_2026-03-02_2026-03-03_table-')
    manifest = officer_client.get(f"/compliance/exports/{export_id}/manifest.json").json()
    assert manifest["file"]["sha256"] == hashlib.sha256(response.body).hexdigest() == response.sha256
    assert manifest["file"]["bytes"] == len(response.body)
    assert manifest["rows"] == len(records(response.body)) > 0
    assert manifest["filters"] == {"day_from": "2026-03-02", "day_to": "2026-03-03", "table": ledger.table_a.pk}
    assert manifest["requested_by"] == "officer-olga" and manifest["source"] == "http"
    assert manifest["time_zone"] == "America/Los_Angeles"
    assert manifest["columns"] == list(records(response.body)[0])
    # The manifests page lists it.
    assert export_id in officer_client.get("/compliance/exports/").content.decode()


def test_refunds_for_uncovered_seats_and_voids_are_their_own_rows_in_the_export(ledger, asgi):
    rows = records(asgi.get(EXPORT, {"table": ledger.table_a.pk, "from": DAY1, "to": DAY1}).body)
    refunds = [(r["round_number"], r["seat"], r["reason"], r["refund_cents"]) for r in rows if r["line"] == "refund"]
    assert refunds == [
        ("3", "1", "bank_could_not_act", "100"),
        ("3", "2", "bank_could_not_act", "100"),
        ("4", "1", "round_voided", "100"),
        ("4", "2", "round_voided", "100"),
        ("4", "3", "round_voided", "200"),  # the player-dealer's fee: two betting squares
    ]
    by_seq = {r["chain_seq"]: r for r in rows}
    for refund in (r for r in rows if r["line"] == "refund"):
        fee = by_seq[refund["refund_of_seq"]]
        assert fee["line"] == "fee" and fee["status"] == "refunded" and fee["reason"] == refund["reason"]
        assert fee["refunded_by_seq"] == refund["chain_seq"] and fee["fee_cents"] == refund["refund_cents"]
    collected = [r for r in rows if r["line"] == "fee" and r["status"] == "collected"]
    assert collected and all(r["reason"] == "" and r["refund_cents"] == "" for r in collected)
    first = rows[0]
    # 10:00 in Los Angeles on 2 March 2026 (PST), 18:00 UTC; money in cents.
    assert first["time_local"].startswith("2026-03-02T10:") and first["time_local"].endswith("-08:00")
    assert first["time_utc"].startswith("2026-03-02T18:") and first["time_utc"].endswith("Z")
    assert (first["gaming_day"], first["shift"], first["dealer"]) == ("2026-03-02", "day", "dealer-ann")
    # Per betting square: the player-dealer pays the pd fee of each of the three squares.
    assert first["payer_role"] == "player_dealer" and first["basis_cents"] == "3000" and first["fee_cents"] == "300"


@pytest.mark.parametrize(
    "params, expect",
    [
        ({"dealer": "dealer-bob"}, lambda r: r["dealer"] == "dealer-bob"),
        ({"payer": "player_dealer"}, lambda r: r["payer_role"] == "player_dealer"),
        ({"player": "P-2"}, lambda r: r["person_id"] == "P-2"),
        ({"from": DAY2, "to": DAY2}, lambda r: r["gaming_day"] == "2026-03-03"),
    ],
)
def test_export_filters_select_the_same_rows_as_the_page(ledger, asgi, officer_client, params, expect):
    base = {"table": ledger.table_a.pk, "from": DAY1, "to": DAY2}
    wanted = {**base, **params}
    everything = records(asgi.get(EXPORT, base).body)
    selected = records(asgi.get(EXPORT, wanted).body)
    assert selected and len(selected) < len(everything)
    assert selected == [r for r in everything if expect(r)]
    page = officer_client.get("/compliance/collections/", wanted)
    assert [str(row["seq"]) for row in page.context["page"]] == [r["chain_seq"] for r in selected]


def test_a_bad_filter_is_refused(asgi):
    response = asgi.get(EXPORT, {"from": "2026-03-05", "to": "2026-03-01"})
    assert response.status == 400 and b"after the last" in response.body


def test_the_command_line_export_writes_the_same_bytes_and_its_manifest(ledger, asgi, tmp_path):
    day = VOLUME_DAYS[3]
    http = asgi.get(EXPORT, {"from": day, "to": day})
    out = tmp_path / "collections.csv"
    progress, stdout = io.StringIO(), io.StringIO()
    call_command(
        "export_collections", "--from", str(day), "--to", str(day), "--out", str(out), "--by", "olga",
        stdout=stdout, stderr=progress,
    )
    data = out.read_bytes()
    assert data == http.body
    manifest = json.loads((tmp_path / "collections.csv.manifest.json").read_text())
    assert manifest["file"]["sha256"] == hashlib.sha256(data).hexdigest()
    assert manifest["rows"] == PER_DAY_ROWS and manifest["file"]["name"] == "collections.csv"
    assert manifest["source"] == "cli" and manifest["requested_by"] == "olga"
    assert ExportManifest.objects.filter(pk=manifest["export_id"], source="cli").exists()
    assert "100%" in progress.getvalue() and "rows" in progress.getvalue()  # the progress bar
    assert not (tmp_path / "collections.csv.part").exists()


def test_rotation_export_shows_offers_answers_banks_runs_and_the_stop(ledger, asgi):
    response = asgi.get("/compliance/rotation/export.csv", {"table": ledger.table_a.pk})
    rows = records(response.body)
    actions = [r["action"] for r in rows]
    for action in ("offer", "accept", "decline", "pass", "limit_reached", "stopped", "banked"):
        assert action in actions, action
    assert actions[-1] == "stopped" and actions[-2] == "decline"
    banked = [(r["round_number"], r["person_id"], r["consecutive_banked"], r["round_status"]) for r in rows if r["action"] == "banked"]
    assert banked == [
        ("1", "P-1", "1", "settled"),
        ("2", "P-1", "2", "settled"),
        ("3", "P-3", "1", "settled"),
        ("4", "P-3", "", "voided"),  # a voided round does not count for rotation
        ("5", "P-3", "2", "settled"),
        ("6", "P-4", "1", "settled"),
    ]
    assert all(r["bank_limit"] == "2" for r in rows if r["action"] == "banked")
    # The limit reached after round 2 was followed by offers, a decline and an acceptance.
    after = actions[actions.index("limit_reached"):]
    assert after[:5] == ["limit_reached", "offer", "decline", "offer", "accept"]
    assert ExportManifest.objects.get(pk=response.headers["x-export-id"]).rows == len(rows)


def test_round_export_has_inputs_settlement_and_the_player_dealers_result(ledger, asgi):
    rows = {r["round_number"]: r for r in records(asgi.get("/compliance/rounds/export.csv", {"table": ledger.table_a.pk}).body)}
    assert list(rows) == ["1", "2", "3", "4", "5", "6"]
    exhausted = rows["3"]
    assert (exhausted["pd_seat"], exhausted["bank_cents"], exhausted["pd_net_cents"], exhausted["bank_exhausted"]) == ("3", "500", "-500", "true")
    assert exhausted["pd_hand"] == "high_card" and exhausted["pd_qualifies"] == "false"
    assert exhausted["community"] == "Ah Kc 7d 8s 9h" and exhausted["pd_hole"] == "2c 3d"
    assert exhausted["player_hole"] == "1:4c 5c;2:6h 6d;4:As Ad"
    assert "4:play:1000:win:500:500" in exhausted["settlement"].split(" ")
    assert exhausted["wagers"].split(" ")[:2] == ["1:ante:1000", "1:blind:1000"]
    assert "4:river:play:1000" in exhausted["decisions"].split(" ")
    assert (exhausted["fees_cents"], exhausted["refunds_cents"]) == ("600", "200")
    voided = rows["4"]
    assert (voided["status"], voided["void_reason"], voided["void_approved_by"]) == ("voided", "shuffler malfunction", "sup-carla")
    assert voided["fees_cents"] == voided["refunds_cents"] == "400"


def test_daily_summary_xlsx_has_the_totals_and_a_manifest(ledger, officer_client):
    from openpyxl import load_workbook

    response = officer_client.get("/compliance/collections/summary.xlsx", {"from": DAY1, "to": DAY2})
    assert response.status_code == 200
    content = response.content
    sheet = load_workbook(io.BytesIO(content)).active
    rows = list(sheet.iter_rows(values_only=True))
    header = rows.index(next(r for r in rows if r and r[0] == "gaming_day"))
    data = [dict(zip(rows[header], r)) for r in rows[header + 1 :]]
    a_day1 = next(r for r in data if r["table_id"] == ledger.table_a.pk and str(r["gaming_day"])[:10] == "2026-03-02")
    assert a_day1["expected_drop_cents"] == a_day1["fees_cents"] - a_day1["refunds_cents"]
    assert a_day1["refunds_cents"] == 200 + 400 and a_day1["counted_cents"] is None
    # Not counted at all: every shift that collected is named as not counted yet.
    shifts = set(CollectionEntry.objects.filter(table=ledger.table_a, gaming_day="2026-03-02").values_list("shift", flat=True))
    assert shifts and set(a_day1["uncounted_shifts"].split()) == shifts
    manifest = ExportManifest.objects.get(pk=response["X-Export-Id"])
    assert manifest.sha256 == hashlib.sha256(content).hexdigest() and manifest.rows == len(data)
    assert manifest.kind == "daily_summary" and manifest.bytes == len(content)
    # A download like the CSV exports: it names its manifest and no cache keeps a copy.
    assert f"/compliance/exports/{manifest.pk}/manifest.json" in response["Link"]
    assert response["Cache-Control"] == "no-store"
