"""A settled or voided round on the surveillance clock (issue 38 item 3): when a patron
disputes a hand or a court asks, supervisors and compliance follow the round step by step,
each accepted command, refusal and approval with three times: the server's, the tablet's own
(`tapped_at`, kept on the event as `device_at`) and the camera's (the server's time plus the
table's latest camera offset, which a supervisor reads off the camera's picture and records,
with who and when).

A round still in progress is not shown: its cards and decisions are the table's live
business, and its record is not complete.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.utils import timezone

from cardroom import checkpoints, hashchain, wire
from cardroom.spreadsheet import escape, unescape
from collections_fees.exports import CSV_MEDIA_TYPE, export_filename
from collections_fees.models import ExportManifest, JackpotEntry, JackpotMeter
from collections_fees.services import export_manifest_record

from cardroom.access import Actor
from cardroom.audit import audit_record
from rounds.engine.errors import CodedError, CommandError
from rounds import rebuild
from rounds.engine.config import TableConfig
from rounds.models import Round

from .models import Approval, CameraOffset, RejectedCommand, RoundStart, Table, TableEvent

MAX_OFFSET_MS = 24 * 3600 * 1000  # a camera clock a day off is misread, not drifted


class SurveillanceError(CodedError):
    codes = CommandError.codes


@dataclass(frozen=True)
class Step:
    """One thing that happened in the round, in the order it happened on the server."""

    kind: str  # "command", "refused", "approval"
    what: str
    who: str
    server_at: datetime
    device_at: datetime | None
    camera_at: datetime | None
    session: str  # the session's tag, shortened for the page ("" for a system process)
    seq: int | None = None
    detail: str = ""


def camera_offset_set(*, actor: Actor, table_id: int, offset_ms: int, reason: str = "") -> CameraOffset:
    """A supervisor's reading of the camera clock against the server's, recorded."""
    if actor.role != "supervisor":
        raise SurveillanceError("not_authorized", "a floor supervisor reads the camera clock")
    if type(offset_ms) is not int or abs(offset_ms) > MAX_OFFSET_MS:
        raise SurveillanceError("invalid_command", "the camera offset is a whole number of milliseconds, within a day")
    reason = reason.strip()[:200] if isinstance(reason, str) else ""
    offset = CameraOffset.objects.create(
        table_id=table_id, offset_ms=offset_ms, reason=reason, set_by=actor.name, set_by_user_id=actor.user_id,
        set_at=timezone.now(),
    )
    audit_record(actor=actor, action="configuration", table_id=table_id,
                 summary=f"camera clock offset {offset_ms} ms recorded", detail={"offset_ms": offset_ms, "reason": reason})
    return offset


def camera_offset(table_id: int) -> CameraOffset | None:
    return CameraOffset.objects.filter(table_id=table_id).order_by("-set_at", "-id").first()


def round_timeline(rnd: Round) -> tuple[list[Step], CameraOffset | None]:
    """Every step of a settled or voided round, in the server's order, and the camera
    offset the camera times use (None: no reading yet, no camera times)."""
    if rnd.status == "in_progress" or rnd.closed_at is None:
        raise SurveillanceError("wrong_state", "a round in progress is not replayed: it is the table's live business")
    offset = camera_offset(rnd.table_id)
    shift = timedelta(milliseconds=offset.offset_ms) if offset is not None else None

    def camera(at):
        return at + shift if shift is not None else None

    window = {"table_id": rnd.table_id, "created_at__gte": rnd.opened_at, "created_at__lte": rnd.closed_at}
    steps = [
        Step("command", event.command_type, event.actor, event.created_at, event.device_at, camera(event.created_at),
             event.session_tag[:8], seq=event.seq, detail=_summary(event.command))
        for event in TableEvent.objects.filter(**window).order_by("seq")
    ]
    steps += [
        Step("refused", f"{_kind(r.command)} refused: {r.code}", r.actor, r.created_at, wire.tapped_at(r.command),
             camera(r.created_at), r.session_tag[:8], detail=_summary(r.command))
        for r in RejectedCommand.objects.filter(**window).order_by("id")
    ]
    approvals = Approval.objects.filter(table_id=rnd.table_id, round_number=rnd.number).select_related(
        "requested_by", "decision__decided_by")
    for approval in approvals:
        steps.append(Step("approval", f"{approval.kind} requested", approval.requested_by.get_username(),
                          approval.requested_at, None, camera(approval.requested_at), approval.requested_session[:8]))
        decision = getattr(approval, "decision", None)
        if decision is not None:
            steps.append(Step("approval", f"{approval.kind} {'approved' if decision.approved else 'refused'}",
                              decision.decided_by.get_username(), decision.decided_at, None,
                              camera(decision.decided_at), decision.session[:8]))
    steps.sort(key=lambda step: (step.server_at, step.seq or 0))
    return steps, offset


def _kind(command) -> str:
    kind = command.get("type") if isinstance(command, dict) else None
    return kind if isinstance(kind, str) else "a message"


def _summary(command) -> str:
    """The command's own fields, as the dealer sent them (no id, version or tap time)."""
    if not isinstance(command, dict):
        return ""
    shown = {k: v for k, v in command.items() if k not in ("type", "id", "version", "tapped_at", "at")}
    return ", ".join(f"{k} {v}" for k, v in shown.items())


