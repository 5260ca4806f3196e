"""A table's configuration and the rules' fixed facts: seats, limits, the pay table, the
dealing procedure, the collection schedule, the side bets, the rotation policy and the
backline offer (docs/commands.md, the table object), checked once when a table is set up
or changed; and the streets, the Play multiples and the reveals every table plays by.
"""

from dataclasses import dataclass

from . import dealing
from .backline import BacklineConfig, backline_from_config
from .errors import CommandError
from .fees import FeeSchedule, fee_schedule_from_config
from .paytables import PayTable, paytable_from_config
from .policy import RotationPolicy, notice_from_config
from .sidebets import SideBets, side_bets_from_config

MIN_SEATS, MAX_SEATS = 2, 8
# The largest amount the ledger can record with room for the largest payout (500 to 1
# on a Blind): $100 billion, far beyond any real wager, far within a 64-bit integer.
MAX_AMOUNT = 10**13
# The most any amount of a table configuration may be (limits, collection rates and fees,
# side bet limits and wagers, a meter's starting amounts): the largest 32-bit integer,
# $21,474,836.47. The configuration record keeps its limits in 32-bit columns, and no
# table posts a limit or a fee anywhere near it; a larger amount is a typo, refused when
# the change is filed, so it never reaches the approval queue.
MAX_CONFIG_AMOUNT = 2_147_483_647
MAX_TEXT = {"player": 64, "bettor": 64, "approved_by": 150, "reason": 500}
STREETS = ("preflop", "flop", "river")


def checked_text(name: str, value) -> str:
    """A text field of a command (`player`, `approved_by`, `reason`), stripped; the
    service checks a void's reason with it when the void is asked for, not only when it
    is carried out."""
    longest = MAX_TEXT[name]
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > longest:
        raise CommandError("invalid_command", f"'{name}' must be a text of 1 to {longest} characters")
    if not value.isprintable():
        raise CommandError("invalid_command", f"'{name}' holds control characters")
    return value.strip()


PLAY_MULTIPLES = {"preflop": (3, 4), "flop": (2,), "river": (1,)}
# The streets on which each decision is allowed (a Play is allowed on every street).
STREET_ACTIONS = {"check": ("preflop", "flop"), "play": STREETS, "fold": ("river",)}


def play_amount(multiple: int, ante: int) -> int:
    """The Play wager made at `multiple` times the Ante."""
    return multiple * ante


@dataclass(frozen=True)
class Reveal:
    """A command that shows community cards: allowed on `street`, moves to `next_phase`."""

    street: str
    count: int
    next_phase: str


REVEALS = {"flop": Reveal("preflop", 3, "flop"), "turn_river": Reveal("flop", 2, "river")}


@dataclass(frozen=True)
class Limits:
    ante_min: int | None = None
    ante_max: int | None = None
    trips_min: int | None = None
    trips_max: int | None = None


# The keys of a table configuration this engine takes (docs/commands.md; `name` is the
# service's).
CONFIG_KEYS = {
    "seats", "paytable", "limits", "dealing", "max_consecutive_banks", "fee_schedule", "side_bets",
    "rotation_policy", "notice", "backline", "no_tppp",
}


