"""Writes the engine's records as ledger rows, inside the command's transaction.

Only the command service calls this. Each record kind maps to a fixed number of
statements (bulk inserts), so a command costs the same number of queries whatever the
number of seats.

The statements are queued (`Writes`) and sent together, in the order they were made,
in one round trip: the command's event, its ledger rows, the table row and the audit
row. A row that names another row of this command by id names it with a sub-select
(the round by table and number), so nothing has to come back from the database
between them. Only a row whose hash covers an id (collection and jackpot entries hash
their round and event ids) or that names the event (the rotation log) makes the
service read before it writes: the event is then inserted at once, and the round read.
"""

from dataclasses import dataclass, field
from functools import lru_cache
from datetime import date, datetime

import psycopg
from django.db import connection
from django.db.models import Model

from cardroom import hashchain, statements
from cardroom.gaming_day import calendar
from collections_fees import jackpot
from collections_fees.counts import box_in_force
from collections_fees.models import CollectionEntry, JackpotMeter
from rounds.engine import records as r
from rounds.models import Decision, Round, RoundCard, SettlementLine, Wager

from .models import RotationLogEntry, SeatOccupancy, Table, TableEvent


@dataclass(frozen=True)
class Stamp:
    """When a command happened: UTC time, and the cardroom's gaming day and shift."""

    now: datetime
    gaming_day: date
    shift: str

    @classmethod
    def at(cls, now: datetime) -> "Stamp":
        cal = calendar()
        return cls(now, cal.gaming_day(now), cal.shift(now))


class Writes:
    """A command's inserts and updates, queued and then sent together (`send`): one round
    trip to PostgreSQL instead of one per statement, through psycopg 3's pipeline mode.

    Each statement is fixed SQL built once per process and prepared once per connection
    (cardroom/statements.py): the same rows Django's own bulk insert and update write, the
    values prepared by the model's fields, without compiling a query for every command.
    The database's triggers and constraints see the statements in the order they were
    queued. A read, or a write that needs the database's answer, made while statements
    are queued, must `send` them first. Inside the command's transaction only: an error
    in any statement raises from `send` (as Django's error), and the transaction is
    rolled back as for any other."""

    def __init__(self):
        self._statements: list[tuple[str, tuple]] = []

    def insert(self, model: type[Model], objs) -> None:
        """Insert new rows (no id of their own yet)."""
        objs = list(objs)
        if not objs:
            return
        assert all(obj.pk is None for obj in objs), "Writes.insert takes new rows; their ids are the sequence's"
        self._statements.append(statements.insert(model, objs))

    def insert_now(self, obj: Model) -> None:
        """Insert one new row at once (what is queued first), its id set from the database."""
        self.send()
        sql, params = statements.insert(type(obj), [obj], returning=True)
        cursor = statements.cursor()
        cursor.execute(sql, params)
        (obj.pk,) = cursor.fetchone()
        obj._state.adding = False

    def update(self, model: type[Model], where: dict, **values) -> None:
        """`model.objects.filter(**where).update(**values)`, queued; `where` names fields
        equal to a value (null where the value is None)."""
        self._statements.append(statements.update(model, where, values))

    def send(self) -> None:
        queued, self._statements = self._statements, []
        if not queued:
            return
        assert connection.in_atomic_block, "a command's writes are sent inside its transaction"
        cursor = statements.cursor()
        if len(queued) == 1 or not psycopg.Pipeline.is_supported():
            # One statement needs no pipeline; nor can a libpq older than 14 (psycopg
            # built against the system's): then one round trip each, as before.
            for statement, params in queued:
                cursor.execute(statement, params)
            return
        # A Django cursor wrapper (its query log and execute wrappers see every statement)
        # on the connection in pipeline mode: each execute is queued, and the pipeline's
        # end sends them all and waits once. A failed statement raises there.
        with connection.wrap_database_errors, connection.connection.pipeline():
            for statement, params in queued:
                cursor.execute(statement, params)


