"""The patron endpoints and pages by role, and the exports verified offline
(`verify_logs --checkpoints FILE.manifest.json`)."""

import json

import pytest
from django.core.management import call_command
from django.test import Client

from patrons.models import CashAlert
from tests.compliance.asgi import AsgiClient

pytestmark = pytest.mark.django_db(transaction=True)  # the exports read committed rows


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def post_cash(client, table, amount, player="P-1001", kind="chip_purchase"):
    return client.post(f"/api/tables/{table.pk}/cash", json.dumps({"kind": kind, "amount": amount, "player": player}),
                       content_type="application/json")


def test_the_floor_sees_the_warning_at_8000_and_the_tablet_never_does(people, tables, ann):
    t1, t2 = tables
    dealer, supervisor = logged_in(people["dealer"]), logged_in(people["supervisor"])
    answers = [post_cash(dealer, t1, 350000), post_cash(dealer, t2, 450000)]
    floor = supervisor.get("/floor/patrons/").content.decode()
    assert "Cash warning" in floor and "$8,000.00" in floor and "CTR required" not in floor
    answers.append(post_cash(dealer, t1, 250000))
    floor = supervisor.get("/floor/patrons/").content.decode()
    assert "CTR required" in floor and "$10,500.00" in floor
    for answer in answers:  # the tablet's answer: the transaction only
        assert answer.status_code == 200 and set(answer.json()["cash"]) == {"seq", "kind", "amount", "player"}
    for table in (t1, t2):
        state = dealer.get(f"/api/tables/{table.pk}/state", {"role": "tablet"}).content.decode()
        assert "warning" not in state.lower() and "ctr" not in state.lower()
    assert dealer.get("/floor/patrons/").status_code == 403
    ctr = supervisor.get("/compliance/ctr/").content.decode()
    assert "P-1001" in ctr and "$10,500.00" in ctr
    assert CashAlert.objects.count() == 2


def test_identification_is_not_visible_to_a_dealer(people, tables, ann):
    dealer, compliance = logged_in(people["dealer"]), logged_in(people["compliance"])
    found = dealer.post(f"/api/tables/{tables[0].pk}/patrons", json.dumps({"q": "ann l"}), content_type="application/json").json()
    assert found["patrons"] == [ann.public()]
    assert "D1234567" not in json.dumps(found) and "Ann Lee" not in json.dumps(found)
    assert dealer.get(f"/compliance/patrons/{ann.pk}/").status_code == 403
    page = compliance.get(f"/compliance/patrons/{ann.pk}/").content.decode()
    assert "D1234567" in page and "Ann Lee" in page


def test_a_self_excluded_patron_is_refused_at_the_table_over_http(people, tables, actors):
    from patrons import identity

    identity.state_list_import(actor=actors["compliance"], filename="s.csv", content=b"name\nBob Stone\n")
    dealer = logged_in(people["dealer"])
    refused = dealer.post(f"/api/tables/{tables[0].pk}/commands",
                          json.dumps({"type": "sit", "seat": 1, "player": "BOB STONE"}), content_type="application/json")
    assert refused.json()["result"]["error"]["code"] == "self_excluded"
    floor = logged_in(people["supervisor"]).get("/floor/patrons/").content.decode()
    assert "BOB STONE" in floor


def test_an_unidentified_patron_seated_over_http_and_linked_later(people, tables, ann):
    dealer, compliance = logged_in(people["dealer"]), logged_in(people["compliance"])
    player = dealer.post(f"/api/tables/{tables[0].pk}/patrons/unidentified",
                         json.dumps({"description": "man, 40s, red cap"}), content_type="application/json").json()["player"]
    assert post_cash(dealer, tables[0], 300000, player=player).status_code == 200
    assert "man, 40s, red cap" in compliance.get("/compliance/mtl/").content.decode()
    linked = compliance.post(f"/compliance/patrons/unidentified/{player[2:]}/link", {"patron": ann.pk})
    assert linked.status_code == 302
    assert "P-1001" in compliance.get("/compliance/mtl/").content.decode()


def _export(asgi, path, tmp_path, name, params=None):
    response = asgi.get(path, params or {})
    assert response.status == 200, response.body
    export_id = response.headers.get("x-export-id")
    assert export_id, response.headers
    manifest = json.loads(Client.get(asgi.client, f"/compliance/exports/{export_id}/manifest.json").content)
    csv_path, manifest_path = tmp_path / manifest["file"]["name"], tmp_path / f"{name}.manifest.json"
    csv_path.write_bytes(response.body)
    manifest_path.write_text(json.dumps(manifest))
    return csv_path, manifest_path, manifest


