from unittest import mock

import pytest

from .play import Clock


@pytest.fixture
def clock():
    clock = Clock()
    with mock.patch("django.utils.timezone.now", clock):
        yield clock
