"""A supervisor follows a disputed round through the tablet's screens in Chromium, served by
Daphne (issue 38 item 3), and a compliance officer downloads its surveillance export, which
`verify_logs --checkpoints` checks offline."""

import io
import json
import re

import pytest
from django.core.management import call_command

from rounds.models import Round
from tests.engine.helpers import FEES, dealt_round

from .conftest import make_table, run
from .test_browser import browsers, daphne, expect  # noqa: F401 (fixtures)
from .test_screens import log_in, person

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def test_a_supervisor_steps_through_a_round_and_compliance_exports_it(daphne, browsers, django_user_model, tmp_path):
    person(django_user_model, "sam", "supervisor")
    person(django_user_model, "cora", "compliance")
    table = make_table(seats=6, fee_schedule=FEES)
    # The software shuffles: the deal sends no cards.
    commands = [{"type": "deal"} if c["type"] == "deal" else c for c in dealt_round([2, 3])]
    run(table.pk, *[{"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2, 3)],
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, *commands)
    rnd = Round.objects.get(table=table, number=1)
    deal = table.events.get(command_type="deal")
    holes = [c for r in deal.records if r["kind"] == "CardsDealt" for p, _, c in r["cards"] if p in ("2", "3")]

    page = log_in(browsers(), daphne.url, "sam", f"/compliance/rounds/{rnd.pk}/timeline")
    expect(page.locator("#replay-verdict")).to_contain_text(f"each of its {len(commands)} commands")
    expect(page.locator("#replay-nav")).to_contain_text("open round")
    for _ in range(commands.index({"type": "deal"})):
        page.click("#replay-next")
    expect(page.locator("#replay-nav")).to_contain_text("deal")
    for card in holes:
        expect(page.locator("#replay-seats")).to_contain_text(card)
    page.click(f"#timeline a:has-text('#{deal.seq + 1}')")  # a step of the list
    expect(page.locator("#replay-nav")).to_contain_text(f"After #{deal.seq + 1}")
    assert page.errors == []

    officer = log_in(browsers(), daphne.url, "cora", f"/compliance/rounds/{rnd.pk}/timeline")
    with officer.expect_download() as downloading:
        officer.click("#replay-export")
    download = downloading.value
    csv_path = tmp_path / download.suggested_filename
    download.save_as(csv_path)
    export_id = re.search(r"_([0-9a-f]{8})\.csv$", download.suggested_filename).group(1)
    exports = officer.context.request.get(f"{daphne.url}/compliance/exports/").text()
    manifest_href = re.search(rf'href="(/compliance/exports/{export_id}[0-9a-f-]*/manifest.json)"', exports).group(1)
    manifest = json.loads(officer.context.request.get(daphne.url + manifest_href).body())
    assert manifest["kind"] == "round_replay" and manifest["file"]["name"] == download.suggested_filename
    manifest_path = tmp_path / "round.manifest.json"
    manifest_path.write_text(json.dumps(manifest))
    out = io.StringIO()
    call_command("verify_logs", "--checkpoints", str(manifest_path), stdout=out)  # exits 1 on a failure
    assert f"{len(commands)} round events checked, 0 problems" in out.getvalue()
