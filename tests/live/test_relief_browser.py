"""Dealer relief in a real headless Chromium (issue 26, part 2): a supervisor's relief plan
pushes a second dealer onto a table between rounds; she takes over with her own login, and
the first dealer's tap after the push is refused on his tablet."""

import pytest
from django.contrib.auth.models import Group, User
from django.utils import timezone

from cardroom.access import Actor
from cardroom.gaming_day import calendar
from tables.models import DealerAssignment, DealerHandover, RejectedCommand, TableEvent
from tables.relief import handover_take, relief_plan_make
from tables.services import command_execute
from tests.engine.helpers import seated_with_pd

from .test_browser import ARTIFACTS, Daphne, browsers, expect  # noqa: F401 (fixtures)
from .test_default_setup import log_in
from .test_screens import SIZES, overflow, too_wide
from tests.playing import new_table

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

CONFIG = {"seats": 6, "paytable": "UTH-02", "limits": {"ante_min": 500, "ante_max": 10000}}


def person(name, role):
    user = User.objects.create_user(name, password="pw-" + name)
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


@pytest.fixture
def daphne(transactional_db, redis_url, settings, shift_around_now):
    """The served app on this test's calendar: a plan's next push must fall inside the
    shift running now, whatever the hour the suite runs at (shift_around_now)."""
    server = Daphne(redis_url)
    server.env["CARDROOM_GAMING_DAY_START"] = settings.CARDROOM_GAMING_DAY_START
    server.env["CARDROOM_SHIFTS"] = ",".join(f"{name}={start}" for name, start in settings.CARDROOM_SHIFTS)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def table(transactional_db, shift_around_now):
    sam = person("sam", "supervisor")
    # Listed in rotation order by name: Bea's first push is to UTH-1, Dan's to a break.
    dan, _bea = person("dan", "dealer"), person("bea", "dealer")
    table = new_table("UTH-1", **CONFIG)  # its boxes placed: a person opens a round only with them
    for command in seated_with_pd([1, 2], pd=1):
        assert command_execute(table_id=table.pk, actor="test", command=command).ok
    now, cal = timezone.now(), calendar()
    DealerAssignment.objects.create(dealer=dan, table=table, gaming_day=cal.gaming_day(now), shift=cal.shift(now),
                                    assigned_by=sam, assigned_at=now)
    return table


def test_a_relief_plan_pushes_a_second_dealer_on_between_rounds_and_the_first_dealers_tap_is_refused(
    daphne, table, browsers  # noqa: F811
):
    dan = log_in(browsers(), daphne.url, "dan", "pw-dan", f"/tables/{table.pk}/tablet/")
    expect(dan.locator("button:has-text('Open round')")).to_be_visible()

    sam = log_in(browsers(), daphne.url, "sam", "pw-sam", "/floor/relief/")
    form = sam.locator("#relief-plan-form")
    for name in ("bea", "dan"):
        form.get_by_label(name).check()
    form.get_by_label("UTH-1").check()
    form.locator("button[type=submit]").click()
    expect(sam.locator("p.success")).to_contain_text("Plan made")
    # The floor shows the next push: Dan back to UTH-1, Bea to a break.
    sam.goto(daphne.url + "/floor/")
    expect(sam.locator("#relief-board .relief-push").first).to_contain_text("dan → UTH-1")
    expect(sam.locator("#relief-board .relief-push").first).to_contain_text("bea → break")

    bea = log_in(browsers(), daphne.url, "bea", "pw-bea", "/relief/")
    bea.locator("#take-over button").click()
    expect(bea).to_have_url(f"{daphne.url}/tables/{table.pk}/tablet/")
    handover = DealerHandover.objects.get()
    assert (handover.incoming.username, handover.outgoing.username, handover.after_round) == ("bea", "dan", 0)

    # Dan's tablet is still open. The take-over announces his standing changed
    # (tables.standing): his socket checks again at once and closes, "no longer allowed",
    # before its periodic check (SESSION_CHECK_SECONDS, 5); his tap then goes over HTTP,
    # and the command service refuses it in its transaction.
    expect(dan.locator("#status")).to_have_attribute("data-state", "not_allowed", timeout=15000)
    before = TableEvent.objects.filter(table=table).count()
    dan.fill("input[name=bank]", "1000")
    dan.click("button:has-text('Open round')")
    expect(dan.locator("#message[data-code='not_authorized']")).to_be_visible(timeout=15000)
    assert TableEvent.objects.filter(table=table).count() == before
    assert RejectedCommand.objects.filter(table=table, actor="dan", code="not_authorized").exists()

    # Bea's tap is the table's next command.
    bea.fill("input[name=bank]", "1000")
    bea.click("button:has-text('Open round')")
    expect(bea.get_by_text("Take the wagers at each seat")).to_be_visible()
    assert TableEvent.objects.filter(table=table).latest("seq").actor == "bea"

    # Sam's floor has stayed open since before the take-over: its relief panel shows the
    # hand-over without a reload (the board comes over the floor's socket).
    expect(sam.locator("#relief-board .relief-handover")).to_contain_text("bea took over UTH-1 from dan after round 0")
    sam.screenshot(path=ARTIFACTS / "relief-floor.png", full_page=True)
    assert dan.errors == [] and bea.errors == []

    # The relief pages and the floor with its panel fit a phone and the big screens.
    for page, path in ((sam, "/floor/relief/"), (sam, "/floor/"), (bea, "/relief/")):
        page.goto(daphne.url + path)
        for size, (width, height) in SIZES.items():
            page.set_viewport_size({"width": width, "height": height})
            assert overflow(page) <= 0, (path, size, too_wide(page))