@dataclass
class _Ledger:
    """What every writer needs, and the command's round, read at most once."""

    table: Table
    event: TableEvent
    stamp: Stamp
    writes: Writes = field(default_factory=Writes)
    meter: JackpotMeter | None = None  # the progressive's meter, locked by the service
    current: Round | None = None  # the round this command concerns, once read

    def round(self, number: int) -> Round:
        """The round row itself, for a writer that needs its id in Python (a hash covers
        it): what is queued is sent first, so the read sees this command's writes."""
        if self.current is None or self.current.number != number:
            self.writes.send()
            self.current = statements.row(Round, table_id=self.table.pk, number=number)
        return self.current

    def rounds(self, number: int) -> dict:
        """The round's row, for an update: by table and number (unique)."""
        return {"table_id": self.table.pk, "number": number}

    def round_id(self, number: int):
        """The round's id for a row that names it: its id when already read, else a
        sub-select by table and number (unique), evaluated by the statement itself."""
        if self.current is not None and self.current.number == number:
            return self.current.pk
        return statements.SubSelect(_round_id_sql(), (self.table.pk, number))


@lru_cache(maxsize=1)
def _round_id_sql() -> str:
    qn = connection.ops.quote_name
    table, number = Round._meta.get_field("table").column, Round._meta.get_field("number").column
    return f"(SELECT {qn('id')} FROM {qn(Round._meta.db_table)} WHERE {qn(table)} = %s AND {qn(number)} = %s)"


def _names_the_event(records: list[r.Record]) -> bool:
    """Whether a row this command writes holds the event's id: the collection and jackpot
    entries (their hashes cover it) and the rotation log."""
    return any(
        isinstance(rec, (r.RotationEntry, r.JackpotMoved))
        or (isinstance(rec, r.BetsClosed) and rec.fees)
        or (isinstance(rec, (r.RoundSettled, r.RoundVoided)) and rec.fee_refunds)
        for rec in records
    )


def write(
    writes: Writes, *, table: Table, event: TableEvent, records: list[r.Record], stamp: Stamp,
    meter: JackpotMeter | None = None,
) -> None:
    """The event and the ledger rows of its records, queued on `writes` (some written at
    once: see the module's docstring); the caller queues its own and sends them."""
    if _names_the_event(records):
        writes.insert_now(event)  # its id is needed now
    else:
        writes.insert(TableEvent, [event])
    rotation = [rec for rec in records if isinstance(rec, r.RotationEntry)]
    if rotation:
        writes.insert(RotationLogEntry, (
            RotationLogEntry(
                table=table,
                event=event,
                action=rec.action,
                seat=rec.seat,
                player=rec.player,
                round_number=rec.round,
                badge=rec.badge or "",
                reason=rec.reason or "",
                created_at=stamp.now,
                gaming_day=stamp.gaming_day,
            )
            for rec in rotation
        ))
    ledger = _Ledger(table, event, stamp, writes, meter)
    for rec in records:
        writer = _WRITERS.get(type(rec))
        if writer is not None:
            writer(rec, ledger)


def _append_collections(ledger: _Ledger, entries: list[CollectionEntry]) -> None:
    """Number the entries in the table's collection chain, put them in the fee box on the
    table now, link their hashes, insert."""
    if not entries:
        return
    table, stamp = ledger.table, ledger.stamp
    key_id = hashchain.current_key_id()
    box_id = box_in_force(table=table, gaming_day=stamp.gaming_day, shift=stamp.shift)
    for entry in entries:
        entry.box_id = box_id
        table.collection_seq += 1
        entry.seq = table.collection_seq
        entry.created_at, entry.gaming_day, entry.shift = stamp.now, stamp.gaming_day, stamp.shift
        entry.prev_hash, entry.hash_key = table.collection_head, key_id
        entry.row_hash = table.collection_head = hashchain.link(entry.prev_hash, entry.chain_content(), key_id)
    ledger.writes.insert(CollectionEntry, entries)


