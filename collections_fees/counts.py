"""Drop boxes, the count and the shift close: the rules for the house's money after the table.

4 CCR 12384-12385 (California's cardroom regulations): every box carries an identifier that
matches its table and shift, jackpot collections are kept apart, and a count team counts
every box and records per box the shift, the table, the amounts and the counters' names
and signatures. Here:

* a box is registered once (`box_register`) and placed on a table for the current gaming
  day and shift (`box_place`); a second placement in the same slot mid-shift is a swap
  and must say why. The command service stamps each collection entry with the fee box in
  force (`box_in_force`, called from tables/recording.py), so each line knows its box,
  and each progressive contribution with the jackpot box in force;
* after the shift, the count team opens the shift's sheet (`count_sheet_open`) and
  counts each box by denomination (`box_count_record`); the expected amount is what the
  ledgers put in that box (`box_expected`: fees less refunds, or for a jackpot box
  contributions less reversals). A variance above
  CARDROOM_COUNT_EXPLAIN_ABOVE_CENTS needs an explanation with the count, one above
  CARDROOM_COUNT_ESCALATE_ABOVE_CENTS a manager's approval (`variance_approve`) before the
  sheet can be signed. A recount is a new row;
* each counter signs with their own account (`count_sign`); the sheet is complete when two
  different counters have signed it as it stands (one person can never complete it);
* a supervisor or manager closes the shift (`shift_close`) once its sheet is complete:
  from then on nothing of that shift's count can be written. Reopening needs a request
  (`shift_reopen_request`) approved by a manager other than the requester
  (`shift_reopen_approve`).

Every refusal is a `CountError` with a stable code and changes nothing. Writes for one
gaming day and shift are serialised by a transaction-scoped advisory lock, so two counters
cannot both see "not yet closed" and write after a close.
"""

from __future__ import annotations

from datetime import date, datetime

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db import connection, transaction
from django.db.models import Q, Sum
from django.utils import timezone

from cardroom import locks
from cardroom.access import SYSTEM, Actor
from cardroom.audit import audit_record
from cardroom.gaming_day import calendar
from rounds.engine.errors import CodedError

from . import signals
from .models import (
    BOX_SLOTS,
    BoxCount,
    BoxPlacement,
    CollectionEntry,
    CountSheet,
    CountSignature,
    DropBox,
    JackpotEntry,
    ShiftClose,
    ShiftReopenRequest,
    VarianceApproval,
)

COUNT_ERROR_CODES = frozenset(
    """
    invalid_input not_authorized not_found wrong_state shift_not_over shift_closed
    box_in_use box_of_another_table swap_needs_reason explanation_required
    approval_required count_incomplete one_person_count own_request nothing_to_count
    """.split()
)

# Who may do what (the views' guards let the same roles in; these checks are the rule).
BOX_KEEPERS = ("supervisor", "manager")
# The demo seed (a system process) registers and places the demo floor's boxes itself,
# including in the past shift it plays (`at`, which no person may give).
BOX_SYSTEM_KEEPERS = (*BOX_KEEPERS, SYSTEM)
COUNTERS = ("count_team",)
CLOSERS = ("supervisor", "manager")
MANAGERS = ("manager",)
REOPEN_REQUESTERS = ("supervisor", "manager", "count_team")


class CountError(CodedError):
    """A refused count action: a stable code and a sentence. Nothing was written."""

    codes = COUNT_ERROR_CODES


def _audit(actor: Actor, step: str, *, summary: str, table_id: int | None = None, detail: dict | None = None):
    """One audit row per count step (action `count`; the step in its detail)."""
    audit_record(actor=actor, action="count", summary=summary, table_id=table_id, detail={"step": step, **(detail or {})})


def _table_model():
    """The table a box names (tables.Table), through the box's own foreign key: the back
    office sits below the tables app and does not import it."""
    return DropBox._meta.get_field("table").related_model


def _require_role(actor: Actor, roles: tuple[str, ...], doing: str) -> None:
    if actor.role not in roles:
        raise CountError("not_authorized", f"{doing} is for {' or '.join(roles)} only")


def _text(value, name: str, *, required: bool, limit: int) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str) or "\x00" in value:
        raise CountError("invalid_input", f"{name} is text")
    value = value.strip()
    if required and not value:
        raise CountError("invalid_input", f"{name} is required")
    if len(value) > limit:
        raise CountError("invalid_input", f"{name} is at most {limit} characters")
    return value


