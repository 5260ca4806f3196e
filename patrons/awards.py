"""Progressive awards to self-excluded patrons (4 CCR 12464): withheld, not paid.

The rules engine pays the awards at settlement and knows nothing of the lists; the
command service asks here which seats of the round are listed (`withheld_seats`) and
states them in the command (`withheld`), so the engine records those awards as withheld
and the fund keeps them (rounds/engine/sidebets.py `pay_awards`). After the command,
each withheld award is escalated (`escalate`): a hit for the floor and compliance
(`/floor/patrons/`, `/compliance/self-exclusion/`) and an audit row.
"""

from __future__ import annotations

from django.utils import timezone

from cardroom.access import Actor
from cardroom.audit import audit_record
from cardroom.gaming_day import calendar
from rounds.engine.records import JackpotMoved

from .identity import listed_entry, patron_of_player
from .models import ExclusionHit

# The commands whose answer pays (or previews) the progressive awards.
AWARD_COMMANDS = frozenset({"showdown", "settle", "confirm_award"})


def withheld_seats(game, command_type: str) -> list[int]:
    """The round's seats with a progressive wager whose patron is on a list in force."""
    rnd = game.round
    if command_type not in AWARD_COMMANDS or rnd is None or game.config.side_bets.progressive is None:
        return []
    seats = []
    for entry in rnd.seats.values():
        if entry.progressive and listed_entry(entry.player, patron_of_player(entry.player)[0]) is not None:
            seats.append(entry.seat)
    return sorted(seats)


def escalate(*, table_id: int, records, actor: Actor) -> list[ExclusionHit]:
    """Each award the engine withheld becomes a hit (action `award`, with its amount) and
    an audit row, in the command's transaction: they stand or fall with the settlement."""
    hits = []
    now = timezone.now()
    for record in records:
        if not isinstance(record, JackpotMoved):
            continue
        for line in record.lines:
            if line.kind != "withheld":
                continue
            patron, _ = patron_of_player(line.player)
            entry = listed_entry(line.player, patron)
            if entry is None:  # a replay file's own `withheld`, for a person no list names now
                continue
            hit = ExclusionHit(
                action="award", entry=entry, patron=patron, player=line.player[:64], table_id=table_id,
                amount=line.amount, employee=actor.name, created_at=now, gaming_day=calendar().gaming_day(now),
            )
            hit.seal()
            hit.save(force_insert=True)
            hits.append(hit)
            audit_record(
                actor=actor, action="self_exclusion", table_id=table_id,
                summary=f"progressive award of {line.amount} cents to {line.player} withheld (round {record.round})",
                detail={"seat": line.seat, "amount": line.amount, "round": record.round, "entry": entry.pk},
            )
    return hits