@dataclass(frozen=True)
class TableConfig:
    seats: int
    paytable: PayTable
    limits: Limits = Limits()
    dealing: str = "shuffler"
    max_consecutive_banks: int = 2
    fee_schedule: FeeSchedule | None = None
    side_bets: SideBets = SideBets()
    rotation_policy: RotationPolicy | None = None  # game-rules 2A; None: section 2 alone
    notice: str = notice_from_config(None)
    backline: BacklineConfig | None = None  # game-rules 12; None: no backline wagers
    # No TPPP banks (a rule set's mode, issue 38): a TPPP may sit, is never offered the bank
    # and may not accept or keep it; the game stops when no player takes it (section 2).
    no_tppp: bool = False

    @classmethod
    def from_config(cls, value: dict) -> "TableConfig":
        """Check a table configuration (the replay file's `table`, less its name)."""
        if not isinstance(value, dict):
            raise CommandError("invalid_command", "the table configuration must be an object")
        unknown = set(value) - CONFIG_KEYS
        if unknown:
            # `max_consecutive_bank: 3` must not silently mean the default 2 (docs/commands.md).
            raise CommandError("invalid_command", f"unknown table configuration keys {sorted(unknown)}")
        seats = value.get("seats")
        if type(seats) is not int or not MIN_SEATS <= seats <= MAX_SEATS:
            raise CommandError("invalid_command", f"seats must be a whole number from {MIN_SEATS} to {MAX_SEATS}")
        limits = value.get("limits") or {}
        if not isinstance(limits, dict):
            raise CommandError("invalid_command", "limits must be an object")
        names = ("ante_min", "ante_max", "trips_min", "trips_max")
        unknown = set(limits) - set(names)
        if unknown:
            raise CommandError("invalid_command", f"unknown limits {sorted(unknown)}")
        for name in names:
            v = limits.get(name)
            if v is not None and (type(v) is not int or v <= 0):
                raise CommandError("invalid_command", f"limit {name} must be a positive amount in cents")
        for low, high in (("ante_min", "ante_max"), ("trips_min", "trips_max")):
            if limits.get(low) and limits.get(high) and limits[low] > limits[high]:
                raise CommandError("invalid_command", f"{low} is above {high}")
        procedure = value.get("dealing", "shuffler")
        if procedure not in dealing.PROCEDURES:
            raise CommandError("invalid_command", f"dealing must be one of {', '.join(dealing.PROCEDURES)}")
        max_banks = value.get("max_consecutive_banks", 2)
        if max_banks not in (1, 2) or type(max_banks) is not int:
            # The regulation allows two consecutive banks at most; a house may say one.
            raise CommandError("invalid_command", "max_consecutive_banks must be 1 or 2")
        no_tppp = value.get("no_tppp", False)
        if type(no_tppp) is not bool:
            raise CommandError("invalid_command", "no_tppp is true or false")
        checked = cls(
            seats=seats,
            paytable=paytable_from_config(value.get("paytable")),
            limits=Limits(**{n: limits.get(n) for n in names}),
            dealing=procedure,
            max_consecutive_banks=max_banks,
            fee_schedule=fee_schedule_from_config(value.get("fee_schedule")),
            side_bets=side_bets_from_config(value.get("side_bets")),
            rotation_policy=RotationPolicy.from_config(value.get("rotation_policy")),
            notice=notice_from_config(value.get("notice")),
            backline=backline_from_config(value.get("backline")),
            no_tppp=no_tppp,
        )
        for name, amount in checked.amounts():
            if amount is not None and amount > MAX_CONFIG_AMOUNT:
                raise CommandError("invalid_command", f"{name} is more than {MAX_CONFIG_AMOUNT} cents")
        return checked

    def amounts(self):
        """(name, cents) of every amount the configuration sets (None: not set)."""
        yield from vars(self.limits).items()
        for number, rate in enumerate(self.fee_schedule.rates if self.fee_schedule else (), start=1):
            yield from ((f"fee_schedule rate {number} {name}", cents) for name, cents in vars(rate).items())
        for bet in ("bad_beat", "pairs"):
            banked = getattr(self.side_bets, bet)
            if banked is not None:
                yield from ((f"side_bets {bet}.min", banked.min), (f"side_bets {bet}.max", banked.max))
        progressive = self.side_bets.progressive
        if progressive is not None:
            for name in ("wager", "seed", "start_meter", "start_reserve"):
                yield f"side_bets progressive {name}", getattr(progressive, name)

    def to_config(self) -> dict:
        return {
            "seats": self.seats,
            "paytable": self.paytable.to_config(),
            "limits": {k: v for k, v in vars(self.limits).items() if v is not None},
            "dealing": self.dealing,
            "max_consecutive_banks": self.max_consecutive_banks,
            "fee_schedule": self.fee_schedule.to_config() if self.fee_schedule else None,
            "side_bets": self.side_bets.to_config(),
            "rotation_policy": self.rotation_policy.to_config() if self.rotation_policy else None,
            "notice": self.notice,
            "backline": self.backline.to_config() if self.backline else None,
            # Written only when on: a configuration without the mode reads as it always did.
            **({"no_tppp": True} if self.no_tppp else {}),
        }
