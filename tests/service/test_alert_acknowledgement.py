"""A supervisor acknowledges a floor alert (tables.alerts): only an alert the floor shows
now, recorded once under the supervisor's own name, shown on the floor's row."""

import json

import pytest
from django.test import Client

from cardroom.access import Actor
from rounds.engine.errors import CommandError
from tables import presence
from tables.alerts import alert_acknowledge
from tables.models import AlertAcknowledgement, Table
from tables.floor import floor_rows

from tests.live.conftest import assign_dealer

from tests.playing import run_ok
from .test_access import person

pytestmark = pytest.mark.django_db


def _open_table_with_players(make_table):
    """An open table with players seated and no tablet connected: the floor alerts."""
    table = make_table()
    Table.objects.filter(pk=table.pk).update(is_open=True)
    assign_dealer(table)  # a tablet is expected: a dealer is assigned now
    presence.tablet_seen(table.pk, "tablet-socket")  # its tablet was here this shift, and is gone
    presence.tablet_gone(table.pk, "tablet-socket")
    run_ok(table, *({"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)))
    return table


def _alert(table, kind):
    (row,) = floor_rows([table.pk])
    return next(a for a in row["alerts"] if a["kind"] == kind)


def test_a_supervisor_acknowledges_an_alert_the_floor_shows_once_under_their_name(make_table):
    table = _open_table_with_players(make_table)
    sam = person("sam", "supervisor")
    alert = _alert(table, "tablet_disconnected")
    assert alert["ack"] is None
    client = Client()
    client.force_login(sam)
    url = f"/api/tables/{table.pk}/alerts/acknowledge"
    for _ in range(2):  # a second tap (or a second supervisor) finds it taken in hand already
        answer = client.post(url, json.dumps({"kind": alert["kind"], "ref": alert["ref"]}), content_type="application/json")
        assert answer.status_code == 200 and answer.json()["by"] == "sam"
    assert AlertAcknowledgement.objects.filter(table=table).count() == 1
    assert _alert(table, "tablet_disconnected")["ack"]["by"] == "sam"


def test_an_alert_the_floor_does_not_show_cannot_be_acknowledged(make_table):
    table = _open_table_with_players(make_table)
    sam = Actor.of(person("sam", "supervisor"))
    shown = _alert(table, "tablet_disconnected")
    for kind, ref in [
        ("tablet_disconnected", "tablet_disconnected @ 999"),  # another occurrence, past or future
        ("stopped", shown["ref"]),  # a kind this table does not show
        ("tablet_disconnected", shown["ref"] + " "),
    ]:
        with pytest.raises(CommandError) as refused:
            alert_acknowledge(table_id=table.pk, kind=kind, ref=ref, actor=sam)
        assert refused.value.code == "wrong_state", (kind, ref)
    assert not AlertAcknowledgement.objects.exists()
    assert _alert(table, "tablet_disconnected")["ack"] is None
