"""The floor tile draws the shift's trend charts the server sent (tables/trends.py), with
the numbers readable as the charts' labels, and no script error."""

import pytest

from collections_fees.models import CollectionEntry
from tests.engine.helpers import FEES, dealt_round

from .conftest import make_table, run
from .test_browser import browsers, daphne, expect  # noqa: F401 (fixtures)
from .test_screens import log_in, person

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def test_a_floor_tile_shows_rounds_and_fees_per_hour_with_their_numbers(daphne, browsers, django_user_model):
    person(django_user_model, "sam", "supervisor")
    table = make_table(seats=6, fee_schedule=FEES)
    run(table.pk, *[{"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2, 3)],
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, *dealt_round([2, 3]))
    floor = log_in(browsers(), daphne.url, "sam", "/floor/")
    tile = floor.locator(f".tile[data-table='{table.pk}']")
    rounds = tile.locator(".trend svg.trend-rounds")
    fees = tile.locator(".trend svg.trend-fees")
    expect(rounds).to_have_attribute("role", "img")
    expect(rounds).to_have_attribute("aria-label", _ends_with(": 1"))
    net = sum(line.amount if line.kind == "fee" else -line.amount for line in CollectionEntry.objects.filter(table=table))
    assert net > 0
    expect(fees).to_have_attribute("aria-label", _ends_with(f": ${net / 100:,.2f}"))  # this hour's, in dollars
    assert rounds.locator("rect.pos").count() == 1
    assert floor.errors == []


def _ends_with(text):
    import re

    return re.compile(re.escape(text) + "$")
