"""Controls one person cannot get around (issue 33, findings 2 and 3): where the rules say
two people, two persons (two user ids), never two sessions, devices or logins of one.
docs/controls.md states each rule and names its test here.

- A configuration (a change, or a new table's first one) is filed by a supervisor, never
  a dealer, and decided only in the approval queue, on their own device, by another
  supervisor: never approved in one step on a tablet, never decided with credentials
  typed on one.
- A table opens only once its own first configuration is approved: approving a later
  change does not open it; a refused first configuration is filed again from the setup
  page.
- A progressive award is confirmed by a supervisor who sent none of the round's commands.
"""

import pytest
from django.test import Client

from cardroom.access import Actor
from cardroom.models import AuditEntry
from rounds.engine.errors import CommandError
from tables.approvals import (
    approval_decide,
    approval_request,
    approval_request_approved_here,
    first_configuration_request,
)
from tables.models import Approval, ApprovalDecision, RejectedCommand, Table, TableConfig, TableEvent
from tables.selectors import server_snapshot
from tables.lifecycle import table_create, table_open_close, table_retire
from tables.services import command_execute
from tests.boxes import place_boxes
from tests.engine.test_sidebets import PROGRESSIVE

from .test_access import assign, person
from tests.playing import new_table

pytestmark = pytest.mark.django_db

NEW_PAYTABLE = {"reason": "new pay table", "config": {"paytable": "UTH-02"}}


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def post(client, path, body):
    return client.post(path, body, content_type="application/json")


def config_versions(table) -> int:
    return TableConfig.objects.filter(table=table).count()


@pytest.fixture
def floor(db):
    """An open table, its dealer dan on the tablet, two supervisors sam and sue."""
    sam, sue, dan = person("sam", "supervisor"), person("sue", "supervisor"), person("dan", "dealer")
    table = new_table("T1", boxes=False)
    assign(dan, table, sam)
    return {"table": table, "sam": sam, "sue": sue, "dan": dan}


# --- a configuration: filed by a supervisor, decided in the queue by another -----------


def test_a_dealer_cannot_file_a_configuration_change(floor):
    """Finding 2: a dealer's request left the whole decision to one supervisor. Whoever
    holds the dealer's logged-in tablet (its dealer, or a supervisor standing at it)
    files as the dealer, and is refused; nothing is stored."""
    table, dan = floor["table"], floor["dan"]
    with pytest.raises(CommandError) as refused:
        approval_request(actor=Actor.of(dan), table_id=table.pk, kind="config", payload=NEW_PAYTABLE)
    assert refused.value.code == "not_authorized" and "requested by a supervisor" in refused.value.message
    answer = post(logged_in(dan), f"/api/tables/{table.pk}/approvals", {"kind": "config", "payload": NEW_PAYTABLE})
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "not_authorized"
    assert not Approval.objects.filter(table=table).exists()
    assert not AuditEntry.objects.filter(action="approval_requested").exists()
    # Nothing waits in the queue for one supervisor to approve.
    assert "Nothing waiting." in logged_in(floor["sam"]).get("/staff/approvals/").content.decode()
    assert config_versions(table) == 1


def test_a_configuration_is_never_approved_in_one_step_on_a_tablet(floor):
    """Finding 2: one supervisor approved a configuration in one step on the dealer's
    tablet with their own password. Refused on any tablet, with any supervisor's name,
    before the password is looked at: nothing filed, no login counted."""
    table, sam, sue, dan = floor["table"], floor["sam"], floor["sue"], floor["dan"]
    for tablet, approver in ((logged_in(dan), "sam"), (logged_in(sam), "sue")):
        for password in (f"pw-{approver}", "a guess"):
            answer = post(tablet, f"/api/tables/{table.pk}/approvals", {
                "kind": "config", "payload": NEW_PAYTABLE, "approver": {"username": approver, "password": password}})
            assert answer.status_code == 403 and answer.json()["error"]["code"] == "not_authorized"
            assert "decided in the approval queue" in answer.json()["error"]["message"]
    with pytest.raises(CommandError) as refused:
        approval_request_approved_here(actor=Actor.of(sam), table_id=table.pk, kind="config", payload=NEW_PAYTABLE,
                                       approver={"username": "sue", "password": "pw-sue"},
                                       tablet_actor=lambda user: Actor.of(user))
    assert refused.value.code == "not_authorized"
    assert not Approval.objects.filter(table=table).exists() and config_versions(table) == 1
    assert not AuditEntry.objects.filter(action__in=("approval_requested", "approval_decided", "login_failed")).exists()


