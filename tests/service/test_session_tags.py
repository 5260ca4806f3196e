"""No record keeps a session key (issue 24): the key is a login, and the records are read
by compliance, the count team, the regulator's exports and whoever reads the database.
Each record names a session by its tag (cardroom.access.session_tag), an HMAC keyed from
SECRET_KEY, and the migrations of cardroom, tables and collections_fees rewrote the keys
recorded before. The scan reads every text column of the database (tests/db_access.py)."""

import importlib

import pytest
from django.apps import apps
from django.db import connection, migrations
from django.test import Client
from django.utils import timezone

from cardroom.access import Actor, session_tag
from cardroom.audit import audit_record
from cardroom.models import AuditEntry
from tables.models import Approval, ApprovalDecision, DealerHandover
from tests.db_access import as_owner, assert_refused_to_both, columns_holding
from tests.engine.helpers import seated_with_pd

from tests.service.conftest import full_round
from .test_relief import floor, plan  # noqa: F401  (the relief tests' floor: a plan, a push due now)

pytestmark = pytest.mark.django_db


def logged_in(username: str) -> tuple[Client, str]:
    """A person's own device: a login through the login page (audited) and its session key."""
    client = Client()
    assert client.post("/accounts/login/", {"username": username, "password": "pw-" + username}).status_code == 302
    return client, client.session.session_key


def command(client, table, payload):
    return client.post(f"/api/tables/{table.pk}/commands", payload, content_type="application/json").json()["result"]


def test_after_the_common_flows_no_column_holds_a_session_key(floor):  # noqa: F811
    table = floor["table"]
    plan(floor, ["ben", "ana"], ["table"])
    ben, ben_key = logged_in("ben")
    sam, sam_key = logged_in("sam")
    # Ben takes over UTH-1 from his device: the hand-over and its audit line.
    assert ben.post("/relief/", {"table": table.pk}).status_code == 302
    # Commands, accepted and refused: each on the audit trail, a refusal in its log too.
    for step in seated_with_pd([1, 2], pd=1) + full_round([2])[:1]:
        assert command(ben, table, step)["ok"], step
    assert command(ben, table, {"type": "sit", "seat": 99, "player": "P-9"})["ok"] is False
    # A void asked for at the table and approved by Sam on his own device.
    asked = ben.post(f"/api/tables/{table.pk}/approvals", {"kind": "void", "payload": {"reason": "shuffler jam"}},
                     content_type="application/json").json()
    assert asked["status"] == "pending"
    assert sam.post("/staff/approvals/", {"approval": asked["approval"], "approve": "1"}).status_code == 302
    # Every flow left its record, each with the session's tag.
    approval = Approval.objects.get(pk=asked["approval"])
    assert approval.requested_session == session_tag(ben_key)
    assert ApprovalDecision.objects.get(approval=approval).session == session_tag(sam_key)
    assert DealerHandover.objects.get().session == session_tag(ben_key)
    trail = AuditEntry.objects.filter(username="ben")
    assert {"login", "assignment", "command", "command_refused", "approval_requested"} <= {e.action for e in trail}
    assert {e.session for e in trail} == {session_tag(ben_key)}
    # And no column of any table but the session store holds either key.
    for key in (ben_key, sam_key):
        assert columns_holding(key) == []


def test_the_scan_finds_a_key_where_one_is_recorded(floor):  # noqa: F811
    """The scan itself: a row keeping a key (as the code did before the tags) is found."""
    _, key = logged_in("ben")
    audit_record(actor=Actor(name="ben", role="dealer", session="x"), action="login", summary="ben", detail={"k": key})
    assert columns_holding(key) == [("cardroom_auditentry", "detail")]


def test_the_tag_is_keyed_by_the_secret_key_and_names_one_session(settings):
    """An HMAC, not a bare digest: whoever lacks SECRET_KEY cannot tell which key a tag
    is of, even holding a list of keys; one key has one tag, two keys two."""
    tag = session_tag("k3y")
    assert len(tag) == 32 and tag == session_tag("k3y") != session_tag("k3z")
    assert session_tag("") == ""  # no session (a system process): nothing to name
    settings.SECRET_KEY = "another-secret-" * 4
    assert session_tag("k3y") != tag


