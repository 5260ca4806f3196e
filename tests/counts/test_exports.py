"""Count sheets and closer summaries as files: the streamed CSVs, the XLSX and the printed
closer each match their manifest byte for byte, and a second print says REPRINT.

The streamed CSV is read over a connection of its own, which sees only committed rows, so
the gaming day is played, counted and closed once for this module and committed (as
tests/compliance/conftest.py does for its ledger), then removed with TRUNCATE.
"""

import csv
import hashlib
import io
from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.test import Client

from collections_fees.models import ExportManifest
from tests.compliance.asgi import AsgiClient
from tests.db_access import empty_tables, remove_committed

from .play import AFTER_THE_DAY, DAY, Clock, count_shift, person, play, sign_and_close

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def closed_day(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        were_empty = empty_tables()
        clock = Clock()
        try:
            with mock.patch("django.utils.timezone.now", clock):
                day = play(clock)
                clock.set(*AFTER_THE_DAY)
                for shift in ("day", "swing", "grave"):
                    sign_and_close(day, count_shift(day, shift))
            yield day
        finally:
            remove_committed(were_empty)


@pytest.fixture
def officer(closed_day):
    client = Client()
    client.force_login(User.objects.get(pk=person("officer-ola", "compliance").user_id))
    return client


def manifest_of(client, response_headers) -> dict:
    return client.get(f"/compliance/exports/{response_headers['x-export-id']}/manifest.json").json()


@pytest.mark.parametrize("path", [f"/compliance/count/{DAY}/export.csv", f"/compliance/closer/{DAY}/export.csv"])
def test_a_streamed_csv_matches_its_manifest(officer, closed_day, path):
    response = AsgiClient(officer).get(path)
    assert response.status == 200
    manifest = manifest_of(officer, response.headers)
    records = list(csv.DictReader(io.StringIO(response.body.decode())))
    assert manifest["file"]["sha256"] == hashlib.sha256(response.body).hexdigest() and manifest["file"]["bytes"] == len(response.body)
    assert manifest["rows"] == len(records) > 0
    # The file names the closes it was produced for: every shift of the day, closed.
    assert set(manifest["filters"]["closes"]) == {"day", "swing", "grave"} and all(manifest["filters"]["closes"].values())


def test_the_closer_csv_ties_to_the_count_sheet_csv(officer, closed_day):
    asgi = AsgiClient(officer)
    closer = list(csv.DictReader(io.StringIO(asgi.get(f"/compliance/closer/{DAY}/export.csv").body.decode())))
    sheet = list(csv.DictReader(io.StringIO(asgi.get(f"/compliance/count/{DAY}/export.csv").body.decode())))
    counted = {}
    for row in sheet:
        if row["in_force"] == "true":
            counted[row["table_id"]] = counted.get(row["table_id"], 0) + int(row["counted_cents"])
    assert {row["table_id"]: int(row["counted_drop_cents"]) for row in closer} == counted
    assert all(row["expected_drop_cents"] == row["counted_drop_cents"] and row["variance_cents"] == "0" for row in closer)


@pytest.mark.parametrize("page, kind", [("closer", "closer_print"), ("count", "count_print")])
def test_a_printed_page_is_hashed_and_the_second_print_says_reprint(officer, closed_day, page, kind):
    first = officer.get(f"/compliance/{page}/{DAY}/print/?shift=day")
    second = officer.get(f"/compliance/{page}/{DAY}/print/?shift=day")
    for response in (first, second):
        manifest = manifest_of(officer, {"x-export-id": response["X-Export-Id"]})
        assert manifest["file"]["sha256"] == hashlib.sha256(response.content).hexdigest()
        assert manifest["kind"] == kind and manifest["rows"] > 0
    assert b"ORIGINAL" in first.content and b"REPRINT" not in first.content
    assert b"REPRINT" in second.content and "REPRINT" in second["Content-Disposition"]
    # Another shift's is an original of its own.
    assert b"ORIGINAL" in officer.get(f"/compliance/{page}/{DAY}/print/?shift=swing").content


@pytest.mark.parametrize("path, kind", [("closer/{day}/closer.xlsx", "closer_summary"), ("count/{day}/count.xlsx", "count_sheet")])
def test_a_workbook_matches_its_manifest_and_says_which_copy_it_is(officer, closed_day, path, kind):
    from openpyxl import load_workbook

    copies = []
    for _ in range(2):
        response = officer.get("/compliance/" + path.format(day=DAY))
        manifest = ExportManifest.objects.get(pk=response["X-Export-Id"])
        assert manifest.kind == kind
        assert manifest.sha256 == hashlib.sha256(response.content).hexdigest() and manifest.bytes == len(response.content)
        rows = list(load_workbook(io.BytesIO(response.content)).active.values)
        copies.append(rows[0][1])
        header = rows.index(next(r for r in rows if r and r[0] == "gaming_day"))
        assert len(rows) - header - 1 == manifest.rows > 0
        assert list(rows[header][: len(manifest.columns)]) == manifest.columns
    assert copies == ["ORIGINAL", "REPRINT"]


@pytest.mark.parametrize("name", ["count", "closer"])
def test_a_csv_exported_first_leaves_the_first_workbook_the_original(officer, closed_day, name):
    """ORIGINAL and REPRINT count per document and format (issue 22): the first XLSX of a
    shift is the original even when its CSV was exported before."""
    from openpyxl import load_workbook

    csv_first = AsgiClient(officer).get(f"/compliance/{name}/{DAY}/export.csv", {"shift": "swing"})
    assert csv_first.status == 200 and ExportManifest.objects.filter(pk=csv_first.headers["x-export-id"]).exists()
    copies = []
    for _ in range(2):
        response = officer.get(f"/compliance/{name}/{DAY}/{name}.xlsx?shift=swing")
        copies.append(list(load_workbook(io.BytesIO(response.content)).active.values)[0][1])
    assert copies == ["ORIGINAL", "REPRINT"]


def test_every_line_of_the_collection_export_names_its_drop_box(officer, closed_day):
    body = AsgiClient(officer).get("/compliance/collections/export.csv", {"from": DAY, "to": DAY}).body.decode()
    lines = list(csv.DictReader(io.StringIO(body)))
    boxes = {b.identifier for placed in closed_day.boxes.values() for b in placed}
    assert lines and {line["drop_box"] for line in lines} == boxes