def test_a_configuration_is_decided_only_in_the_queue_by_another_person(floor):
    table, sam, sue, dan = floor["table"], floor["sam"], floor["sue"], floor["dan"]
    request = approval_request(actor=Actor.of(sam, session="sam-office"), table_id=table.pk, kind="config",
                               payload=NEW_PAYTABLE)
    # Not with credentials typed on a tablet, even another supervisor's.
    with pytest.raises(CommandError) as on_tablet:
        approval_decide(approval_id=request.pk, decider=Actor.of(sue), approve=True, via="tablet")
    assert on_tablet.value.code == "not_authorized"
    answer = post(logged_in(dan), f"/api/approvals/{request.pk}/decide",
                  {"username": "sue", "password": "pw-sue", "approve": True})
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "not_authorized"
    # Not by the requester, from another device or login: the same person.
    with pytest.raises(CommandError) as own:
        approval_decide(approval_id=request.pk, decider=Actor.of(sam, session="sam-tablet"), approve=True, via="device")
    assert own.value.code == "not_authorized"
    assert not ApprovalDecision.objects.exists() and config_versions(table) == 1
    # Another supervisor, in the queue on their own device.
    logged_in(sue).post("/staff/approvals/", {"approval": request.pk, "approve": "1"})
    decision = ApprovalDecision.objects.get(approval=request)
    assert decision.approved and decision.via == "device" and decision.decided_by == sue
    table.refresh_from_db()
    assert table.config.version == 2 and table.config.paytable == "UTH-02"


def test_a_configuration_change_a_dealer_filed_earlier_is_refused_not_approved(floor):
    """Requests a dealer filed before dealers were refused: approving one would still be
    one supervisor's decision. It can be refused; a supervisor files it again."""
    from django.utils import timezone

    table, dan, sue = floor["table"], floor["dan"], floor["sue"]
    earlier = Approval.objects.create(table=table, kind="config", payload=NEW_PAYTABLE, requested_by=dan,
                                      requested_role="dealer", requested_at=timezone.now())
    with pytest.raises(CommandError) as refused:
        approval_decide(approval_id=earlier.pk, decider=Actor.of(sue), approve=True, via="device")
    assert refused.value.code == "not_authorized" and config_versions(table) == 1
    decision, _ = approval_decide(approval_id=earlier.pk, decider=Actor.of(sue), approve=False, via="device")
    assert not decision.approved and config_versions(table) == 1


def test_only_a_supervisor_sets_up_a_table(floor):
    with pytest.raises(CommandError) as refused:
        table_create(name="Dealer's own", config={"seats": 6}, created_by=Actor.of(floor["dan"]))
    assert refused.value.code == "not_authorized"
    assert not Table.objects.filter(name="Dealer's own").exists() and not Approval.objects.exists()


# --- a new table opens only on its own first configuration ----------------------------


def test_approving_a_later_change_does_not_open_a_table_whose_first_configuration_waits(floor):
    """Finding 2: a new table opened while its first configuration's request was pending,
    because approving a later change set it approved."""
    sam, sue = Actor.of(floor["sam"]), Actor.of(floor["sue"])
    table = table_create(name="New", config={"seats": 6}, created_by=sam)
    first = Approval.objects.get(table=table, kind="config")
    later = approval_request(actor=sam, table_id=table.pk, kind="config", payload=NEW_PAYTABLE)
    with pytest.raises(CommandError) as refused:
        approval_decide(approval_id=later.pk, decider=sue, approve=True, via="device")
    assert refused.value.code == "wrong_state" and "first configuration" in refused.value.message
    table.refresh_from_db()
    assert not table.config_approved and table.config.version == 1
    assert not ApprovalDecision.objects.filter(approval=later).exists()  # still waiting, nothing spent
    with pytest.raises(CommandError) as closed:
        table_open_close(table_id=table.pk, open=True, actor=sam, reason="game on")
    assert closed.value.code == "config_not_approved"
    # Its own first configuration opens it; the later change is approved after it.
    approval_decide(approval_id=first.pk, decider=sue, approve=True, via="device")
    approval_decide(approval_id=later.pk, decider=sue, approve=True, via="device")
    table.refresh_from_db()
    assert table.config_approved and table.config.version == 3 and table.config.paytable == "UTH-02"
    assert table_open_close(table_id=table.pk, open=True, actor=sam, reason="game on").is_open


