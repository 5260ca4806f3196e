"""Second-person approvals: voids, corrections and configuration changes of open tables.

A request is made by one person; a supervisor other than the requester decides, on their
own device (the approval queue) or on the tablet with their own credentials. Both
identities are stored. On approval the action is carried out at once through the
command service (void), or recorded as a reversing entry (correction), or as a new
configuration version (configuration).

A configuration (a change, or a new table's first one) is two supervisors' act: filed by
a supervisor and decided in the queue, on their own device, by another (docs/controls.md).
"""

import hashlib

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from cardroom import locks
from cardroom.access import Actor, can_drive, role_of
from cardroom.audit import audit_record
from rounds.engine.errors import CommandError
from rounds.engine.config import TableConfig as EngineConfig
from rounds.engine.config import checked_text
from rounds.models import Round

from .events import floor_row_changed_on_commit, table_refreshed_on_commit
from .models import Approval, ApprovalDecision, RoundCorrection, Table, approval_status
from .lifecycle import is_first_configuration, merged_config, round_correct, table_configure
from .services import CommandOutcome, command_execute

VIA = ("device", "tablet")
# What each kind of request carries (anything else is refused, not stored).
PAYLOAD_FIELDS = {"void": {"reason"}, "correction": {"reason", "round"}, "config": {"reason", "config"}}


# What a failed credential check answers, whatever failed: a wrong password, a name that
# may not approve (unknown, inactive, not a supervisor). One answer, so the form never
# tells a guesser which names are worth guessing.
NOT_A_SUPERVISORS = "those credentials are not a supervisor's"


def tablet_login(*, table_id: int, username, password, actor: Actor):
    """A supervisor's own credentials typed on `actor`'s device for table `table_id`: the
    supervisor's user, or CommandError. Checked in this order, each before the next:

    1. the table exists (else Table.DoesNotExist: answered 404, nothing counted);
    2. `actor`, the person whose session sent them, drives the table (can_drive);
    3. `actor` has not reached a failure limit (`rate_limited`, below);
    4. the name is an active supervisor's, then the password is theirs.

    A failure of 4 is one answer whatever failed, at about the same cost: an unknown
    name or one that may not approve still runs the password hasher once, as Django's
    ModelBackend does for an unknown name. Each failure is a `login_failed` audit row and
    counts against the requester (the person, by user id) across every table and
    session, twice: with this approver's name (CARDROOM_APPROVAL_LOGIN_FAILURE_LIMIT)
    and with every name together (CARDROOM_APPROVAL_LOGIN_REQUESTER_FAILURE_LIMIT, so
    cycling through many names is stopped too). At either limit the requester may not
    use that name (or, at the second, any name) on any tablet until
    CARDROOM_APPROVAL_LOGIN_COOLOFF_SECONDS pass without a failure, and the floor shows
    the table where it happened (its failing row is marked `locked`, tables.floor).

    Other requesters are not held back by one requester's failures: a dealer must not
    be able to lock a supervisor out of every tablet. For the same reason this is not
    `authenticate()`, which would feed django-axes's lockout of the supervisor's own
    login (/accounts/login/): the model backend is asked directly."""
    if not _typed_text(username) or not _typed_text(password):
        raise CommandError("invalid_command", "the approver's username and password are texts")
    if not Table.objects.filter(pk=table_id).exists():
        raise Table.DoesNotExist(f"no table {table_id}")
    if not can_drive(actor, table_id):
        raise CommandError("not_authorized", f"{actor.name} does not work this table")
    counters = _failure_counters(actor, username)
    if _locked(counters, cache.get_many(list(counters))):
        raise CommandError("rate_limited", "too many failed approval logins from this person: try again later")
    # The attempt is counted before the password is checked and taken back if it
    # succeeds: parallel guesses cannot all pass the check above before one is counted.
    counts = {key: _count_failure(key) for key in counters}
    if _locked(counters, counts, over=True):
        raise CommandError("rate_limited", "too many failed approval logins from this person: try again later")
    pair_key, requester_key = counters
    supervisor = _supervisor_login(username, password)
    if supervisor is None:
        locked = _locked(counters, counts)
        audit_record(
            actor=Actor(name=username[:150], role="", address=actor.address, session=actor.session),
            action="login_failed",
            table_id=table_id,
            summary=f"failed approval login for {username[:60]!r} on the tablet of {actor.name}"
            + (": locked" if locked else ""),
            detail={"via": "tablet", "requester": actor.user_id, "requester_name": actor.name,
                    "failures_with_name": counts[pair_key], "failures": counts[requester_key], "locked": locked},
        )
        if locked:
            floor_row_changed_on_commit(table_id)  # the floor's alert (tables.floor)
        raise CommandError("not_authorized", NOT_A_SUPERVISORS)
    cache.delete(pair_key)  # this name's mistypes are forgiven once it is typed right...
    try:
        cache.decr(requester_key)  # ...but not the requester's other failures
    except ValueError:  # expired in between
        pass
    return supervisor