def _lock_shift(gaming_day: date, shift: str) -> None:
    """Serialise every count write of one gaming day and shift (until the transaction ends)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"cardroom-count:{gaming_day}:{shift}"])


def _check_shift(gaming_day, shift) -> tuple[date, str]:
    if not isinstance(gaming_day, date) or isinstance(gaming_day, datetime):
        raise CountError("invalid_input", "a gaming day is a date")
    if shift not in dict(calendar().shifts):
        raise CountError("invalid_input", f"unknown shift {shift!r}")
    return gaming_day, shift


def shift_is_closed(gaming_day: date, shift: str) -> bool:
    latest = ShiftClose.objects.filter(gaming_day=gaming_day, shift=shift).order_by("-at", "-id").first()
    return latest is not None and latest.action == "close"


def _refuse_if_closed(gaming_day: date, shift: str) -> None:
    if shift_is_closed(gaming_day, shift):
        raise CountError("shift_closed", f"the {shift} shift of {gaming_day} is closed: its count is frozen")


def _when(actor: Actor, at: datetime | None) -> datetime:
    """When a box action happens: now, or for a system process the time it states."""
    if at is None:
        return timezone.now()
    if not actor.is_system:
        raise CountError("not_authorized", "only a system process states when a box action happened")
    if not isinstance(at, datetime) or at.tzinfo is None:
        raise CountError("invalid_input", "a box action's time is an aware datetime")
    return at


def _refuse_if_not_over(gaming_day: date, shift: str, now: datetime) -> None:
    if now < calendar().shift_bounds(gaming_day, shift)[1]:
        raise CountError("shift_not_over", f"the {shift} shift of {gaming_day} has not ended yet")


# --- Boxes ------------------------------------------------------------------------------


def box_register(*, identifier, kind, table_id: int | None, actor: Actor, at: datetime | None = None) -> DropBox:
    """Register a box. A fee or jackpot box names its table; an emergency box none.
    `at`: when, for a system process registering it in a past shift (the demo seed)."""
    _require_role(actor, BOX_SYSTEM_KEEPERS, "registering a drop box")
    now = _when(actor, at)
    identifier = _text(identifier, "the box identifier", required=True, limit=32)
    if kind not in BOX_SLOTS:
        raise CountError("invalid_input", f"a box is one of {sorted(BOX_SLOTS)}")
    if kind == "emergency":
        if table_id is not None:
            raise CountError("invalid_input", "an emergency box belongs to no table")
    elif type(table_id) is not int or not _table_model().objects.filter(pk=table_id).exists():
        raise CountError("invalid_input", f"a {kind} box names an existing table")
    with transaction.atomic():
        if DropBox.objects.filter(identifier__iexact=identifier).exists():
            raise CountError("wrong_state", f"a box {identifier!r} is registered already")
        box = DropBox.objects.create(
            identifier=identifier, kind=kind, table_id=table_id, registered_by=actor.name, registered_at=now
        )
        _audit(actor, "box_registered", table_id=table_id, summary=f"{kind} box {identifier} registered")
    return box


def _placements_latest_first(*, table_id: int, gaming_day: date, shift: str, slot: str):
    """A table's placements in a slot for a shift, the one in force first."""
    return BoxPlacement.objects.filter(table_id=table_id, gaming_day=gaming_day, shift=shift, slot=slot).order_by(
        "-placed_at", "-id"
    )


def placement_in_force(*, table_id: int, gaming_day: date, shift: str, slot: str = "fees") -> BoxPlacement | None:
    return _placements_latest_first(table_id=table_id, gaming_day=gaming_day, shift=shift, slot=slot).select_related("box").first()


def _boxes_on(table, gaming_day: date, shift: str) -> dict:
    """The boxes on a table for this gaming day and shift, from its row (`Table.boxes_placed`):
    a shift with no placement yet has none."""
    kept = table.boxes_placed or {}
    if kept.get("gaming_day") != gaming_day.isoformat() or kept.get("shift") != shift:
        return {"fees": None, "jackpot": None}
    return {slot: kept.get(slot) for slot in ("fees", "jackpot")}


def box_in_force(*, table, gaming_day: date, shift: str, slot: str = "fees") -> int | None:
    """The id of the box in a table's slot now, for the command service: the fee box every
    collection entry of the command goes into, the jackpot box every progressive
    contribution does. Read from the locked table row (no query): placements take the same
    lock, so a swap and a command are ordered."""
    box = _boxes_on(table, gaming_day, shift)[slot]
    return box["id"] if box else None


