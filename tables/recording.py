"""Writes the engine's records as ledger rows, inside the command's transaction.

Only the command service calls this. Each record kind maps to a fixed number of
queries (bulk inserts), so a command costs the same number of queries whatever the
number of seats.
"""

from dataclasses import dataclass
from datetime import date, datetime

from cardroom import hashchain
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


@dataclass
class _Ledger:
    """What every writer needs, and the command's round, read at most once."""

    table: Table
    event: TableEvent
    stamp: Stamp
    meter: JackpotMeter | None = None  # the progressive's meter, locked by the service
    current: Round | None = None  # the round this command concerns, once read

    def round(self, number: int) -> Round:
        if self.current is None or self.current.number != number:
            self.current = Round.objects.get(table=self.table, number=number)
        return self.current


def write(*, table: Table, event: TableEvent, records: list[r.Record], stamp: Stamp, meter: JackpotMeter | None = None) -> None:
    rotation = [rec for rec in records if isinstance(rec, r.RotationEntry)]
    if rotation:
        RotationLogEntry.objects.bulk_create(
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
            )
            for rec in rotation
        )
    ledger = _Ledger(table, event, stamp, meter)
    for rec in records:
        writer = _WRITERS.get(type(rec))
        if writer is not None:
            writer(rec, ledger)


def _append_collections(table: Table, entries: list[CollectionEntry], stamp: Stamp) -> None:
    """Number the entries in the table's collection chain, put them in the fee box on the
    table now, link their hashes, insert."""
    if not entries:
        return
    key_id = hashchain.current_key_id()
    box_id = box_in_force(table=table, gaming_day=stamp.gaming_day, shift=stamp.shift)
    for entry in entries:
        entry.box_id = box_id
        table.collection_seq += 1
        entry.seq = table.collection_seq
        entry.created_at, entry.gaming_day, entry.shift = stamp.now, stamp.gaming_day, stamp.shift
        entry.prev_hash, entry.hash_key = table.collection_head, key_id
        entry.row_hash = table.collection_head = hashchain.link(entry.prev_hash, entry.chain_content(), key_id)
    CollectionEntry.objects.bulk_create(entries)


def _seated(rec: r.Seated, ledger: _Ledger):
    tppp = rec.tppp or {}
    SeatOccupancy.objects.create(
        table=ledger.table,
        seat=rec.seat,
        player=rec.player,
        sat_at=ledger.stamp.now,
        sat_seq=ledger.event.seq,
        tppp_badge=tppp.get("badge", ""),
        tppp_company=tppp.get("company", ""),
        tppp_expires=tppp.get("expires"),
    )


def _left(rec: r.Left, ledger: _Ledger):
    SeatOccupancy.objects.filter(table=ledger.table, seat=rec.seat, left_at__isnull=True).update(
        left_at=ledger.stamp.now, left_seq=ledger.event.seq
    )


def _round_opened(rec: r.RoundOpened, ledger: _Ledger):
    config = ledger.table.config
    ledger.current = Round.objects.create(
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
    )


def _bets_closed(rec: r.BetsClosed, ledger: _Ledger):
    rnd = ledger.round(rec.round)
    Round.objects.filter(pk=rnd.pk).update(deck=rec.deck, street="preflop")
    # The wagers the player-dealer banks; a progressive wager is a jackpot contribution,
    # recorded in its meter's ledger (_jackpot), never as a wager.
    Wager.objects.bulk_create(
        Wager(round=rnd, seat=w.seat, player=w.player, kind=kind, amount=amount, created_at=ledger.stamp.now)
        for w in rec.wagers
        for kind, amount in (("ante", w.ante), ("blind", w.blind), ("trips", w.trips), ("bad_beat", w.bad_beat), ("pairs", w.pairs))
        if amount
    )
    # The backline wagers, in the order first placed (their ids keep it: rounds.audit).
    Wager.objects.bulk_create(
        Wager(
            round=rnd, seat=w.seat, player=w.bettor, kind=kind, amount=amount, backline=True, bettor=w.bettor,
            created_at=ledger.stamp.now,
        )
        for w in rec.backlines
        for kind, amount in (("ante", w.ante), ("blind", w.blind), ("trips", w.trips))
        if amount
    )
    _append_collections(ledger.table, [
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
    ], ledger.stamp)


def _cards(rec: r.CardsDealt, ledger: _Ledger):
    rnd = ledger.round(rec.round)
    RoundCard.objects.bulk_create(
        RoundCard(round=rnd, position=pos, index=i, card=card, source=rec.source, created_at=ledger.stamp.now)
        for pos, i, card in rec.cards
    )


def _street(rec: r.StreetReached, ledger: _Ledger):
    Round.objects.filter(table=ledger.table, number=rec.round).update(street=rec.street)


def _decided(rec: r.Decided, ledger: _Ledger):
    rnd = ledger.round(rec.round)
    bettor = rec.bettor or ""  # a backline bettor's decision, carried from the seat's
    Decision.objects.create(
        round=rnd, seat=rec.seat, player=rec.player, street=rec.street, action=rec.action, amount=rec.amount,
        bettor=bettor, created_at=ledger.stamp.now,
    )
    if rec.action == "play":
        Wager.objects.create(
            round=rnd, seat=rec.seat, player=rec.player, kind="play", amount=rec.amount, backline=bool(bettor),
            bettor=bettor, created_at=ledger.stamp.now,
        )


def _refunds(rnd: Round, fee_lines, ledger: _Ledger, *, reason: str):
    if not fee_lines:
        return
    # A seat's backline bettors share its seat and payer role: the bettor (`player`) tells them apart.
    fees = {
        (f.seat, f.payer, f.player if f.payer == "backline" else None): f
        for f in CollectionEntry.objects.filter(round=rnd, kind="fee", seat__in=[line.seat for line in fee_lines])
    }
    _append_collections(ledger.table, [
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
    ], ledger.stamp)


def _settled(rec: r.RoundSettled, ledger: _Ledger):
    rnd = ledger.round(rec.round)
    s = rec.settlement
    SettlementLine.objects.bulk_create(
        SettlementLine(
            round=rnd,
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
    )
    _refunds(rnd, rec.fee_refunds, ledger, reason="bank_could_not_act")
    Round.objects.filter(pk=rnd.pk).update(
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
    rnd = ledger.round(rec.round)
    _refunds(rnd, rec.fee_refunds, ledger, reason="round_voided")
    Round.objects.filter(pk=rnd.pk).update(
        status="voided", closed_at=ledger.stamp.now, void_reason=rec.reason, void_approved_by=rec.approved_by
    )


def _jackpot(rec: r.JackpotMoved, ledger: _Ledger):
    assert ledger.meter is not None and ledger.meter.name == rec.meter, "the service locks the meter that moves"
    stamp = ledger.stamp
    boxed = any(line.kind in jackpot.BOXED_KINDS for line in rec.lines)
    box_id = box_in_force(table=ledger.table, gaming_day=stamp.gaming_day, shift=stamp.shift, slot="jackpot") if boxed else None
    jackpot.entries_append(
        ledger.meter, list(rec.lines), stamp=stamp, table=ledger.table, rnd=ledger.round(rec.round), event=ledger.event,
        box_id=box_id,
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
