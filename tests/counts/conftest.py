from unittest import mock

import pytest

from collections_fees import counts

from .play import AFTER_THE_DAY, DAY, Clock, pieces, play


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


def count_shift(day, shift, *, adjust=None):
    """Open the shift's sheet and count every box as the log expects (`adjust`: box ->
    cents to add), by the first counter."""
    sheet = counts.count_sheet_open(gaming_day=DAY, shift=shift, actor=day.counters[0])
    for box_id in counts.placed_boxes(sheet):
        expected = counts.box_expected(box_id=box_id, gaming_day=DAY, shift=shift)
        counted = expected + (adjust or {}).get(box_id, 0)
        counts.box_count_record(sheet_id=sheet.pk, box_id=box_id, denominations=pieces(counted), actor=day.counters[0])
    return sheet


def sign_and_close(day, sheet):
    for counter in day.counters:
        counts.count_sign(sheet_id=sheet.pk, actor=counter)
    return counts.shift_close(gaming_day=sheet.gaming_day, shift=sheet.shift, actor=day.supervisor)
