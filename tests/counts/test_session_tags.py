"""A count signed over the pages keeps the counter's session by its tag, never the key (a
login: the sheet is read by compliance and the regulator), and collections_fees 0014
rewrote the keys signed before. The scan reads every text column (tests/db_access.py)."""

import importlib

import pytest
from django.apps import apps
from django.db import connection
from django.utils import timezone

from cardroom.access import session_tag
from cardroom.models import AuditEntry
from collections_fees import counts
from collections_fees.models import BoxCount, CountSignature
from collections_fees.selectors import count_sheet_of
from tests.db_access import as_owner, assert_refused_to_both, columns_holding

from .play import DAY, pieces
from .test_pages import SHEET, client_of

pytestmark = pytest.mark.django_db


def test_a_count_signed_over_the_pages_leaves_no_session_key_in_any_column(day):
    (cal, cal_key), (cy, cy_key) = ((c, c.session.session_key) for c in map(client_of, day.counters))
    assert cal.post(SHEET, {"action": "open"}).status_code == 302
    sheet = count_sheet_of(gaming_day=DAY, shift="day")
    for box_id in counts.placed_boxes(sheet):
        expected = counts.box_expected(box_id=box_id, gaming_day=DAY, shift="day")
        cal.post(SHEET, {"action": "count", "box": box_id, **{f"d{d}": n for d, n in pieces(expected).items()}})
    for client in (cal, cy):
        assert client.post(SHEET, {"action": "sign"}).status_code == 302
    signed = CountSignature.objects.filter(sheet=sheet).order_by("id")
    assert [s.session for s in signed] == [session_tag(cal_key), session_tag(cy_key)]
    assert AuditEntry.objects.filter(action="count", session=session_tag(cal_key)).exists()
    for key in (cal_key, cy_key):
        assert columns_holding(key) == []


def test_the_migration_turns_the_keys_already_signed_into_tags_and_keeps_the_table_append_only(day):
    sheet = counts.count_sheet_open(gaming_day=DAY, shift="day", actor=day.counters[0])
    box_id = next(iter(counts.placed_boxes(sheet)))
    expected = counts.box_expected(box_id=box_id, gaming_day=DAY, shift="day")
    counts.box_count_record(sheet_id=sheet.pk, box_id=box_id, denominations=pieces(expected), actor=day.counters[0])
    last = BoxCount.objects.filter(sheet=sheet).latest("id")
    key = "k3y0fasess1onthatwasst0redclear7"
    # A signature as the old code wrote it (a new row: the table takes no updates), and one without a session.
    old, blank = (CountSignature.objects.create(sheet=sheet, signed_by=c.name, user_id=c.user_id, last_count=last,
                                                session=session, signed_at=timezone.now())
                  for c, session in zip(day.counters, (key, "")))
    migration = importlib.import_module("collections_fees.migrations.0014_count_signature_session_tag")
    with as_owner(), connection.schema_editor() as editor:
        # The rows above were inserted in this test's transaction; a migration starts its
        # own, with no foreign-key checks still waiting, which ALTER TABLE needs.
        editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        migration.Migration.operations[-1].code(apps, editor)
    assert CountSignature.objects.get(pk=old.pk).session == session_tag(key)
    assert CountSignature.objects.get(pk=blank.pk).session == ""
    assert columns_holding(key) == []
    assert_refused_to_both(lambda: CountSignature.objects.filter(pk=old.pk).update(session="x"))
