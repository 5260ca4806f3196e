"""Bad input changes nothing and is kept only in a bounded copy: unknown command fields
and configuration keys, the per-session limit on refused commands, the refused payload
in the log, and the approvals a void must not accept (issue 14, items 4 and 5)."""

import hashlib
import json
import uuid

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from cardroom import wire
from cardroom.access import Actor
from cardroom.models import AuditEntry
from rounds.engine.errors import CommandError
from rounds.engine.handlers import COMMAND_FIELDS, ENVELOPE_FIELDS
from rounds.models import Round
from tables.approvals import approval_decide, approval_request
from tables.models import Approval, ApprovalDecision, RejectedCommand, Table, TableEvent
from tables.lifecycle import table_configure, table_create
from tables.services import command_execute

from tests.engine.helpers import FEES, seated_with_pd
from tests.hypothesis_profiles import examples

from tests.playing import run_ok

pytestmark = pytest.mark.django_db


def person(name, role):
    user = User.objects.create_user(name, password="pw-" + name)
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def as_person(user) -> Actor:
    """A person on a session of their own (the refusal limit counts per session)."""
    return Actor.of(user, session=uuid.uuid4().hex)


def state_of(table) -> tuple:
    table.refresh_from_db()
    return table.version, table.state


# --- unknown fields and keys ----------------------------------------------------------


@hsettings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(sorted(COMMAND_FIELDS)), extra=st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20), value=st.integers())
def test_a_field_its_command_does_not_take_is_refused_and_changes_nothing(make_table, kind, extra, value):
    if extra in COMMAND_FIELDS[kind] | ENVELOPE_FIELDS:
        return
    # A table offering backline: without it the backline commands are refused as
    # wrong_state before their fields are read (docs/commands.md).
    table = make_table(backline={"max_per_seat": 1})
    run_ok(table, *seated_with_pd([1, 2], pd=1))
    before = state_of(table)
    result = command_execute(table_id=table.pk, command={"type": kind, extra: value}, actor="test").result
    assert result["error"]["code"] == "invalid_command" and repr(extra)[:50] in result["error"]["message"]
    assert state_of(table) == before


def test_a_misspelled_field_does_not_fall_back_to_its_default(make_table):
    table = make_table()
    run_ok(table, *seated_with_pd([1, 2], pd=1), {"type": "open_round", "bank": 5000})
    # `blinds` for `blind`: without the check this wager is taken with blind = ante.
    result = command_execute(
        table_id=table.pk, command={"type": "wager", "seat": 2, "ante": 500, "blinds": 900}, actor="test"
    ).result
    assert result["error"]["code"] == "invalid_command"
    assert state_of(table)[1]["round"]["seats"] == {}


@pytest.mark.parametrize(
    "config",
    [
        {"max_consecutive_bank": 3},  # misspelled: without the check, silently 2
        {"fee_schedule": {**FEES, "payer": "all_players"}},
        {"fee_schedule": {"rates": [{"min": 1, "max": 500, "player_fee": 100, "pd_fee": 100, "pd_fees": 5}]}},
        {"side_bets": {"pair": {"paytable": "UPB-1", "min": 100, "max": 2500}}},  # misspelled: never silently off
        {"side_bets": {"pairs": {"paytable": "UPB-1", "maximum": 2500}}},
    ],
)
def test_a_table_configuration_with_a_key_not_named_is_refused(make_table, config):
    with pytest.raises(CommandError) as refused:
        table_create(name="T", config={"seats": 6, **config}, created_by="test")
    assert refused.value.code == "invalid_command"
    table = make_table()
    with pytest.raises(CommandError):
        table_configure(table_id=table.pk, config=config, changed_by="test")
    table.refresh_from_db()
    assert table.config.version == 1


def test_a_request_for_approval_carries_only_what_its_kind_takes(make_table):
    dealer = person("dan", "supervisor")
    table = make_table()
    run_ok(table, *seated_with_pd([1, 2], pd=1), {"type": "open_round", "bank": 5000})
    for kind, payload in (
        ("void", {"reason": "jam", "note": "x" * 10_000}),
        ("config", {"reason": "pay table", "config": {"max_consecutive_bank": 3}}),  # refused now, not at approval
    ):
        with pytest.raises(CommandError) as refused:
            approval_request(actor=Actor.of(dealer), table_id=table.pk, kind=kind, payload=payload)
        assert refused.value.code == "invalid_command", kind
    assert not Approval.objects.exists()


def test_the_staff_api_takes_true_or_false_not_any_value(round_open):
    table = round_open["table"]
    tablet, sup = Client(), Client()
    tablet.force_login(round_open["dealer"])
    sup.force_login(round_open["sup"])
    approval = approval_request(actor=Actor.of(round_open["dealer"]), table_id=table.pk, kind="void",
                                payload={"reason": "jam"})
    # "no" was truthy: it approved the void.
    answer = tablet.post(f"/api/approvals/{approval.pk}/decide", {"username": "sam", "password": "pw-sam", "approve": "no"},
                         content_type="application/json")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_command"
    assert not ApprovalDecision.objects.exists() and Round.objects.get(table=table, number=1).status == "in_progress"
    closing = sup.post(f"/api/tables/{table.pk}/open", {"open": "false", "reason": "count"}, content_type="application/json")
    assert closing.status_code == 400 and Table.objects.get(pk=table.pk).is_open


