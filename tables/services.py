"""The command service: the one way anything happens at a table.

HTTP, websocket, replay and the simulator all call `command_execute`. Each command runs
in one transaction with the table row locked, is decided by the rules engine, is
recorded in the event log and the ledger tables, and is published to live screens only
after the transaction commits.
"""

import json
import time
from dataclasses import dataclass
from datetime import datetime
from random import Random

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Subquery
from django.utils import timezone

from cardroom import checkpoints, hashchain, locks, wire, witness
from cardroom.access import Actor, can_drive_row
from cardroom.audit import audit_chained, audit_entry, audit_record
from cardroom.models import AuditEntry
from collections_fees import jackpot
from collections_fees.counts import missing_boxes, missing_boxes_words
from rounds.engine.errors import CommandError
from rounds.engine.records import JackpotMoved, RoundSettled, RoundVoided
from rounds.engine.table import TableGame
from rounds.models import Round
from rounds.visibility import TABLET

from . import events, presence, recording, rule_sets
from .events import meter_tables_changed_on_commit, publish_on_commit
from .floor import CommandFacts
from .models import Approval, RejectedCommand, RoundStart, Table, TableEvent
from .selectors import table_snapshot
from .lifecycle import as_actor

MAX_COMMAND_ID_LENGTH = 100
MAX_MESSAGE_LENGTH = 500


@dataclass(frozen=True)
class CommandOutcome:
    result: dict  # {"ok": true, ...} or {"ok": false, "error": {...}}
    version: int  # the table's version after the command
    replayed: bool = False  # True when `id` had been seen: the first answer, nothing applied

    @property
    def ok(self) -> bool:
        return self.result["ok"]

    @property
    def code(self) -> str | None:
        """The error code of a refusal, None when accepted."""
        return None if self.ok else self.result["error"]["code"]

    def reply(self, command) -> dict:
        """The answer to the sender (HTTP body, websocket `result` message)."""
        return {
            "id": wire.command_id_of(command),
            "result": self.result,
            "version": self.version,
            "replayed": self.replayed,
        }


def command_execute(
    *,
    table_id: int,
    command,
    actor: Actor | str,
    rng: Random | None = None,
    received: bytes | str | None = None,
    at: datetime | None = None,
) -> CommandOutcome:
    """Execute one command (docs/commands.md) at a table, all or nothing.

    `command` may carry `id` (a repeat of an id gets the first answer and changes
    nothing) and `version` (a stale one is refused with the current state).
    `actor` is the person (cardroom.access.Actor) or, as a plain name, the system
    process (replay, simulator) sending it: people are checked (`not_authorized`) and
    their voids need a second person's approval. Every command is in the audit trail.
    `received` is the body or frame the command came in, as received: a refusal keeps
    a bounded copy of it (wire.received), so the log shows what was sent.
    A person past CARDROOM_REFUSED_COMMANDS_PER_MINUTE refusals is answered
    `rate_limited` and nothing is stored or applied.
    `at` is when the command happened, for a replay file's command (docs/commands.md) or
    the demo seed's past shift: a system process's only (a person's command is refused
    `not_authorized`); a live command is stamped with the server's clock, and one whose
    body carries `at` is refused.
    The engine gets the time as the command's `at` (game-rules 2A needs it).
    Raises Table.DoesNotExist for an unknown table; every other refusal is a result.
    """
    try:
        return _execute(table_id, command, as_actor(actor), rng, received, at)
    except Table.DoesNotExist:
        raise
    except Exception:
        # Not a refusal: the server failed (a bug, the database gone). Nothing was
        # committed; the tablet keeps the tap and retries, and the floor is told. The
        # traceback is logged once, by whoever served the command (Django, Daphne).
        presence.command_failed(table_id)
        events.floor_alert_changed(table_id)
        raise


def _execute(table_id: int, command, actor: Actor, rng: Random | None, received, at: datetime | None) -> CommandOutcome:
    """Check, do, notify: under the table lock, `_check` answers or refuses what may not be
    applied, `_do` asks the engine and writes what it decided, `_notify` arranges the
    witness and the live screens for after the commit."""
    limited = _rate_limited(table_id, actor)
    if limited is not None:
        return limited
    with transaction.atomic():
        table = locks.table(table_id)
        command_id = _command_id(command)
        try:
            checked = _check(table, command, command_id, actor, received, at)
        except CommandError as refusal:
            return _reject(table, command, command_id, refusal, actor, received)
        if isinstance(checked, CommandOutcome):
            return checked  # answered without applying: not authorised, or a known id
        try:
            done = _do(table, checked, actor, rng)
        except CommandError as refusal:
            # The engine's refusal (or a fraction found after it): kept as approved.
            return _reject(table, checked.command, command_id, refusal, actor, received)
        _notify(table, done)
        return CommandOutcome(done.result, table.version)


