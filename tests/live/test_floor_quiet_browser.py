"""The floor is still until something changes (issue 35): an idle floor replaces no tile and
no button for 10 s, an alert's button stays the very element a finger is reaching for while
another table changes, and the Reliefs panel never shows the word "null".

The idle floor is served as `make run` serves it (no REDIS_URL: the in-memory channel
layer, whose screens re-read the floor every few seconds); the other tests on the test
Redis, so that a command run here reaches the served floor at once.
"""

import os

import pytest

from .conftest import make_table, run
from .test_browser import Daphne, browsers, daphne, expect  # noqa: F401 (fixtures)
from .test_screens import log_in, person

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

# Counts, from when it is installed, what leaves the tiles and the alert list: the buttons
# (a button removed, or inside a subtree removed), the tiles, and every mutation at all.
WATCH = """() => {
  window.removed = { buttons: 0, tiles: 0, mutations: 0 };
  const count = (records) => {
    for (const record of records) {
      window.removed.mutations += 1;
      for (const node of record.removedNodes) {
        if (node.nodeType !== Node.ELEMENT_NODE) continue;
        window.removed.buttons += (node.matches("button") ? 1 : 0) + node.querySelectorAll("button").length;
        window.removed.tiles += (node.matches(".tile") ? 1 : 0) + node.querySelectorAll(".tile").length;
      }
    }
  };
  for (const id of ["floor-tiles", "alert-list"]) {
    new MutationObserver(count).observe(document.getElementById(id),
      { childList: true, subtree: true, attributes: true, characterData: true });
  }
}"""


@pytest.fixture
def embedded_daphne(transactional_db, redis_url):
    """The app served as `make run` serves it: no Redis, the channel layer in memory."""
    server = Daphne(redis_url)
    server.env = {k: v for k, v in server.env.items() if k != "REDIS_URL"}
    server.start()
    yield server
    server.stop()