# --- the limit on refused commands -------------------------------------------------------


def test_a_session_past_the_refusal_limit_is_answered_rate_limited_and_nothing_is_kept(make_table, settings):
    settings.CARDROOM_REFUSED_COMMANDS_PER_MINUTE = 3
    sup = person("sam", "supervisor")
    table = make_table()
    actor = as_person(sup)
    for _ in range(3):
        assert command_execute(table_id=table.pk, command={"type": "leave", "seat": 1}, actor=actor).code == "seat_empty"
    kept = RejectedCommand.objects.count(), AuditEntry.objects.count()
    before = state_of(table)
    for command in ({"type": "leave", "seat": 1}, {"type": "sit", "seat": 1, "player": "P-1"}):
        outcome = command_execute(table_id=table.pk, command=command, actor=actor)
        assert outcome.code == "rate_limited" and outcome.version == before[0]
    assert (RejectedCommand.objects.count(), AuditEntry.objects.count()) == kept
    assert state_of(table) == before
    # Another session of the same person, and the system, are not held back.
    assert command_execute(table_id=table.pk, command={"type": "sit", "seat": 1, "player": "P-1"}, actor=as_person(sup)).ok
    assert command_execute(table_id=table.pk, command={"type": "leave", "seat": 5}, actor="replay").code == "seat_empty"


def test_the_command_api_answers_the_refusal_limit_429(make_table, settings):
    settings.CARDROOM_REFUSED_COMMANDS_PER_MINUTE = 2
    client = Client()
    client.force_login(person("sam", "supervisor"))
    table = make_table()
    url = f"/api/tables/{table.pk}/commands"
    statuses = [client.post(url, {"type": "leave", "seat": 1}, content_type="application/json") for _ in range(3)]
    assert [r.status_code for r in statuses] == [200, 200, 429]
    assert statuses[-1].json()["result"]["error"]["code"] == "rate_limited"


# --- what the log keeps of a refused payload ------------------------------------------------


def test_a_refused_payload_is_kept_as_a_bounded_prefix_with_its_size_and_hash(make_table):
    table = make_table()
    client = Client()
    client.force_login(person("sam", "supervisor"))
    # Near the body limit, and refused by the engine (a name this long is invalid).
    body = json.dumps({"type": "sit", "seat": 1, "player": "x" * 60_000, "id": "big"}, indent=3).encode()
    answer = client.post(f"/api/tables/{table.pk}/commands", body, content_type="application/json")
    assert answer.json()["result"]["error"]["code"] == "invalid_command"
    kept = RejectedCommand.objects.get(table=table, command_id="big")
    assert len(json.dumps(kept.command)) < 2 * wire.KEPT_BYTES
    assert kept.command["oversized"]["size"] > 60_000 and kept.command["oversized"]["truncated"]
    audit = AuditEntry.objects.get(action="command_refused", table_id=table.pk)
    # The bytes as received (not the parsed command re-encoded): their size and SHA-256.
    assert audit.detail["received"]["size"] == len(body)
    assert audit.detail["received"]["sha256"] == hashlib.sha256(body).hexdigest()
    assert body.decode().startswith(audit.detail["received"]["prefix"]) and len(audit.detail["received"]["prefix"]) == wire.KEPT_BYTES
    assert len(json.dumps(audit.detail)) < 2 * wire.KEPT_BYTES + 500


def test_a_refusal_message_quoting_a_huge_value_is_kept_bounded(make_table):
    table = make_table()
    outcome = command_execute(table_id=table.pk, command={"type": "t" * 50_000}, actor="test")
    assert outcome.code == "invalid_command" and len(outcome.result["error"]["message"]) <= 500
    kept = RejectedCommand.objects.get(table=table)
    assert len(json.dumps(kept.result)) < 1000 and len(json.dumps(kept.command)) < 2 * wire.KEPT_BYTES


# --- approvals that must not void a round (issue 14, item 5) --------------------------------


@pytest.fixture
def round_open(make_table):
    sup, sup2, dealer = person("sam", "supervisor"), person("sue", "supervisor"), person("dan", "supervisor")
    table = make_table()
    run_ok(table, *seated_with_pd([1, 2], pd=1), {"type": "open_round", "bank": 5000},
           {"type": "wager", "seat": 2, "ante": 500})
    return {"table": table, "sup": sup, "sup2": sup2, "dealer": dealer}


def void_with(world, approval_id):
    return command_execute(
        table_id=world["table"].pk,
        command={"type": "void_round", "reason": "jam", "approval": approval_id},
        actor=as_person(world["dealer"]),
    )


