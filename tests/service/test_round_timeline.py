"""A settled round on three clocks (issue 38 item 3, tables/surveillance.py): every accepted
command and refusal of the round in the server's order, each with the server's time, the
tablet's own and the camera's (the latest offset a supervisor recorded); a round in progress
is not shown; only a supervisor records an offset, and it is audited."""

from datetime import timedelta

import pytest
from django.test import Client

from cardroom.access import SYSTEM, Actor
from cardroom.models import AuditEntry
from rounds.models import Round
from tables import surveillance
from tables.models import CameraOffset
from tests.engine.helpers import FEES, dealt_round, seated_with_pd
from tests.patron_aml.conftest import person
from tests.playing import new_table, outcomes, run

pytestmark = pytest.mark.django_db

TABLET = Actor(name="dee", role=SYSTEM, session="tablet-session-key")


def _played():
    table = new_table(fee_schedule=FEES)
    run(table, *seated_with_pd([1, 2, 3], pd=1))
    commands = dealt_round([2, 3])
    run(table, *({**c, "tapped_at": "2026-11-29T14:00:00.500+00:00"} for c in commands[:3]), actor=TABLET)
    [early] = outcomes(table, {"type": "flop"}, actor=TABLET)  # refused: no cards are dealt yet
    assert not early.ok
    run(table, *commands[3:], actor=TABLET)
    return table, Round.objects.get(table=table, number=1)


def test_a_settled_round_shows_each_step_with_its_three_clocks_and_its_refusals():
    table, rnd = _played()
    supervisor = Actor.of(person("sup", "supervisor"))
    surveillance.camera_offset_set(actor=supervisor, table_id=table.pk, offset_ms=-2500, reason="camera 4 overlay")
    steps, offset = surveillance.round_timeline(rnd)
    commands = [s for s in steps if s.kind == "command"]
    assert [s.what for s in commands][0] == "open_round" and commands[-1].what == "settle"
    assert all(s.camera_at == s.server_at - timedelta(milliseconds=2500) for s in steps)
    assert str(commands[0].device_at) == "2026-11-29 14:00:00.500000+00:00" and commands[-1].device_at is None
    assert {s.session for s in commands} == {surveillance_tag()}
    [refused] = [s for s in steps if s.kind == "refused"]
    assert refused.what.startswith("flop refused: ") and commands[2].server_at <= refused.server_at
    assert offset.offset_ms == -2500 and offset.set_by == "sup"
    assert AuditEntry.objects.filter(summary__contains="camera clock offset -2500 ms", username="sup").exists()


def surveillance_tag():
    from cardroom.access import session_tag

    return session_tag("tablet-session-key")[:8]


def test_a_round_in_progress_is_not_replayed():
    table = new_table(fee_schedule=FEES)
    run(table, *seated_with_pd([1, 2], pd=1), *dealt_round([2])[:4])
    with pytest.raises(surveillance.SurveillanceError) as refused:
        surveillance.round_timeline(Round.objects.get(table=table))
    assert refused.value.code == "wrong_state"


@pytest.mark.parametrize("role, offset, code", [("dealer", 100, "not_authorized"), ("compliance", 100, "not_authorized"),
                                                ("supervisor", 10**12, "invalid_command"), ("supervisor", 1.5, "invalid_command")])
def test_only_a_supervisor_records_a_camera_offset_within_a_day(role, offset, code):
    table = new_table(fee_schedule=FEES)
    with pytest.raises(surveillance.SurveillanceError) as refused:
        surveillance.camera_offset_set(actor=Actor.of(person(f"p-{role}", role)), table_id=table.pk, offset_ms=offset)
    assert refused.value.code == code and not CameraOffset.objects.exists()


def test_the_page_shows_the_steps_and_a_supervisor_records_the_offset():
    table, rnd = _played()
    sup, officer = Client(), Client()
    sup.force_login(person("sup2", "supervisor"))
    officer.force_login(person("officer", "compliance"))
    page = sup.post(f"/compliance/rounds/{rnd.pk}/timeline", {"offset_seconds": "-2.5", "reason": "overlay"}, follow=True)
    assert b"Camera offset recorded" in page.content and b"-2.5 s from the server" in page.content
    text = officer.get(f"/compliance/rounds/{rnd.pk}/timeline").content.decode()
    assert "settle" in text and "flop refused" in text and "Record the offset" not in text
    assert officer.post(f"/compliance/rounds/{rnd.pk}/timeline", {"offset_seconds": "1"}, follow=True).status_code == 200
    assert CameraOffset.objects.count() == 1  # compliance reads the timeline, a supervisor sets the offset


def test_the_round_page_links_the_timeline_only_for_the_roles_the_timeline_admits():
    """Every role that reads the round page sees the timeline's link exactly when the
    timeline answers it: an admin login reads the round but is refused the timeline, so
    is shown no link to a refusal."""
    from django.contrib.auth.models import User

    _, rnd = _played()
    readers = {"supervisor": person("sup3", "supervisor"), "compliance": person("officer2", "compliance"),
               "admin": User.objects.create_superuser("root", password="root-pw")}
    shown = {}
    for role, user in readers.items():
        client = Client()
        client.force_login(user)
        page = client.get(f"/compliance/rounds/{rnd.pk}/")
        assert page.status_code == 200, role
        linked = 'id="round-timeline"' in page.content.decode()
        timeline = client.get(f"/compliance/rounds/{rnd.pk}/timeline")
        assert linked == (timeline.status_code == 200), (role, timeline.status_code)
        shown[role] = linked
    assert shown == {"supervisor": True, "compliance": True, "admin": False}