def test_a_tap_queued_under_the_first_dealer_is_never_sent_under_the_incoming_dealers_login(
    daphne, table, browsers  # noqa: F811
):
    """The hand-over on one tablet: Dan's tap is queued while the network is down; Bea logs
    in on the same device and takes over. The tap is never sent, under either login."""
    sam = User.objects.get(username="sam")
    relief_plan_make(dealers=[User.objects.get(username="bea").pk, User.objects.get(username="dan").pk],
                     tables=[table.pk], starts_at=timezone.now(), actor=Actor.of(sam))
    device = browsers()
    dan = device.new_page()
    # The network is down for Dan's taps: his tablet's socket reaches nothing (a socket
    # mocked in the browser, never connected to the server) and its HTTP fallback fails.
    dan.route_web_socket(lambda url: "/ws/tables/" in url, lambda ws: None)
    dan.route("**/api/tables/*/commands", lambda route: route.abort())
    dan.goto(f"{daphne.url}/accounts/login/?next=/tables/{table.pk}/tablet/")
    dan.fill("input[name=username]", "dan")
    dan.fill("input[name=password]", "pw-dan")
    dan.click("section.login button[type=submit]")
    expect(dan.locator("button:has-text('Open round')")).to_be_visible()
    dan.fill("input[name=bank]", "1000")
    dan.click("button:has-text('Open round')")
    key = f"cardroom.outbox.{User.objects.get(username='dan').pk}.{table.pk}"
    assert dan.evaluate(f"JSON.parse(localStorage.getItem('{key}') || '[]').length") == 1
    dan.close()

    # Bea logs in on the same device, over Dan's session (no logout: a hand-over in a hurry).
    bea = device.new_page()
    bea.errors = []
    bea.on("pageerror", lambda e: bea.errors.append(str(e)))
    bea.goto(f"{daphne.url}/accounts/login/?next=/relief/")
    bea.fill("input[name=username]", "bea")
    bea.fill("input[name=password]", "pw-bea")
    bea.click("section.login button[type=submit]")  # not the bar's "Log out" (Dan's session)
    expect(bea).to_have_url(f"{daphne.url}/relief/")
    bea.locator("#take-over button").click()
    expect(bea).to_have_url(f"{daphne.url}/tables/{table.pk}/tablet/")
    expect(bea.locator("button:has-text('Open round')")).to_be_visible()
    bea.wait_for_timeout(4000)  # past the tablet's retry of a queued tap (static/table.js)
    assert not TableEvent.objects.filter(table=table, command_type="open_round").exists()
    assert not RejectedCommand.objects.filter(table=table).exists()
    assert bea.evaluate(f"localStorage.getItem('{key}')") is None
    assert bea.errors == []


def test_a_tap_in_flight_at_the_hand_over_is_answered_refused_not_left_sending(daphne, table, browsers):  # noqa: F811
    """Dan taps just before the take-over and his tablet's socket closes (4403) before
    answering it (the tap is held on its way here, as a slow network would). The tap is not
    left "sending": the tablet says he no longer drives the table and the server's
    refusal comes back; nothing is applied, and nothing is sent under Bea's login."""
    relief_plan_make(dealers=[User.objects.get(username="bea").pk, User.objects.get(username="dan").pk],
                     tables=[table.pk], starts_at=timezone.now(), actor=Actor.of(User.objects.get(username="sam")))
    held = []

    def slow_taps(ws):
        server = ws.connect_to_server()
        # Everything reaches the server but the taps, which stay in flight.
        ws.on_message(lambda message: held.append(message) if '"command"' in str(message) else server.send(message))

    context = browsers()
    context.route_web_socket(lambda url: "/ws/tables/" in url, slow_taps)
    dan = log_in(context, daphne.url, "dan", "pw-dan", f"/tables/{table.pk}/tablet/")
    expect(dan.locator("#status")).to_have_attribute("data-state", "open")
    dan.fill("input[name=bank]", "1000")
    dan.click("button:has-text('Open round')")
    expect(dan.locator("#status")).to_have_attribute("data-queued", "1")
    dan.wait_for_timeout(300)
    assert len(held) == 1

    handover_take(table_id=table.pk, actor=Actor.of(User.objects.get(username="bea")))
    expect(dan.locator("#status")).to_have_attribute("data-state", "not_allowed", timeout=15000)
    message = dan.locator("#message[data-code='not_authorized']")
    expect(message).to_be_visible(timeout=15000)
    expect(message).to_contain_text("no longer drive this table")
    expect(dan.locator("#status")).to_have_attribute("data-queued", "0")
    assert not TableEvent.objects.filter(table=table, command_type="open_round").exists()
    refused = RejectedCommand.objects.get(table=table, code="not_authorized")
    assert refused.actor == "dan"
    assert dan.errors == []
