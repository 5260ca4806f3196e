"""Every screen in a real Chromium at the three sizes the cardroom uses (a 1280x800
tablet, a 390x844 phone, a 1920x1080 floor screen): nothing overflows sideways, a full
7-player settlement shows its totals and actions without scrolling, a refusal's banner
clears, a void asked for on the tablet is approved from a supervisor's own browser and the
tablet follows, and a server-shuffled 3-player round takes the taps it should. Screenshots
of every screen go to test-artifacts/ (not committed).
"""

import re

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from cardroom.gaming_day import calendar
from rounds.models import Round
from tables.models import DealerAssignment
from tests.engine.helpers import FEES, dealt_round

from .conftest import make_table, run
from .test_browser import ARTIFACTS, browsers, daphne, expect  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

SIZES = {"1280x800": (1280, 800), "390x844": (390, 844), "1920x1080": (1920, 1080)}
LIMITS = {"ante_min": 500, "ante_max": 100000}


def person(django_user_model, name, role):
    user = django_user_model.objects.create_user(username=name, password="pw")
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def assign(dealer, table, by):
    now, cal = timezone.now(), calendar()
    DealerAssignment.objects.create(dealer=dealer, table=table, gaming_day=cal.gaming_day(now), shift=cal.shift(now),
                                    assigned_by=by, assigned_at=now)


def log_in(context, url, username, path, password="pw"):
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(f"{url}/accounts/login/?next={path}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    expect(page).to_have_url(f"{url}{path}")
    return page


def overflow(page) -> int:
    """How many pixels the page is wider than the window (0: no sideways scrolling)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


def too_wide(page) -> list[str]:
    """The elements that reach past the window's right edge (for the failure message)."""
    return page.evaluate(
        """[...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
            .slice(0, 5).map((el) => el.tagName + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right))"""
    )


def small_targets(page, selector) -> list:
    """The visible elements matching `selector` smaller than a 44x44 px touch target."""
    return page.evaluate(
        """(selector) => [...document.querySelectorAll(selector)].filter((el) => el.offsetParent !== null)
            .map((el) => [el.textContent.trim(), el.offsetWidth, el.offsetHeight]).filter(([, w, h]) => w < 44 || h < 44)""",
        selector,
    )


def in_view(page, selector) -> bool:
    """Every element matching `selector` lies wholly inside the window, as the page stands."""
    return page.evaluate(
        """(selector) => [...document.querySelectorAll(selector)].every((el) => {
            const r = el.getBoundingClientRect();
            return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
        })""",
        selector,
    )


@pytest.fixture
def floor_staff(transactional_db, django_user_model):
    sup = person(django_user_model, "sam", "supervisor")
    sup2 = person(django_user_model, "sue", "supervisor")
    dealer = person(django_user_model, "dan", "dealer")
    person(django_user_model, "cora", "compliance")
    return {"sup": sup, "sup2": sup2, "dealer": dealer}


@pytest.fixture
def full_table(floor_staff):
    """Seven players against the player-dealer in seat 1, dealt and shown down: the next tap
    settles the round."""
    table = make_table(seats=8, limits=LIMITS, fee_schedule=FEES)
    players = list(range(2, 9))
    run(table.pk, *[{"type": "sit", "seat": s, "player": f"Player {s}"} for s in [1, *players]],
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1},
        *dealt_round(players, bank=30000, ante=1500, trips=500)[:-1])
    assign(floor_staff["dealer"], table, floor_staff["sup"])
    return table