def _rate_limited(table_id: int, actor: Actor) -> CommandOutcome | None:
    """The answer to a person past CARDROOM_REFUSED_COMMANDS_PER_MINUTE refusals, before
    any lock: nothing is stored or applied."""
    refusals = _refusal_counter(actor)
    if refusals and (cache.get(refusals) or 0) >= settings.CARDROOM_REFUSED_COMMANDS_PER_MINUTE:
        version = Table.objects.values_list("version", flat=True).get(pk=table_id)
        limited = CommandError("rate_limited", "too many refused commands from this session: wait a minute")
        return CommandOutcome(limited.as_result(), version)
    return None


@dataclass(frozen=True)
class _Checked:
    """A command that may be applied: as approved (`approved_by` filled in), with its id,
    its time and the table's game as the locked row holds it."""

    command: dict
    command_id: str | None
    stamp: recording.Stamp
    game: TableGame
    rule_set_change: object | None = None  # a rule set's change this open_round brings in
    device_at: datetime | None = None  # the tablet's own time of the tap (`tapped_at`)


@dataclass(frozen=True)
class _Done:
    """What a command changed, for the notifications once committed."""

    event: TableEvent
    result: dict
    records: list
    meter: object | None  # the progressive's meter row, when the command moved it
    game: TableGame  # the game as the command left it (the floor's row is built from it)


def _check(table: Table, command, command_id, actor: Actor, received, at: datetime | None) -> _Checked | CommandOutcome:
    """Check: authorisation, idempotency, the envelope, the table open, approvals and the
    patron gate. Returns the command to apply, or the answer when nothing is to be applied
    (an outsider's refusal, a known id's first answer); raises CommandError for any other
    refusal of the command as sent."""
    # Authorisation comes first: a stale version is answered with the table's state
    # (hole cards) and a known id with its earlier answer, neither for outsiders.
    # On the locked row: a socket's dealer is asked of the assignments only when the
    # table's drivers_version or the shift moved since it last was (can_drive_row).
    if not can_drive_row(actor, table):
        refusal = CommandError("not_authorized", f"{actor.name} ({actor.role or 'no role'}) may not drive this table")
        # Kept without its id: an outsider neither claims an id nor collides with one.
        return _reject(table, command, None, refusal, actor, received)
    if command_id is not None:
        prior = _prior_answer(table, command_id)
        if prior is not None:
            return CommandOutcome(prior, table.version, replayed=True)
    stamp = recording.Stamp.at(at or timezone.now())
    if at is not None and not actor.is_system:
        # A person's command happens when the server receives it: the clock is
        # not theirs to set (nothing a person sends reaches here with `at`).
        raise CommandError("not_authorized", "only a system process states when its command happened")
    _check_envelope(table, command)
    command, device_at = _device_time(command)
    if not table.is_open:
        raise CommandError("wrong_state", f"{table.name} is closed; a supervisor opens it")
    game = TableGame.from_dict(table.state)
    _require_boxes(table, game, command, actor, stamp)
    change = None
    if command.get("type") == "open_round":
        # A rule set's change in force from this gaming day comes in with its first round,
        # never mid-round (tables/rule_sets.py).
        due = rule_sets.due(table, game, stamp.gaming_day)
        if due is not None:
            game, change = due
    approved = _approved(table, game, command, actor)
    approved = _patron_gate(table, game, approved, actor)
    return _Checked(approved, command_id, stamp, game, change, device_at)


def _require_boxes(table: Table, game: TableGame, command, actor: Actor, stamp: recording.Stamp) -> None:
    """No round without its boxes: a person opens a round only when the table's fee box
    (and its jackpot box, where it offers a progressive) is placed for this gaming day and
    shift, so every fee and contribution of the round goes into a box the count team
    counts. A table left open across a shift turn needs the new shift's boxes. Read from
    the locked row (no query); the refusal names what to place. System processes (replay
    files, the demo seed) are exempt: they state what happened."""
    if actor.is_system or not isinstance(command, dict) or command.get("type") != "open_round":
        return
    progressive = game.config.side_bets.progressive is not None
    slots = missing_boxes(table=table, gaming_day=stamp.gaming_day, shift=stamp.shift, progressive=progressive)
    if slots:
        raise CommandError(
            "box_missing", missing_boxes_words(table_id=table.pk, shift=stamp.shift, slots=slots)
        )


