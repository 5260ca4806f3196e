"""The hand-over log in the compliance records (issue 26; collections_fees/handovers.py):
every dealer hand-over on a page and in a streamed CSV export whose manifest verifies
offline (`verify_logs --checkpoints`), filtered by days, table and dealer."""

import csv
import io
import json
from datetime import timedelta, timezone as dt_timezone

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from cardroom.access import Actor
from cardroom.gaming_day import calendar
from collections_fees.models import ExportManifest
from tables.models import DealerAssignment, DealerHandover
from tables.relief import handover_take, relief_plan_make
from tests.compliance.asgi import AsgiClient

# The export reads over its own connection: the rows must be committed.
pytestmark = pytest.mark.django_db(transaction=True)


def person(name, role):
    user = User.objects.create_user(name, password="pw-" + name)
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


@pytest.fixture
def handed_over(make_table):
    """Two tables; at the first push Ben takes UTH-1 over from Ana, Ana takes UTH-2 (nobody there)."""
    sup, ana, ben = person("sam", "supervisor"), person("ana", "dealer"), person("ben", "dealer")
    one, two = make_table(), make_table()
    one.name, two.name = "UTH-1", "UTH-2"
    one.save(update_fields=["name"])
    two.save(update_fields=["name"])
    now, cal = timezone.now(), calendar()
    DealerAssignment.objects.create(dealer=ana, table=one, gaming_day=cal.gaming_day(now), shift=cal.shift(now),
                                    assigned_by=sup, assigned_at=now)
    start = max(now - timedelta(seconds=30), cal.shift_bounds(cal.gaming_day(now), cal.shift(now))[0])
    plan = relief_plan_make(dealers=[ben.pk, ana.pk], tables=[one.pk, two.pk], starts_at=start, actor=Actor.of(sup))
    first = handover_take(table_id=one.pk, actor=Actor.of(ben, address="10.0.0.2", session="secret-session-key"))
    second = handover_take(table_id=two.pk, actor=Actor.of(ana))
    officer = Client()
    officer.force_login(person("olga", "compliance"))
    return {"plan": plan, "first": first, "second": second, "one": one, "two": two, "officer": officer,
            "day": cal.gaming_day(now)}


def records(body: bytes) -> list[dict]:
    return list(csv.DictReader(io.StringIO(body.decode("utf-8"))))


def test_the_export_lists_every_hand_over_with_both_dealers_the_round_boundary_and_its_push(handed_over):
    h = handed_over
    response = AsgiClient(h["officer"]).get("/compliance/handovers/export.csv", {"from": h["day"], "to": h["day"]})
    assert response.status == 200
    rows = records(response.body)
    assert [(r["table_name"], r["incoming_dealer"], r["outgoing_dealer"]) for r in rows] == [
        ("UTH-1", "ben", "ana"), ("UTH-2", "ana", ""),
    ]
    first = rows[0]
    assert first["handover_id"] == str(h["first"].pk) and first["after_round"] == "0"
    assert first["event_seq"] == str(h["first"].table_version)
    assert first["plan_id"] == str(h["plan"].pk) and first["plan_made_by"] == "sam" and first["address"] == "10.0.0.2"
    assert first["time_utc"] == h["first"].at.astimezone(dt_timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert first["push_local"].startswith(timezone.localtime(h["first"].push.at).strftime("%Y-%m-%dT%H:%M:%S"))
    assert first["gaming_day"] == str(h["day"]) and first["shift"] == h["first"].shift
    # The session key the hand-over was made under is a credential: never exported.
    assert b"secret-session-key" not in response.body
    manifest = ExportManifest.objects.get(pk=response.headers["x-export-id"])
    assert (manifest.kind, manifest.rows, manifest.bytes) == ("handovers", 2, len(response.body))
    manifest.full_clean()  # a kind the manifest's model knows (ExportManifest.KINDS)


def test_the_export_verifies_offline_against_its_manifest_and_an_altered_file_does_not(handed_over, tmp_path):
    h = handed_over
    response = AsgiClient(h["officer"]).get("/compliance/handovers/export.csv", {"table": h["one"].pk})
    document = h["officer"].get(f"/compliance/exports/{response.headers['x-export-id']}/manifest.json").json()
    assert document["filters"] == {"table": h["one"].pk} and document["rows"] == 1
    path = tmp_path / document["file"]["name"]
    path.write_bytes(response.body)
    manifest = tmp_path / "export.manifest.json"
    manifest.write_text(json.dumps(document))
    out = io.StringIO()
    call_command("verify_logs", "--checkpoints", str(manifest), stdout=out)
    assert "0 problems" in out.getvalue()
    path.write_bytes(response.body.replace(b"ben", b"bob"))
    out = io.StringIO()
    with pytest.raises(SystemExit) as failed:
        call_command("verify_logs", "--checkpoints", str(manifest), stdout=out)
    assert failed.value.code == 1 and "is not the file the manifest describes" in out.getvalue()


def test_the_dealer_filter_finds_a_dealer_incoming_or_outgoing_and_the_page_shows_the_same_rows(handed_over):
    h = handed_over
    asgi = AsgiClient(h["officer"])
    by_dealer = {name: records(asgi.get("/compliance/handovers/export.csv", {"dealer": name}).body)
                 for name in ("ana", "ben", "nobody")}
    assert [r["handover_id"] for r in by_dealer["ana"]] == [str(h["first"].pk), str(h["second"].pk)]
    assert [r["handover_id"] for r in by_dealer["ben"]] == [str(h["first"].pk)]
    assert by_dealer["nobody"] == []
    page = h["officer"].get("/compliance/handovers/", {"dealer": "ben"})
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count('<tr class="handover">') == 1 and "UTH-1" in html and "/compliance/handovers/export.csv?" in html


def test_a_bad_filter_is_refused_and_exports_nothing(handed_over):
    h = handed_over
    before = ExportManifest.objects.count()
    response = AsgiClient(h["officer"]).get("/compliance/handovers/export.csv", {"from": "2026-13-40"})
    assert response.status == 400
    assert h["officer"].get("/compliance/handovers/", {"from": "2026-03-02", "to": "2026-03-01"}).status_code == 400
    assert ExportManifest.objects.count() == before
    assert DealerHandover.objects.count() == 2