def created_on_the_page(sam) -> Table:
    answer = logged_in(sam).post("/staff/tables/", {"name": "UTH-9", "seats": 6, "paytable": "UTH-01"})
    assert answer.status_code == 302, answer.content.decode()[:2000]
    return Table.objects.get(name="UTH-9")


def refused_in_the_queue(table, sue):
    first = Approval.objects.get(table=table, kind="config", decision__isnull=True)
    logged_in(sue).post("/staff/approvals/", {"approval": first.pk, "approve": "0"})
    assert not ApprovalDecision.objects.get(approval=first).approved


def test_a_refused_first_configuration_is_filed_again_from_the_setup_page(floor):
    sam, sue = floor["sam"], floor["sue"]
    table = created_on_the_page(sam)
    refused_in_the_queue(table, sue)
    page = logged_in(sam).get(f"/staff/tables/{table.pk}/").content.decode()
    assert 'id="first-configuration"' in page and "Refused by sue" in page
    assert "its first configuration was refused: it cannot open" in page
    with pytest.raises(CommandError):
        table_open_close(table_id=table.pk, open=True, actor=Actor.of(sam), reason="game on")

    filed = logged_in(sam).post(f"/staff/tables/{table.pk}/first-configuration", {"reason": "seats checked"}, follow=True)
    assert "first configuration sent to the approval queue again" in filed.content.decode()
    again = Approval.objects.get(table=table, decision__isnull=True)
    assert again.payload == {"reason": "seats checked", "config": table.state["config"], "first": True}
    page = logged_in(sam).get(f"/staff/tables/{table.pk}/").content.decode()
    assert 'id="first-configuration"' not in page and "its first configuration waits" in page
    # One first configuration waits at a time.
    twice = logged_in(sam).post(f"/staff/tables/{table.pk}/first-configuration", {"reason": "again"}, follow=True)
    assert "already waits in the queue" in twice.content.decode()
    assert Approval.objects.filter(table=table, decision__isnull=True).count() == 1
    # The second supervisor sees the whole configuration, approves it, and the table may open.
    queue = logged_in(sue).get("/staff/approvals/").content.decode()
    assert "seats checked" in queue and "Pay table · name" in queue
    logged_in(sue).post("/staff/approvals/", {"approval": again.pk, "approve": "1"})
    table.refresh_from_db()
    assert table.config_approved
    assert table_open_close(table_id=table.pk, open=True, actor=Actor.of(sam), reason="game on").is_open


def test_a_section_changed_after_a_refusal_is_filed_as_the_first_configuration(floor):
    """The refusal said what was wrong: the corrected part goes into the first
    configuration asked for, not into a change that waits behind it."""
    sam, sue = floor["sam"], floor["sue"]
    table = created_on_the_page(sam)
    refused_in_the_queue(table, sue)
    answer = logged_in(sam).post(f"/staff/tables/{table.pk}/paytable/", {
        "paytable-paytable": "UTH-02", "paytable-reason": "UTH-02, as the posted rules say", "step": "request"},
        follow=True)
    assert "first configuration, with this change, sent to the approval queue" in answer.content.decode()
    again = Approval.objects.get(table=table, decision__isnull=True)
    assert again.payload["first"] is True and again.payload["config"]["paytable"] == "UTH-02"
    assert again.payload["config"]["seats"] == 6  # the whole configuration, not the part
    approval_decide(approval_id=again.pk, decider=Actor.of(sue), approve=True, via="device")
    table.refresh_from_db()
    assert table.config_approved and table.config.paytable == "UTH-02"