def _do(table: Table, checked: _Checked, actor: Actor, rng: Random | None) -> _Done:
    """Do: the engine decides (CommandError: refused, nothing written), then the event,
    the ledger rows (tables/recording.py), the table row and the audit are written."""
    command, stamp, game = checked.command, checked.stamp, checked.game
    # The shared meter, locked after the table row (cardroom/locks.py states the
    # order), only by the commands that move it: two tables on one meter never lose an update.
    meter = locks.meter(game.config.side_bets.progressive.meter) if game.needs_fund(command) else None
    fund = jackpot.fund_of(meter) if meter else None
    # The command's time is an input to the engine (game-rules 2A), stamped here.
    stamped = {**command, "at": timezone.localtime(stamp.now).isoformat()}
    new_game, result, records = game.apply(stamped, rng=rng, fund=fund)
    if checked.rule_set_change is not None:
        rule_sets.applied(table, game.config, checked.rule_set_change, now=stamp.now)
    # After the engine, not in _check_envelope: a fractional amount is the engine's
    # invalid_amount (docs/commands.md); this catches floats anywhere else in the command.
    if not hashchain.only_whole_numbers(command):
        raise CommandError("invalid_command", "numbers in a command are whole numbers")
    checkpoints.close_day_if_turned(table, stamp.gaming_day)
    table.version += 1
    table.state = new_game.to_dict()
    event = TableEvent(
        table=table,
        seq=table.version,
        command_type=command["type"],
        command=command,
        command_id=checked.command_id,
        result=result,
        records=[r.as_dict() for r in records],
        actor=actor.name,
        created_at=stamp.now,
        gaming_day=stamp.gaming_day,
        prev_hash=table.event_head,
        hash_key=hashchain.current_key_id(),
        device_at=checked.device_at,
        session_tag=actor.recorded_session,
    )
    event.row_hash = table.event_head = hashchain.link(event.prev_hash, event.chain_content(), event.hash_key)
    # The event, its ledger rows, the table row and the audit row go to the database
    # together, in this order, in one round trip (recording.Writes).
    writes = recording.Writes()
    recording.write(writes, table=table, event=event, records=records, stamp=stamp, meter=meter)
    _patron_escalate(table, records, actor)
    # The audit row is linked into the table's audit chain before the row that holds its head is queued.
    audit = audit_chained(audit_entry(
        actor=actor,
        action="command",
        table_id=table.pk,
        summary=f"{event.command_type} accepted at {table.name} (seq {event.seq})",
        detail={"seq": event.seq, "command": command},
    ), table)
    if command["type"] == "open_round" and new_game.round is not None:
        # Where a surveillance replay of this round starts (tables/surveillance.py). An
        # open_round that ends the game instead (the rotation rules) opens no round.
        writes.insert(RoundStart, [RoundStart(
            table_id=table.pk, round_number=new_game.round.number, seq=event.seq, state=game.to_dict(),
            created_at=stamp.now,
        )])
    writes.update(Table, {"id": table.pk}, **{name: getattr(table, name) for name in _TABLE_FIELDS_A_COMMAND_MOVES})
    writes.insert(AuditEntry, [audit])
    writes.send()
    if command["type"] == "confirm_award":
        _award_cash_out(table, game, result, actor, checked.stamp.now)
    return _Done(event, result, records, meter, new_game)


# What `_do` writes back to the locked table row (chain_day: checkpoints.close_day_if_turned).
_TABLE_FIELDS_A_COMMAND_MOVES = (
    "version", "state", "event_head", "collection_seq", "collection_head", "chain_day", "audit_seq", "audit_head",
)