def _tables_with_an_offer():
    """Two open tables: one where the bank is offered to seat 1 (an alert with its
    Acknowledge button), one quiet."""
    offered = make_table(seats=6)
    run(offered.pk, *[{"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)], {"type": "offer_bank", "seat": 1})
    quiet = make_table(seats=6)
    run(quiet.pk, {"type": "sit", "seat": 1, "player": "Q-1"})
    return offered, quiet


def test_an_idle_floor_replaces_no_tile_and_no_button_in_10_seconds(embedded_daphne, browsers, django_user_model):
    person(django_user_model, "sam", "supervisor")
    offered, _ = _tables_with_an_offer()
    floor = log_in(browsers(), embedded_daphne.url, "sam", "/floor/")
    expect(floor.locator("#status")).to_have_attribute("data-state", "open")
    expect(floor.locator(".alert-item.offer_pending button:has-text('Acknowledge')")).to_be_visible()
    floor.wait_for_timeout(500)  # the floor the socket sends on connect, drawn
    floor.evaluate(WATCH)
    floor.wait_for_timeout(10_000)
    removed = floor.evaluate("window.removed")
    assert removed == {"buttons": 0, "tiles": 0, "mutations": 0}, removed
    assert floor.errors == []


def test_an_alerts_button_stays_the_same_element_while_another_table_changes(daphne, browsers, django_user_model):
    person(django_user_model, "sam", "supervisor")
    offered, quiet = _tables_with_an_offer()
    floor = log_in(browsers(), daphne.url, "sam", "/floor/")
    expect(floor.locator("#status")).to_have_attribute("data-state", "open")
    button = floor.locator(f".alert-item.offer_pending[data-table='{offered.pk}'] button:has-text('Acknowledge')")
    expect(button).to_be_visible()
    floor.wait_for_timeout(500)
    floor.evaluate(WATCH)
    held = button.element_handle()  # the element a finger is on its way to
    close = floor.locator(f".tile[data-table='{offered.pk}'] button.close-table").element_handle()

    run(quiet.pk, {"type": "sit", "seat": 2, "player": "Q-2"})  # an unrelated table changes
    expect(floor.locator(f".tile[data-table='{quiet.pk}'] .fact.seated .value")).to_have_text("2 / 6")

    assert floor.evaluate("([a, b]) => a.isConnected && a === b", [held, button.element_handle()])
    assert floor.evaluate("(el) => el.isConnected", close)  # its tile was not touched either
    assert floor.evaluate("window.removed.buttons") == 0
    held.click()  # and it takes the tap
    expect(floor.locator(f".alert-item.offer_pending[data-table='{offered.pk}'] .ack")).to_contain_text("seen by sam")
    assert floor.errors == []


def test_the_reliefs_panel_never_shows_null(daphne, browsers, django_user_model):
    person(django_user_model, "sam", "supervisor")
    make_table(seats=6)
    floor = log_in(browsers(), daphne.url, "sam", "/floor/")
    expect(floor.locator("#status")).to_have_attribute("data-state", "open")
    panel = floor.locator("#relief-board")
    expect(panel).to_contain_text("No relief plan for this shift.")
    floor.wait_for_timeout(1000)  # the board the socket sends with the floor, drawn
    assert "null" not in panel.inner_text()
    assert floor.errors == []


def test_a_table_is_closed_and_opened_from_its_tile_with_a_reason_asked_in_the_page(daphne, browsers, django_user_model):
    """Issue 35 item 5: no browser prompt. The page's own dialog asks why, by keyboard
    (Enter confirms, Escape leaves the table as it is) or by touch (44 px buttons); an
    empty reason is not sent."""
    from tables.models import Table, TableStatusChange

    person(django_user_model, "sam", "supervisor")
    table = make_table(seats=6)
    floor = log_in(browsers(), daphne.url, "sam", "/floor/")
    native = []
    floor.on("dialog", lambda d: (native.append(d.type), d.dismiss()))
    expect(floor.locator("#status")).to_have_attribute("data-state", "open")
    tile = floor.locator(f".tile[data-table='{table.pk}']")
    dialog = floor.locator("#status-dialog")

    tile.locator("button.close-table").click()
    expect(dialog).to_be_visible()
    expect(dialog.locator("h2")).to_have_text("Close Live T")
    expect(floor.locator("#status-reason")).to_be_focused()
    assert [b for b in dialog.locator("menu button").all() if b.bounding_box()["height"] < 44] == []
    floor.keyboard.type("dealer sick, no relief")
    floor.keyboard.press("Enter")
    expect(dialog).to_be_hidden()
    expect(tile.locator("button.open-table")).to_have_text("Open…")
    expect(tile.locator(".status-change")).to_contain_text("dealer sick, no relief")
    assert Table.objects.get(pk=table.pk).is_open is False

    tile.locator("button.open-table").click()  # then Escape: nothing happens
    expect(dialog).to_be_visible()
    floor.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    tile.locator("button.open-table").click()  # then confirm with no reason: the dialog stays
    floor.locator("#status-confirm").click()
    expect(dialog).to_be_visible()
    floor.locator("#status-cancel").click()
    expect(dialog).to_be_hidden()
    floor.wait_for_timeout(300)
    assert Table.objects.get(pk=table.pk).is_open is False
    assert TableStatusChange.objects.filter(table=table).count() == 1

    tile.locator("button.open-table").click()  # the same tile, now its Open button: opens
    floor.fill("#status-reason", "relief dealer here")
    floor.locator("#status-confirm").click()
    expect(tile.locator("button.close-table")).to_have_text("Close…")
    expect(tile.locator(".status-change")).to_contain_text("relief dealer here")
    assert Table.objects.get(pk=table.pk).is_open is True
    assert [c.by for c in TableStatusChange.objects.filter(table=table)] == ["sam", "sam"]

    tile.locator("button.close-table").click()  # and closes again: the button acts on the table as it is now
    expect(dialog.locator("h2")).to_have_text("Close Live T")
    floor.keyboard.type("end of the game")
    floor.keyboard.press("Enter")
    expect(tile.locator("button.open-table")).to_have_text("Open…")
    assert Table.objects.get(pk=table.pk).is_open is False
    assert native == []  # never the browser's own prompt
    assert floor.errors == []