def _seated(rec: r.Seated, ledger: _Ledger):
    tppp = rec.tppp or {}
    ledger.writes.insert(SeatOccupancy, [SeatOccupancy(
        table=ledger.table,
        seat=rec.seat,
        player=rec.player,
        sat_at=ledger.stamp.now,
        sat_seq=ledger.event.seq,
        tppp_badge=tppp.get("badge", ""),
        tppp_company=tppp.get("company", ""),
        tppp_expires=tppp.get("expires"),
    )])


def _left(rec: r.Left, ledger: _Ledger):
    ledger.writes.update(
        SeatOccupancy, {"table_id": ledger.table.pk, "seat": rec.seat, "left_at": None},
        left_at=ledger.stamp.now, left_seq=ledger.event.seq,
    )


def _round_opened(rec: r.RoundOpened, ledger: _Ledger):
    config = ledger.table.config
    ledger.writes.insert(Round, [Round(
        table=ledger.table,
        number=rec.round,
        config=config,
        fee_schedule_id=config.fee_schedule_id,
        pd_seat=rec.pd_seat,
        pd_player=rec.pd_player,
        pd_badge=rec.pd_badge or "",
        bank_source=rec.bank_source,
        pd_company=rec.pd_company or "",
        bank=rec.bank,
        # The side bets it plays under, as the configuration version does not keep them.
        side_bets=ledger.table.state["config"].get("side_bets"),
        opened_at=ledger.stamp.now,
        gaming_day=ledger.stamp.gaming_day,
    )])


def _bets_closed(rec: r.BetsClosed, ledger: _Ledger):
    if rec.fees:
        ledger.round(rec.round)  # the fee lines hash its id and take its fee schedule
    round_id = ledger.round_id(rec.round)
    ledger.writes.update(Round, ledger.rounds(rec.round), deck=rec.deck, street="preflop")
    # The wagers the player-dealer banks; a progressive wager is a jackpot contribution,
    # recorded in its meter's ledger (_jackpot), never as a wager.
    ledger.writes.insert(Wager, (
        Wager(round_id=round_id, seat=w.seat, player=w.player, kind=kind, amount=amount, created_at=ledger.stamp.now)
        for w in rec.wagers
        for kind, amount in (("ante", w.ante), ("blind", w.blind), ("trips", w.trips), ("bad_beat", w.bad_beat), ("pairs", w.pairs))
        if amount
    ))
    # The backline wagers, in the order first placed (their ids keep it: rounds.audit).
    ledger.writes.insert(Wager, (
        Wager(
            round_id=round_id, seat=w.seat, player=w.bettor, kind=kind, amount=amount, backline=True, bettor=w.bettor,
            created_at=ledger.stamp.now,
        )
        for w in rec.backlines
        for kind, amount in (("ante", w.ante), ("blind", w.blind), ("trips", w.trips))
        if amount
    ))
    if not rec.fees:
        return
    rnd = ledger.round(rec.round)
    _append_collections(ledger, [
        CollectionEntry(
            table=ledger.table,
            round=rnd,
            event=ledger.event,
            kind="fee",
            seat=f.seat,
            player=f.player,
            payer=f.payer,
            amount=f.amount,
            basis=f.basis,
            rate_index=f.rate,
            schedule_id=rnd.fee_schedule_id,
        )
        for f in rec.fees
    ])


def _cards(rec: r.CardsDealt, ledger: _Ledger):
    round_id = ledger.round_id(rec.round)
    ledger.writes.insert(RoundCard, (
        RoundCard(round_id=round_id, position=pos, index=i, card=card, source=rec.source, created_at=ledger.stamp.now)
        for pos, i, card in rec.cards
    ))


def _street(rec: r.StreetReached, ledger: _Ledger):
    ledger.writes.update(Round, ledger.rounds(rec.round), street=rec.street)


