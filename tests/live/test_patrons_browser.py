"""Issue 27's done-when, in a real headless Chromium against the app served as production
serves it (Daphne, the least-privilege app role, the default thresholds: MTL $3,000,
warning $8,000, CTR above $10,000):

- a patron's three chip purchases at two tables in one gaming day, $10,500 in all, make a
  CTR candidate, and the floor saw the warning at $8,000 (the tablet never does);
- a self-excluded patron is refused a seat, and their progressive award is withheld;
- an unidentified patron's MTL entry is later linked to a patron record;
- the exports verify offline (`verify_logs --checkpoints`)."""

import io
import json
import re

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.management import call_command

from cardroom.access import Actor
from collections_fees.models import JackpotMeter
from patrons.identity import patron_create
from patrons.models import CashTransaction, ExclusionHit, PatronLink
from tables.services import command_execute
from tests.engine.test_sidebets import SIDE_BETS
from tests.patron_aml.test_awards import D_UP_TO_SHOWDOWN, SHOWDOWN
from tests.service.test_access import assign

from .test_browser import ARTIFACTS, browsers, daphne, expect  # noqa: F401 (fixtures)
from .test_default_setup import log_in
from .test_screens import SIZES, overflow, too_wide
from tests.playing import new_table

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def _person(name, role):
    user = User.objects.create_user(name, password=f"pw-{name}")
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


@pytest.fixture
def floor(transactional_db):
    dan, sam, cora = _person("dan", "dealer"), _person("sam", "supervisor"), _person("cora", "compliance")
    t1 = new_table("UTH-1", paytable="UTH-01", side_bets=SIDE_BETS, boxes=False)
    t2 = new_table("UTH-2", boxes=False)
    for table in (t1, t2):
        assign(dan, table, sam)
    officer = Actor.of(cora)
    ann = patron_create(actor=officer, number="P-1001", card="CC-77001", display_name="Ann L.", legal_name="Ann Lee",
                        id_type="drivers_license", id_number="D1234567", id_issuer="CA")
    # Carl sits at UTH-1 and wins its progressive before the state's list names him.
    carl = patron_create(actor=officer, number="P-2", display_name="Carl D.", legal_name="Carl Diaz")
    patron_create(actor=officer, number="P-2002", display_name="Bob S.", legal_name="Bob Stone")
    for command in D_UP_TO_SHOWDOWN:
        assert command_execute(table_id=t1.pk, command=command, actor="test").ok, command
    return {"t1": t1, "t2": t2, "ann": ann, "carl": carl}


def _cash(tablet, kind_label, player, dollars):
    form = tablet.locator("#patron-cash")
    form.locator("select[name=kind]").select_option(label=kind_label)
    form.locator("input[name=player]").fill(player)
    form.locator("input[name=amount]").fill(dollars)
    form.locator("button[type=submit]").click()
    return form.locator("output")


def _tablet(open_context, url, table):
    page = log_in(open_context(), url, "dan", "pw-dan", f"/tables/{table.pk}/tablet/")
    expect(page.locator("#status")).to_have_text("Live")
    page.locator("#patron-panel summary").click()
    return page


def _export(context, url, page_path, link_text, tmp_path, name):
    """Download an export from its page, fetch its manifest (named by the download's Link
    header) and check it offline with `verify_logs --checkpoints`."""
    page = context.new_page()
    page.goto(url + page_path)
    with page.expect_download() as downloading:
        page.click(f"a:has-text('{link_text}')")
    href = page.locator(f"a:has-text('{link_text}')").get_attribute("href")
    response = context.request.get(url + href)
    manifest_link = re.search(r"<([^>]+)>", response.headers["link"]).group(1)
    manifest = json.loads(context.request.get(url + manifest_link).body())
    csv_path, manifest_path = tmp_path / manifest["file"]["name"], tmp_path / f"{name}.manifest.json"
    csv_path.write_bytes(response.body())
    manifest_path.write_text(json.dumps(manifest))
    assert downloading.value.path() is not None
    out = io.StringIO()
    call_command("verify_logs", "--checkpoints", str(manifest_path), stdout=out)  # exits 1 on a failure
    page.close()
    return manifest, out.getvalue()


