"""Who may move money: role checks in the command service, second-person approvals,
and the audit trail that names everyone involved."""

from functools import partial

import pytest
from django.contrib.auth.models import Group, User
from django.utils import timezone

from cardroom.access import Actor, session_tag
from cardroom.gaming_day import calendar
from cardroom.models import AuditEntry
from rounds.engine.errors import CommandError
from rounds.models import Round
from tables.approvals import approval_decide, approval_request
from tables.models import Approval, ApprovalDecision, DealerAssignment, RoundCorrection
from tables.lifecycle import table_configure, table_create, table_open_close
from tables.services import command_execute

from tests.db_access import assert_refused_to_both
from tests.engine.helpers import FEES, seated_with_pd

from tests.service.conftest import full_round
from tests.playing import run_ok

pytestmark = pytest.mark.django_db


def person(name, role):
    user = User.objects.create_user(name, password="pw-" + name)
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def assign(dealer, table, by):
    now, cal = timezone.now(), calendar()
    DealerAssignment.objects.create(
        dealer=dealer, table=table, gaming_day=cal.gaming_day(now), shift=cal.shift(now), assigned_by=by, assigned_at=now
    )


@pytest.fixture
def staff(make_table):
    sup, sup2 = person("sam", "supervisor"), person("sue", "supervisor")
    dealer, other_dealer = person("dan", "dealer"), person("dora", "dealer")
    auditor = person("cora", "compliance")
    table, other = make_table(fee_schedule=FEES), make_table()
    assign(dealer, table, sup)
    assign(other_dealer, other, sup)
    return {"sup": sup, "sup2": sup2, "dealer": dealer, "other_dealer": other_dealer, "auditor": auditor,
            "table": table, "other": other}


SIT = {"type": "sit", "seat": 1, "player": "P-1"}


@pytest.mark.parametrize(
    "who, allowed",
    [("dealer", True), ("other_dealer", False), ("sup", True), ("auditor", False)],
)
def test_only_the_assigned_dealer_or_a_supervisor_drives_a_table(staff, who, allowed):
    actor = Actor.of(staff[who], session="s-1", address="10.0.0.9")
    result = command_execute(table_id=staff["table"].pk, command=SIT, actor=actor).result
    assert result["ok"] is allowed
    if not allowed:
        assert result["error"]["code"] == "not_authorized"
    entry = AuditEntry.objects.latest("id")
    # The session by its tag: the key is a login, and the trail is read by compliance.
    assert (entry.username, entry.session, entry.address) == (staff[who].username, session_tag("s-1"), "10.0.0.9")
    assert entry.action == ("command" if allowed else "command_refused")


def test_an_assignment_for_another_shift_does_not_count(staff):
    DealerAssignment.objects.filter(dealer=staff["dealer"]).update(shift="nobody's shift")
    result = command_execute(table_id=staff["table"].pk, command=SIT, actor=Actor.of(staff["dealer"])).result
    assert result["error"]["code"] == "not_authorized"


def open_round_with_fees(staff):
    table = staff["table"]
    run_ok(table, *seated_with_pd([1, 2], pd=1), {"type": "open_round", "bank": 5000},
           {"type": "wager", "seat": 2, "ante": 500}, {"type": "no_more_bets"})
    return table


def test_a_void_needs_another_persons_approval_and_keeps_both_names(staff):
    table = open_round_with_fees(staff)
    dealer = Actor.of(staff["dealer"])
    direct = command_execute(
        table_id=table.pk, command={"type": "void_round", "reason": "jam", "approved_by": "sam"}, actor=dealer
    ).result
    assert direct["error"]["code"] == "approval_required"  # naming a supervisor is not enough

    approval = approval_request(actor=dealer, table_id=table.pk, kind="void", payload={"reason": "shuffler jam"})
    with pytest.raises(CommandError) as refused:
        approval_decide(approval_id=approval.pk, decider=Actor.of(staff["dealer"]), approve=True, via="device")
    assert refused.value.code == "not_authorized"  # the requester never approves
    decision, outcome = approval_decide(approval_id=approval.pk, decider=Actor.of(staff["sup"]), approve=True, via="tablet")
    assert outcome.ok and outcome.result["refunds"]
    rnd = Round.objects.get(table=table, number=1)
    assert rnd.status == "voided" and rnd.void_approved_by == "sam" and rnd.void_reason == "shuffler jam"
    assert Approval.objects.get(pk=approval.pk).requested_by == staff["dealer"]
    assert decision.decided_by == staff["sup"] and decision.via == "tablet"
    with pytest.raises(CommandError):
        approval_decide(approval_id=approval.pk, decider=Actor.of(staff["sup2"]), approve=False, via="device")