def verify(manifest_path) -> tuple[int, str]:
    import io

    out = io.StringIO()
    try:
        call_command("verify_logs", "--checkpoints", str(manifest_path), stdout=out)
    except SystemExit as exit_:
        return exit_.code, out.getvalue()
    return 0, out.getvalue()


def test_the_exports_verify_offline(people, tables, ann, actors, tmp_path):
    from patrons import cash, identity

    identity.state_list_import(actor=actors["compliance"], filename="s.csv", content=b"name\nBob Stone\n")
    for table, amount in ((tables[0], 350000), (tables[1], 450000), (tables[0], 250000)):
        cash.cash_record(table_id=table.pk, kind="chip_purchase", amount=amount, player="P-1001", actor=actors["dealer"])
    with pytest.raises(identity.PatronError):
        cash.cash_record(table_id=tables[0].pk, kind="cash_payout", amount=100, player="bob stone", actor=actors["dealer"])
    officer = logged_in(people["compliance"])
    asgi = AsgiClient(officer)
    asgi.client = officer
    exports = {
        "cash": "/compliance/cash/export.csv",
        "mtl": "/compliance/mtl/export.csv",
        "ctr": "/compliance/ctr/export.csv",
        "self_exclusion": "/compliance/self-exclusion/export.csv",
        "patron_history": f"/compliance/patrons/{ann.pk}/history.csv",
    }
    rows = {}
    for kind, path in exports.items():
        csv_path, manifest_path, manifest = _export(asgi, path, tmp_path, kind)
        assert manifest["kind"] == kind
        rows[kind] = manifest["rows"]
        code, out = verify(manifest_path)
        assert code == 0, out
        # One byte changed: the file is no longer the one the manifest describes.
        data = bytearray(csv_path.read_bytes())
        data[-2] = ord("9") if data[-2] != ord("9") else ord("8")
        csv_path.write_bytes(bytes(data))
        code, out = verify(manifest_path)
        assert code == 1 and "not the file the manifest describes" in out, (kind, out)
    assert rows == {"cash": 3, "mtl": 2, "ctr": 3, "self_exclusion": 1, "patron_history": 3}


def test_an_altered_cash_export_fails_its_rehash_even_with_a_matching_manifest(people, tables, ann, actors, tmp_path):
    import hashlib

    from patrons import cash

    for amount in (350000, 450000):
        cash.cash_record(table_id=tables[0].pk, kind="chip_purchase", amount=amount, player="P-1001", actor=actors["dealer"])
    officer = logged_in(people["compliance"])
    asgi = AsgiClient(officer)
    asgi.client = officer
    csv_path, manifest_path, manifest = _export(asgi, "/compliance/cash/export.csv", tmp_path, "cash")
    assert verify(manifest_path)[0] == 0
    forged = csv_path.read_bytes().replace(b",450000,", b",45000,")
    csv_path.write_bytes(forged)
    manifest["file"].update(sha256=hashlib.sha256(forged).hexdigest(), bytes=len(forged))  # the forger fixes the manifest
    manifest_path.write_text(json.dumps(manifest))
    code, out = verify(manifest_path)
    assert code == 1 and "cash row seq 2: its hash does not verify" in out, out


def test_an_export_of_a_kind_the_manifest_does_not_name_is_refused():
    from collections_fees.exports import CsvExport
    from collections_fees.models import ExportManifest
    from patrons import selectors

    kinds = dict(ExportManifest.KINDS)
    assert {"mtl", "cash", "ctr", "self_exclusion", "patron_history"} <= set(kinds)
    with pytest.raises(ValueError, match="unknown export kind 'patron_notes'"):
        CsvExport(kind="patron_notes", query=selectors.cash_query({}), filters={}, requested_by="compliance")


def test_the_ctr_list_of_a_day_chosen_on_the_page_exports_under_that_days_name(people, tables, ann, actors, tmp_path):
    """Issue 35, item 8: a day picker on the page (not an edited URL), and the file of one
    gaming day named for it, not `ctr_all-days_…`."""
    import re

    from patrons import cash

    for table, amount in ((tables[0], 600000), (tables[1], 500000)):
        cash.cash_record(table_id=table.pk, kind="chip_purchase", amount=amount, player="P-1001", actor=actors["dealer"])
    day = CashAlert.objects.get(kind="ctr_required").gaming_day.isoformat()
    officer = logged_in(people["compliance"])
    page = officer.get("/compliance/ctr/").content.decode()
    assert re.search(r'<form method="get"[^>]*id="ctr-day"', page) and f'name="day" value="{day}"' in page
    asgi = AsgiClient(officer)
    asgi.client = officer
    _, _, manifest = _export(asgi, "/compliance/ctr/export.csv", tmp_path, "ctr", {"day": day})
    assert manifest["file"]["name"].startswith(f"ctr_{day}_") and "all-days" not in manifest["file"]["name"]
    assert manifest["rows"] == 2
