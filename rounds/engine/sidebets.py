"""Side bets (game-rules section 10): Bad Beat and Ultimate Pairs, banked by the
player-dealer, and the California progressive, a jackpot contribution paid from a
segregated fund that neither the player-dealer nor the house ever keeps.

Bad Beat and Pairs are settled in settlement.py's one pass (after Trips, Bad Beat then
Pairs); this module says what each one pays. The progressive lives here whole: the
contribution split at "no more bets", the awards at settle (highest seat first, each on
the meter as the previous one left it), the reseed and the reversal of a void.

The meter is shared by every table linked to it, so the engine never keeps it: the
command service reads the meter row (locked) and hands its amounts in as a `Fund`; the
engine answers with the fund's lines and the amounts after them.
"""

from dataclasses import dataclass

from .errors import CommandError
from .hands import evaluate

# --- pay tables (X to 1) ------------------------------------------------------------------


def _bad_beat(sf, quads, boat, flush, straight, trips) -> dict[str, int]:
    names = ("straight_flush", "four_of_a_kind", "full_house", "flush", "straight", "three_of_a_kind")
    return dict(zip(names, (sf, quads, boat, flush, straight, trips)))


# By the category of the *losing* hand (10.1). A royal flush never loses (only a tie).
BAD_BEAT_TABLES: dict[str, dict[str, int]] = {
    "BBB-01": _bad_beat(10_000, 500, 40, 25, 20, 9),
    "BBB-02": _bad_beat(7_500, 500, 50, 30, 20, 9),
    "BBB-03": _bad_beat(2_500, 500, 50, 30, 20, 9),
}

# The Pairs rows (10.2), highest first; a hand matching several rows is paid by the highest pay.
PAIRS_ROWS = (
    "aces_against_aces",  # A-A, and the player-dealer's hole cards are A-A
    "red_aces",  # Ah Ad
    "aces",
    "ace_king_suited",
    "ace_queen_or_jack_suited",
    "ace_king",
    "face_pair",  # K-K, Q-Q, J-J
    "ace_queen_or_jack",
    "low_pair",  # T-T down to 2-2
)


def _pairs(*pays) -> dict[str, int]:
    return {row: pay for row, pay in zip(PAIRS_ROWS, pays) if pay is not None}


PAIRS_TABLES: dict[str, dict[str, int]] = {
    "UPB-1": _pairs(None, None, 30, 25, 20, 15, 10, 5, 3),
    "UPB-2": _pairs(1000, None, 30, 25, 20, 15, 10, 5, 3),
    "UPB-3": _pairs(None, None, 30, 20, 20, 10, 5, 10, 5),
    "UPB-4": _pairs(None, 100, 30, 20, 20, 10, 4, 10, 4),
    "UPB-5": _pairs(None, 50, 25, 20, 20, 10, 5, 10, 5),
    "UPB-6": _pairs(None, None, 25, 20, 20, 10, 5, 10, 5),
}

# PROG-01 (10.3): hand -> ("percent", % of the meter) or ("for_one", X for 1), highest first.
PROGRESSIVE_HANDS = (
    "royal_first_five",
    "royal_seven",
    "community_royal",
    "straight_flush",
    "four_of_a_kind",
    "full_house",
)
PROGRESSIVE_TABLES: dict[str, dict[str, tuple[str, int]]] = {
    "PROG-01": {
        "royal_first_five": ("percent", 100),
        "royal_seven": ("percent", 5),
        "community_royal": ("for_one", 3000),
        "straight_flush": ("for_one", 250),
        "four_of_a_kind": ("for_one", 100),
        "full_house": ("for_one", 10),
    },
}


# --- what each side bet pays ----------------------------------------------------------------


def bad_beat_payout(paytable: str, stake: int, player_category: str, pd_category: str, beats: bool, loses: bool) -> int | None:
    """What a Bad Beat pays for a player who did not fold, or None when it loses (10.1):
    it wins when the losing hand, the player's or the player-dealer's, is three of a kind
    or better; a tie loses."""
    if beats:
        losing = pd_category
    elif loses:
        losing = player_category
    else:
        return None
    x = BAD_BEAT_TABLES[paytable].get(losing)
    return None if x is None else stake * x