def _notify(table: Table, done: _Done) -> None:
    """Notify, after commit and outside this transaction: the witness (the heads as this
    command left them, no query; at once when a round ended, so cutting a settled round
    out is caught), the table's screens and the floor, and the rows of the tables sharing
    a meter the command moved."""
    ended = [
        (table.pk, r.round, "settled" if isinstance(r, RoundSettled) else "voided")
        for r in done.records if isinstance(r, (RoundSettled, RoundVoided))
    ]
    witness.committed_on_commit(
        [("events", table.pk, table.version, table.event_head),
         ("collections", table.pk, table.collection_seq, table.collection_head)],
        rounds=ended, urgent=bool(ended),
    )
    # The floor's row is built from what the command holds (tables.floor.CommandFacts): the
    # publisher's window reads only what no command knows.
    facts = CommandFacts.of(table, done.game, done.event)
    publish_on_commit(table=table, command_type=done.event.command_type, result=done.result, facts=facts)
    if done.meter is not None and any(isinstance(r, JackpotMoved) for r in done.records):
        # The floor shows the meter on every table linked to it: their rows follow.
        meter_tables_changed_on_commit(done.meter.name, besides=table.pk)


def _device_time(command: dict) -> tuple[dict, datetime | None]:
    """The command without `tapped_at` (the tablet's own clock at the tap: the rules never
    see it), and that time, kept on the event for a surveillance replay. A tablet's clock
    may be off by any amount, so any time is kept; one that is not a time with its offset
    is refused, as any malformed field is."""
    if "tapped_at" not in command:
        return command, None
    tapped = wire.tapped_at(command)
    if tapped is None:
        raise CommandError("invalid_command", "'tapped_at' is the tablet's time of the tap, ISO 8601 with its offset")
    command = {key: value for key, value in command.items() if key != "tapped_at"}
    return command, tapped


def _check_envelope(table: Table, command) -> None:
    if not isinstance(command, dict):
        raise CommandError("invalid_command", "a command is a JSON object with a 'type'")
    if "at" in command:
        # The server's clock says when a live command happened; only a replay file says it.
        raise CommandError("invalid_command", "'at' is for replay files: a live command is stamped by the server")
    if not _recordable(command):
        raise CommandError("invalid_command", "the command holds values that cannot be recorded (NUL, NaN, Infinity)")
    if command.get("id") is not None and _command_id(command) is None:
        raise CommandError("invalid_command", f"'id' must be a text of 1 to {MAX_COMMAND_ID_LENGTH} characters")
    version = command.get("version")
    if version is not None:
        if type(version) is not int:
            raise CommandError("invalid_command", "'version' must be a whole number")
        if version != table.version:
            raise CommandError("stale_version", f"the table is at version {table.version}, not {version}")


def _recordable(value) -> bool:
    """The value can be stored and hashed as it is: PostgreSQL refuses NUL characters and
    non-finite numbers (which Python's json module would otherwise let through), and UTF-8
    has no lone surrogates."""
    try:
        text = json.dumps(value, allow_nan=False, ensure_ascii=False)
        text.encode("utf-8")
    except (TypeError, ValueError):  # UnicodeEncodeError is a ValueError
        return False
    return "\\u0000" not in text


def _command_id(command) -> str | None:
    """The command's id when it is one that can be looked up and kept, else None (a
    malformed id is then refused by _check_envelope, and kept with no id)."""
    command_id = wire.command_id_of(command)
    if isinstance(command_id, str) and 0 < len(command_id) <= MAX_COMMAND_ID_LENGTH and _recordable(command_id):
        return command_id
    return None


def _prior_answer(table: Table, command_id: str) -> dict | None:
    # One statement for both logs. An id is in at most one of them: the first answer to an
    # id is kept (accepted or refused), and every later use of it is answered from it.
    # Every tablet command carries an id, so this runs for nearly every command: a fixed
    # text (_PRIOR_ANSWER_SQL) rather than a union of querysets, which Django compiled
    # anew each time: most of the lookup's CPU (1.3 ms against 0.14 ms, docs/scaling.md).
    # Each half is a probe of its log's unique (table, command_id) index.
    with connection.cursor() as cursor:
        cursor.execute(_PRIOR_ANSWER_SQL, (table.pk, command_id, table.pk, command_id))
        row = cursor.fetchone()
    # Decoded by the field, as the ORM decodes it (both logs' `result` are JSON fields).
    return None if row is None else _RESULT_FIELD.from_db_value(row[0], None, connection)


def _prior_answer_sql() -> str:
    def half(model) -> str:
        meta, qn = model._meta, connection.ops.quote_name
        return (f"SELECT {qn(meta.get_field('result').column)} FROM {qn(meta.db_table)} "
                f"WHERE {qn(meta.get_field('table').column)} = %s AND {qn(meta.get_field('command_id').column)} = %s")

    return f"({half(TableEvent)}) UNION ALL ({half(RejectedCommand)}) LIMIT 1"


