"""The cash log's export checked offline (`verify_logs --checkpoints FILE.manifest.json`)
as a ledger: a row without the ledger key is refused, and the signed cash checkpoints the
manifest carries name a tail cut before the export (issue 33)."""

import csv
import hashlib
import io
import json

import pytest

from cardroom import hashchain
from patrons import cash
from patrons.models import CashLog, CashTransaction
from tests.compliance.asgi import AsgiClient

from .test_cash_ledger import CUT_THE_PAYOUT, PAYOUT, tamper
from .test_pages import _export, logged_in, verify

pytestmark = pytest.mark.django_db(transaction=True)  # the exports read committed rows


@pytest.fixture
def officer_asgi(people, tables, ann, actors):
    for table, amount in ((tables[0], 350000), (tables[1], 450000), (tables[0], 250000)):
        cash.cash_record(table_id=table.pk, kind="chip_purchase", amount=amount, player="P-1001", actor=actors["dealer"])
    cash.cash_record(table_id=tables[0].pk, kind="cash_payout", amount=PAYOUT, player="P-1001", actor=actors["supervisor"])
    officer = logged_in(people["compliance"])
    asgi = AsgiClient(officer)
    asgi.client = officer
    return asgi


def rewrite(csv_text: str, seq: int, **changes) -> str:
    """The export with row `seq` changed and re-hashed with plain SHA-256 (hash_key '')."""
    from patrons.integrity import row_content

    rows = list(csv.DictReader(io.StringIO(csv_text)))
    for record in rows:
        if record["chain_seq"] == str(seq):
            record.update(changes, hash_key="")
            record["row_hash"] = hashchain.link(record["prev_hash"], row_content(record), hashchain.LEGACY)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def test_the_payout_rewritten_to_8_dollars_in_the_export_and_rehashed_is_named(officer_asgi, tmp_path):
    csv_path, manifest_path, manifest = _export(officer_asgi, "/compliance/cash/export.csv", tmp_path, "cash")
    assert [d["log"] for d in manifest["checkpoints"]] == ["cash"]  # the export carries the log's anchor
    assert verify(manifest_path)[0] == 0
    forged = rewrite(csv_path.read_text(), 4, amount_cents="800").encode()
    csv_path.write_bytes(forged)
    manifest["file"].update(sha256=hashlib.sha256(forged).hexdigest(), bytes=len(forged))  # the forger fixes the manifest
    manifest_path.write_text(json.dumps(manifest))
    code, out = verify(manifest_path)
    assert code == 1, out
    assert ("BROKEN cash row seq 4: hashed without the ledger key (plain SHA-256), but the cash log never had "
            "unkeyed rows: re-hashed by someone without the key") in out, out


def test_an_export_of_a_log_rewritten_in_the_database_is_named(officer_asgi, tmp_path):
    row = CashTransaction.objects.get(seq=4)
    row.amount = 800
    new_hash = hashchain.link(row.prev_hash, row.chain_content(), hashchain.LEGACY)
    tamper(("UPDATE patrons_cashtransaction SET amount = 800, hash_key = '', row_hash = %s WHERE seq = 4", (new_hash,)))
    CashLog.objects.update(head=new_hash)
    csv_path, manifest_path, manifest = _export(officer_asgi, "/compliance/cash/export.csv", tmp_path, "cash")
    code, out = verify(manifest_path)
    assert code == 1 and "BROKEN cash row seq 4: hashed without the ledger key" in out, out


def test_a_tail_cut_after_an_earlier_export_is_named_by_its_checkpoint(officer_asgi, tmp_path):
    _export(officer_asgi, "/compliance/cash/export.csv", tmp_path, "first")  # signs where the log stood: seq 4
    third = CashTransaction.objects.get(seq=3)
    tamper(*CUT_THE_PAYOUT)
    CashLog.objects.update(seq=3, head=third.row_hash)
    csv_path, manifest_path, manifest = _export(officer_asgi, "/compliance/cash/export.csv", tmp_path, "second")
    assert manifest["rows"] == 3
    code, out = verify(manifest_path)
    assert code == 1
    assert "the export holds 3 rows up to seq 4, the checkpoint signed 4" in out, out
