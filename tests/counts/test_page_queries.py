"""The count pages' number of database queries, pinned (issue 22 item 18): a page reads
what it draws in a fixed number of queries, whatever the number of boxes, shifts and
counts. The day played here has four boxes in the day shift and three in the others;
a page that went back to one query per box or per shift (an N+1) would pass its pin.
Counts, not times: a time depends on the machine, a query count on the code.

Measured on this fixture before the fix (and after): the count index of a day 19 (8),
the day shift's sheet 27 (13), the swing shift's 22 (12), the grave shift's 14 (10),
the day shift's printed sheet 33 (19). The 14-day trend charts (collections_fees/trends.py)
add exactly one query to the closer and to a count sheet with boxes (measured: each pin
below fails at its old value)."""

import pytest

from .play import DAY, count_shift, person, sign_and_close
from .test_pages import client_of

pytestmark = pytest.mark.django_db

# (page, most queries: the session's two, the page's own)
PAGES = [
    ("/compliance/boxes/", 6),
    ("/compliance/count/", 6),
    (f"/compliance/count/?day={DAY}", 8),
    (f"/compliance/count/{DAY}/day/", 14),  # counted, signed, closed; +1 the 14-day trends
    (f"/compliance/count/{DAY}/swing/", 13),  # counted, not signed
    (f"/compliance/count/{DAY}/grave/", 11),  # not opened
    (f"/compliance/closer/{DAY}/", 8),  # +1 the 14-day trends
    (f"/compliance/closer/{DAY}/?shift=day", 6),
    (f"/compliance/count/{DAY}/print/?shift=day", 20),  # records its print too, naming the rule sets in force (issue 38)
    (f"/compliance/closer/{DAY}/print/", 12),  # records its print, naming the rule sets in force (issue 38)
]


@pytest.fixture
def counted_day(day):
    sign_and_close(day, count_shift(day, "day"))
    count_shift(day, "swing")
    client = client_of(person("floor-fay", "supervisor"))
    client.get("/compliance/count/")  # the session's first request settles its own rows
    return client


def test_each_count_page_reads_in_a_fixed_number_of_queries(counted_day, django_assert_max_num_queries):
    for page, most in PAGES:
        with django_assert_max_num_queries(most, info=page):
            assert counted_day.get(page).status_code == 200, page