_PRIOR_ANSWER_SQL = _prior_answer_sql()
_RESULT_FIELD = TableEvent._meta.get_field("result")


def _approved(table: Table, game: TableGame, command: dict, actor: Actor) -> dict:
    """A person's void must name an approval granted by another person (a supervisor)
    for this round; the engine then records that supervisor as `approved_by`. A person's
    `confirm_award` is a supervisor's own (on their device, or logged in on the tablet),
    recorded under their name, by a supervisor who drove none of the round
    (_drove_the_round), and so is a person's `start_game` (game-rules 2A.3).
    System processes (replay files) state `approved_by` themselves."""
    if actor.is_system or not isinstance(command, dict):
        return command
    if command.get("type") == "confirm_award":
        if actor.role != "supervisor":
            raise CommandError("not_authorized", "a progressive award is confirmed by a supervisor")
        if game.round is not None and _drove_the_round(table, game.round.number, actor):
            raise CommandError(
                "not_authorized",
                f"{actor.name} sent commands of round {game.round.number}: a progressive award is confirmed "
                "by a supervisor who took no part in the round",
            )
        return {**command, "approved_by": actor.name}
    if command.get("type") == "start_game":
        if actor.role != "supervisor":
            raise CommandError("approval_required", "a supervisor starts a new game")
        return {**command, "approved_by": actor.name}
    if command.get("type") != "void_round":
        return command
    approval_id = command.get("approval")
    approval = (
        Approval.objects.select_related("decision__decided_by").filter(pk=approval_id, table=table, kind="void").first()
        if type(approval_id) is int
        else None
    )
    decision = getattr(approval, "decision", None) if approval else None
    if (
        decision is None
        or not decision.approved
        or game.round is None
        or approval.round_number != game.round.number
    ):
        raise CommandError("approval_required", "voiding this round needs a supervisor's approval (approval id)")
    # `approval` is the service's field, not the engine's (which refuses fields it does not take).
    fields = {k: v for k, v in command.items() if k != "approval"}
    return {**fields, "approved_by": decision.decided_by.get_username(), "reason": approval.payload["reason"]}


def _drove_the_round(table: Table, number: int, actor: Actor) -> bool:
    """Whether `actor` is the actor of any of round `number`'s events so far: its
    `open_round` and every event after it, in the table's hash-chained event log. By
    person, not by session: the log names each event's person by their username, one
    user's and unique, so the same supervisor on another device or in another login
    session is the same name (docs/controls.md)."""
    opened = TableEvent.objects.filter(table_id=table.pk, command_type="open_round", result__round=number)
    return TableEvent.objects.filter(
        table_id=table.pk, seq__gte=Subquery(opened.values("seq")[:1]), actor=actor.name
    ).exists()


def _patron_gate(table: Table, game: TableGame, command: dict, actor: Actor) -> dict:
    """A patron on the state's or the house's self-exclusion list is not seated
    (patrons/identity.py): refused `self_excluded`, and the hit, written in this
    transaction, stays with the refusal for the floor and compliance. Their progressive
    award is withheld: the command that pays (or previews) the awards gets the listed
    seats as `withheld` (patrons/awards.py), which is the service's to state, as
    `approved_by` is; a replay file states its own. The command, as the engine takes it."""
    from patrons.awards import AWARD_COMMANDS, withheld_seats

    if not isinstance(command.get("type"), str):
        return command  # not a command at all: the engine refuses it with its stable code
    if command.get("type") in AWARD_COMMANDS:
        if "withheld" in command and not actor.is_system:
            raise CommandError("invalid_command", "'withheld' is the command service's: the lists say whose award is withheld")
        if "withheld" not in command:
            seats = withheld_seats(game, command["type"])
            return {**command, "withheld": seats} if seats else command
        return command
    from patrons.identity import PatronError, SeatIdentity, exclusion_check, tppp_check

    # A seat id (or backline bettor) that names exactly one patron, as typed or as people
    # write it ("P_1001", "р-4001"), is given to the engine as that patron's number, and
    # a linked U-id as its patron's (docs/rules-decisions.md): the engine, the rotation log
    # and the history see one id for one person. One indexed query finds it.
    backline = game.config.backline is not None  # else the engine's wrong_state comes first
    if command.get("type") == "backline_wager" and backline and isinstance(command.get("bettor"), str):
        # A backline bettor is a patron too (a number, a card or an unidentified U-id).
        seat = SeatIdentity(command["bettor"])
        try:
            exclusion_check(player=command["bettor"], table_id=table.pk, action="backline", actor=actor, seat=seat)
        except PatronError as refusal:
            raise CommandError(refusal.code, refusal.message) from None
        return {**command, "bettor": seat.seated_as}
    if command.get("type") != "sit" or not isinstance(command.get("player"), str):
        return command

    seat = SeatIdentity(command["player"])
    try:
        exclusion_check(player=command["player"], table_id=table.pk, action="seat", actor=actor, seat=seat)
        tppp_check(player=command["player"], tppp=command.get("tppp"))
    except PatronError as refusal:
        raise CommandError(refusal.code, refusal.message) from None
    return {**command, "player": seat.seated_as}


