"""The count team's pages fit the window at 1280x800 and at 390x844 (issue 22), with a
sheet half counted: no sideways scroll, no table hiding its overflow, no link or button
outside the window. Laid out in Chromium from the test client (tests/layout.py);
screenshots in test-artifacts/."""

import pytest

from collections_fees import counts
from collections_fees.selectors import count_sheet_of
from tests.layout import measure

from .play import DAY, pieces
from .test_pages import client_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

SHEET = f"/compliance/count/{DAY}/day/"


def test_every_count_page_fits_a_desktop_and_a_phone(day):
    counter = client_of(day.counters[0])
    assert counter.post(SHEET, {"action": "open"}).status_code == 302
    sheet = count_sheet_of(gaming_day=DAY, shift="day")
    first = next(iter(counts.placed_boxes(sheet)))
    expected = counts.box_expected(box_id=first, gaming_day=DAY, shift="day")
    counter.post(SHEET, {"action": "count", "box": first, **{f"d{d}": n for d, n in pieces(expected).items()}})
    paths = [
        "/compliance/boxes/",
        "/compliance/count/",
        SHEET,
        f"/compliance/count/{DAY}/swing/",
        f"/compliance/closer/{DAY}/",
    ]
    problems = measure(counter, paths, "count")
    assert problems == {}, sorted(problems.items())
    # The printed sheet and closer are paper documents at a page's width: read on a
    # desktop and printed, they are held to the desktop's window only.
    prints = [f"/compliance/count/{DAY}/print/", f"/compliance/closer/{DAY}/print/"]
    problems = measure(counter, prints, "count-print", sizes={"desktop": (1280, 800)})
    assert problems == {}, sorted(problems.items())
    assert measure(client_of(day.supervisor), ["/compliance/boxes/", SHEET], "count-supervisor") == {}
