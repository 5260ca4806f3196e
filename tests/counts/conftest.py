from unittest import mock

import pytest

from .play import AFTER_THE_DAY, Clock, play


@pytest.fixture
def clock():
    clock = Clock()
    with mock.patch("django.utils.timezone.now", clock):
        yield clock


@pytest.fixture
def day(clock):
    played = play(clock)
    clock.set(*AFTER_THE_DAY)
    return played