def missing_boxes(*, table, gaming_day: date, shift: str, progressive: bool) -> list[str]:
    """The slots a round at this table needs and has no box in for this gaming day and
    shift: the fee box always, the jackpot box where the table offers a progressive.
    Read from the locked table row (no query), like box_in_force."""
    boxes = _boxes_on(table, gaming_day, shift)
    needed = ("fees", "jackpot") if progressive else ("fees",)
    return [slot for slot in needed if boxes[slot] is None]


def missing_boxes_words(*, table_id: int, shift: str, slots: list[str]) -> str:
    """What a refused round says is missing, naming the box to place (the table's own
    registered box of that kind), e.g. "no fee box placed for the swing shift: place
    FEES-7 first". One query, on the refusal only."""
    registered = {}
    for kind, identifier in DropBox.objects.filter(table_id=table_id, kind__in=slots).order_by(
        "-registered_at", "-pk"
    ).values_list("kind", "identifier"):
        registered[kind] = identifier  # latest first: the earliest registered of each kind wins
    words = {"fees": "fee box", "jackpot": "jackpot box"}
    parts = []
    for slot in slots:
        box = registered.get(slot)
        step = f"place {box} first" if box else f"register and place a {words[slot]} first"
        parts.append(f"no {words[slot]} placed for the {shift} shift: {step}")
    return "; ".join(parts) + " (a supervisor or the manager places boxes, on the Drop boxes page)"


def boxes_now(tables, now: datetime | None = None) -> dict[int, dict]:
    """The boxes on these tables now, for the tablet and the floor, from the rows already
    read (no query): {table id: {"fees": identifier or None, "jackpot": ...}}."""
    now, cal = now or timezone.now(), calendar()
    day, shift = cal.gaming_day(now), cal.shift(now)
    return {
        table.pk: {slot: box["identifier"] if box else None for slot, box in _boxes_on(table, day, shift).items()}
        for table in tables
    }


def box_place(*, table_id: int, box_id: int, actor: Actor, reason: str = "", at: datetime | None = None) -> BoxPlacement:
    """Put a box on a table for the current gaming day and shift. Replacing the box in
    force in the same slot is a swap: it needs a reason; who and when are recorded.
    `at`: a system process placing it in a past shift (the demo seed), for that shift."""
    _require_role(actor, BOX_SYSTEM_KEEPERS, "placing a drop box")
    now = _when(actor, at)
    reason = _text(reason, "the reason", required=False, limit=200)
    with transaction.atomic():
        try:
            table = locks.table(table_id)  # ordered with the table's commands
        except (ObjectDoesNotExist, ValueError, TypeError):
            raise CountError("not_found", "no such table") from None
        try:
            box = DropBox.objects.get(pk=box_id)
        except (DropBox.DoesNotExist, ValueError, TypeError):
            raise CountError("not_found", "no such drop box") from None
        if box.table_id is not None and box.table_id != table.pk:
            raise CountError("box_of_another_table", f"box {box.identifier} carries the identifier of another table")
        if at is not None and BoxPlacement.objects.filter(table=table, placed_at__gt=now).exists():
            # The table row keeps the boxes of the latest placement's shift, which every
            # command's fees go into: a placement back in time would put an older
            # shift's box there.
            raise CountError("wrong_state", f"{table.name} has a box placed after {now.isoformat()}")
        cal = calendar()
        day, shift = cal.gaming_day(now), cal.shift(now)
        _lock_shift(day, shift)
        _refuse_if_closed(day, shift)
        current = placement_in_force(table_id=table.pk, gaming_day=day, shift=shift, slot=box.slot)
        if current is not None and current.box_id == box.pk:
            raise CountError("wrong_state", f"box {box.identifier} is on {table.name} already")
        if current is not None and not reason:
            raise CountError("swap_needs_reason", f"replacing box {current.box.identifier} mid-shift needs a reason")
        elsewhere = [
            p for p in BoxPlacement.objects.filter(box=box, gaming_day=day, shift=shift).exclude(table=table)
            if placement_in_force(table_id=p.table_id, gaming_day=day, shift=shift, slot=box.slot).box_id == box.pk
        ]
        if elsewhere:
            raise CountError("box_in_use", f"box {box.identifier} is on another table")
        placement = BoxPlacement.objects.create(
            box=box, table=table, slot=box.slot, gaming_day=day, shift=shift, replaces=current,
            reason=reason, placed_by=actor.name, placed_at=now,
        )
        boxes = {"gaming_day": day.isoformat(), "shift": shift, **_boxes_on(table, day, shift)}
        boxes[box.slot] = {"id": box.pk, "identifier": box.identifier}
        table.boxes_placed = boxes
        table.save(update_fields=["boxes_placed"])
        # The floor shows the box at once (the tables app publishes on commit); a tablet at its next update.
        signals.box_placed.send(sender=BoxPlacement, table_id=table.pk)
        what = f"swapped {current.box.identifier} for {box.identifier}" if current else f"placed {box.identifier}"
        _audit(actor, "box_placed", table_id=table.pk, summary=f"{what} ({day} {shift})",
               detail={"placement": placement.pk, "reason": reason})
    return placement