# --- The round played again ------------------------------------------------------------


@dataclass(frozen=True)
class ReplayStep:
    """One accepted command of the round, played again: its event, what the tablet was
    shown after it, and what (if anything) the replay did not give again."""

    event: TableEvent
    command: dict  # as the engine received it, with the server's `at`
    deck: list[str] | None  # the cards a software shuffle drew at this command, in order
    fund: dict | None  # the progressive's fund as it stood, for the commands that read it
    tablet: dict | None
    problems: tuple[str, ...]


@dataclass(frozen=True)
class RoundReplay:
    start: RoundStart
    steps: list[ReplayStep]

    @property
    def problems(self) -> list[str]:
        return [f"#{s.event.seq} {s.event.command_type}: {p}" for s in self.steps for p in s.problems]


def round_events(rnd: Round, start: RoundStart) -> list[TableEvent]:
    """The table's events from the round's open_round to the one that settled or voided it
    (a seat taken or left meanwhile included: the replay needs every command the table took)."""
    return list(TableEvent.objects.filter(table_id=rnd.table_id, seq__gte=start.seq, created_at__lte=rnd.closed_at)
                .order_by("seq"))


def engine_command(event: TableEvent) -> dict:
    """The command as the engine received it: the service stamps the server's time as `at`
    (tables/services.py `_do`), in the cardroom's zone."""
    return {**event.command, "at": timezone.localtime(event.created_at).isoformat()}


def _fund_before(event: TableEvent, meter_name: str | None) -> dict | None:
    """The progressive's fund just before `event`: its own first fund line less what it
    moved, or else the meter after its last line written before it (None: no progressive)."""
    if meter_name is None:
        return None
    own = JackpotEntry.objects.filter(event_id=event.pk).order_by("seq").first()
    if own is not None:
        return {"meter": own.meter_after - own.meter_delta, "reserve": own.reserve_after - own.reserve_delta}
    before = (JackpotEntry.objects.filter(meter__name=meter_name, created_at__lte=event.created_at)
              .exclude(event_id=event.pk).order_by("-seq").first())
    if before is not None:
        return {"meter": before.meter_after, "reserve": before.reserve_after}
    meter = JackpotMeter.objects.filter(name=meter_name).first()
    return {"meter": meter.meter, "reserve": meter.reserve} if meter is not None else None


def round_replay(rnd: Round) -> RoundReplay:
    """The settled or voided round played again from its recorded start, each command with
    the cards its deal drew (rounds/rebuild.py); refused for a round in progress, or one
    played before starts were recorded."""
    if rnd.status == "in_progress" or rnd.closed_at is None:
        raise SurveillanceError("wrong_state", "a round in progress is not replayed: it is the table's live business")
    start = RoundStart.objects.filter(table_id=rnd.table_id, round_number=rnd.number).first()
    if start is None:
        raise SurveillanceError("wrong_state", "this round was played before rounds kept their starting state: "
                                               "its timeline is shown, its screens cannot be rebuilt")
    config = TableConfig.from_config(start.state["config"])
    procedure = config.dealing
    meter_name = config.side_bets.progressive.meter if config.side_bets.progressive else None
    events = round_events(rnd, start)
    inputs = [
        {"command": engine_command(e), "deck": rebuild.drawn_deck(e.records, procedure), "fund": _fund_before(e, meter_name)}
        for e in events
    ]
    # One replay of the whole round: what a command carries on to the next ones (the
    # seats whose award is withheld) is carried as in the offline check.
    steps, played = [], rebuild.replaying(start.state, inputs)
    for event, step in zip(events, inputs):
        try:
            done = next(played)
        except rebuild.ReplayMismatch as exc:
            steps.append(ReplayStep(event, step["command"], step["deck"], step["fund"], None, (exc.message,)))
            # The record's own state cannot be had: the rest of the round is not replayed.
            break
        problems = tuple(rebuild.differences(done, event.result, event.records))
        steps.append(ReplayStep(event, step["command"], step["deck"], step["fund"], done.tablet, problems))
    return RoundReplay(start, steps)


