"""The void request a table's snapshot shows (tables.selectors.pending_void): the oldest
undecided void request of the round in progress at that table, and no other."""

from django.contrib.auth.models import User
from django.utils import timezone

from tables.models import Approval, ApprovalDecision, Table
from tables.selectors import pending_void
from tests.engine.helpers import seated_with_pd

from tests.playing import run_ok


def request(table, user, *, kind="void", round_number=1, reason="misdeal") -> Approval:
    return Approval.objects.create(
        table=table, kind=kind, round_number=round_number, payload={"reason": reason},
        requested_by=user, requested_role="dealer", requested_at=timezone.now(),
    )


def decide(approval, user) -> None:
    ApprovalDecision.objects.create(approval=approval, approved=False, decided_by=user, via="device", decided_at=timezone.now())


def test_the_snapshot_shows_the_oldest_undecided_void_of_the_round_at_its_table(make_table):
    table, other = make_table(), make_table()
    for t in (table, other):
        run_ok(t, *seated_with_pd([1, 2], pd=1), {"type": "open_round", "bank": 5000})
    table = Table.objects.get(pk=table.pk)
    ana, sup = User.objects.create(username="ana"), User.objects.create(username="sup")
    assert pending_void(table) is None
    # None of these is the table's void for its round in progress.
    request(other, ana, reason="the other table's")
    request(table, ana, round_number=2, reason="another round's")
    request(table, ana, kind="correction", reason="not a void")
    decide(request(table, ana, reason="decided already"), sup)
    assert pending_void(table) is None
    first = request(table, ana, reason="a misdeal")
    request(table, sup, reason="asked again")
    assert pending_void(table) == {"approval": first.pk, "round": 1, "requested_by": "ana", "reason": "a misdeal"}
    decide(first, sup)
    assert pending_void(table)["reason"] == "asked again"
    assert pending_void(table)["requested_by"] == "sup"
