"""The demo floor (`seed_demo`): the previous shift played and ready to count, side bets,
a progressive with its jackpot box, the rotation policy; verifiable logs; idempotent."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from cardroom.gaming_day import calendar

pytestmark = pytest.mark.django_db


def seed() -> str:
    out = StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def test_smoke():
    print(seed())
    print(calendar().previous_shift(timezone.now()))