def jackpot_box_identifier(table_id: int) -> str:
    """The identifier painted on a table's jackpot box when the cardroom lets the software
    name it (as the demo's fee boxes are FEES-<id>)."""
    return f"JACKPOT-{table_id}"


def jackpot_box_with_progressive(*, table_id: int, actor: Actor) -> BoxPlacement | None:
    """A progressive switched on by a configuration needs a box for its contributions from
    the first round: the table's jackpot box (its registered one, else one registered now
    as JACKPOT-<id>) is placed for the shift running now, through box_place, unless a
    jackpot box is on the table already. Called inside the configuration's transaction:
    the box and the configuration version stand or fall together. None when one is on."""
    now, cal = timezone.now(), calendar()
    if placement_in_force(table_id=table_id, gaming_day=cal.gaming_day(now), shift=cal.shift(now), slot="jackpot"):
        return None
    box = (
        DropBox.objects.filter(kind="jackpot", table_id=table_id).order_by("registered_at", "pk").first()
        or box_register(identifier=jackpot_box_identifier(table_id), kind="jackpot", table_id=table_id, actor=actor)
    )
    return box_place(table_id=table_id, box_id=box.pk, actor=actor)


# --- The count --------------------------------------------------------------------------


def count_sheet_open(*, gaming_day, shift, actor: Actor) -> CountSheet:
    _require_role(actor, COUNTERS, "opening a count sheet")
    gaming_day, shift = _check_shift(gaming_day, shift)
    now = timezone.now()
    with transaction.atomic():
        _lock_shift(gaming_day, shift)
        _refuse_if_not_over(gaming_day, shift, now)
        _refuse_if_closed(gaming_day, shift)
        if CountSheet.objects.filter(gaming_day=gaming_day, shift=shift).exists():
            raise CountError("wrong_state", f"the {shift} shift of {gaming_day} has its count sheet already")
        sheet = CountSheet.objects.create(gaming_day=gaming_day, shift=shift, opened_by=actor.name, opened_at=now)
        _audit(actor, "count_opened", summary=f"count sheet {gaming_day} {shift} opened")
    return sheet


def _sheet(sheet_id) -> CountSheet:
    try:
        return CountSheet.objects.get(pk=sheet_id)
    except (CountSheet.DoesNotExist, ValueError, TypeError):
        raise CountError("not_found", "no such count sheet") from None


def box_expected(*, box_id: int, gaming_day: date, shift: str) -> int:
    """Cents the ledgers put in this box in this shift: for a fee box the collection log's
    fees less refunds; for a jackpot box the jackpot fund's contributions less the
    reversals of voided rounds (4 CCR 12384: jackpot collections kept apart)."""
    return boxes_expected(box_ids=[box_id], gaming_day=gaming_day, shift=shift)[box_id]


def boxes_expected(*, box_ids, gaming_day: date, shift: str) -> dict[int, int]:
    """box_expected of several boxes of a shift, {box id: cents}, in two queries whatever
    their number (the count sheet asks for every box of the shift)."""
    expected = dict.fromkeys(box_ids, 0)
    for model, taken, given_back in ((CollectionEntry, "fee", "refund"), (JackpotEntry, "contribution", "reversal")):
        sums = (
            model.objects.filter(box_id__in=list(expected), gaming_day=gaming_day, shift=shift)
            .values("box_id")
            .annotate(taken=Sum("amount", filter=Q(kind=taken), default=0),
                      given_back=Sum("amount", filter=Q(kind=given_back), default=0))
        )
        for row in sums:
            expected[row["box_id"]] += row["taken"] - row["given_back"]
    return expected