def _typed_text(value) -> bool:
    """A non-empty text the database can hold (no NUL, no lone surrogate)."""
    if not isinstance(value, str) or not value or "\x00" in value:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _failure_counters(actor: Actor, username: str) -> dict[str, int]:
    """The cache keys of the requester's failures with this name and with every name, and
    each one's limit. Keyed by the person, never by the table or the session: a new table
    id or a new login is not a fresh start. The name is hashed (any text is a valid key)."""
    name = hashlib.sha256(username.lower().encode()).hexdigest()[:32]
    return {
        f"approval-login:{actor.user_id}:{name}": settings.CARDROOM_APPROVAL_LOGIN_FAILURE_LIMIT,
        f"approval-login:{actor.user_id}": settings.CARDROOM_APPROVAL_LOGIN_REQUESTER_FAILURE_LIMIT,
    }


def _locked(counters: dict[str, int], counts: dict[str, int], *, over: bool = False) -> bool:
    """Is a counter at its limit (`over`: past it)?"""
    return any(counts.get(key, 0) > limit if over else counts.get(key, 0) >= limit for key, limit in counters.items())


def _count_failure(key: str) -> int:
    """One more failure on `key`; the count lasts the cool-off after the last one."""
    cooloff = settings.CARDROOM_APPROVAL_LOGIN_COOLOFF_SECONDS
    cache.add(key, 0, cooloff)
    try:
        count = cache.incr(key)
    except ValueError:  # expired in between
        cache.set(key, 1, cooloff)
        count = 1
    cache.touch(key, cooloff)
    return count or 0  # None while Redis is down (IGNORE_EXCEPTIONS): counting starts again


def _supervisor_login(username: str, password: str):
    """The active supervisor named `username` if `password` is theirs, else None. The name
    is looked at first; a name that may not approve costs one run of the hasher too."""
    User = get_user_model()
    person = User._default_manager.filter(**{User.USERNAME_FIELD: username}).first()
    if person is None or not person.is_active or role_of(person) != "supervisor":
        User().set_password(password)  # the hasher's time, as for a wrong password
        return None
    return ModelBackend().authenticate(None, username=username, password=password)


def _approver_login(*, table_id: int, approver, actor: Actor):
    """`approver` (a username and password typed on `actor`'s device) checked by tablet_login."""
    if not isinstance(approver, dict):
        raise CommandError("invalid_command", "approver is an object with username and password")
    return tablet_login(table_id=table_id, username=approver.get("username"), password=approver.get("password"), actor=actor)


# The commands a supervisor may send as themselves from a dealer's tablet with their own
# credentials: the ones the command service accepts only from a supervisor's own hand
# (tables.services._approved): a progressive award's confirmation and a new game.
CONFIRMED_ON_TABLET = ("confirm_award", "start_game")


def command_confirmed_on_tablet(*, actor: Actor, table_id: int, command, approver, tablet_actor) -> CommandOutcome:
    """A supervisor at the table confirms a progressive award (`confirm_award`) or starts a
    new game the rotation window ended (`start_game`) on the dealer's tablet with their own
    credentials, as they approve a void there: the same
    checks and lockout (tablet_login: the tablet's person drives the table, then the
    credentials, counted per requester and approver), then the command runs as that
    supervisor (`tablet_actor(user)`: their identity with the tablet's session and address),
    so the command service's own check that a supervisor confirms applies and the award
    is recorded under their name. A failed login runs nothing. The body that carried the
    password is never kept (no `received`: a refusal stores the command alone)."""
    if not isinstance(command, dict) or command.get("type") not in CONFIRMED_ON_TABLET:
        raise CommandError("invalid_command", f"a supervisor's credentials on the tablet confirm only {CONFIRMED_ON_TABLET}")
    supervisor = _approver_login(table_id=table_id, approver=approver, actor=actor)
    return command_execute(table_id=table_id, command=command, actor=tablet_actor(supervisor))


