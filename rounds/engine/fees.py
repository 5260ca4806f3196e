"""Collection fees: the house's only income (game-rules section 9).

Flat amounts picked from at most five rates by a basis amount; never a percentage.
Assessed at "no more bets", in seat order, one line per payer.
"""

from dataclasses import dataclass

from .errors import CommandError

MAX_RATES = 5
PAYERS = ("all_players", "players_not_pd", "pd_only")
PLAYER_BASES = ("ante", "initial_total")
PD_BASES = ("per_betting_square", "total_table_action")


@dataclass(frozen=True)
class FeeRate:
    min: int
    max: int
    player_fee: int
    pd_fee: int


@dataclass(frozen=True)
class FeeSchedule:
    payers: str
    player_basis: str
    pd_basis: str
    rates: tuple[FeeRate, ...]

    def rate_for(self, amount: int) -> int:
        """Index (0-based) of the rate an amount falls in, else of the nearest rate.

        Below the first row: the first; above the last: the last; in a gap between two
        rows: the nearer one, the lower on a tie.
        """
        best, best_distance = 0, None
        for index, rate in enumerate(self.rates):
            distance = rate.min - amount if amount < rate.min else max(0, amount - rate.max)
            if best_distance is None or distance < best_distance:
                best, best_distance = index, distance
        return best

    def player_basis_of(self, w: "PlayerWager") -> int:
        """`initial_total` is every wager the player-dealer banks (game-rules 10.4): never
        the progressive, which is a jackpot contribution."""
        return w.ante if self.player_basis == "ante" else w.ante + w.blind + w.trips + w.bad_beat + w.pairs

    def to_config(self) -> dict:
        return {
            "payers": self.payers,
            "player_basis": self.player_basis,
            "pd_basis": self.pd_basis,
            "rates": [
                {"min": r.min, "max": r.max, "player_fee": r.player_fee, "pd_fee": r.pd_fee} for r in self.rates
            ],
        }


@dataclass(frozen=True)
class FeeLine:
    seat: int
    player: str
    payer: str  # "player", "backline" (a bettor behind the seat) or "player_dealer"
    amount: int
    basis: int  # the amount that picked the rate
    rate: int  # 1-based rate row; for a per-square player-dealer fee, the row of the last square
    bettor: str | None = None  # a backline fee's bettor (then `player` is the bettor too)

    def as_dict(self) -> dict:
        line = {"seat": self.seat, "payer": self.payer, "amount": self.amount}
        if self.bettor is not None:
            line["bettor"] = self.bettor
        return line


@dataclass(frozen=True)
class PlayerWager:
    seat: int
    player: str
    ante: int
    blind: int
    trips: int
    bad_beat: int = 0
    pairs: int = 0
    progressive: int = 0  # a jackpot contribution: never part of a fee basis
    bettor: str | None = None  # a backline wager's bettor (game-rules 12): a betting square of its own


def fee_schedule_from_config(value) -> FeeSchedule | None:
    """Parse and check a schedule; None (or absent) means the table charges no fee."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise CommandError("invalid_command", "fee_schedule must be an object")
    unknown = set(value) - {"payers", "player_basis", "pd_basis", "rates"}
    if unknown:
        raise CommandError("invalid_command", f"unknown fee_schedule keys {sorted(unknown)}")
    payers = value.get("payers", "all_players")
    player_basis = value.get("player_basis", "ante")
    pd_basis = value.get("pd_basis", "per_betting_square")
    for name, got, allowed in (
        ("payers", payers, PAYERS),
        ("player_basis", player_basis, PLAYER_BASES),
        ("pd_basis", pd_basis, PD_BASES),
    ):
        if got not in allowed:
            raise CommandError("invalid_command", f"fee_schedule.{name} must be one of {', '.join(allowed)}")
    rows = value.get("rates", [])
    if not isinstance(rows, list) or not 1 <= len(rows) <= MAX_RATES:
        raise CommandError("invalid_command", f"a fee schedule has 1 to {MAX_RATES} collection rates")
    rates = []
    for row in rows:
        fields = ("min", "max", "player_fee", "pd_fee")
        if not isinstance(row, dict) or set(row) != set(fields) or not all(type(row[f]) is int and row[f] >= 0 for f in fields):
            raise CommandError("invalid_command", "each rate needs min, max, player_fee, pd_fee in whole cents >= 0")
        if row["min"] > row["max"]:
            raise CommandError("invalid_command", f"rate min {row['min']} is above its max {row['max']}")
        rates.append(FeeRate(row["min"], row["max"], row["player_fee"], row["pd_fee"]))
    rates.sort(key=lambda r: r.min)
    for lower, upper in zip(rates, rates[1:]):
        if upper.min <= lower.max:
            raise CommandError("invalid_command", "collection rates must not overlap")
    return FeeSchedule(payers, player_basis, pd_basis, tuple(rates))


def assess_fees(
    schedule: FeeSchedule | None, *, pd_seat: int, pd_player: str, wagers: list[PlayerWager]
) -> list[FeeLine]:
    """The fee lines of a round at "no more bets", in seat order (seat 1 first).

    `wagers` come in seat order, each seat's own wager followed by the backline wagers
    behind it in the order they were first placed: a bettor pays as a player, and its
    wager is a betting square of its own for the player-dealer's fee (game-rules 12)."""
    if schedule is None or not wagers:
        return []
    lines: list[FeeLine] = []
    square_rates = []
    total_basis = 0
    for w in wagers:
        basis = schedule.player_basis_of(w)
        total_basis += basis
        rate = schedule.rate_for(basis)
        square_rates.append(rate)
        if schedule.payers != "pd_only":
            payer = "player" if w.bettor is None else "backline"
            lines.append(FeeLine(w.seat, w.player, payer, schedule.rates[rate].player_fee, basis, rate + 1, w.bettor))
    if schedule.payers != "players_not_pd":
        if schedule.pd_basis == "per_betting_square":
            amount = sum(schedule.rates[r].pd_fee for r in square_rates)
            rate = square_rates[-1]
        else:
            rate = schedule.rate_for(total_basis)
            amount = schedule.rates[rate].pd_fee
        lines.append(FeeLine(pd_seat, pd_player, "player_dealer", amount, total_basis, rate + 1))
    lines = [line for line in lines if line.amount > 0]  # nothing to collect, nothing to record
    return sorted(lines, key=lambda line: line.seat)  # stable: a seat's bettors stay after its player
