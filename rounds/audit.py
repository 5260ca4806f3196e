"""Re-deciding stored rounds: recompute each settled round's settlement from its stored
inputs (bank, wagers, decisions, cards, pay table) with the rules engine and compare it
with the settlement lines and fee refunds that were recorded."""

from collections import defaultdict
from dataclasses import dataclass

from rounds.engine.paytables import paytable_from_config
from rounds.engine.settlement import PlayerHand, Settlement, settle
from rounds.engine.sidebets import side_bets_from_config
from rounds.engine.handlers.settling import fee_refunds

from .models import Round
from .selectors import round_cards


@dataclass(frozen=True)
class RoundDifference:
    table: int
    round: int
    problem: str

    def __str__(self) -> str:
        return f"table {self.table} round {self.round}: {self.problem}"


def round_recompute(rnd: Round) -> Settlement:
    """The settlement the engine makes of the round's stored inputs (prefetched rows)."""
    stakes: dict[int, dict[str, int]] = defaultdict(dict)
    players: dict[int, str] = {}
    # Backline wagers (game-rules 12) by (seat, bettor), in the order first placed: the
    # order their rows were written at no more bets (ids ascend).
    behind: dict[tuple[int, str], dict[str, int]] = {}
    for wager in sorted(rnd.wagers.all(), key=lambda w: w.pk):
        if wager.backline:
            behind.setdefault((wager.seat, wager.bettor), {})[wager.kind] = wager.amount
            continue
        stakes[wager.seat][wager.kind] = wager.amount
        players[wager.seat] = wager.player
    folded = {d.seat for d in rnd.decisions.all() if d.action == "fold" and not d.bettor}
    cards = round_cards(rnd)
    holes = dict(cards.seats)

    def held(found: list[str] | None) -> tuple[str, ...] | None:
        return tuple(found or ()) or None

    hands = [
        PlayerHand(
            seat=seat,
            player=players[seat],
            ante=s.get("ante", 0),
            blind=s.get("blind", 0),
            trips=s.get("trips", 0),
            play=s.get("play", 0),
            folded=seat in folded,
            hole=held(holes.get(seat)),
            bad_beat=s.get("bad_beat", 0),
            pairs=s.get("pairs", 0),
        )
        for seat, s in sorted(stakes.items())
    ]
    backlines = [
        PlayerHand(
            seat=seat, player=bettor, ante=s.get("ante", 0), blind=s.get("blind", 0), trips=s.get("trips", 0),
            play=s.get("play", 0), folded=seat in folded, hole=held(holes.get(seat)),
        )
        for (seat, bettor), s in behind.items()
    ]
    return settle(
        bank=rnd.bank,
        pd_seat=rnd.pd_seat,
        pd_player=rnd.pd_player,
        pd_hole=held(cards.player_dealer),
        community=held(cards.community),
        players=hands,
        seat_count=rnd.table.seats,
        paytable=paytable_from_config(rnd.config.paytable),
        side_bets=side_bets_from_config(rnd.side_bets),
        backlines=backlines,
    )


def round_verify(rnd: Round) -> list[RoundDifference]:
    def diff(problem):
        return RoundDifference(rnd.table_id, rnd.number, problem)

    try:
        expected = round_recompute(rnd)
    except Exception as problem:  # stored inputs the engine cannot even read
        return [diff(f"inputs cannot be settled: {problem!r}")]
    found = []
    stored = [(_spot(l.seat, l.bettor), l.wager, l.stake, l.result, l.amount, l.uncovered) for l in rnd.lines.all()]
    recomputed = [(_spot(l.seat, l.bettor), l.wager, l.stake, l.result, l.amount, l.uncovered) for l in expected.lines]
    if stored != recomputed:
        first = next((i for i, (a, b) in enumerate(zip(stored, recomputed)) if a != b), min(len(stored), len(recomputed)))
        found.append(diff(f"settlement line {first + 1}: stored {_at(stored, first)}, recomputed {_at(recomputed, first)}"))
    for name, value, want in (
        ("balance", rnd.balance, expected.balance),
        ("pd_net", rnd.pd_net, expected.pd_net),
        ("exhausted", rnd.exhausted, expected.exhausted),
    ):
        if value != want:
            found.append(diff(f"{name}: stored {value}, recomputed {want}"))
    fees = [c for c in rnd.collections.all() if c.kind == "fee"]
    for c in fees:  # a stored backline fee names its bettor as its `player`
        c.bettor = c.player if c.payer == "backline" else None
    refunded = sorted(_payer(c) for c in rnd.collections.all() if c.kind == "refund")
    owed = sorted(_payer(c) for c in fee_refunds(fees, expected))
    if refunded != owed:
        found.append(diff(f"fee refunds: stored for seats {refunded}, due for seats {owed}"))
    return found


def _payer(entry):
    """A fee line's payer: its seat, or (seat, bettor) for a backline bettor's."""
    return (entry.seat, entry.player if entry.payer == "backline" else "")


def _at(rows, i):
    return rows[i] if i < len(rows) else "nothing"


def rounds_to_verify(*, day_from=None, day_to=None):
    rounds = Round.objects.filter(status="settled").select_related("table", "config").order_by("table_id", "number")
    if day_from:
        rounds = rounds.filter(gaming_day__gte=day_from)
    if day_to:
        rounds = rounds.filter(gaming_day__lte=day_to)
    return rounds.prefetch_related("wagers", "decisions", "cards", "lines", "collections")


def _spot(seat: int, bettor: str | None) -> int | str:
    """Whose line it is, as the report names it: the seat, or `seat/bettor` for a
    backline bettor's (game-rules 12), as the rounds export writes it."""
    return f"{seat}/{bettor}" if bettor else seat