# --- The round's export, checked offline ------------------------------------------------

REPLAY_EXPORT_COLUMNS = [
    "row_kind", "table_id", "gaming_day", "chain_seq", "prev_hash", "row_hash", "hash_key", "command_type",
    "command", "command_id", "result", "records", "actor", "created_at", "time_local", "device_at", "camera_at",
    "session_tag", "engine_at", "deck", "fund", "state_after",
]
# Rows of the file: the round's starting state, each of its events whole, and every other
# event of its gaming days as its link in the chain only (its hashes: no card, no name).
START, EVENT, LINK = "start", "event", "link"


def _json(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":")) if value is not None else ""


def _utc_text(moment: datetime | None) -> str:
    return moment.astimezone(UTC).isoformat() if moment is not None else ""


def round_replay_export(rnd: Round, *, requested_by: str, source: str = "http") -> tuple[bytes, ExportManifest]:
    """The round as a CSV file a court or a regulator checks without the database, and its
    manifest (recorded). Each of the round's commands is there with its three times, the
    cards its deal drew, and what the tablet showed after it; with its gaming days' other
    events as links, the file holds every row the signed checkpoints of the table's event
    chain vouch for, which `verify_logs --checkpoints` checks, re-hashing each event of the
    round with the ledger key and playing the round again (docs/compliance-exports.md)."""
    replayed = round_replay(rnd)
    offset = camera_offset(rnd.table_id)
    shift = timedelta(milliseconds=offset.offset_ms) if offset is not None else None
    days = sorted({s.event.gaming_day for s in replayed.steps})
    filters = {"table": rnd.table_id, "round": rnd.number, "day_from": days[0].isoformat(), "day_to": days[-1].isoformat()}
    export_id, started_at = uuid.uuid4(), timezone.now()
    # Before the rows are read: every row a checkpoint vouches for is then in the file.
    anchors = checkpoints.for_export(Table.objects.filter(pk=rnd.table_id), log="events", filters=filters)
    round_seqs = {s.event.seq for s in replayed.steps}
    links = TableEvent.objects.filter(table_id=rnd.table_id, gaming_day__in=days).exclude(seq__in=round_seqs)
    rows = [{"row_kind": START, "table_id": rnd.table_id, "chain_seq": "", "state_after": _json(replayed.start.state)}]
    for step in replayed.steps:
        e = step.event
        rows.append({
            "row_kind": EVENT, "table_id": e.table_id, "gaming_day": e.gaming_day.isoformat(), "chain_seq": e.seq,
            "prev_hash": e.prev_hash, "row_hash": e.row_hash, "hash_key": e.hash_key, "command_type": e.command_type,
            "command": _json(e.command), "command_id": e.command_id or "", "result": _json(e.result),
            "records": _json(e.records), "actor": escape(e.actor), "created_at": _utc_text(e.created_at),
            "time_local": timezone.localtime(e.created_at).isoformat(), "device_at": _utc_text(e.device_at),
            "camera_at": _utc_text(e.created_at + shift) if shift is not None else "", "session_tag": e.session_tag,
            "engine_at": step.command["at"], "deck": _json(step.deck), "fund": _json(step.fund),
            "state_after": _json(step.tablet),
        })
    for e in links.order_by("seq").only("table_id", "gaming_day", "seq", "prev_hash", "row_hash", "hash_key"):
        rows.append({"row_kind": LINK, "table_id": e.table_id, "gaming_day": e.gaming_day.isoformat(), "chain_seq": e.seq,
                     "prev_hash": e.prev_hash, "row_hash": e.row_hash, "hash_key": e.hash_key})
    rows.sort(key=lambda row: (row["chain_seq"] != "", row["chain_seq"] or 0))
    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, fieldnames=REPLAY_EXPORT_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    content = out.getvalue().encode("utf-8")
    manifest = export_manifest_record(
        export_id=export_id, kind="round_replay", media_type=CSV_MEDIA_TYPE,
        filename=export_filename("round-replay", {**filters, "table": rnd.table_id}, export_id, "csv"),
        filters=filters, columns=REPLAY_EXPORT_COLUMNS, rows=len(rows), size=len(content),
        sha256=hashlib.sha256(content).hexdigest(), requested_by=requested_by, source=source,
        started_at=started_at, checkpoints=anchors,
    )
    return content, manifest