def test_patrons_cash_and_self_exclusion_at_the_table(daphne, floor, browsers, tmp_path):  # noqa: F811
    assert (settings.CARDROOM_MTL_THRESHOLD_CENTS, settings.CARDROOM_CASH_WARNING_CENTS,
            settings.CARDROOM_CTR_THRESHOLD_CENTS) == (300000, 800000, 1000000)  # the defaults
    url, t1, t2 = daphne.url, floor["t1"], floor["t2"]
    ARTIFACTS.mkdir(exist_ok=True)
    one, two = _tablet(browsers, url, t1), _tablet(browsers, url, t2)
    supervisor = log_in(browsers(), url, "sam", "pw-sam", "/floor/patrons/")

    # The dealer finds Ann by name: her number and display name, never her identification.
    lookup = one.locator("#patron-lookup")
    lookup.locator("input[name=q]").fill("ann")
    lookup.locator("button[type=submit]").click()
    expect(lookup.locator("li[data-number='P-1001']")).to_contain_text("P-1001 Ann L.")
    for secret in ("Ann Lee", "D1234567", "drivers_license"):
        assert secret not in one.content()

    # An amount that is not dollars and cents is refused on the tablet; nothing is sent. The
    # refusal is said in words; its code is kept on the output for support, never shown.
    refused = _cash(one, "Chip purchase for cash", "P-1001", "35.001")
    expect(refused).to_have_text("Type the amount in dollars and cents, e.g. 3500.00.")
    expect(refused).to_have_attribute("data-code", "invalid_amount")
    # The server's refusal too: its words (the tablet's sentence for the code, or the
    # server's own), not its code.
    refused = _cash(one, "Chip purchase for cash", "P-404", "100")
    expect(refused).to_have_text("No patron or unidentified patron 'P-404'.")
    expect(refused).to_have_attribute("data-code", "unknown_patron")
    refused = _cash(one, "Chip purchase for cash", "P-1001", "2000000")  # above the business maximum
    expect(refused).to_have_text("Amounts must be whole, positive numbers of dollars and cents.")
    expect(refused).to_have_attribute("data-code", "invalid_amount")
    assert not CashTransaction.objects.exists()
    # $3,500 at UTH-1, $4,500 at UTH-2: $8,000, the floor's warning.
    expect(_cash(one, "Chip purchase for cash", "P-1001", "3,500")).to_contain_text("$3,500.00 for P-1001 recorded")
    expect(_cash(two, "Chip purchase for cash", "p-1001", "4500.00")).to_contain_text("$4,500.00 for P-1001 recorded")
    supervisor.reload()
    warning = supervisor.locator("#cash-alerts tr[data-kind=warning]")
    expect(warning).to_contain_text("P-1001")
    expect(warning).to_contain_text("$8,000.00")
    expect(supervisor.locator("#cash-alerts tr[data-kind=ctr_required]")).to_have_count(0)
    # $2,500 more at UTH-1: $10,500, a CTR candidate with its three transactions.
    expect(_cash(one, "Chip purchase for cash", "CC-77001", "2500")).to_contain_text("$2,500.00 for P-1001 recorded")
    supervisor.reload()
    expect(supervisor.locator("#cash-alerts tr[data-kind=ctr_required]")).to_contain_text("$10,500.00")
    for tablet in (one, two):  # the patron's side of the table is never warned
        text = tablet.locator("body").inner_text().lower()
        assert "warning" not in text and "ctr" not in text and "8,000" not in text
    compliance_context = browsers()
    compliance = log_in(compliance_context, url, "cora", "pw-cora", "/compliance/ctr/")
    candidate = compliance.locator("body")
    expect(candidate).to_contain_text("P-1001")
    expect(candidate).to_contain_text("$10,500.00")

    # The state's list, uploaded by the compliance officer, names Bob and Carl.
    compliance.goto(url + "/compliance/self-exclusion/")
    compliance.set_input_files("input[name=list]", files=[{
        "name": "state.csv", "mimeType": "text/csv", "buffer": b"name,state_ref\nBob Stone,CA-SE-1\nCarl Diaz,CA-SE-2\n",
    }])
    compliance.locator("form:has(input[name=list]) button[type=submit]").click()
    expect(compliance).to_have_url(re.compile(r"/compliance/self-exclusion/imports/\d+/$"))

    # Bob is refused a seat at UTH-2, with the engine's code; the floor is told.
    seat = two.locator(".seat[data-seat='1']")
    seat.locator("input[name=player]").fill("P-2002")
    seat.locator("button:has-text('Sit')").click()
    expect(two.locator("#message")).to_have_attribute("data-code", "self_excluded")
    # A chip purchase for him is refused too, in words that do not say why.
    refused = _cash(two, "Chip purchase for cash", "P-2002", "100")
    expect(refused).to_have_text("Call a supervisor before going on.")
    expect(refused).to_have_attribute("data-code", "self_excluded")

    # Carl, seated before the list, wins the progressive at UTH-1: withheld, not paid.
    meter_before = JackpotMeter.objects.get(name="UTH-PROG-1").meter
    assert command_execute(table_id=t1.pk, command=SHOWDOWN, actor=Actor.of(User.objects.get(username="dan"))).ok
    preview = one.locator("#preview tr.award.withheld[data-seat='2']")
    expect(preview).to_contain_text("withheld")
    one.click("#next button:has-text('Settle')")
    settled = one.locator("#settlement tr.award.withheld[data-seat='2']")
    expect(settled).to_contain_text("withheld: not paid, the fund keeps it")
    one.screenshot(path=ARTIFACTS / "patrons-award-withheld.png", full_page=True)
    assert JackpotMeter.objects.get(name="UTH-PROG-1").meter == meter_before
    supervisor.reload()
    hits = supervisor.locator("#exclusion-hits")
    expect(hits.locator("td[data-action=seat]")).to_have_count(1)
    expect(hits.locator("td[data-action=award]")).to_contain_text("progressive award $10.00 withheld")
    assert sorted(ExclusionHit.objects.values_list("action", flat=True)) == ["award", "chip_purchase", "seat"]

    # An unidentified patron at UTH-2: an id for a description, $3,000 in chips (an MTL
    # entry), identified later by compliance as a patron on record.
    stranger = two.locator("#patron-unidentified")
    stranger.locator("input[name=description]").fill("woman, 60s, green scarf")
    stranger.locator("button[type=submit]").click()
    expect(stranger.locator("output")).to_contain_text("as U-")
    player = stranger.locator("output").get_attribute("data-player")
    expect(_cash(two, "Chip purchase for cash", player, "3000")).to_contain_text(f"$3,000.00 for {player} recorded")
    compliance.goto(url + "/compliance/mtl/")
    expect(compliance.locator("body")).to_contain_text("woman, 60s, green scarf")
    compliance.goto(url + "/compliance/patrons/")
    row = compliance.locator("tr", has_text="woman, 60s, green scarf")
    row.locator("input[name=patron]").fill(str(floor["carl"].pk))
    row.locator("input[name=reason]").fill("ID shown at the cage")
    row.locator("button:has-text('Link')").click()
    expect(compliance).to_have_url(re.compile(rf"/compliance/patrons/{floor['carl'].pk}/"))
    assert PatronLink.objects.get(unidentified_id=int(player[2:])).patron == floor["carl"]
    compliance.goto(url + "/compliance/mtl/")
    expect(compliance.locator("tr", has_text="woman, 60s, green scarf")).to_contain_text("P-2")
    compliance.screenshot(path=ARTIFACTS / "patrons-mtl-linked.png", full_page=True)

    # Every export verifies offline against its manifest.
    rows = {}
    for page_path, link, name in (
        ("/compliance/mtl/", "Export the MTL", "mtl"),
        ("/compliance/mtl/", "Export the whole cash log", "cash"),
        ("/compliance/ctr/", "Export (CSV", "ctr"),
        ("/compliance/self-exclusion/", "Export the hits", "self_exclusion"),
        (f"/compliance/patrons/{floor['ann'].pk}/", "Export the history", "patron_history"),
    ):
        manifest, _ = _export(compliance_context, url, page_path, link, tmp_path, name)
        assert manifest["kind"] == name
        rows[name] = manifest["rows"]
    assert rows["mtl"] == 3 and rows["cash"] == 4 and rows["ctr"] == 3 and rows["self_exclusion"] == 3
    for page in (one, two, supervisor, compliance):
        assert page.errors == [], page.errors
    # The tablet with its patron panel open fits every screen without sideways scrolling.
    for size, (width, height) in SIZES.items():
        two.set_viewport_size({"width": width, "height": height})
        assert overflow(two) <= 0, (size, too_wide(two))
    two.screenshot(path=ARTIFACTS / "patrons-tablet-panel.png", full_page=True)