def pairs_rows(hole, pd_hole) -> list[str]:
    """Every Pairs row the two hole cards match, highest first."""
    (r1, s1), (r2, s2) = hole[0], hole[1]
    ranks, suited = {r1, r2}, s1 == s2
    rows = []
    if r1 == r2 == "A":
        if pd_hole is not None and pd_hole[0][0] == pd_hole[1][0] == "A":
            rows.append("aces_against_aces")
        if {s1, s2} == {"h", "d"}:
            rows.append("red_aces")
        rows.append("aces")
    elif r1 == r2:
        rows.append("face_pair" if r1 in "KQJ" else "low_pair")
    elif ranks == {"A", "K"}:
        rows.append("ace_king_suited" if suited else "ace_king")
    elif ranks in ({"A", "Q"}, {"A", "J"}):
        rows.append("ace_queen_or_jack_suited" if suited else "ace_queen_or_jack")
    return rows


def pairs_payout(paytable: str, stake: int, hole, pd_hole) -> int | None:
    """What a Pairs wager pays on the player's two hole cards, or None when it loses."""
    table = PAIRS_TABLES[paytable]
    pays = [table[row] for row in pairs_rows(hole, pd_hole) if row in table]
    return stake * max(pays) if pays else None


def progressive_hand(hole, community) -> str | None:
    """The highest PROG-01 hand of a player's seven cards, or None."""
    seven = evaluate(tuple(hole) + tuple(community)).category
    if seven == "royal_flush":
        if evaluate(tuple(community)).category == "royal_flush":
            return "community_royal"
        if evaluate(tuple(hole) + tuple(community[:3])).category == "royal_flush":
            return "royal_first_five"
        return "royal_seven"
    return seven if seven in PROGRESSIVE_HANDS else None


# --- configuration --------------------------------------------------------------------------


@dataclass(frozen=True)
class Banked:
    """Bad Beat or Pairs at a table: its pay table and limits."""

    paytable: str
    min: int | None = None
    max: int | None = None

    def to_config(self) -> dict:
        return {"paytable": self.paytable, **{k: v for k, v in (("min", self.min), ("max", self.max)) if v is not None}}


@dataclass(frozen=True)
class Progressive:
    paytable: str
    wager: int  # the flat amount, in cents
    meter: str  # the meter's name; tables naming the same meter share it
    meter_share: int  # percent of each wager to the meter; the rest to the reserve
    seed: int  # what the meter restarts at after a 100% award
    start_meter: int = 0  # the meter's starting amounts, used when the meter is first made
    start_reserve: int = 0

    def to_config(self) -> dict:
        return {
            "paytable": self.paytable,
            "wager": self.wager,
            "meter": {
                "name": self.meter,
                "meter_share": self.meter_share,
                "seed": self.seed,
                "meter": self.start_meter,
                "reserve": self.start_reserve,
            },
        }


@dataclass(frozen=True)
class SideBets:
    bad_beat: Banked | None = None
    pairs: Banked | None = None
    progressive: Progressive | None = None

    def to_config(self) -> dict | None:
        offered = {name: bet.to_config() for name, bet in vars(self).items() if bet is not None}
        return offered or None


def _whole(value, name: str, *, positive: bool = True) -> int:
    low = 1 if positive else 0
    if type(value) is not int or value < low:
        raise CommandError("invalid_command", f"side_bets: {name} must be a whole number of cents >= {low}")
    return value


def _keys(value, name: str, allowed: set[str]) -> dict:
    if not isinstance(value, dict):
        raise CommandError("invalid_command", f"side_bets: {name} must be an object")
    unknown = set(value) - allowed
    if unknown:
        raise CommandError("invalid_command", f"side_bets: unknown {name} keys {sorted(unknown)}")
    return value


def _banked(value, name: str, tables: dict) -> Banked:
    value = _keys(value, name, {"paytable", "min", "max"})
    paytable = value.get("paytable")
    if paytable not in tables:
        raise CommandError("invalid_command", f"side_bets: {name} paytable must be one of {', '.join(tables)}")
    low, high = (value.get(k) for k in ("min", "max"))
    low = None if low is None else _whole(low, f"{name}.min")
    high = None if high is None else _whole(high, f"{name}.max")
    if low is not None and high is not None and low > high:
        raise CommandError("invalid_command", f"side_bets: {name}.min is above {name}.max")
    return Banked(paytable, low, high)