def test_a_supervisor_cannot_approve_their_own_request(staff):
    table = open_round_with_fees(staff)
    approval = approval_request(actor=Actor.of(staff["sup"]), table_id=table.pk, kind="void", payload={"reason": "misdeal"})
    with pytest.raises(CommandError) as refused:
        approval_decide(approval_id=approval.pk, decider=Actor.of(staff["sup"]), approve=True, via="device")
    assert refused.value.code == "not_authorized"
    assert Round.objects.get(table=table, number=1).status == "in_progress"


def test_a_correction_is_a_reversing_entry_referencing_the_original(staff):
    table = staff["table"]
    run_ok(table, *seated_with_pd([1, 2, 3], pd=1), *full_round([2, 3]))
    original = Round.objects.get(table=table, number=1)
    approval = approval_request(
        actor=Actor.of(staff["dealer"]), table_id=table.pk, kind="correction", payload={"round": 1, "reason": "misread hand"}
    )
    _, correction = approval_decide(approval_id=approval.pk, decider=Actor.of(staff["sup"]), approve=True, via="device")
    assert isinstance(correction, RoundCorrection) and correction.round == original
    assert correction.reversal["player_dealer"]["amount"] == -original.pd_net
    assert sum(s["amount"] for s in correction.reversal["seats"]) == original.pd_net  # the reversal balances too
    assert Round.objects.get(pk=original.pk).pd_net == original.pd_net  # the original is untouched


def test_a_settled_round_is_reversed_once_however_many_corrections_are_asked_for(staff):
    table = staff["table"]
    run_ok(table, *seated_with_pd([1, 2, 3], pd=1), *full_round([2, 3]))
    ask = partial(approval_request, actor=Actor.of(staff["dealer"]), table_id=table.pk, kind="correction")
    first, second = ask(payload={"round": 1, "reason": "misread hand"}), ask(payload={"round": 1, "reason": "again"})
    approval_decide(approval_id=first.pk, decider=Actor.of(staff["sup"]), approve=True, via="device")

    with pytest.raises(CommandError) as late:  # asked for before the first was carried out
        approval_decide(approval_id=second.pk, decider=Actor.of(staff["sup"]), approve=True, via="device")
    assert late.value.code == "wrong_state"
    with pytest.raises(CommandError) as after:
        ask(payload={"round": 1, "reason": "a third time"})
    assert after.value.code == "wrong_state"
    assert RoundCorrection.objects.filter(round__table=table, round__number=1).count() == 1
    assert not ApprovalDecision.objects.filter(approval=second).exists()  # still undecided, nothing spent


def test_a_void_reason_the_void_would_refuse_is_refused_when_asked_for(staff):
    """Checked as the void command checks it: an approval granted for it would be spent on
    a void that is then refused."""
    table = open_round_with_fees(staff)
    for reason in ("jam\x07", " ", "r" * 501):
        with pytest.raises(CommandError) as refused:
            approval_request(actor=Actor.of(staff["dealer"]), table_id=table.pk, kind="void", payload={"reason": reason})
        assert refused.value.code == "invalid_command"
    assert not Approval.objects.filter(table=table).exists()


def test_approvals_and_audit_rows_are_append_only(staff):
    approval = approval_request(actor=Actor.of(staff["sup"]), table_id=staff["table"].pk, kind="config",
                                payload={"reason": "new limits", "config": {"paytable": "UTH-02"}})
    for statement in (
        lambda: Approval.objects.filter(pk=approval.pk).update(round_number=3),
        lambda: AuditEntry.objects.filter(action="approval_requested").update(username="nobody"),
    ):
        assert_refused_to_both(statement)