def verify_replay_export(manifest: dict, records: list[dict]) -> tuple[int, list[str]]:
    """Offline, with the ledger key and no database: (events checked, problems) of a round's
    export. The signed checkpoints hold the file's rows of the chain (none missing, none
    rewritten after them); each event of the round is re-hashed to its row_hash under its
    key and links to the row before it; the round's events follow each other with no gap
    from its open_round; and the round played again from its starting state gives each
    event's chained answer and records, and each screen the file says the tablet showed."""
    problems = []
    chain_rows = [r for r in records if r.get("row_kind") in (EVENT, LINK)]
    _, found = checkpoints.verify_export(manifest, chain_rows)
    problems += found
    by_seq = {int(r["chain_seq"]): r for r in chain_rows}
    events = [r for r in chain_rows if r["row_kind"] == EVENT]
    for r in events:
        seq = int(r["chain_seq"])
        content = {
            "table": int(r["table_id"]), "seq": seq, "command_type": r["command_type"], "command": json.loads(r["command"]),
            "command_id": r["command_id"] or None, "result": json.loads(r["result"]), "records": json.loads(r["records"]),
            "actor": unescape(r["actor"]), "created_at": r["created_at"], "gaming_day": r["gaming_day"],
        }
        if r["hash_key"] == hashchain.LEGACY:
            # A round with a recorded start was played after the chains were keyed: an
            # unkeyed row is one rewritten by someone without the key.
            problems.append(f"event seq {seq}: not signed with a ledger key")
            continue
        try:
            rehashed = hashchain.link(r["prev_hash"], content, r["hash_key"])
        except hashchain.UnknownKey:
            problems.append(f"event seq {seq}: signed with key {r['hash_key']!r}, which is not configured here")
            continue
        if rehashed != r["row_hash"]:
            problems.append(f"event seq {seq}: not what was written (its row_hash does not match its content)")
        before = by_seq.get(seq - 1)
        if before is not None and before["row_hash"] != r["prev_hash"]:
            problems.append(f"event seq {seq}: does not follow seq {seq - 1} in the chain")
        if datetime.fromisoformat(r["engine_at"]) != datetime.fromisoformat(r["created_at"]):
            problems.append(f"event seq {seq}: the time the engine was given is not the event's")
    seqs = [int(r["chain_seq"]) for r in events]
    if not events or events[0]["command_type"] != "open_round":
        problems.append("the round's events do not begin with its open_round")
    if seqs and seqs != list(range(seqs[0], seqs[0] + len(seqs))):
        problems.append("the round's events are not consecutive: an event is missing")
    if not events or not any(record.get("kind") in ("RoundSettled", "RoundVoided")
                             for record in json.loads(events[-1]["records"] or "[]")):
        problems.append("the round's events do not end with its settlement or void: its end is missing")
    starts = [r for r in records if r.get("row_kind") == START]
    if len(starts) != 1 or not events:
        return 0, problems + ["the file holds no starting state and round events to play again"]
    steps = [{"command": {**json.loads(r["command"]), "at": r["engine_at"]},
              "deck": json.loads(r["deck"]) if r["deck"] else None,
              "fund": json.loads(r["fund"]) if r["fund"] else None} for r in events]
    try:
        done = rebuild.replay(json.loads(starts[0]["state_after"]), steps)
    except rebuild.ReplayMismatch as exc:
        return len(events), problems + [f"the round does not play again: {exc.message}"]
    for r, replayed in zip(events, done):
        for difference in rebuild.differences(replayed, json.loads(r["result"]), json.loads(r["records"])):
            problems.append(f"event seq {r['chain_seq']} played again: {difference}")
        if replayed.tablet != json.loads(r["state_after"]):
            problems.append(f"event seq {r['chain_seq']} played again: the tablet's screen differs from the file's")
    return len(events), problems
