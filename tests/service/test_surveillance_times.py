"""The records a surveillance replay needs (issue 38 item 3): each event keeps the tablet's own
time of the tap (`tapped_at`, which the rules never see) beside the server's, and the tag of
the session that sent it, never the session key; a refusal keeps its session's tag too."""

from datetime import datetime, timedelta, timezone as tz

import pytest

from cardroom.access import SYSTEM, Actor, session_tag
from tables.models import RejectedCommand, Table, TableEvent
from tests.engine.helpers import FEES, seated_with_pd
from tests.playing import new_table, outcomes

pytestmark = pytest.mark.django_db

# A system process with a session (a dealer would need an assignment; the session is what counts here).
DEALER = Actor(name="dee", role=SYSTEM, user_id=None, session="the-session-key-itself")


def test_the_tablets_tap_time_and_its_session_tag_are_kept_and_the_rules_never_see_the_tap_time():
    table = new_table(fee_schedule=FEES)
    tapped = datetime(2026, 11, 29, 14, 3, 7, 250000, tzinfo=tz.utc)
    sit, *rest = seated_with_pd([1, 2], pd=1)
    [answer] = outcomes(table, {**sit, "tapped_at": "2026-11-29T14:03:07.250Z"}, actor=DEALER)
    assert answer.ok, answer.result
    event = TableEvent.objects.get(table=table, seq=1)
    assert event.device_at == tapped and event.created_at != event.device_at
    assert "tapped_at" not in event.command
    assert event.session_tag == session_tag("the-session-key-itself") and "the-session-key" not in event.session_tag
    # A command sent without it (a replay file, an older tablet) is kept without one.
    [answer] = outcomes(table, rest[0], actor="replay")
    assert answer.ok and TableEvent.objects.get(table=table, seq=2).device_at is None
    assert TableEvent.objects.get(table=table, seq=2).session_tag == ""


@pytest.mark.parametrize("value", ["yesterday", "2026-11-29T14:03:07", 1764424987, "2026-13-40T00:00:00Z", "x" * 60])
def test_a_tap_time_that_is_not_a_time_with_its_offset_is_refused_and_nothing_changes(value):
    table = new_table(fee_schedule=FEES)
    sit = seated_with_pd([1, 2], pd=1)[0]
    [answer] = outcomes(table, {**sit, "tapped_at": value}, actor=DEALER)
    assert answer.result["error"]["code"] == "invalid_command" and "tapped_at" in answer.result["error"]["message"]
    assert Table.objects.get(pk=table.pk).version == 0
    refused = RejectedCommand.objects.get(table=table)
    assert refused.session_tag == session_tag("the-session-key-itself")


def test_a_tablet_clock_far_off_is_kept_as_it_said():
    table = new_table(fee_schedule=FEES)
    sit = seated_with_pd([1, 2], pd=1)[0]
    [answer] = outcomes(table, {**sit, "tapped_at": "2019-01-01T00:00:00-08:00"}, actor=DEALER)
    assert answer.ok
    event = TableEvent.objects.get(table=table, seq=1)
    assert event.created_at - event.device_at > timedelta(days=365)