def test_a_refused_approval_does_not_void_the_round(round_open):
    table = round_open["table"]
    approval = approval_request(actor=Actor.of(round_open["dealer"]), table_id=table.pk, kind="void",
                                payload={"reason": "jam"})
    decision, outcome = approval_decide(approval_id=approval.pk, decider=Actor.of(round_open["sup"]), approve=False,
                                        via="device", reason="the jam is cleared")
    assert not decision.approved and outcome is None
    before = state_of(table)
    assert void_with(round_open, approval.pk).code == "approval_required"
    assert state_of(table) == before and state_of(table)[1]["round"]["number"] == 1


def test_an_earlier_rounds_approval_does_not_void_this_round(round_open):
    table = round_open["table"]
    approval = approval_request(actor=Actor.of(round_open["dealer"]), table_id=table.pk, kind="void",
                                payload={"reason": "jam"})
    _, outcome = approval_decide(approval_id=approval.pk, decider=Actor.of(round_open["sup"]), approve=True,
                                 via="device")
    assert outcome.ok  # round 1 voided by its own approval
    run_ok(table, {"type": "open_round", "bank": 5000})
    before = state_of(table)
    assert void_with(round_open, approval.pk).code == "approval_required"
    assert state_of(table) == before and Round.objects.get(table=table, number=2).status == "in_progress"


def test_a_non_supervisors_credentials_on_the_tablet_do_not_approve(round_open):
    table = round_open["table"]
    person("cora", "compliance")
    person("dora", "dealer")
    tablet = Client()
    tablet.force_login(round_open["dealer"])
    approval = approval_request(actor=Actor.of(round_open["dealer"]), table_id=table.pk, kind="void",
                                payload={"reason": "jam"})
    for name in ("cora", "dora"):
        answer = tablet.post(f"/api/approvals/{approval.pk}/decide",
                             {"username": name, "password": "pw-" + name, "approve": True},
                             content_type="application/json")
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "not_authorized", name
    assert not ApprovalDecision.objects.filter(approval=approval).exists()
    assert Round.objects.get(table=table, number=1).status == "in_progress"


def test_failing_the_tablets_approval_login_locks_that_form_not_the_supervisors_own_login(round_open, settings):
    table = round_open["table"]
    tablet = Client()
    tablet.force_login(round_open["dealer"])
    approval = approval_request(actor=Actor.of(round_open["dealer"]), table_id=table.pk, kind="void",
                                payload={"reason": "jam"})
    url = f"/api/approvals/{approval.pk}/decide"
    limit = max(settings.CARDROOM_APPROVAL_LOGIN_FAILURE_LIMIT, settings.AXES_FAILURE_LIMIT)
    for _ in range(limit):
        wrong = tablet.post(url, {"username": "sue", "password": "wrong", "approve": True}, content_type="application/json")
        assert wrong.status_code == 403
    assert AuditEntry.objects.filter(action="login_failed", username="sue", table_id=table.pk).count() == limit
    # The form is locked for sue at this table, even with her right password...
    locked = tablet.post(url, {"username": "sue", "password": "pw-sue", "approve": True}, content_type="application/json")
    assert locked.status_code == 429 and locked.json()["error"]["code"] == "rate_limited"
    assert not ApprovalDecision.objects.filter(approval=approval).exists()
    # ...but her own login (django-axes, by username and address) is not.
    assert Client().post("/accounts/login/", {"username": "sue", "password": "pw-sue"}).status_code == 302
    # And another supervisor still approves at this table.
    approved = tablet.post(url, {"username": "sam", "password": "pw-sam", "approve": True}, content_type="application/json")
    assert approved.status_code == 200 and approved.json()["result"]["ok"]
    assert Table.objects.get(pk=table.pk).state["round"] is None
    assert TableEvent.objects.filter(table=table, command_type="void_round").count() == 1


# --- configuration amounts (issue 33, finding 9) ---------------------------------------

# One amount of each family a configuration sets, at 10^20 cents (the probe's ante_min).
HUGE = 10**20
HUGE_CHANGES = {
    "limits": {"limits": {"ante_min": HUGE}},
    "fee rate": {"fee_schedule": {"rates": [{"min": 0, "max": HUGE, "player_fee": 100, "pd_fee": 100}]}},
    "side bet": {"side_bets": {"pairs": {"paytable": "UPB-1", "max": HUGE}}},
}


@pytest.mark.parametrize("change", HUGE_CHANGES.values(), ids=HUGE_CHANGES.keys())
def test_a_configuration_amount_of_10_to_the_20_is_refused_when_filed_and_never_queued(make_table, change):
    supervisor = person("sam", "supervisor")
    table = make_table()
    client = Client()
    client.force_login(supervisor)
    before = state_of(table)
    body = json.dumps({"kind": "config", "payload": {"reason": "new limits", "config": change}})
    response = client.post(f"/api/tables/{table.pk}/approvals", body, content_type="application/json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_command", response.content
    assert "2147483647" in response.json()["error"]["message"]
    assert not Approval.objects.exists()  # nothing waits in the queue to be approved
    response = client.post(f"/api/tables/{table.pk}/config", json.dumps({"config": change}), content_type="application/json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_command"
    assert state_of(table) == before
