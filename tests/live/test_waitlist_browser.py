"""The waitlist in a real headless Chromium (issue 26): a supervisor adds a player, calls
them when a seat opens and seats them; a second TPPP is refused a seat with the engine's
code; the floor marks the props-only table and the public lobby board counts it apart."""

import pytest
from django.contrib.auth.models import Group, User

from tables.models import WaitlistEvent
from tables.services import command_execute
from tables.waitlist import game_of

from .test_browser import ARTIFACTS, browsers, daphne, expect  # noqa: F401 (fixtures)
from .test_default_setup import log_in
from .test_screens import SIZES, overflow, too_wide
from tests.playing import new_table

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

TPPP = {"badge": "B-77", "company": "Acme TPPS", "expires": "2099-06-30"}
CONFIG = {"seats": 6, "paytable": "UTH-02", "limits": {"ante_min": 500, "ante_max": 10000}}


@pytest.fixture
def tables(transactional_db):
    sam = User.objects.create_user("sam", password="pw-sam")
    sam.groups.add(Group.objects.get_or_create(name="supervisor")[0])
    main = new_table("UTH-7", **CONFIG, boxes=False)
    props = new_table("UTH-8", **CONFIG, boxes=False)
    for table, seat, player in ((main, 1, "Tess"), (props, 1, "Tina")):
        badge = {**TPPP, "badge": f"B-{table.pk}"}
        assert command_execute(table_id=table.pk, actor="test",
                               command={"type": "sit", "seat": seat, "player": player, "tppp": badge}).ok
    return main, props


def test_a_waitlisted_player_is_called_and_seated_and_a_second_tppp_is_refused(daphne, tables, browsers):  # noqa: F811
    main, props = tables
    game = game_of(main.state["config"])
    sam = log_in(browsers(), daphne.url, "sam", "pw-sam", "/floor/waitlist/")
    section = sam.locator(f"section.waitlist[data-game='{game}']")
    for player, badge in (("P-1001", None), ("Tom", "B-78")):
        add = section.locator("form:has(input[name=action][value=add])")
        add.locator("input[name=player]").fill(player)
        if badge:
            add.locator("summary").click()
            add.locator("input[name=tppp_badge]").fill(badge)
            add.locator("input[name=tppp_company]").fill("Acme TPPS")
            add.locator("input[name=tppp_expires]").fill("2099-06-30")
        add.locator("button[type=submit]").click()
        section = sam.locator(f"section.waitlist[data-game='{game}']")
        expect(section.locator("ol.entries")).to_contain_text(player)

    call = section.locator("form:has(input[name=action][value=call])")
    call.locator("select[name=table]").select_option(str(main.pk))
    call.locator("button[type=submit]").click()
    expect(sam.locator("p.success")).to_contain_text("P-1001 called to UTH-7")

    first = sam.locator("li", has_text="P-1001")
    expect(first).to_contain_text("called")
    first.locator("input[name=seat]").fill("3")
    first.locator("button", has_text="Seat").click()
    expect(sam.locator("p.success")).to_contain_text("P-1001 seated at UTH-7, seat 3")

    # A second TPPP at a table that has one: the engine refuses, the page says why.
    tom = sam.locator("li", has_text="Tom")
    tom.locator("select[name=table]").select_option(str(main.pk))
    tom.locator("input[name=seat]").fill("4")
    tom.locator("button", has_text="Seat").click()
    expect(sam.locator("#waitlist-refused")).to_have_attribute("data-code", "tppp_limit")
    expect(sam.locator("li", has_text="Tom")).to_be_visible()  # still waiting
    sam.screenshot(path=ARTIFACTS / "waitlist.png", full_page=True)
    assert list(WaitlistEvent.objects.values_list("kind", flat=True)) == ["added", "added", "called", "seated"]

    floor = log_in(browsers(), daphne.url, "sam", "pw-sam", "/floor/")
    expect(floor.locator(f"a.tile[data-table='{props.pk}'] .badge.props-only")).to_be_visible()
    expect(floor.locator(f"a.tile[data-table='{main.pk}'] .badge.props-only")).to_have_count(0)

    lobby = browsers().new_page()
    lobby.goto(daphne.url + "/lobby/")  # nobody logged in
    row = lobby.locator(f"tr[data-game='{game}']")
    expect(row.locator(".running")).to_have_text("1")
    expect(row.locator(".open-seats")).to_have_text("4")
    expect(row.locator(".waiting")).to_have_text("1")
    expect(row.locator(".props-only")).to_contain_text("1 table, proposition players only")
    # A board for a TV across the room (issue 35 item 8): the game in words, large type at 1920x1080.
    lobby.set_viewport_size({"width": 1920, "height": 1080})
    expect(row.locator("td.game")).to_contain_text("Ultimate Texas Hold'em")
    assert "UTH-0" not in row.locator("td.game").inner_text()  # not the pay table's code
    size = lobby.evaluate("() => parseFloat(getComputedStyle(document.querySelector('.lobby-board td.game')).fontSize)")
    assert size >= 40, size
    assert lobby.evaluate("() => document.querySelector('meta[http-equiv=refresh]').content") == "30"  # refreshes itself
    lobby.screenshot(path=ARTIFACTS / "lobby.png", full_page=True)
    html = lobby.content()
    for name in ("P-1001", "Tom", "Tess", "Tina", "B-78"):
        assert name not in html

    # Both pages fit a phone and the big screens without sideways scrolling.
    for page, path in ((sam, "/floor/waitlist/"), (lobby, "/lobby/")):
        page.goto(daphne.url + path)
        for size, (width, height) in SIZES.items():
            page.set_viewport_size({"width": width, "height": height})
            assert overflow(page) <= 0, (path, size, too_wide(page))