def test_every_screen_fits_every_size_and_a_7_player_settlement_needs_no_scrolling(daphne, full_table, browsers, floor_staff):
    ARTIFACTS.mkdir(exist_ok=True)
    dealer = log_in(browsers(), daphne.url, "dan", f"/tables/{full_table.pk}/tablet/")
    expect(dealer.locator("#status")).to_have_text("Live")
    expect(dealer.locator("#preview")).to_contain_text("Settlement preview")
    dealer.click("#next button:has-text('Settle')")
    expect(dealer.locator("#settlement .totals tr.total")).to_have_count(7)
    settled = Round.objects.get(table=full_table)
    assert settled.status == "settled"
    expect(dealer.locator("#settlement .lines tr.line")).to_have_count(settled.lines.count())

    for size, (width, height) in SIZES.items():
        dealer.set_viewport_size({"width": width, "height": height})
        dealer.reload()  # the settlement stays until the dealer taps Done
        expect(dealer.locator("#settlement .totals tr.total")).to_have_count(7)
        assert overflow(dealer) <= 0, size
        # Every seat's total and what to do, the bank left, the fee refunds and Done: all
        # in the window without scrolling.
        for part in ("#settlement .totals td.do", "#settlement .bank-left", "#settlement .done", "#settlement .lines-detail summary"):
            assert in_view(dealer, part), (size, part)
        dealer.screenshot(path=ARTIFACTS / f"settlement-7-players-{size}.png")
        assert small_targets(dealer, "#settlement button, #settlement summary") == [], size

    # On a phone, "Every wager in order" breaks no word or amount ("Colle/ct", "$10.0/0"):
    # each piece of text lies on one line; the panel scrolls sideways instead.
    dealer.set_viewport_size({"width": 390, "height": 844})
    dealer.click("#settlement .lines-detail summary")
    broken = dealer.evaluate("""() => {
        const texts = [], walk = document.createTreeWalker(document.querySelector('#settlement table.lines'), NodeFilter.SHOW_TEXT);
        while (walk.nextNode()) texts.push(walk.currentNode);
        return texts.filter((text) => {
          const range = document.createRange(); range.selectNodeContents(text);
          return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
        }).map((text) => text.textContent);
      }""")
    assert broken == [], broken
    assert overflow(dealer) <= 0  # the page itself does not scroll sideways
    dealer.click("#settlement .done")
    expect(dealer.locator("#settlement")).to_be_hidden()
    supervisor = log_in(browsers(), daphne.url, "sam", "/floor/")
    compliance = log_in(browsers(), daphne.url, "cora", "/compliance/collections/")
    screens = {  # who: the pages they open
        "dealer": ["/", f"/tables/{full_table.pk}/tablet/", f"/tables/{full_table.pk}/", "/floor/"],  # the floor: a 403 page
        # (The 404 page: tests/service/test_pages_by_role.py; this server runs with DEBUG.)
        "supervisor": ["/floor/", "/staff/approvals/", "/staff/assignments/", "/staff/audit/"],
        "compliance": ["/compliance/collections/", "/compliance/jackpot/", "/compliance/rounds/", "/compliance/rotation/",
                       "/compliance/exports/"],
    }
    pages = {"dealer": dealer, "supervisor": supervisor, "compliance": compliance}
    for who, paths in screens.items():
        page = pages[who]
        for path in paths:
            page.goto(f"{daphne.url}{path}")
            for size, (width, height) in SIZES.items():
                page.set_viewport_size({"width": width, "height": height})
                assert overflow(page) <= 0, (path, size, too_wide(page))
                name = re.sub(r"[^a-z]+", "-", re.sub(r"/\d+/", "/one/", path).strip("/")) or "home"  # no table ids
                page.screenshot(path=ARTIFACTS / f"{who}-{name}-{size}.png", full_page=True)
    dealer.goto(f"{daphne.url}/tables/{full_table.pk}/tablet/")
    dealer.click("button:has-text('Table rules')")
    expect(dealer.locator("#rules-dialog")).to_contain_text("Trips pays")
    expect(dealer.locator("#rules-dialog")).to_contain_text("$5.00 to $1,000.00")
    dealer.screenshot(path=ARTIFACTS / "tablet-table-rules.png")
    assert (dealer.errors[:3], supervisor.errors[:3], compliance.errors[:3]) == ([], [], [])