def test_no_other_request_passes_for_a_first_configuration(floor):
    table, sam, dan = floor["table"], Actor.of(floor["sam"]), Actor.of(floor["dan"])
    with pytest.raises(CommandError) as marked:  # the mark is the services' own
        approval_request(actor=sam, table_id=table.pk, kind="config", payload={**NEW_PAYTABLE, "first": True})
    assert marked.value.code == "invalid_command"
    with pytest.raises(CommandError) as approved:  # the table's configuration is approved already
        first_configuration_request(actor=sam, table_id=table.pk, reason="again")
    assert approved.value.code == "wrong_state"
    new = table_create(name="New", config={"seats": 6}, created_by=sam)
    Table.objects.filter(pk=new.pk).update(config_approved=False)
    with pytest.raises(CommandError) as dealer:
        first_configuration_request(actor=dan, table_id=new.pk, reason="mine")
    assert dealer.value.code == "not_authorized"
    # The first configuration filed with the table was refused; then the table was retired.
    approval_decide(approval_id=Approval.objects.get(table=new).pk, decider=Actor.of(floor["sue"]), approve=False,
                    via="device")
    table_retire(table_id=new.pk, actor=sam, reason="never opened")
    with pytest.raises(CommandError) as retired:
        first_configuration_request(actor=sam, table_id=new.pk, reason="after all")
    assert retired.value.code == "wrong_state" and "retired" in retired.value.message
    assert Approval.objects.count() == 1  # the one table_create filed


# --- a progressive award: confirmed by a supervisor who took no part in the round -------


ROUND_TO_SHOWDOWN = [
    {"type": "open_round", "bank": 1000}, {"type": "wager", "seat": 2, "ante": 100, "progressive": True},
    {"type": "no_more_bets"}, {"type": "check", "seat": 2}, {"type": "flop", "cards": ["Qs", "Js", "Ts"]},
    {"type": "check", "seat": 2}, {"type": "turn_river", "cards": ["2c", "3d"]}, {"type": "play", "seat": 2, "multiple": 1},
    {"type": "showdown", "player_dealer": ["4c", "5d"], "hands": {"2": ["As", "Ks"]}},
]
SEATED = [{"type": "sit", "seat": 1, "player": "P-1"}, {"type": "sit", "seat": 2, "player": "P-2"},
          {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}]
CONFIRM = {"type": "confirm_award", "seat": 2}


@pytest.fixture
def royal(floor):
    """A progressive table, its dealer dan; seat 2 is to make a royal flush in its first
    five cards at showdown: a percentage award a supervisor confirms."""
    table = new_table("Royal", side_bets={"progressive": PROGRESSIVE})  # its fee and jackpot boxes placed: a person opens its rounds
    assign(floor["dan"], table, floor["sam"])
    return {**floor, "table": table}


def drive(table, commands, actor):
    for command in commands:
        assert command_execute(table_id=table.pk, command=command, actor=actor).ok, command


def waiting_for_confirmation(table) -> bool:
    table.refresh_from_db()
    return server_snapshot(table)["view"]["next"]["step"] == "confirm_award"


def refused_and_nothing_else_stored(table, confirm) -> dict:
    """`confirm()`'s refusal, and that it stored what any refused command stores (its
    RejectedCommand and a command_refused audit row) and nothing else."""
    table.refresh_from_db()
    version, events = table.version, TableEvent.objects.filter(table=table).count()
    kept, audited = RejectedCommand.objects.filter(table=table).count(), AuditEntry.objects.count()
    refusal = confirm()
    table.refresh_from_db()
    assert (table.version, TableEvent.objects.filter(table=table).count()) == (version, events)
    assert RejectedCommand.objects.filter(table=table).count() == kept + 1
    assert AuditEntry.objects.count() == audited + 1 and AuditEntry.objects.latest("id").action == "command_refused"
    assert waiting_for_confirmation(table)
    return refusal


def test_a_supervisor_who_drove_the_round_cannot_confirm_its_award(royal):
    """Finding 3: one supervisor entered the cards and confirmed the award alone. From
    another device, in another session: the same person, refused."""
    table, sam, sue = royal["table"], royal["sam"], royal["sue"]
    drive(table, [*SEATED, *ROUND_TO_SHOWDOWN], Actor.of(sam, session="sam-at-the-table"))
    refusal = refused_and_nothing_else_stored(table, lambda: command_execute(
        table_id=table.pk, command=CONFIRM, actor=Actor.of(sam, session="sam-office")).result)
    assert refusal["error"]["code"] == "not_authorized"
    assert "took no part in the round" in refusal["error"]["message"]
    confirmed = command_execute(table_id=table.pk, command=CONFIRM, actor=Actor.of(sue, session="sue-office"))
    assert confirmed.ok and confirmed.result["award"]["approved_by"] == "sue"