def _upload(page, url, content: bytes):
    page.goto(url + "/compliance/self-exclusion/")
    page.set_input_files("input[name=list]", files=[{"name": "state.csv", "mimeType": "text/csv", "buffer": content}])
    page.locator("form:has(input[name=list]) button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/compliance/self-exclusion/imports/\d+/$"))


def test_a_shorter_state_list_shows_its_diff_and_a_second_compliance_person_confirms_it(daphne, browsers):  # noqa: F811
    """Issue 34, reproduction 4, in Chromium: the upload that drops Bob shows who it adds
    and removes; the uploader has no Confirm button (and a second tab of theirs is refused);
    a second compliance person confirms, and only then is Bob off the list."""
    from patrons import identity

    _person("cora", "compliance")
    _person("cleo", "compliance")
    url = daphne.url
    ARTIFACTS.mkdir(exist_ok=True)
    officer = log_in(browsers(), url, "cora", "pw-cora", "/compliance/self-exclusion/")
    _upload(officer, url, b"name,state_ref\nBob Stone,CA-SE-1\nCarla Ruiz,CA-SE-2\n")
    expect(officer.locator("#removal-status")).to_have_attribute("data-status", "none")
    _upload(officer, url, b"name,state_ref\nCarla Ruiz,CA-SE-2\nDana Cruz,CA-SE-3\n")
    import_page = officer.url
    expect(officer.locator("#diff-removed tbody")).to_have_text(re.compile(r"^\s*Bob Stone.*CA-SE-1\s*$"))
    expect(officer.locator("#diff-added tbody")).to_have_text(re.compile(r"^\s*Dana Cruz.*CA-SE-3\s*$"))
    expect(officer.locator("#removal-status")).to_have_attribute("data-status", "waiting")
    expect(officer.locator("button:has-text('Confirm the removal')")).to_have_count(0)
    assert sorted(e.name for e in identity.entries_in_force()) == ["Bob Stone", "Carla Ruiz", "Carla Ruiz", "Dana Cruz"]

    # The uploader's second session, with the other person's button forged into the page.
    tab = log_in(browsers(), url, "cora", "pw-cora", import_page.removeprefix(url))
    tab.evaluate("""() => { const b = document.createElement('button'); b.type = 'submit'; b.name = 'outcome';
        b.value = 'confirmed'; b.id = 'forged'; b.textContent = 'Confirm'; document.querySelector('form.removal-decide').append(b); }""")
    tab.click("#forged")
    expect(tab.locator("p.flag[role=alert]")).to_contain_text("second_person_required")
    assert "Bob Stone" in [e.name for e in identity.entries_in_force()]

    second = log_in(browsers(), url, "cleo", "pw-cleo", import_page.removeprefix(url))
    second.fill("form.removal-decide input[name=reason]", "checked against the state's letter")
    second.click("button:has-text('Confirm the removal')")
    expect(second.locator("#removal-status")).to_have_attribute("data-status", "confirmed")
    expect(second.locator("#removal-status")).to_contain_text("confirmed by cleo")
    assert sorted(e.name for e in identity.entries_in_force()) == ["Carla Ruiz", "Dana Cruz"]
    second.screenshot(path=str(ARTIFACTS / "state-list-diff-confirmed.png"), full_page=True)