def _decided(rec: r.Decided, ledger: _Ledger):
    round_id = ledger.round_id(rec.round)
    bettor = rec.bettor or ""  # a backline bettor's decision, carried from the seat's
    ledger.writes.insert(Decision, [Decision(
        round_id=round_id, seat=rec.seat, player=rec.player, street=rec.street, action=rec.action, amount=rec.amount,
        bettor=bettor, created_at=ledger.stamp.now,
    )])
    if rec.action == "play":
        ledger.writes.insert(Wager, [Wager(
            round_id=round_id, seat=rec.seat, player=rec.player, kind="play", amount=rec.amount, backline=bool(bettor),
            bettor=bettor, created_at=ledger.stamp.now,
        )])


def _refunds(number: int, fee_lines, ledger: _Ledger, *, reason: str):
    if not fee_lines:
        return
    rnd = ledger.round(number)  # the refunds hash its id; the fees they return are read
    # A seat's backline bettors share its seat and payer role: the bettor (`player`) tells them apart.
    fees = {
        (f.seat, f.payer, f.player if f.payer == "backline" else None): f
        for f in CollectionEntry.objects.filter(round=rnd, kind="fee", seat__in=[line.seat for line in fee_lines])
    }
    _append_collections(ledger, [
        CollectionEntry(
            table=ledger.table,
            round=rnd,
            event=ledger.event,
            kind="refund",
            seat=fee.seat,
            player=fee.player,
            payer=fee.payer,
            amount=fee.amount,
            basis=fee.basis,
            rate_index=fee.rate_index,
            schedule_id=fee.schedule_id,
            refund_of=fee,
            reason=reason,
        )
        for fee in (fees[(line.seat, line.payer, line.player if line.payer == "backline" else None)] for line in fee_lines)
    ])


def _settled(rec: r.RoundSettled, ledger: _Ledger):
    round_id = ledger.round_id(rec.round)
    s = rec.settlement
    ledger.writes.insert(SettlementLine, (
        SettlementLine(
            round_id=round_id,
            order=i,
            seat=line.seat,
            player=line.player,
            wager=line.wager,
            stake=line.stake,
            result=line.result,
            amount=line.amount,
            uncovered=line.uncovered,
            backline=line.bettor is not None,
            bettor=line.bettor or "",
            created_at=ledger.stamp.now,
        )
        for i, line in enumerate(s.lines, start=1)
    ))
    _refunds(rec.round, rec.fee_refunds, ledger, reason="bank_could_not_act")
    ledger.writes.update(
        Round, ledger.rounds(rec.round),
        status="settled",
        street="settled",
        closed_at=ledger.stamp.now,
        balance=s.balance,
        pd_net=s.pd_net,
        exhausted=s.exhausted,
        settlement=ledger.event.result,
        pd_consecutive=rec.consecutive_banks,
    )


def _voided(rec: r.RoundVoided, ledger: _Ledger):
    _refunds(rec.round, rec.fee_refunds, ledger, reason="round_voided")
    ledger.writes.update(
        Round, ledger.rounds(rec.round),
        status="voided", closed_at=ledger.stamp.now, void_reason=rec.reason, void_approved_by=rec.approved_by,
    )


def _jackpot(rec: r.JackpotMoved, ledger: _Ledger):
    assert ledger.meter is not None and ledger.meter.name == rec.meter, "the service locks the meter that moves"
    stamp = ledger.stamp
    boxed = any(line.kind in jackpot.BOXED_KINDS for line in rec.lines)
    box_id = box_in_force(table=ledger.table, gaming_day=stamp.gaming_day, shift=stamp.shift, slot="jackpot") if boxed else None
    rnd = ledger.round(rec.round)  # sends what is queued: the meter's rows are written at once
    jackpot.entries_append(
        ledger.meter, list(rec.lines), stamp=stamp, table=ledger.table, rnd=rnd, event=ledger.event, box_id=box_id,
    )


_WRITERS = {
    r.Seated: _seated,
    r.Left: _left,
    r.RoundOpened: _round_opened,
    r.BetsClosed: _bets_closed,
    r.CardsDealt: _cards,
    r.StreetReached: _street,
    r.Decided: _decided,
    r.RoundSettled: _settled,
    r.RoundVoided: _voided,
    r.JackpotMoved: _jackpot,
}
