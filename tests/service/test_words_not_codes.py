"""Every word staff read is a word (issue 35, item 4): no page of the seeded demo floor
shows a code (`in_progress`, `full_house`, `seat_taken`...) where a person reads. The
codes stay in records, exports and on the wire; on a page they may appear only inside a
`<code>` element (a reference for the technical reader), in attributes, or in scripts.

Every page is read as each person who may open it, rendered as `make run` serves it, and
its visible text scanned for snake_case tokens."""

import io
import re
from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from collections_fees.models import CountSheet
from patrons.models import Patron
from rounds.models import Round
from tables.models import Table

pytestmark = pytest.mark.django_db

CODE = re.compile(r"(?<![\w/.@:-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/.-])")
# Elements whose text is not read as words: code for the technical reader, scripts.
SKIPPED = {"code", "script", "style", "template", "pre", "kbd", "samp"}
PEOPLE = ("dealer", "supervisor", "compliance", "counter", "manager")
# Names, not codes: the demo's seeding process records its work under its own name.
NAMES = {"seed_demo"}


class VisibleText(HTMLParser):
    def __init__(self):
        super().__init__()
        self.depth, self.words = 0, []

    def handle_starttag(self, tag, attrs):
        if tag in SKIPPED:
            self.depth += 1

    def handle_endtag(self, tag):
        if tag in SKIPPED and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if not self.depth:
            self.words.append(data)


def codes_in(html: str) -> set[str]:
    parser = VisibleText()
    parser.feed(html)
    return set(CODE.findall(" ".join(parser.words)))


def plain_routes(resolver=None, prefix="") -> list[str]:
    """Every GET page without a parameter (the admin excepted)."""
    resolver = resolver or get_resolver()
    routes = []
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            if not route.startswith("admin"):
                routes += plain_routes(entry, route)
        elif isinstance(entry, URLPattern) and "<" not in route and not route.startswith(("api/", "accounts/logout")):
            routes.append("/" + route.lstrip("^").rstrip("$"))
    return routes


def pages_of_the_demo() -> list[str]:
    pages = [p for p in plain_routes() if not p.endswith((".csv", ".xlsx", ".json", ".js", ".svg", "/download"))]
    for table in Table.objects.all():
        pages += [f"/tables/{table.pk}/", f"/tables/{table.pk}/tablet/", f"/staff/tables/{table.pk}/"]
    pages += [f"/compliance/rounds/{r.pk}/" for r in Round.objects.order_by("pk")[:12]]
    for sheet in CountSheet.objects.all():
        day = sheet.gaming_day.isoformat()
        pages += [f"/compliance/count/{day}/{sheet.shift}/", f"/compliance/closer/{day}/"]
    pages += [f"/compliance/patrons/{p.pk}/" for p in Patron.objects.all()]
    return sorted(set(pages))


@pytest.fixture
def demo_floor():
    call_command("seed_demo", stdout=io.StringIO())
    counter = Client()
    counter.force_login(User.objects.get(username="counter"))
    # The previous shift's count sheet opened, so its page shows boxes and results.
    for sheet_day, shift in _previous_shift():
        counter.post(f"/compliance/count/{sheet_day}/{shift}/", {"action": "open"})


def _previous_shift():
    from tests.service.test_seed_demo import previous_shift

    day, shift, _ = previous_shift()
    return [(day, shift)]


def test_no_page_shows_a_code_where_staff_read_words(demo_floor):
    found = {}
    pages = pages_of_the_demo()
    for name in PEOPLE:
        client = Client()
        client.force_login(User.objects.get(username=name))
        for page in pages:
            response = client.get(page)
            if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
                continue
            for code in codes_in(response.content.decode()) - NAMES:
                found.setdefault(code, set()).add(f"{name} {page}")
    assert len(pages) > 40  # the scan reads the whole product, not a corner of it
    assert found == {}, "\n".join(f"{code}: {sorted(where)[:3]}" for code, where in sorted(found.items()))


def test_the_scan_sees_a_code_in_text_and_not_in_code_elements():
    assert codes_in("<td>in_progress</td><td>Refused: seat_taken: seat 4</td>") == {"in_progress", "seat_taken"}
    assert codes_in('<td data-k="full_house"><code>full_house</code> Full house</td><script>a_b()</script>') == set()


def test_the_tablets_wager_names_are_the_labels_map():
    """The tablet's script names a wager as the pages do (one map, rounds/labels.py)."""
    from pathlib import Path

    from rounds.labels import HAND, WAGER

    script = (Path(__file__).resolve().parents[2] / "static/tablet/words.js").read_text(encoding="utf-8")

    def js_map(name):
        body = re.search(r"export const %s = \{(.*?)\};" % name, script, re.S).group(1)
        return dict(re.findall(r'(\w+): "([^"]+)"', body))

    assert js_map("WAGER") == WAGER and js_map("HAND") == HAND

