"""One signed-checkpoint base (cardroom.models.SignedCheckpoint) for the table chains'
and the jackpot fund's checkpoints, and one module (cardroom/checkpoints.py) signing and
checking both: the models keep their apps, tables and migrations."""

from datetime import date, datetime, UTC
from io import StringIO

import pytest
from django.core.management import call_command

from cardroom import checkpoints
from cardroom.models import SignedCheckpoint
from collections_fees.models import JackpotCheckpoint
from tables.models import ChainCheckpoint

STAND = {"gaming_day": date(2026, 1, 2), "last_seq": 7, "head": "ab" * 32, "rows": 3, "key_id": "k1",
         "signature": "00" * 32, "created_at": datetime(2026, 1, 2, 12, tzinfo=UTC)}


@pytest.mark.django_db
def test_the_base_changes_no_column_no_migration_is_pending():
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)  # SystemExit(1) when one is
    assert "No changes detected" in out.getvalue()


@pytest.mark.parametrize(
    "checkpoint, fields",
    [
        (ChainCheckpoint(table_id=4, log="collections", kind="day_end", **STAND), checkpoints.SIGNED_FIELDS),
        (JackpotCheckpoint(meter_id=2, **STAND), checkpoints.JACKPOT_SIGNED_FIELDS),
    ],
)
def test_each_model_signs_what_the_offline_check_reads(checkpoint, fields):
    assert isinstance(checkpoint, SignedCheckpoint)
    content = checkpoint.signed_content()
    assert tuple(sorted(content)) == tuple(sorted(fields))
    assert (content["gaming_day"], content["last_seq"], content["rows"]) == ("2026-01-02", 7, 3)
    doc = checkpoints.document(checkpoint)
    assert {k: doc[k] for k in fields} == content and doc["signature"] == STAND["signature"]
