"""Every compliance page fits the window at 1280x800 and at 390x844 (issue 22): no sideways
scroll of the page, no table hiding its overflow behind a scroll bar of its own, no link
or button outside the window. Laid out in Chromium from the test client (tests/layout.py);
screenshots in test-artifacts/."""

import uuid

import pytest
from django.utils import timezone

from collections_fees.models import ExportManifest
from tests.layout import measure

from .ledger import DAY1, DAY2

pytestmark = [pytest.mark.browser, pytest.mark.django_db]


def test_every_compliance_page_fits_a_desktop_and_a_phone(ledger, officer_client):
    now = timezone.now()
    # An export as the list shows them: a hash of 64 characters and filters of several keys.
    ExportManifest.objects.create(
        id=uuid.uuid4(), kind="closer_summary", media_type="text/csv", filename=f"closer_{DAY1}_{uuid.uuid4()}.csv",
        filters={"closes": {"day": None, "swing": 3, "grave": 4}, "gaming_day": str(DAY1), "copy": "ORIGINAL"},
        columns=["a"], time_zone="America/Los_Angeles", rows=12, bytes=3456, sha256="f" * 64,
        requested_by="officer-olga", source="http", started_at=now, finished_at=now,
    )
    table = ledger.table_a.pk
    span = f"from={DAY1}&to={DAY2}&table={table}"
    paths = [
        "/compliance/",
        f"/compliance/collections/?{span}",
        f"/compliance/collections/drop-counts/{table}/{DAY1}/",
        f"/compliance/jackpot/?{span}",
        f"/compliance/rotation/?{span}",
        f"/compliance/rotation/offered/?{span}",
        f"/compliance/rounds/?{span}",
        f"/compliance/rounds/{ledger.rounds['exhausted'].pk}/",
        f"/compliance/rounds/{ledger.rounds['voided'].pk}/",
        "/compliance/exports/",
    ]
    assert measure(officer_client, paths, "compliance") == {}


def test_the_home_page_and_the_approval_queue_fit_a_phone(ledger, supervisor_client):
    """The tablet and live-view links of the home page and the queue's buttons stay in the
    window, with a request waiting, so its Approve and Refuse buttons are on the page."""
    from cardroom.access import Actor
    from tables.approvals import approval_request

    from .conftest import _with_role

    requester = Actor.of(_with_role("floor-sam", "supervisor"))
    approval_request(actor=requester, table_id=ledger.table_a.pk, kind="config",
                     payload={"reason": "new pay table", "config": {"paytable": "UTH-02"}})
    assert 'name="approve" value="1"' in supervisor_client.get("/staff/approvals/").content.decode()
    assert measure(supervisor_client, ["/", "/staff/approvals/"], "staff") == {}