def counted_total(denominations) -> tuple[dict, int]:
    """The denominations as {"<cents>": pieces} (only the configured ones, whole pieces)
    and the total they make."""
    if not isinstance(denominations, dict):  # {} is an empty box
        raise CountError("invalid_input", "a count lists pieces per denomination")
    allowed = set(settings.CARDROOM_COUNT_DENOMINATIONS)
    clean, total = {}, 0
    for key, pieces in denominations.items():
        try:
            cents = int(key)
        except (TypeError, ValueError):
            raise CountError("invalid_input", f"{key!r} is not a denomination in cents") from None
        if str(cents) != str(key).strip() or cents not in allowed:
            raise CountError("invalid_input", f"{key!r} is not one of the denominations {sorted(allowed)}")
        if type(pieces) is not int or pieces < 0:
            raise CountError("invalid_input", "pieces are whole, non-negative numbers")
        if pieces:
            clean[str(cents)] = clean.get(str(cents), 0) + pieces
            total += cents * pieces
    return clean, total


def placed_boxes(sheet: CountSheet) -> dict[int, int]:
    """{box id: table id} of every box placed in the sheet's shift (each must be counted)."""
    return dict(
        BoxPlacement.objects.filter(gaming_day=sheet.gaming_day, shift=sheet.shift).values_list("box_id", "table_id")
    )


def counts_in_force(sheet: CountSheet) -> dict[int, BoxCount]:
    """{box id: the latest count of that box on the sheet}."""
    latest = {}
    for count in BoxCount.objects.filter(sheet=sheet).select_related("approval").order_by("counted_at", "id"):
        latest[count.box_id] = count
    return latest


def box_count_record(*, sheet_id, box_id, denominations, actor: Actor, explanation: str = "") -> BoxCount:
    """One count of one box (a recount of the same box is simply a later row)."""
    _require_role(actor, COUNTERS, "counting a box")
    explanation = _text(explanation, "the explanation", required=False, limit=500)
    clean, total = counted_total(denominations)
    with transaction.atomic():
        sheet = _sheet(sheet_id)
        _lock_shift(sheet.gaming_day, sheet.shift)
        _refuse_if_closed(sheet.gaming_day, sheet.shift)
        boxes = placed_boxes(sheet)
        if box_id not in boxes:
            raise CountError("not_found", f"no box {box_id!r} was on a table in the {sheet.shift} shift of {sheet.gaming_day}")
        expected = box_expected(box_id=box_id, gaming_day=sheet.gaming_day, shift=sheet.shift)
        variance = total - expected
        if variance_requires(variance)[0] and not explanation:
            raise CountError(
                "explanation_required",
                f"a variance of {variance / 100:+.2f} is above ${settings.CARDROOM_COUNT_EXPLAIN_ABOVE_CENTS / 100:.2f}: "
                "say why with the count",
            )
        count = BoxCount.objects.create(
            sheet=sheet, box_id=box_id, table_id=boxes[box_id], denominations=clean, counted=total,
            expected=expected, variance=variance, explanation=explanation, counted_by=actor.name,
            counted_at=timezone.now(),
        )
        _audit(actor, "box_counted", table_id=count.table_id,
                     summary=f"box {box_id} counted {total} cents (variance {variance})", detail={"count": count.pk})
    return count


def variance_requires(variance: int) -> tuple[bool, bool]:
    """(needs an explanation, needs a manager's approval) for a variance in cents, either
    way: above the configured thresholds (the escalation one implies the explanation)."""
    size = abs(variance)
    escalate = size > settings.CARDROOM_COUNT_ESCALATE_ABOVE_CENTS
    return escalate or size > settings.CARDROOM_COUNT_EXPLAIN_ABOVE_CENTS, escalate


def needs_approval(count: BoxCount) -> bool:
    return variance_requires(count.variance)[1]


