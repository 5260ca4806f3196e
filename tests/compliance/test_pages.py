"""The compliance pages: login required, filters, totals, drop counts, rotation and round
history as a compliance officer sees them."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from collections_fees.models import DropCount
from cardroom.sql import Filters
from collections_fees.selectors import daily_totals

from tests.db_access import assert_refused_to_both

from .ledger import DAY1, DAY2, VOLUME_DAYS

pytestmark = pytest.mark.django_db

PAGES = [
    "/compliance/",
    "/compliance/collections/",
    "/compliance/collections/export.csv",
    "/compliance/collections/summary.xlsx",
    "/compliance/collections/drop-counts/1/2026-03-02/",
    "/compliance/rotation/",
    "/compliance/rotation/export.csv",
    "/compliance/handovers/",
    "/compliance/handovers/export.csv",
    "/compliance/rounds/",
    "/compliance/rounds/export.csv",
    "/compliance/rounds/1/",
    "/compliance/exports/",
    "/compliance/exports/00000000-0000-4000-8000-000000000000/manifest.json",
]


@pytest.mark.parametrize("path", PAGES)
def test_anonymous_users_are_sent_to_log_in(client, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={path}"


def test_the_collection_log_shows_lines_totals_dollars_and_the_time_zone(ledger, officer_client):
    response = officer_client.get("/compliance/collections/", {"from": DAY1, "to": DAY2, "table": ledger.table_a.pk})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Time (America/Los_Angeles)" in html
    assert "2026-03-02 10:00:" in html and "PST" in html  # shown in the cardroom's zone
    assert "$3.00" in html  # the player-dealer's 300-cent fee, in dollars
    # The reasons in words (issue 35 item 4); the export keeps the codes.
    assert "refunded (the bank could not act" in html and "round voided" in html
    assert "dealer-ann" in html and "dealer-bob" in html
    totals = response.context["totals"]
    assert [(t["gaming_day"], t["table_id"]) for t in totals] == [(DAY1, ledger.table_a.pk), (DAY2, ledger.table_a.pk)]


def test_a_month_selects_its_gaming_days(ledger, officer_client):
    filters = officer_client.get("/compliance/collections/", {"month": "2026-02"}).context["filters"]
    assert (filters.day_from.isoformat(), filters.day_to.isoformat()) == ("2026-02-01", "2026-02-28")


def test_the_log_pages_by_key_next_and_previous(ledger, officer_client):
    """Keyset paging (cardroom/keyset.py): a page is the 100 rows after the last
    one seen, in chain order; the next page's previous page is the first one again, and
    the first screen has no previous page. No page count: that would read every row."""
    params = {"from": VOLUME_DAYS[0], "to": VOLUME_DAYS[0], "table": ledger.volume.pk}
    first = officer_client.get("/compliance/collections/", params).context["page"]
    assert len(first) == 100 and first.has_next and not first.has_previous
    second = officer_client.get("/compliance/collections/", {**params, "after": first.next_cursor}).context["page"]
    assert len(second) == 100 and second.has_previous
    assert [r["seq"] for r in second][0] == [r["seq"] for r in first][-1] + 1
    back = officer_client.get("/compliance/collections/", {**params, "before": second.previous_cursor}).context["page"]
    assert [r["seq"] for r in back] == [r["seq"] for r in first] and not back.has_previous
    html = officer_client.get("/compliance/collections/", {**params, "after": first.next_cursor}).content.decode()
    assert 'rel="next"' in html and 'rel="prev"' in html and "page 2 of" not in html


def test_the_last_page_has_no_next(ledger, officer_client):
    params = {"from": DAY1, "to": DAY2, "table": ledger.table_a.pk}
    page = officer_client.get("/compliance/collections/", params).context["page"]
    assert 0 < len(page) < 100 and not page.has_next
    assert 'rel="next"' not in officer_client.get("/compliance/collections/", params).content.decode()


@pytest.mark.parametrize("cursor", ["12", "x~2026-03-02~1", "1~2026-13-02~1", "1~2026-03-02~1~4"])
def test_a_cursor_that_does_not_parse_is_refused(ledger, officer_client, cursor):
    response = officer_client.get("/compliance/collections/", {"from": DAY1, "to": DAY2, "after": cursor})
    assert response.status_code == 400 and "bad_cursor" in response.content.decode()


def test_after_and_before_together_are_refused(ledger, officer_client):
    first = officer_client.get("/compliance/collections/", {"from": DAY1, "to": DAY2}).context["page"]
    response = officer_client.get(
        "/compliance/collections/", {"from": DAY1, "to": DAY2, "after": first.next_cursor, "before": first.next_cursor}
    )
    assert response.status_code == 400 and "bad_cursor" in response.content.decode()


def test_the_rounds_and_rotation_pages_page_by_key(ledger, officer_client):
    params = {"from": VOLUME_DAYS[0] - timedelta(days=1), "to": DAY2}
    for url, key in (("/compliance/rounds/", "number"), ("/compliance/rotation/", "at")):
        every = officer_client.get(url, params).context["page"]
        assert 2 < len(every) < 100, url
        rows, cursor = [], ""
        # Three rows a page, by the log's own order: the same rows, none twice.
        from web.compliance import views

        original, views.PAGE_SIZE = views.PAGE_SIZE, 3
        try:
            while True:
                page = officer_client.get(url, {**params, **({"after": cursor} if cursor else {})}).context["page"]
                rows += [(r["table_id"], r[key]) for r in page]
                if not page.has_next:
                    break
                cursor = page.next_cursor
        finally:
            views.PAGE_SIZE = original
        assert rows == [(r["table_id"], r[key]) for r in every], url


def test_a_legacy_drop_count_still_gives_the_variance_and_no_one_enters_one_here(ledger, supervisor_client, officer_client):
    """Counts entered before the count sheets (DropCount rows) stay in the totals; the
    collection log offers no count form to anyone: the count team counts on the count
    sheet (tests/counts)."""
    a = ledger.table_a
    expected = next(t["expected"] for t in daily_totals(Filters(day_from=DAY1, day_to=DAY1, table=a.pk)))
    assert type(expected) is int  # cents, never a Decimal or a float
    page = f"/compliance/collections/?from={DAY1}&to={DAY1}&table={a.pk}"
    for client in (supervisor_client, officer_client):
        html = client.get(page).content.decode()
        assert 'id="drop-count-who"' in html and 'name="amount"' not in html
    counted_at = timezone.now()
    DropCount.objects.create(table=a, gaming_day=DAY1, amount=350, counted_by="floor-fran", counted_at=counted_at)
    DropCount.objects.create(table=a, gaming_day=DAY1, amount=expected, counted_by="floor-fran",
                             counted_at=counted_at + timedelta(minutes=5))
    total = officer_client.get(page).context["totals"][0]
    assert (total["counted"], total["variance"], total["count_entries"]) == (expected, 0, 2)
    history = officer_client.get(f"/compliance/collections/drop-counts/{a.pk}/{DAY1}/").content.decode()
    assert "$3.50" in history and f"${expected // 100}.{expected % 100:02d}" in history
    assert_refused_to_both(lambda: DropCount.objects.filter(table=a).update(amount=1))


def test_a_count_for_a_day_without_collections_is_listed_with_expected_zero(ledger):
    DropCount.objects.create(table=ledger.table_b, gaming_day=DAY2, amount=100, counted_by="floor-fran", counted_at=timezone.now())
    totals = daily_totals(Filters(day_from=DAY2, day_to=DAY2, table=ledger.table_b.pk))
    assert [(t["expected"], t["counted"], t["variance"]) for t in totals] == [(0, 100, 100)]


def test_the_rotation_page_shows_banks_runs_and_the_stop(ledger, officer_client):
    response = officer_client.get("/compliance/rotation/", {"from": DAY1, "to": DAY2, "table": ledger.table_a.pk})
    html = response.content.decode()
    assert "game stopped: no player-dealer" in html and "limit reached" in html
    assert "2 of 2" in html and "not counted" in html


def test_the_round_pages_show_inputs_settlement_and_the_recomputation(ledger, officer_client):
    listing = officer_client.get("/compliance/rounds/", {"from": DAY1, "to": DAY2, "table": ledger.table_a.pk})
    assert [r["number"] for r in listing.context["page"]] == [1, 2, 3, 4, 5, 6]
    rnd = ledger.rounds["exhausted"]
    html = officer_client.get(f"/compliance/rounds/{rnd.pk}/").content.decode()
    assert "matches the rules engine" in html
    assert "Ah Kc 7d 8s 9h" in html and "-$5.00" in html and "exhausted" in html
    assert "refund of seq" in html and "the bank could not act" in html
    voided = officer_client.get(f"/compliance/rounds/{ledger.rounds['voided'].pk}/").content.decode()
    assert "shuffler malfunction" in voided and "sup-carla" in voided and "round voided" in voided
    assert officer_client.get("/compliance/rounds/999999/").status_code == 404


def test_an_unknown_manifest_is_not_found(officer_client):
    assert officer_client.get(f"/compliance/exports/{uuid.uuid4()}/manifest.json").status_code == 404


def test_the_exports_list_shows_filters_as_words_not_code(officer_client):
    from collections_fees.models import ExportManifest

    now = timezone.now()
    ExportManifest.objects.create(
        id=uuid.uuid4(), kind="closer_summary", media_type="text/csv", filename="closer.csv",
        filters={"gaming_day": "2026-03-02", "shift": None, "closes": {"day": None, "swing": 3, "grave": 4}},
        columns=["a"], time_zone="America/Los_Angeles", rows=1, bytes=1, sha256="0" * 64,
        requested_by="officer-olga", source="http", started_at=now, finished_at=now,
    )
    html = officer_client.get("/compliance/exports/").content.decode()
    # (PostgreSQL's jsonb keeps keys in an order of its own.)
    assert "closes: grave 4, swing 3, day not set" in html and "gaming day 2026-03-02" in html
    assert "{'" not in html and "None" not in html and "closes=" not in html