@pytest.fixture
def betting_table(floor_staff):
    table = make_table(seats=6, limits=LIMITS, fee_schedule=FEES)
    run(table.pk, *[{"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2, 3, 4)],
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1})
    assign(floor_staff["dealer"], table, floor_staff["sup"])
    return table


def test_a_refusal_is_said_in_dollars_and_clears_on_the_next_accepted_tap_or_dismiss(daphne, betting_table, browsers):
    tablet = log_in(browsers(), daphne.url, "dan", f"/tables/{betting_table.pk}/tablet/")
    tablet.fill("input[name=bank]", "1000")
    tablet.click("button:has-text('Open round')")
    seat2 = tablet.locator(".seat[data-seat='2']")
    seat2.locator("input[name=ante]").fill("1")
    seat2.locator("button[type=submit]:has-text('Bet')").click()
    banner = tablet.locator("#message")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("below the table minimum")
    expect(banner).to_contain_text("Ante $5.00 to $1,000.00")
    expect(banner.locator("strong")).not_to_contain_text("500")  # no cents, no engine wording
    tablet.screenshot(path=ARTIFACTS / "tablet-refusal-banner.png")
    seat2.locator("button.preset[data-ante='500']").click()  # accepted: the banner goes
    expect(seat2.locator(".wagers")).to_have_text("Ante $5.00 · Blind $5.00")
    expect(banner).to_be_hidden()

    seat3 = tablet.locator(".seat[data-seat='3']")
    seat3.locator("input[name=ante]").fill("5000")
    seat3.locator("button[type=submit]:has-text('Bet')").click()
    expect(banner).to_contain_text("above the table maximum")
    banner.locator("button.dismiss").click()
    expect(banner).to_be_hidden()
    assert small_targets(tablet, "#app button") == []
    assert tablet.errors == []


def test_trips_typed_while_another_seats_tap_is_answered_are_kept(daphne, betting_table, browsers):
    """A seat the dealer is typing in is not redrawn when another seat's tap is answered."""
    tablet = log_in(browsers(), daphne.url, "dan", f"/tables/{betting_table.pk}/tablet/")
    tablet.fill("input[name=bank]", "1000")
    tablet.click("button:has-text('Open round')")
    trips = tablet.locator(".seat[data-seat='3'] input[name=trips]")
    trips.click()
    tablet.locator(".seat[data-seat='2'] button.preset[data-ante='500']").click()
    trips.click()
    trips.press_sequentially("5", delay=0)
    expect(tablet.locator(".seat[data-seat='2'] .wagers")).to_have_text("Ante $5.00 · Blind $5.00")
    trips.press_sequentially("0", delay=0)  # typed after seat 2's answer redrew the table
    tablet.locator(".seat[data-seat='3'] button.preset[data-ante='1000']").click()
    expect(tablet.locator(".seat[data-seat='3'] .wagers")).to_have_text("Ante $10.00 · Blind $10.00 · Trips $50.00")


def test_a_void_requested_on_the_tablet_is_approved_on_a_supervisors_own_device_and_the_tablet_follows(
    daphne, betting_table, browsers
):
    run(betting_table.pk, {"type": "open_round", "bank": 100000}, {"type": "wager", "seat": 2, "ante": 500},
        {"type": "no_more_bets"})
    tablet = log_in(browsers(), daphne.url, "dan", f"/tables/{betting_table.pk}/tablet/")
    floor = log_in(browsers(), daphne.url, "sam", "/floor/")
    expect(floor.locator("#approvals-banner")).to_be_hidden()
    expect(tablet.locator(".collect-fees")).to_contain_text("$1.50 in all")  # $1 for seat 2, 50 cents for the PD

    tablet.click("button:has-text('Request a void')")
    tablet.fill("#void-dialog input[name=reason]", "card exposed")
    tablet.click("#void-dialog button[value=request]")
    expect(tablet.locator(".void-request")).to_contain_text("waiting for a supervisor")
    expect(floor.locator("#approvals-banner")).to_have_text("1 approval waiting: open the queue")
    expect(floor.locator(".alert-item.approval_pending")).to_be_visible()
    floor.screenshot(path=ARTIFACTS / "floor-approval-waiting.png")
    tile = floor.locator(f".tile[data-table='{betting_table.pk}']")
    expect(tile).to_have_attribute("data-state", "dealing")
    floor.select_option("#floor-filter", "closed")
    expect(tile).to_be_hidden()
    floor.select_option("#floor-filter", "dealing")
    expect(tile).to_be_visible()
    floor.locator(".alert-item.approval_pending button:has-text('Acknowledge')").click()
    expect(floor.locator(".alert-item.approval_pending .ack")).to_contain_text("seen by sam")

    floor.click("#approvals-banner")
    expect(floor.locator("tr.approval.pending")).to_contain_text("card exposed")
    floor.screenshot(path=ARTIFACTS / "approvals-queue.png", full_page=True)
    floor.click("tr.approval button:has-text('Approve')")
    expect(floor.locator(".messages")).to_contain_text("Approved.")

    expect(tablet.locator("#message")).to_contain_text("Round voided")
    expect(tablet.locator("#message")).to_contain_text("Approved by sam")
    expect(tablet.locator(".void-request")).to_have_count(0)
    assert Round.objects.get(table=betting_table).status == "voided"
    tablet.screenshot(path=ARTIFACTS / "tablet-void-approved.png")
    assert tablet.errors == [] and floor.errors == []


def test_a_server_shuffled_round_of_three_players_takes_16_taps(daphne, betting_table, browsers):
    """Taps per round, counted as the dealer makes them (one click each). The tablet before
    these screens took 20: a Check per seat on two streets (6) where one "Everyone checks"
    per street now serves (2)."""
    tablet = log_in(browsers(), daphne.url, "dan", f"/tables/{betting_table.pk}/tablet/")
    taps = []

    def tap(selector):
        tablet.click(selector)
        taps.append(selector)

    expect(tablet.locator("#status")).to_have_text("Live")
    tap("button:has-text('Open round')")
    for seat in (2, 3, 4):
        tap(f".seat[data-seat='{seat}'] button.preset[data-ante='500']")
        expect(tablet.locator(f".seat[data-seat='{seat}'] .wagers")).to_contain_text("Ante $5.00")
    tap("button:has-text('No more bets')")
    tap("button:has-text('Shuffle and deal')")
    tap("button.check-all")
    tap("#next button:text-is('Flop')")
    tap("button.check-all")
    tap("#next button:text-is('Turn and river')")
    for seat in (2, 3, 4):
        tap(f".seat[data-seat='{seat}'] button:has-text('Play 1×')")
    tap("#next button:text-is('Showdown')")
    tap("#next button:has-text('Settle')")
    expect(tablet.locator("#settlement")).to_be_visible()
    tap("#settlement .done")
    expect(tablet.locator("#settlement")).to_be_hidden()
    assert Round.objects.get(table=betting_table).status == "settled"
    assert len(taps) == 16


def test_a_supervisor_at_the_table_approves_on_the_tablet_and_a_wrong_password_leaves_no_request(
    daphne, betting_table, browsers
):
    from tables.models import Approval

    run(betting_table.pk, {"type": "open_round", "bank": 100000}, {"type": "wager", "seat": 2, "ante": 500},
        {"type": "no_more_bets"})
    tablet = log_in(browsers(), daphne.url, "dan", f"/tables/{betting_table.pk}/tablet/")

    def approve_here(password):
        tablet.click("button:has-text('Request a void')")
        tablet.fill("#void-dialog input[name=reason]", "shuffler jam")
        tablet.fill("#void-dialog input[name=username]", "sam")
        tablet.fill("#void-dialog input[name=password]", password)
        tablet.click("#void-dialog button[value=approve-here]")

    approve_here("wrong")
    expect(tablet.locator("#message")).to_contain_text("You are not allowed to do that.")
    assert not Approval.objects.exists()
    approve_here("pw")
    expect(tablet.locator("#message")).to_contain_text("Round voided")
    assert Round.objects.get(table=betting_table).status == "voided"
    assert Approval.objects.get().decision.via == "tablet"
    assert tablet.errors == []