def variance_approve(*, count_id, actor: Actor, note: str = "") -> VarianceApproval:
    """A manager accepts a count whose variance is above the escalation threshold."""
    _require_role(actor, MANAGERS, "approving a variance")
    note = _text(note, "the note", required=False, limit=500)
    with transaction.atomic():
        try:
            count = BoxCount.objects.select_related("sheet").get(pk=count_id)
        except (BoxCount.DoesNotExist, ValueError, TypeError):
            raise CountError("not_found", "no such count") from None
        _lock_shift(count.sheet.gaming_day, count.sheet.shift)
        _refuse_if_closed(count.sheet.gaming_day, count.sheet.shift)
        if not needs_approval(count):
            raise CountError("wrong_state", "this variance is within the threshold: nothing to approve")
        if counts_in_force(count.sheet)[count.box_id].pk != count.pk:
            raise CountError("wrong_state", "a later recount of this box replaced this count")
        if VarianceApproval.objects.filter(count=count).exists():
            raise CountError("wrong_state", "this variance is approved already")
        approval = VarianceApproval.objects.create(count=count, approved_by=actor.name, approved_at=timezone.now(), note=note)
        _audit(actor, "variance_approved", table_id=count.table_id,
                     summary=f"variance {count.variance} of box {count.box_id} approved", detail={"count": count.pk})
    return approval


NOTHING_PLACED = "no box was placed on a table in this shift: there is nothing to count or sign"


def sheet_problems(sheet: CountSheet) -> list[str]:
    """Why the sheet cannot be signed as it stands (empty: it can)."""
    # The placed boxes and their labels in the one query placed_boxes would make.
    rows = list(BoxPlacement.objects.filter(gaming_day=sheet.gaming_day, shift=sheet.shift).values_list(
        "box_id", "table_id", "box__identifier"))
    boxes, labels = {box: table for box, table, _ in rows}, {box: label for box, _, label in rows}
    return problems_of(boxes, counts_in_force(sheet), labels)


def problems_of(boxes: dict[int, int], counts: dict[int, BoxCount], labels: dict[int, str]) -> list[str]:
    """sheet_problems of a sheet's placed boxes and counts in force, already read (the
    pages read them for several sheets at once)."""
    if not boxes and not counts:
        # Said apart from "nothing has been counted": with no box placed in the shift there
        # is nothing the team could count, so the sheet is not one to sign at all.
        return [NOTHING_PLACED]
    # Boxes by their label (FEES-4, `labels`: {box id: identifier}), as they are marked.
    problems = [f"box {labels.get(box, box)} is not counted" for box in sorted(set(boxes) - set(counts))]
    for count in counts.values():
        box = labels.get(count.box_id, count.box_id)
        if variance_requires(count.variance)[0] and not count.explanation:
            problems.append(f"box {box}: its variance needs an explanation")
        if needs_approval(count) and not hasattr(count, "approval"):
            problems.append(f"box {box}: its variance needs a manager's approval")
    if not counts:
        problems.append("nothing has been counted")
    return problems


def count_sign(*, sheet_id, actor: Actor) -> CountSignature:
    """A counter signs the sheet as it stands, with their own account."""
    _require_role(actor, COUNTERS, "signing a count sheet")
    if actor.user_id is None:
        raise CountError("not_authorized", "a count is signed from a person's own account")
    with transaction.atomic():
        sheet = _sheet(sheet_id)
        _lock_shift(sheet.gaming_day, sheet.shift)
        _refuse_if_closed(sheet.gaming_day, sheet.shift)
        problems = sheet_problems(sheet)
        if problems == [NOTHING_PLACED]:
            raise CountError("nothing_to_count", NOTHING_PLACED)
        if problems:
            code = "approval_required" if all("approval" in p for p in problems) else "count_incomplete"
            raise CountError(code, "; ".join(problems))
        last = BoxCount.objects.filter(sheet=sheet).order_by("-id").first()
        if CountSignature.objects.filter(sheet=sheet, user_id=actor.user_id, last_count=last).exists():
            raise CountError("one_person_count", "you have signed this count already: a second counter signs")
        signature = CountSignature.objects.create(
            sheet=sheet, signed_by=actor.name, user_id=actor.user_id, last_count=last,
            session=actor.recorded_session, signed_at=timezone.now(),
        )
        _audit(actor, "count_signed", summary=f"count sheet {sheet.gaming_day} {sheet.shift} signed")
    return signature


def sheet_signers(sheet: CountSheet) -> list[str]:
    """The counters whose signatures cover the sheet as it stands (the latest count row)."""
    last = BoxCount.objects.filter(sheet=sheet).order_by("-id").values_list("id", flat=True).first()
    if last is None:
        return []
    return signers_of(CountSignature.objects.filter(sheet=sheet, last_count_id=last).order_by("signed_at", "id"), last)