def side_bets_from_config(value) -> SideBets:
    """The table's `side_bets` (docs/commands.md); absent or null: none offered."""
    if value is None:
        return SideBets()
    value = _keys(value, "side_bets", {"bad_beat", "pairs", "progressive"})
    progressive = None
    if value.get("progressive") is not None:
        prog = _keys(value["progressive"], "progressive", {"paytable", "wager", "meter"})
        if prog.get("paytable", "PROG-01") not in PROGRESSIVE_TABLES:
            raise CommandError("invalid_command", f"side_bets: progressive paytable must be one of {', '.join(PROGRESSIVE_TABLES)}")
        meter = _keys(prog.get("meter"), "progressive.meter", {"name", "meter_share", "seed", "meter", "reserve"})
        name = meter.get("name")
        if not isinstance(name, str) or not name.strip() or len(name.strip()) > 64:
            raise CommandError("invalid_command", "side_bets: the progressive meter needs a name of 1 to 64 characters")
        share = meter.get("meter_share")
        if type(share) is not int or not 0 <= share <= 100:
            raise CommandError("invalid_command", "side_bets: meter_share is a whole percent from 0 to 100")
        progressive = Progressive(
            paytable=prog.get("paytable", "PROG-01"),
            wager=_whole(prog.get("wager"), "progressive.wager"),
            meter=name.strip(),
            meter_share=share,
            seed=_whole(meter.get("seed", 0), "meter.seed", positive=False),
            start_meter=_whole(meter.get("meter", 0), "meter.meter", positive=False),
            start_reserve=_whole(meter.get("reserve", 0), "meter.reserve", positive=False),
        )
    return SideBets(
        bad_beat=_banked(value["bad_beat"], "bad_beat", BAD_BEAT_TABLES) if value.get("bad_beat") is not None else None,
        pairs=_banked(value["pairs"], "pairs", PAIRS_TABLES) if value.get("pairs") is not None else None,
        progressive=progressive,
    )


# --- the progressive's fund ----------------------------------------------------------------


@dataclass(frozen=True)
class Fund:
    """A meter as it stands: the amount shown on the meter and the reserve behind it."""

    meter: int
    reserve: int


@dataclass(frozen=True)
class FundLine:
    """One movement of the fund. Deltas are signed cents (+ in, - out)."""

    kind: str  # contribution, award, withheld, reseed, reversal
    seat: int | None
    player: str
    amount: int  # the wager contributed or reversed, the award, the seed moved
    meter_delta: int
    reserve_delta: int
    owed: int = 0  # the part of an award the fund could not pay, owed to the player
    hand: str = ""  # the award's PROG-01 hand
    confirmed: bool = False  # a percentage award confirmed by a supervisor

    def as_dict(self) -> dict:
        return vars(self).copy()


def contribute(fund: Fund, progressive: Progressive, wagers: list[tuple[int, str]]) -> tuple[list[FundLine], Fund]:
    """Each progressive wager of the round goes whole into the fund at no more bets:
    meter_share percent to the meter (rounded down), the rest to the reserve."""
    lines = []
    for seat, player in wagers:
        to_meter = progressive.wager * progressive.meter_share // 100
        lines.append(FundLine("contribution", seat, player, progressive.wager, to_meter, progressive.wager - to_meter))
    return lines, _after(fund, lines)


def reverse(fund: Fund, contributions: list[FundLine]) -> tuple[list[FundLine], Fund]:
    """A void returns the progressive wagers: each contribution is taken back from where it
    went. A linked meter may have paid out meanwhile: what the meter lacks comes from the
    reserve and the reverse; what neither holds is owed to the player."""
    lines = []
    meter, reserve = fund.meter, fund.reserve
    for c in contributions:
        from_meter = min(c.meter_delta, meter)
        from_reserve = min(c.reserve_delta + (c.meter_delta - from_meter), reserve)
        short = c.amount - from_meter - from_reserve
        extra = min(short, meter - from_meter)  # the reserve was short: the meter may still hold it
        from_meter += extra
        meter, reserve = meter - from_meter, reserve - from_reserve
        lines.append(FundLine("reversal", c.seat, c.player, c.amount, -from_meter, -from_reserve, owed=short - extra))
    return lines, Fund(meter, reserve)