# (migration, model, column): the session columns these migrations rewrite.
MIGRATIONS = [
    ("cardroom.migrations.0005_audit_session_tag", AuditEntry, "session"),
    ("tables.migrations.0020_approval_session_tags", Approval, "requested_session"),
    ("tables.migrations.0020_approval_session_tags", ApprovalDecision, "session"),
]


def run_data_migrations(*modules):
    """The RunPython steps of `modules`, as `migrate` runs them: as the owner."""
    with as_owner(), connection.schema_editor() as editor:
        # The rows were inserted in this test's transaction; a migration starts its own,
        # with no foreign-key checks still waiting, which ALTER TABLE needs.
        editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        for module in dict.fromkeys(modules):
            for operation in importlib.import_module(module).Migration.operations:
                if isinstance(operation, migrations.RunPython):
                    operation.code(apps, editor)


def test_the_migrations_turn_the_keys_already_recorded_into_tags_and_keep_the_tables_append_only(floor):  # noqa: F811
    """Rows recorded before the tags held the key: each app's migration rewrites them (as
    the owner, the update trigger off for that alone), every row of a key in one statement,
    and leaves the rest of each row, and the blank sessions, as they were."""
    table, ben, sam, now = floor["table"], floor["ben"], floor["sup"], timezone.now()
    key, other = "k3y0fasess1onthatwasst0redclear7", "an0thersess1onkeyst0redclear0000"
    # Rows as the old code wrote them: new rows (the tables take no updates).
    entries = [AuditEntry.objects.create(at=now, username="ben", role="dealer", session=session, address="10.0.0.7",
                                         action="command", summary="s") for session in (key, key, other, "")]
    approval = Approval.objects.create(table=table, kind="void", payload={"reason": "r"}, requested_by=ben,
                                       requested_role="dealer", requested_session=key, requested_at=now)
    decision = ApprovalDecision.objects.create(approval=approval, approved=False, decided_by=sam, via="device",
                                               session=other, decided_at=now)
    run_data_migrations(*(module for module, _, _ in MIGRATIONS))
    assert [AuditEntry.objects.get(pk=e.pk).session for e in entries] == [
        session_tag(key), session_tag(key), session_tag(other), ""]
    assert AuditEntry.objects.get(pk=entries[0].pk).address == "10.0.0.7"
    assert Approval.objects.get(pk=approval.pk).requested_session == session_tag(key)
    assert ApprovalDecision.objects.get(pk=decision.pk).session == session_tag(other)
    assert columns_holding(key) == [] and columns_holding(other) == []
    # The triggers are on again: the owner's UPDATE is refused as before.
    for _, model, column in MIGRATIONS:
        assert_refused_to_both(lambda model=model, column=column: model.objects.all().update(**{column: "x"}))


def test_a_held_actor_computes_its_tag_once_and_every_record_of_its_commands_keeps_it(floor, monkeypatch):  # noqa: F811
    """A socket holds its actor across its commands (web.sockets): the tag, an HMAC, is
    computed once for that actor, not once per record of each command, and every event,
    refusal and audit row still keeps the session's tag."""
    from cardroom import access
    from tables.models import RejectedCommand, TableEvent
    from tests.playing import outcomes

    hmacs = []
    real = access.salted_hmac
    monkeypatch.setattr(access, "salted_hmac", lambda *a, **k: hmacs.append(a[0]) or real(*a, **k))
    sam = Actor.of(floor["sup"], session="k3ysessionheldbyas0cket")
    table = floor["table"]
    done = outcomes(table, *seated_with_pd([1, 2], pd=1), {"type": "sit", "seat": 99, "player": "P-9"}, actor=sam)
    assert [o.ok for o in done] == [True] * (len(done) - 1) + [False]
    assert hmacs.count(access._SESSION_TAG_PURPOSE) == 1  # for all the commands and their records
    tag = session_tag("k3ysessionheldbyas0cket")
    assert {e.session_tag for e in TableEvent.objects.filter(table=table)} == {tag}
    assert RejectedCommand.objects.get(table=table).session_tag == tag
    assert {e.session for e in AuditEntry.objects.filter(username="sam", table_id=table.pk)} == {tag}