def signers_of(signatures, last_count_id: int | None) -> list[str]:
    """sheet_signers of a sheet's signatures (in the order signed) and its latest count
    row's id, already read: each person once, of the signatures covering that row."""
    if last_count_id is None:
        return []
    seen, signers = set(), []
    for signature in signatures:
        if signature.last_count_id == last_count_id and signature.user_id not in seen:
            seen.add(signature.user_id)
            signers.append(signature.signed_by)
    return signers


def sheet_is_complete(sheet: CountSheet) -> bool:
    """Two different counters signed the sheet as it stands, and nothing is missing."""
    return len(sheet_signers(sheet)) >= 2 and not sheet_problems(sheet)


def standing_of(signers: list[str], problems: list[str]) -> bool:
    """sheet_is_complete of what was read already."""
    return len(signers) >= 2 and not problems


# --- The shift close --------------------------------------------------------------------


def shift_close(*, gaming_day, shift, actor: Actor) -> ShiftClose:
    """Close a shift whose count is complete: its count is frozen from now on."""
    _require_role(actor, CLOSERS, "closing a shift")
    gaming_day, shift = _check_shift(gaming_day, shift)
    with transaction.atomic():
        _lock_shift(gaming_day, shift)
        _refuse_if_not_over(gaming_day, shift, timezone.now())
        _refuse_if_closed(gaming_day, shift)
        sheet = CountSheet.objects.filter(gaming_day=gaming_day, shift=shift).first()
        if sheet is None:
            raise CountError("count_incomplete", "the shift has no count sheet")
        if not sheet_is_complete(sheet):
            if len(sheet_signers(sheet)) < 2:
                raise CountError("one_person_count", "two different counters must sign the count as it stands")
            raise CountError("count_incomplete", "; ".join(sheet_problems(sheet)))
        close = ShiftClose.objects.create(gaming_day=gaming_day, shift=shift, action="close", sheet=sheet, by=actor.name, at=timezone.now())
        _audit(actor, "shift_closed", summary=f"{gaming_day} {shift} closed", detail={"close": close.pk})
    return close


def shift_reopen_request(*, gaming_day, shift, reason, actor: Actor) -> ShiftReopenRequest:
    _require_role(actor, REOPEN_REQUESTERS, "asking to reopen a shift")
    gaming_day, shift = _check_shift(gaming_day, shift)
    reason = _text(reason, "the reason", required=True, limit=500)
    with transaction.atomic():
        _lock_shift(gaming_day, shift)
        if not shift_is_closed(gaming_day, shift):
            raise CountError("wrong_state", f"the {shift} shift of {gaming_day} is not closed")
        request = ShiftReopenRequest.objects.create(
            gaming_day=gaming_day, shift=shift, reason=reason, requested_by=actor.name, requested_at=timezone.now()
        )
        _audit(actor, "reopen_requested", summary=f"reopen of {gaming_day} {shift} asked: {reason}")
    return request


def shift_reopen_approve(*, request_id, actor: Actor) -> ShiftClose:
    """A manager other than the requester approves: the shift is reopened."""
    _require_role(actor, MANAGERS, "approving a reopen")
    with transaction.atomic():
        try:
            request = ShiftReopenRequest.objects.get(pk=request_id)
        except (ShiftReopenRequest.DoesNotExist, ValueError, TypeError):
            raise CountError("not_found", "no such reopen request") from None
        _lock_shift(request.gaming_day, request.shift)
        if request.requested_by == actor.name:
            raise CountError("own_request", "a manager does not approve their own reopen request")
        latest = ShiftClose.objects.filter(gaming_day=request.gaming_day, shift=request.shift).order_by("-at", "-id").first()
        if latest is None or latest.action != "close" or request.requested_at < latest.at:
            raise CountError("wrong_state", "this request is not for the shift's current close")
        reopen = ShiftClose.objects.create(
            gaming_day=request.gaming_day, shift=request.shift, action="reopen", sheet=latest.sheet,
            reopen_request=request, by=actor.name, at=timezone.now(),
        )
        _audit(actor, "shift_reopened",
                     summary=f"{request.gaming_day} {request.shift} reopened (asked by {request.requested_by})",
                     detail={"request": request.pk, "reason": request.reason})
    return reopen