def _patron_escalate(table: Table, records, actor: Actor) -> None:
    """A withheld progressive award is escalated to the floor and compliance."""
    from patrons.awards import escalate

    escalate(table_id=table.pk, records=records, actor=actor)


def _award_cash_out(table: Table, game: TableGame, result: dict, actor: Actor, at) -> None:
    """A confirmed award is a cash-out to its winner (patrons/awards.py): recorded in the
    command's transaction, due or owed, with the winner the round seated (read from the
    game before the command) and the amount the confirmation fixed."""
    from patrons.awards import award_confirmed

    award = result["award"]
    seat = game.round.seats[award["seat"]]
    round_id = Round.objects.values_list("pk", flat=True).get(table_id=table.pk, number=game.round.number)
    award_confirmed(table_id=table.pk, round_id=round_id, seat=award["seat"], player=seat.player,
                    hand=award["hand"], amount=award["award"], actor=actor, at=at)


def _refusal_counter(actor: Actor) -> str | None:
    """The cache key counting this person's refused commands in the current minute (one
    per session: the tablet's HTTP and socket share it); system processes are not limited."""
    if actor.is_system:
        return None
    who = actor.session or f"user-{actor.user_id}"
    return f"refused-commands:{who}:{int(time.time() // 60)}"


def _count_refusal(actor: Actor) -> None:
    key = _refusal_counter(actor)
    if key is None:
        return
    cache.add(key, 0, timeout=120)  # outlives its minute; atomic with incr in Redis
    try:
        cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=120)


def _kept_command(command) -> dict:
    """The refused command as the log keeps it: whole when it is small and recordable,
    else what wire.received keeps of it (a bounded prefix, its size and SHA-256)."""
    if isinstance(command, dict) and _recordable(command):
        text = json.dumps(command, ensure_ascii=False)
        if len(text.encode("utf-8")) <= wire.KEPT_BYTES:
            return command
        return {"oversized": wire.received(text)}
    return {"unrecordable": repr(command)[: wire.KEPT_BYTES]}


def _reject(table: Table, command, command_id, refusal: CommandError, actor: Actor, received=None) -> CommandOutcome:
    # A message may quote what was sent (an unknown type, a bad amount): kept bounded too.
    refusal = CommandError(refusal.code, refusal.message[:MAX_MESSAGE_LENGTH])
    result = refusal.as_result()
    recordable = isinstance(command, dict) and _recordable(command)
    if refusal.code == "stale_version":
        # Only a person who may drive the table gets here (authorisation comes first).
        result["state"] = table_snapshot(table, TABLET)
    # A refusal changes no table state and no event; it is kept so that a retry of the
    # same id gets this same answer, and so that supervisors can see what was tried.
    RejectedCommand.objects.create(
        table=table,
        command=_kept_command(command),
        command_id=command_id,
        code=refusal.code,
        result=result,
        table_version=table.version,
        actor=actor.name,
        created_at=timezone.now(),
        session_tag=actor.recorded_session,
    )
    kind = command.get("type") if recordable else None
    audit_record(
        actor=actor,
        action="command_refused",
        table_id=table.pk,
        summary=f"{kind if isinstance(kind, str) else 'command'} refused: {refusal.code}",
        # What was received, as bytes (bounded): the parsed command may read otherwise.
        detail={"code": refusal.code, "message": refusal.message, "received": wire.received(received)},
    )
    _count_refusal(actor)
    return CommandOutcome(result, table.version)