def test_an_outsider_learns_nothing_from_a_stale_version_or_a_known_id(staff):
    """Authorisation comes before the version and id checks: a stale version would answer
    with the table's state (hole cards), a known id with its earlier result."""
    table, outsider = staff["table"], Actor.of(staff["other_dealer"])
    SIT2 = {"type": "sit", "seat": 2, "player": "P-2"}
    first = command_execute(table_id=table.pk, command={**SIT, "id": "tablet:1"}, actor=Actor.of(staff["dealer"]))
    assert first.ok and first.version == 1

    stale = command_execute(table_id=table.pk, command={**SIT2, "version": 0}, actor=outsider)
    assert stale.result["error"]["code"] == "not_authorized" and "state" not in stale.result

    replay = command_execute(table_id=table.pk, command={**SIT, "id": "tablet:1"}, actor=outsider)
    assert replay.result["error"]["code"] == "not_authorized" and not replay.replayed
    refused_id = command_execute(table_id=table.pk, command={**SIT2, "id": "tablet:2"}, actor=outsider)
    assert refused_id.result["error"]["code"] == "not_authorized"

    # The assigned dealer still gets the first answer, and the outsider claimed no id.
    again = command_execute(table_id=table.pk, command={**SIT, "id": "tablet:1"}, actor=Actor.of(staff["dealer"]))
    assert again.replayed and again.result == first.result
    fresh = command_execute(table_id=table.pk, command={**SIT2, "id": "tablet:2"}, actor=Actor.of(staff["dealer"]))
    assert fresh.ok and not fresh.replayed


def test_an_open_tables_configuration_changes_only_with_an_approval(staff):
    """Checked by the service under the table lock, not by the view before it."""
    table, sup = staff["table"], Actor.of(staff["sup"])
    with pytest.raises(CommandError) as refused:
        table_configure(table_id=table.pk, config={"paytable": "UTH-02"}, changed_by=sup)
    assert refused.value.code == "approval_required"
    table.refresh_from_db()
    assert table.config.version == 1

    # Filed by a supervisor (a dealer may not: tests/service/test_two_person_controls.py), decided by another.
    approval = approval_request(actor=sup, table_id=table.pk, kind="config",
                                payload={"reason": "new paytable", "config": {"paytable": "UTH-02"}})
    _, version = approval_decide(approval_id=approval.pk, decider=Actor.of(staff["sup2"]), approve=True, via="device")
    assert version.version == 2 and version.paytable == "UTH-02"

    # Closed, the same: every version needs the second supervisor (issue 21).
    table_open_close(table_id=table.pk, open=False, actor=sup, reason="count")
    with pytest.raises(CommandError) as refused:
        table_configure(table_id=table.pk, config={"paytable": "UTH-03"}, changed_by=sup)
    assert refused.value.code == "approval_required"
    table_open_close(table_id=table.pk, open=True, actor=sup, reason="game on")
    table.refresh_from_db()
    assert table.config.version == 2 and table.config.paytable == "UTH-02"
    # The system's own actors (seed_demo, replay) are exempt.
    assert table_configure(table_id=table.pk, config={"paytable": "UTH-03"}, changed_by="seed_demo").version == 3


def test_a_table_a_person_creates_opens_only_once_its_first_configuration_is_approved(staff):
    sup, sup2 = Actor.of(staff["sup"]), Actor.of(staff["sup2"])
    table = table_create(name="New", config={"seats": 6, "paytable": "UTH-02"}, created_by=sup)
    assert not table.is_open and table.config.version == 1
    with pytest.raises(CommandError) as refused:
        table_open_close(table_id=table.pk, open=True, actor=sup, reason="game on")
    assert refused.value.code == "config_not_approved"
    table.refresh_from_db()
    assert not table.is_open
    request = Approval.objects.get(table=table, kind="config")
    assert request.requested_by_id == staff["sup"].pk and request.payload["config"]["paytable"] == "UTH-02"
    filed = AuditEntry.objects.get(action="approval_requested", table_id=table.pk)
    assert filed.username == sup.name and filed.detail["approval"] == request.pk
    with pytest.raises(CommandError) as own:
        approval_decide(approval_id=request.pk, decider=sup, approve=True, via="device")
    assert own.value.code == "not_authorized"
    approval_decide(approval_id=request.pk, decider=sup2, approve=True, via="device")
    assert table_open_close(table_id=table.pk, open=True, actor=sup, reason="game on").is_open
    table.refresh_from_db()
    assert table.config.paytable == "UTH-02" and table.config.created_by == sup2.name