def test_one_command_of_the_round_is_enough_to_be_refused_also_on_the_tablet(royal):
    """The dealer drove the round and the supervisor only entered the flop: refused on
    their own device and with their credentials on the dealer's tablet; another
    supervisor's credentials there confirm it."""
    table, sam, dan = royal["table"], royal["sam"], royal["dan"]
    flop = ROUND_TO_SHOWDOWN.index({"type": "flop", "cards": ["Qs", "Js", "Ts"]})
    drive(table, [*SEATED, *ROUND_TO_SHOWDOWN[:flop]], Actor.of(dan))
    drive(table, [ROUND_TO_SHOWDOWN[flop]], Actor.of(sam))
    drive(table, ROUND_TO_SHOWDOWN[flop + 1:], Actor.of(dan))
    tablet = logged_in(dan)

    def on_the_tablet(username):
        return post(tablet, f"/api/tables/{table.pk}/commands/confirmed-here",
                    {"command": CONFIRM, "approver": {"username": username, "password": f"pw-{username}"}})

    on_device = refused_and_nothing_else_stored(
        table, lambda: command_execute(table_id=table.pk, command=CONFIRM, actor=Actor.of(sam)).result)
    assert on_device["error"]["code"] == "not_authorized"
    answer = refused_and_nothing_else_stored(table, lambda: on_the_tablet("sam"))
    assert answer.status_code == 403 and answer.json()["result"]["error"]["code"] == "not_authorized"
    confirmed = on_the_tablet("sue")
    assert confirmed.status_code == 200 and confirmed.json()["result"]["award"]["approved_by"] == "sue"
    assert TableEvent.objects.get(table=table, command_type="confirm_award").actor == "sue"


def test_commands_before_the_round_opened_are_not_the_rounds(royal):
    """The round is its open_round and what follows: the supervisor who seated the
    players and made the player-dealer before it opened took no part in it."""
    table, sam, dan = royal["table"], royal["sam"], royal["dan"]
    drive(table, SEATED, Actor.of(sam))
    drive(table, ROUND_TO_SHOWDOWN, Actor.of(dan))
    assert command_execute(table_id=table.pk, command=CONFIRM, actor=Actor.of(sam)).ok


def test_a_void_is_refused_with_a_reason_the_dealer_reads(floor):
    """Issue 35, item 5: the refusal's reason is stored on the decision row, audited, and
    answered to the tablet that asked; a refusal without one changes nothing."""

    table, dan, sue = floor["table"], floor["dan"], floor["sue"]
    from tests.playing import run_ok
    from tests.service.test_access import seated_with_pd

    dealer = Client()
    dealer.force_login(dan)
    place_boxes(table)
    run_ok(table, *seated_with_pd([1, 2], pd=1), {"type": "open_round", "bank": 5000})
    asked = approval_request(actor=Actor.of(dan), table_id=table.pk, kind="void", payload={"reason": "card exposed"})
    for reason in ("", "  ", "no"):
        with pytest.raises(CommandError) as refused:
            approval_decide(approval_id=asked.pk, decider=Actor.of(sue), approve=False, via="device", reason=reason)
        assert refused.value.code == "reason_required"
    for reason in ("x" * 201, None, 7):  # too long for its column, or not a text
        with pytest.raises(CommandError) as refused:
            approval_decide(approval_id=asked.pk, decider=Actor.of(sue), approve=False, via="device", reason=reason)
        assert refused.value.code == "invalid_command"
    assert not ApprovalDecision.objects.filter(approval=asked).exists()
    page = logged_in(sue).post("/staff/approvals/", {"approval": asked.pk, "approve": "0", "reason": "the flop was  dealt right"})
    assert page.status_code == 302
    decision = ApprovalDecision.objects.get(approval=asked)
    assert (decision.approved, decision.reason) == (False, "the flop was dealt right")
    assert AuditEntry.objects.filter(action="approval_decided", summary__endswith=": the flop was dealt right").exists()
    state = dealer.get(f"/api/approvals/{asked.pk}").json()
    assert (state["status"], state["decided_by"], state["reason"]) == ("refused", "sue", "the flop was dealt right")
    assert "the flop was dealt right" in logged_in(sue).get("/staff/approvals/").content.decode()