def approval_request(*, actor: Actor, table_id: int, kind: str, payload: dict) -> Approval:
    """Ask for a second person's approval. `payload` has a `reason`; a correction names
    its `round`, a configuration change its `config`. The floor's row of the table shows
    the request once it is committed."""
    if kind not in dict(Approval.KINDS):
        raise CommandError("invalid_command", f"unknown approval kind {kind!r}")
    if kind == "config" and actor.role != "supervisor":
        # Two supervisors: a dealer's request would leave the whole decision to one.
        raise CommandError("not_authorized", "a configuration change is requested by a supervisor")
    if not can_drive(actor, table_id):
        raise CommandError("not_authorized", f"{actor.name} does not work this table")
    if not isinstance(payload, dict):
        raise CommandError("invalid_command", "an approval's payload is an object")
    unknown = set(payload) - PAYLOAD_FIELDS[kind]
    if unknown:
        raise CommandError("invalid_command", f"a {kind} request does not take {sorted(unknown)}")
    checked_text("reason", payload.get("reason"))  # as the void command will check it
    with transaction.atomic():
        table = locks.table(table_id)
        round_number = _round_of(table, kind, payload)
        approval = _filed(actor, table, kind, payload, round_number)
        if kind == "void":
            table_refreshed_on_commit(table.pk)  # every screen of the table shows the request
    return approval


def first_configuration_request(*, actor: Actor, table_id: int, reason, change: dict | None = None) -> Approval:
    """A new table's first configuration filed again, from the setup page, once the one
    filed with the table was refused: the table's whole configuration as it stands, with
    `change` (the keys a setup section changes) merged over it, for another supervisor to
    decide in the queue. Its approval, and no other, lets the table open. A supervisor's
    only; refused while the table's configuration is approved, or while a first
    configuration of it already waits."""
    if actor.role != "supervisor":
        raise CommandError("not_authorized", "a table's first configuration is requested by a supervisor")
    reason = checked_text("reason", reason)
    if change is not None and not isinstance(change, dict):
        raise CommandError("invalid_command", "a configuration change is an object")
    with transaction.atomic():
        table = locks.table(table_id)
        if table.retired:
            raise CommandError("wrong_state", f"{table.name} is retired")
        if table.config_approved:
            raise CommandError("wrong_state", f"{table.name}'s first configuration is approved: request a change instead")
        waiting = Approval.objects.filter(table=table, kind="config", decision__isnull=True)
        if any(is_first_configuration(a) for a in waiting):
            raise CommandError("wrong_state", f"{table.name}'s first configuration already waits in the queue")
        config = EngineConfig.from_config(merged_config(table.state["config"], change or {})).to_config()
        return _filed(actor, table, "config", {"reason": reason, "config": config, "first": True}, None)


def _filed(actor: Actor, table: Table, kind: str, payload: dict, round_number: int | None) -> Approval:
    """The request's row and its audit row; the floor's row of the table shows it once
    committed."""
    approval = Approval.objects.create(
        table=table,
        kind=kind,
        round_number=round_number,
        payload=payload,
        requested_by_id=actor.user_id,
        requested_role=actor.role,
        requested_session=actor.recorded_session,
        requested_address=actor.address[:64],
        requested_at=timezone.now(),
    )
    first = " (its first configuration)" if is_first_configuration(approval) else ""
    audit_record(
        actor=actor,
        action="approval_requested",
        table_id=table.pk,
        summary=f"{kind} requested at {table.name}" + (f" round {round_number}" if round_number else "") + first,
        detail={"approval": approval.pk, "payload": payload},
    )
    floor_row_changed_on_commit(table.pk)
    return approval


def approval_request_approved_here(*, actor: Actor, table_id: int, kind: str, payload: dict, approver: dict, tablet_actor):
    """The request and a supervisor's approval at once, on the requester's device with the
    supervisor's own credentials (`approver`: username and password). The credentials are
    checked first: a failed attempt leaves no request behind. `tablet_actor(user)` is the
    supervisor as an actor of this request (its session and address). All or nothing.
    Not for a configuration: that is filed by a supervisor and decided in the queue by
    another (refused before any credential is looked at)."""
    if kind == "config":
        raise CommandError("not_authorized", CONFIG_DECIDED_IN_THE_QUEUE)
    supervisor = _approver_login(table_id=table_id, approver=approver, actor=actor)
    with transaction.atomic():
        approval = approval_request(actor=actor, table_id=table_id, kind=kind, payload=payload)
        decision, outcome = approval_decide(approval_id=approval.pk, decider=tablet_actor(supervisor), approve=True, via="tablet")
    return approval, decision, outcome




def _round_of(table: Table, kind: str, payload: dict) -> int | None:
    if kind == "void":
        current = (table.state.get("round") or {}).get("number")
        if current is None:
            raise CommandError("wrong_state", "there is no round in progress to void")
        return current
    if kind == "correction":
        number = payload.get("round")
        if type(number) is not int or not Round.objects.filter(table=table, number=number, status="settled").exists():
            raise CommandError("invalid_command", "a correction names a settled round of this table")
        if RoundCorrection.objects.filter(round__table=table, round__number=number).exists():
            raise CommandError("wrong_state", f"round {number} has already been corrected")
        return number
    if not isinstance(payload.get("config"), dict):
        raise CommandError("invalid_command", "a configuration change carries the new configuration")
    # Checked now, as it will be when approved: a configuration that could never be
    # carried out (an unknown key, a bad value) is not stored for a supervisor to see.
    # The change is merged over the configuration in force, as table_configure will.
    EngineConfig.from_config(merged_config(table.state["config"], payload["config"]))
    return None


