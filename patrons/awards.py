"""Progressive awards: withheld from self-excluded patrons, and paid as the cash-outs they are.

Withheld (4 CCR 12464): never paid.

The rules engine pays the awards at settlement and knows nothing of the lists; the
command service asks here which seats of the round are listed (`withheld_seats`) and
states them in the command (`withheld`), so the engine records those awards as withheld
and the fund keeps them (rounds/engine/sidebets.py `pay_awards`). After the command,
each withheld award is escalated (`escalate`): a hit for the floor and compliance
(`/floor/patrons/`, `/compliance/self-exclusion/`) and an audit row.

A cash-out (31 CFR 1021.313): a confirmed award records who won and how much
(`award_confirmed`, called by the command service after `confirm_award`, in its
transaction). It is `due` when its winner is a patron or an unidentified patron and, above
the CTR line, the patron's record holds identification; otherwise it is `owed` until a
supervisor or compliance officer other than the confirming supervisor identifies the
winner (`award_identify`). Its cash payout names it and is written once
(patrons/cash.py), for its amount, to its winner: then it is `paid` and counts in the
winner's day. A payout reversed by two people (a payout to the wrong person) makes the
award `due` again (`award_unpaid`): its winner may be named again, and it is paid once more.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from cardroom.access import Actor
from cardroom.audit import audit_record
from cardroom.gaming_day import calendar
from rounds.engine.records import JackpotMoved

from .identity import IDENTIFICATION_ROLES, PatronError, SeatIdentity, listed_entry, patron_of_player, person_of
from .models import AwardCashOut, CashReversalDecision, ExclusionHit, Patron, UnidentifiedPatron

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


def why_owed(patron: Patron | None, unidentified: UnidentifiedPatron | None, amount: int) -> str:
    """What an award's winner lacks before it is paid, or "" when it can be paid: a
    record (patron or unidentified patron), and above the CTR line the identification a
    CTR is filed with (the patron's ID number on record)."""
    if patron is None and unidentified is None:
        return "the winner is no patron or unidentified patron on record"
    if amount > settings.CARDROOM_CTR_THRESHOLD_CENTS and (patron is None or not patron.id_number):
        return "above the CTR line: the winner's identification is recorded first"
    return ""


def _winner_id(patron: Patron | None, unidentified: UnidentifiedPatron | None) -> str:
    return unidentified.player_id if unidentified is not None and patron is None else patron.number


def award_confirmed(*, table_id: int, round_id: int, seat: int, player: str, hand: str, amount: int,
                    actor: Actor, at) -> AwardCashOut:
    """The award `actor` just confirmed, recorded as a cash-out: `due` to its winner, or
    `owed` (with why) until a second person identifies them. In the command's transaction,
    at the command's time; the command's own audit row says who confirmed it."""
    identity = SeatIdentity(player)
    patron, unidentified = identity.patron, identity.unidentified
    why = why_owed(patron, unidentified, amount)
    return AwardCashOut.objects.create(
        table_id=table_id, round_id=round_id, seat=seat, player=player[:64], hand=str(hand)[:32], amount=amount,
        confirmed_by=actor.name, confirmed_at=at, state="owed" if why else "due", why_owed=why,
        winner="" if why else _winner_id(patron, unidentified),
    )


def award_identify(*, award_id: int, player: str, actor: Actor) -> AwardCashOut:
    """A supervisor or compliance officer names an owed award's winner (a patron number or
    card, or a U-id; above the CTR line a patron whose record holds identification). Not
    the supervisor who confirmed it: two people, by user, for an award's money. A due award
    not paid yet may be identified again, to correct a winner named wrongly (the audit row
    keeps who was named before); a paid one may not."""
    if actor.role not in IDENTIFICATION_ROLES:
        raise PatronError("not_authorized", "a supervisor or compliance officer identifies an award's winner")
    if not isinstance(player, str) or not player.strip():
        raise PatronError("unknown_patron", "name the winner (patron number, card or U-id)")
    with transaction.atomic():
        award = AwardCashOut.objects.select_for_update().filter(pk=award_id).first()
        if award is None:
            raise PatronError("unknown_award", f"no award {award_id}")
        if award.state == "paid":
            raise PatronError("wrong_state", "the award is paid: its payout row is a cash record (a reversal corrects it)")
        if actor.name == award.confirmed_by:
            raise PatronError("second_person_required",
                              f"{actor.name} confirmed this award: another person identifies its winner")
        if actor.user_id is not None and actor.user_id in _reversed_payout_people(award):
            # Else one supervisor with the dealer's tablet could pay the winner, have that
            # payout reversed (the tablet asks, they approve), and name someone else.
            raise PatronError("second_person_required",
                              f"{actor.name} took part in reversing this award's payout: another person names its winner")
        identity = SeatIdentity(player)
        patron, unidentified = identity.patron, identity.unidentified
        if patron is None and unidentified is None:
            raise PatronError("unknown_patron", f"no patron or unidentified patron {player.strip()!r}")
        if listed_entry(player, patron) is not None:
            # A listed winner's award is the list's to decide, not the cage's.
            raise PatronError("self_excluded", "this winner is on a self-exclusion list: compliance decides")
        why = why_owed(patron, unidentified, award.amount)
        if why:
            raise PatronError("identification_required", why)
        before = award.winner
        award.state, award.winner = "due", _winner_id(patron, unidentified)
        award.identified_by, award.identified_at = actor.name, timezone.now()
        award.save(update_fields=["state", "winner", "identified_by", "identified_at"])
        corrected = f" (was {before})" if before else ""
        audit_record(
            actor=actor, action="award", table_id=award.table_id,
            summary=(f"winner of the progressive award at seat {award.seat} (round {award.round_id}) identified as "
                     f"{award.winner}{corrected}"),
            detail={"award": award.pk, "winner": award.winner, "before": before},
        )
    return award


def _reversed_payout_people(award: AwardCashOut) -> set[int]:
    """The users who asked for or approved a reversal of a payout of this award."""
    decided = CashReversalDecision.objects.filter(
        approved=True, request__original__award_round_id=award.round_id, request__original__award_seat=award.seat)
    return {user for pair in decided.values_list("request__requested_by_id", "decided_by_id") for user in pair}


def award_payable(award_round: int, award_seat: int, amount: int, patron: Patron | None,
                  unidentified: UnidentifiedPatron | None) -> PatronError | None:
    """Why a payout naming this award may not be written (read under the cash lock), or
    None: an owed award waits for its winner; a due one is paid its amount, to its winner.
    An award confirmed before awards were recorded as cash-outs has no row: as before."""
    award = AwardCashOut.objects.select_for_update().filter(round_id=award_round, seat=award_seat).first()
    if award is None:
        return None
    if award.state == "owed":
        return PatronError("award_owed", f"the award is owed: {award.why_owed}; identify the winner first")
    if award.amount != amount:
        return PatronError("award_mismatch", f"the award is {award.amount} cents, not {amount}")
    winner = SeatIdentity(award.winner)
    same = (patron is not None and winner.patron is not None and
            person_of(patron.pk).survivor == person_of(winner.patron.pk).survivor) or (
        patron is None and unidentified is not None and winner.unidentified is not None
        and unidentified.pk == winner.unidentified.pk)
    if not same:
        return PatronError("award_mismatch", f"the award is paid to its winner, {award.winner}")
    return None


def award_paid(award_round: int, award_seat: int, payout) -> None:
    """The award's payout row was written: the award is paid (once while it stands: the
    trigger `cash_award_paid_once`, patrons/migrations/0014)."""
    AwardCashOut.objects.filter(round_id=award_round, seat=award_seat).update(state="paid", payout=payout)


def award_unpaid(payout) -> None:
    """`payout`, an award's payout row, was reversed (patrons/cash.py
    `cash_reversal_decide`, two people): the award is due again, to the winner it names
    (who may be named again first, when the payout went to the wrong person). Both cash rows
    stay in the log; the next payout naming the award pays it."""
    AwardCashOut.objects.filter(payout=payout).update(state="due", payout=None)