def test_a_table_the_system_creates_is_open_at_once():
    table = table_create(name="Seeded", config={"seats": 6}, created_by="seed_demo")
    assert table.is_open and table.config_approved and not Approval.objects.filter(table=table).exists()


def test_switching_a_progressive_on_places_the_jackpot_box_with_the_configuration(staff, make_table):
    """The contributions have a destination from the first round: the table's jackpot box
    is placed in the configuration's own transaction (and refused with it)."""
    from collections_fees.counts import boxes_now, placement_in_force
    from collections_fees.models import BoxPlacement, DropBox
    from tables.models import Table
    from tests.engine.test_sidebets import PROGRESSIVE

    table = staff["table"]
    now, cal = timezone.now(), calendar()
    day, shift = cal.gaming_day(now), cal.shift(now)
    progressive = {"side_bets": {"progressive": PROGRESSIVE}}

    # Refused with the configuration when the box cannot be placed (its identifier is
    # painted on another table's box): no version, no placement.
    taken = DropBox.objects.create(identifier=f"JACKPOT-{table.pk}", kind="jackpot", table=staff["other"],
                                   registered_by="sam", registered_at=now)
    refused_request = approval_request(actor=Actor.of(staff["sup2"]), table_id=table.pk, kind="config",
                                       payload={"reason": "progressive", "config": progressive})
    with pytest.raises(CommandError) as refused:
        approval_decide(approval_id=refused_request.pk, decider=Actor.of(staff["sup"]), approve=True, via="device")
    assert refused.value.code == "wrong_state" and "jackpot box" in refused.value.message
    table.refresh_from_db()
    assert table.config.version == 1 and not BoxPlacement.objects.filter(slot="jackpot").exists()
    assert not taken.placements.exists()

    # The table the box was painted for takes it; a table with no jackpot box registered
    # gets one named after it.
    for table, box, requester in ((staff["other"], taken.identifier, "sup"), (make_table(), None, "sup")):
        approval = approval_request(actor=Actor.of(staff[requester]), table_id=table.pk, kind="config",
                                    payload={"reason": "progressive", "config": progressive})
        _, version = approval_decide(approval_id=approval.pk, decider=Actor.of(staff["sup2"]), approve=True, via="device")
        placed = placement_in_force(table_id=table.pk, gaming_day=day, shift=shift, slot="jackpot")
        assert placed is not None and placed.box.kind == "jackpot" and placed.box.table_id == table.pk
        assert placed.box.identifier == (box or f"JACKPOT-{table.pk}")
        assert placed.placed_by == "sue" and version.version == 2
        assert boxes_now([Table.objects.get(pk=table.pk)])[table.pk]["jackpot"] == placed.box.identifier
    # A later version with the progressive still on keeps the box in force: no second placement.
    again = approval_request(actor=Actor.of(staff["sup"]), table_id=table.pk, kind="config",
                             payload={"reason": "pays", "config": {"paytable": "UTH-02"}})
    approval_decide(approval_id=again.pk, decider=Actor.of(staff["sup2"]), approve=True, via="device")
    assert BoxPlacement.objects.filter(table=table, slot="jackpot").count() == 1


def test_a_person_cannot_date_a_new_table_in_the_past(staff):
    """Only the system's own processes (the demo seed's past shift) set up a table at a
    stated time: a person's table dates from now, and nothing is created."""
    from datetime import timedelta

    from tables.models import Table

    with pytest.raises(CommandError) as refused:
        table_create(name="Backdated", config={"seats": 6}, created_by=Actor.of(staff["sup"]),
                     at=timezone.now() - timedelta(hours=8))
    assert refused.value.code == "not_authorized"
    assert not Table.objects.filter(name="Backdated").exists()