CONFIG_DECIDED_IN_THE_QUEUE = (
    "a configuration is decided in the approval queue, on the deciding supervisor's own device, not on a tablet"
)


def approval_decide(*, approval_id: int, decider: Actor, approve: bool, via: str, reason: str = ""):
    """A supervisor other than the requester (another person: another user, not another
    session) decides, on their own session and address (both are kept). A configuration
    is decided only in the queue (`via` device), and approved only when a supervisor
    filed it. A void is refused with a reason (`reason_required`), which the dealer who
    asked reads. Returns the decision and, for an approved void, the outcome of the void
    command."""
    if type(approve) is not bool:
        raise CommandError("invalid_command", "approve is true or false")
    if not isinstance(reason, str) or len(reason.strip()) > 200:
        raise CommandError("invalid_command", "the reason is a text of at most 200 characters")
    reason = " ".join(reason.split())
    if via not in VIA:
        raise CommandError("invalid_command", f"via must be one of {VIA}")
    with transaction.atomic():
        # The Approval row is a ledger row: read, never locked (a lock is an UPDATE
        # privilege the served role does not hold) nor changed. The table is locked
        # instead, as every command locks it first: decisions on one table's requests
        # are taken one at a time, whether the request has expired cannot change between
        # this check and the void, and the one-to-one decision row refuses a second.
        table = locks.approval_table(approval_id)
        approval = Approval.objects.select_related("requested_by").get(pk=approval_id)
        approval.table = table
        if decider.role != "supervisor":
            raise CommandError("not_authorized", "only a supervisor approves")
        if decider.user_id == approval.requested_by_id:
            raise CommandError("not_authorized", "the requester cannot approve their own request")
        if approval.kind == "config" and via != "device":
            raise CommandError("not_authorized", CONFIG_DECIDED_IN_THE_QUEUE)
        if approval.kind == "config" and approve and approval.requested_role != "supervisor":
            # Filed before dealers were refused (approval_request): refuse it, file it again.
            raise CommandError("not_authorized", "a configuration change filed by a dealer is refused, not approved: "
                                                 "a supervisor files it again")
        if ApprovalDecision.objects.filter(approval=approval).exists():
            raise CommandError("wrong_state", "this request has already been decided")
        expired = approval_status(approval) == "expired"
        if approve and expired:
            raise CommandError("wrong_state", f"round {approval.round_number} has ended: the request has expired, dismiss it")
        verdict = "dismissed, expired" if expired else "refused"
        if approval.kind == "void" and not approve and not expired and len(reason) < 3:
            raise CommandError("reason_required", "say why the void is refused: the dealer reads it")
        decision = ApprovalDecision.objects.create(
            approval=approval,
            approved=approve,
            decided_by_id=decider.user_id,
            via=via,
            session=decider.recorded_session,
            address=decider.address[:64],
            decided_at=timezone.now(),
            reason=reason,
        )
        audit_record(
            actor=decider,
            action="approval_decided",
            table_id=approval.table_id,
            summary=f"{approval.kind} {'approved' if approve else verdict} ({via})" + (f": {reason}" if reason else ""),
            # `approved`: what verify_logs holds the decision row against (tables/record_checks.py).
            detail={"approval": approval.pk, "requested_by": approval.requested_by_id, "approved": approve},
        )
        outcome = _carry_out(approval, decider) if approve else None
        refused = getattr(outcome, "result", {"ok": True})
        if not refused["ok"]:
            # Never "approved, but not carried out": the decision is rolled back with it.
            raise CommandError(refused["error"]["code"], refused["error"]["message"])
        floor_row_changed_on_commit(approval.table_id)
        if approval.kind == "void" and not approve:
            table_refreshed_on_commit(approval.table_id)  # an approved void is the table's next event
    return decision, outcome


def _carry_out(approval: Approval, actor: Actor) -> CommandOutcome | RoundCorrection | None:
    if approval.kind == "void":
        return command_execute(
            table_id=approval.table_id,
            command={"type": "void_round", "approval": approval.pk, "reason": approval.payload["reason"]},
            actor=actor,
        )
    if approval.kind == "config":
        return table_configure(
            table_id=approval.table_id, config=approval.payload["config"], changed_by=actor, approved=True,
            first=is_first_configuration(approval),
        )
    return round_correct(approval=approval)