@dataclass(frozen=True)
class Award:
    seat: int
    player: str
    hand: str
    wager: int


def awards_due(progressive: Progressive, seats) -> list[Award]:
    """The progressive awards of a round, in the order they are paid: highest seat first.
    `seats` are (seat, player, hole, community) of every progressive wager with cards."""
    awards = []
    for seat, player, hole, community in sorted(seats, key=lambda s: -s[0]):
        hand = progressive_hand(hole, community)
        if hand is not None:
            awards.append(Award(seat, player, hand, progressive.wager))
    return awards


def is_percentage(progressive: Progressive, hand: str) -> bool:
    return PROGRESSIVE_TABLES[progressive.paytable][hand][0] == "percent"


def awaiting_confirmation(progressive: Progressive, awards: list[dict]) -> list[dict]:
    """The awards (the settlement's `progressive`) a supervisor must still confirm before
    the round settles: the percentage ones (10.3); fixed awards need none."""
    # A withheld award is not paid, so there is nothing for a supervisor to confirm.
    return [
        a for a in awards if not a["confirmed"] and not a.get("withheld") and is_percentage(progressive, a["hand"])
    ]


def pay_awards(
    fund: Fund, progressive: Progressive, awards: list[Award], confirmed: set[int], withheld: frozenset[int] = frozenset()
) -> tuple[list[FundLine], Fund]:
    """Pay the round's awards in order from the meter (10.3). A percentage award is computed
    on the meter as it stands; a fixed award larger than the meter takes the rest from the
    reserve; what the fund cannot pay is owed. After a 100% award the meter restarts at the
    seed, moved from the reserve (what the reserve holds, when that is less).

    The award of a seat in `withheld` (a patron on a self-exclusion list, 4 CCR 12464: the
    command service says which) is recorded as a `withheld` line and not paid: the fund
    keeps it, nothing is owed, and no reseed follows."""
    table = PROGRESSIVE_TABLES[progressive.paytable]
    meter, reserve = fund.meter, fund.reserve
    lines = []
    for award in awards:
        how, x = table[award.hand]
        amount = meter * x // 100 if how == "percent" else award.wager * x
        if award.seat in withheld:
            lines.append(FundLine("withheld", award.seat, award.player, amount, 0, 0, hand=award.hand))
            continue
        from_meter = min(amount, meter)
        from_reserve = min(amount - from_meter, reserve)
        meter, reserve = meter - from_meter, reserve - from_reserve
        lines.append(
            FundLine(
                "award", award.seat, award.player, amount, -from_meter, -from_reserve,
                owed=amount - from_meter - from_reserve, hand=award.hand, confirmed=award.seat in confirmed,
            )
        )
        if how == "percent" and x == 100:
            seed = min(progressive.seed, reserve)
            meter, reserve = meter + seed, reserve - seed
            lines.append(FundLine("reseed", None, "", seed, seed, -seed))
    return lines, Fund(meter, reserve)


def _after(fund: Fund, lines: list[FundLine]) -> Fund:
    return Fund(fund.meter + sum(l.meter_delta for l in lines), fund.reserve + sum(l.reserve_delta for l in lines))


def award_dicts(lines: list[FundLine]) -> list[dict]:
    """The settlement's `progressive` (docs/commands.md); a withheld award says so."""
    return [
        {
            "seat": l.seat,
            "hand": l.hand,
            "award": l.amount,
            "from_meter": -l.meter_delta,
            "from_reserve": -l.reserve_delta,
            "owed": l.owed,
            "confirmed": l.confirmed,
            **({"withheld": True} if l.kind == "withheld" else {}),
        }
        for l in lines
        if l.kind in ("award", "withheld")
    ]


def meter_dict(progressive: Progressive, fund: Fund) -> dict:
    return {"name": progressive.meter, "meter": fund.meter, "reserve": fund.reserve}

