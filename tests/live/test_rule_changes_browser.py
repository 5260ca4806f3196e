"""What changes when, on the tablet in a real headless Chromium (issue 38 item 1,
tables/rule_sets.py upcoming): a rule set version approved for tomorrow is on the table's
screen and in its "Table rules", in words."""

from datetime import timedelta

import pytest
from django.utils import timezone

from cardroom.access import Actor
from cardroom.gaming_day import calendar

from .conftest import make_table
from .test_browser import browsers, daphne, expect, log_in  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def table_in_a_rule_set(transactional_db, dealer, django_user_model):
    from django.contrib.auth.models import Group

    from tables import rule_sets

    approver = django_user_model.objects.create_user(username="sup-bob", password="pw")
    approver.groups.add(Group.objects.get_or_create(name="supervisor")[0])
    table = make_table(seats=6)
    rule_set = rule_sets.rule_set_create(actor=Actor.of(dealer), name="California 2026")
    rule_sets.rule_set_join(actor="seed", table_id=table.pk, rule_set_id=rule_set.pk)
    tomorrow = calendar().gaming_day(timezone.now()) + timedelta(days=1)
    change = rule_sets.rule_set_file(actor=Actor.of(dealer), rule_set_id=rule_set.pk, effective_day=tomorrow,
                                     rules={"max_consecutive_banks": 1})
    rule_sets.rule_set_decide(actor=Actor.of(approver), change_id=change.pk, approve=True)
    return table, f"California 2026 version 1, from gaming day {tomorrow:%a} {tomorrow.day} {tomorrow:%b}: " \
                  "Consecutive banks allowed: 1; approved by sup-bob"


def test_the_tablet_shows_the_rule_change_ahead_on_its_screen_and_in_the_table_rules(daphne, table_in_a_rule_set, browsers):  # noqa: F811
    table, words = table_in_a_rule_set
    tablet = log_in(browsers(), daphne.url, f"/tables/{table.pk}/tablet/")
    expect(tablet.locator("#status")).to_have_text("Live")
    expect(tablet.locator("#app > .rule-changes")).to_contain_text(words)
    tablet.click("button:has-text('Table rules')")
    expect(tablet.locator("#rules-dialog .rule-changes")).to_contain_text(words)
