"""The compliance pages' number of database queries on the test ledger, pinned (issue 22
item 18): each reads what it draws in a fixed number of queries (a page of rows is one
query, its count another where the page shows one), never one per row. Counts, not times: a time depends on the
machine, a query count on the code. The count pages have theirs in
tests/counts/test_page_queries.py."""

import pytest

from .ledger import DAY1, DAY2

pytestmark = pytest.mark.django_db

RANGE = f"from={DAY1}&to={DAY2}"


def pages(ledger):
    """(page, most queries: the session's two, the page's own)"""
    return [
        (f"/compliance/collections/?{RANGE}", 7),
        ("/compliance/collections/?from=2026-02-01&to=2026-02-10", 7),  # the 100,000 lines
        (f"/compliance/collections/drop-counts/{ledger.table_a.pk}/{DAY1}/", 4),
        (f"/compliance/jackpot/?{RANGE}", 6),
        ("/compliance/exports/", 3),
        (f"/compliance/rounds/?{RANGE}", 4),  # a keyset page: its rows, no count
        (f"/compliance/rounds/{ledger.rounds['exhausted'].pk}/", 12),
        (f"/compliance/rounds/{ledger.rounds['voided'].pk}/", 12),
        (f"/compliance/rotation/?{RANGE}", 4),  # a keyset page: its rows, no count
        (f"/compliance/rotation/offered/?{RANGE}", 6),
    ]


def test_each_compliance_page_reads_in_a_fixed_number_of_queries(ledger, officer_client, django_assert_max_num_queries):
    officer_client.get("/compliance/exports/")  # the session's first request settles its own rows
    for page, most in pages(ledger):
        with django_assert_max_num_queries(most, info=page):
            assert officer_client.get(page).status_code == 200, page
