"""The offer-every-round rotation policy (game-rules section 2A) and TPPP identity.

A table switches the policy on in its configuration (`rotation_policy`); without it
section 2 alone applies. What this module adds to section 2:

- `RotationPolicy`: the policy's parameters, checked like every configuration key.
- `Tppp`: the third-party proposition player seated at the table (badge, company,
  licence expiry). At most one per table and no expired licence, with or without the
  policy.
- `GameClock`: the window rule's memory: when the game's first round opened, and who
  banked the (not voided) rounds opened since, so that a round opening at time t can be
  checked against (t - W, t].

Times are inputs: every command reaches the engine with `at` (an ISO 8601 time with its
offset; the command service stamps it, a replay file gives it). Nothing here reads a
clock.
"""

from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta, timezone

from .errors import CommandError
from .persons import same_person

DEFAULT_NOTICE = (
    "Any player can assume the player-dealer position when it is offered. The player that "
    "assumes the player-dealer position cannot win or lose more than the amount they wager."
)
MAX_NOTICE = 1000
MAX_BADGE, MAX_COMPANY = 32, 150
GAME_ENDED_BY_WINDOW = "rotation_window"


# --- configuration -------------------------------------------------------------------


@dataclass(frozen=True)
class RotationPolicy:
    offer_every_round: bool = True
    window_minutes: int = 40
    window_players: int = 2
    tppp_one_round: bool = True

    @classmethod
    def from_config(cls, value) -> "RotationPolicy | None":
        """The table configuration's `rotation_policy` (None or absent: section 2 alone)."""
        if value is None:
            return None
        if not isinstance(value, dict):
            raise CommandError("invalid_command", "rotation_policy must be an object")
        unknown = set(value) - set(cls.__dataclass_fields__)
        if unknown:
            raise CommandError("invalid_command", f"unknown rotation_policy keys {sorted(unknown)}")
        policy = cls(**value)
        for name in ("offer_every_round", "tppp_one_round"):
            if type(getattr(policy, name)) is not bool:
                raise CommandError("invalid_command", f"rotation_policy {name} must be true or false")
        # A window of a day at most and up to the largest table: anything else is a typo.
        for name, low, high in (("window_minutes", 1, 1440), ("window_players", 1, 8)):
            v = getattr(policy, name)
            if type(v) is not int or not low <= v <= high:
                raise CommandError("invalid_command", f"rotation_policy {name} must be a whole number from {low} to {high}")
        return policy

    def to_config(self) -> dict:
        return asdict(self)

    @property
    def window(self) -> timedelta:
        return timedelta(minutes=self.window_minutes)


def notice_from_config(value) -> str:
    if value is None:
        return DEFAULT_NOTICE
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > MAX_NOTICE:
        raise CommandError("invalid_command", f"notice must be a text of 1 to {MAX_NOTICE} characters")
    return value.strip()


# --- time ----------------------------------------------------------------------------


def command_time(command: dict) -> datetime | None:
    """The command's `at` as an aware datetime (its date in its own offset is the
    command's date in the cardroom's zone: the service stamps local time), or None."""
    value = command.get("at")
    return None if value is None else parse_time(value)


def parse_time(value) -> datetime:
    """An ISO 8601 time with its offset (`2026-05-01T20:00:00Z`), else invalid_command."""
    try:
        at = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        at = None
    if at is None or at.tzinfo is None:
        raise CommandError("invalid_command", "'at' must be an ISO 8601 time with its zone, e.g. 2026-05-01T20:00:00Z")
    return at


def required_time(command: dict, why: str) -> datetime:
    at = command_time(command)
    if at is None:
        raise CommandError("invalid_command", f"{command['type']} needs the time it happened ('at') {why}")
    return at


# --- third-party proposition player --------------------------------------------------


@dataclass(frozen=True)
class Tppp:
    seat: int
    player: str
    badge: str
    company: str
    expires: str  # YYYY-MM-DD

    def as_dict(self) -> dict:
        return asdict(self)


def tppp_from_command(value, *, seat: int, player: str, at: datetime, seated: "Tppp | None") -> Tppp:
    """Check a `sit` command's `tppp` object: one TPPP per table, licence not expired
    (expiry before the command's date, in the cardroom's zone)."""
    if not isinstance(value, dict) or set(value) != {"badge", "company", "expires"}:
        raise CommandError("invalid_command", "tppp must be an object with badge, company and expires")
    texts = {}
    for name, longest in (("badge", MAX_BADGE), ("company", MAX_COMPANY)):
        v = value[name]
        if not isinstance(v, str) or not v.strip() or len(v.strip()) > longest or not v.isprintable():
            raise CommandError("invalid_command", f"tppp {name} must be a text of 1 to {longest} characters")
        texts[name] = v.strip()
    try:
        expires = date.fromisoformat(value["expires"]) if isinstance(value["expires"], str) else None
    except ValueError:
        expires = None
    if expires is None or len(value["expires"]) != 10:
        raise CommandError("invalid_command", "tppp expires must be a date YYYY-MM-DD")
    if seated is not None:
        raise CommandError("tppp_limit", f"seat {seated.seat} is already the table's TPPP (badge {seated.badge})")
    if expires < at.date():
        raise CommandError("badge_expired", f"badge {texts['badge']}'s licence expired on {expires.isoformat()}")
    return Tppp(seat, player, texts["badge"], texts["company"], expires.isoformat())


# --- the window rule -----------------------------------------------------------------


@dataclass
class GameClock:
    """One game under the policy: it starts when its first round opens and ends when a
    round would break the window rule (then no round opens until `start_game`)."""

    started_at: str | None = None  # ISO UTC
    ended: bool = False
    # (opened at ISO UTC, round number, banker or None for the TPPP): rounds of this game
    # opened within the window, voided ones removed.
    rounds: list[list] = field(default_factory=list)

    def allows(self, policy: RotationPolicy, at: datetime, banker: str | None) -> bool:
        """May a round banked by `banker` (None: the TPPP) open at `at`? (2A.3)"""
        if self.started_at is None or at - _utc(self.started_at) < policy.window:
            return True
        within = self._bankers_within(policy, at) + ([banker] if banker is not None else [])
        return len(distinct_persons(within)) >= policy.window_players

    def opened(self, policy: RotationPolicy, at: datetime, number: int, banker: str | None) -> None:
        if self.started_at is None:
            self.started_at = _iso(at)
        since = at - policy.window
        self.rounds = [r for r in self.rounds if _utc(r[0]) > since] + [[_iso(at), number, banker]]

    def voided(self, number: int) -> None:
        """A voided round does not count for the window."""
        self.rounds = [r for r in self.rounds if r[1] != number]

    def deadline(self, policy: RotationPolicy, banker: str | None) -> datetime | None:
        """The first moment at which a round banked by `banker` (the last banker, if
        nobody else takes the bank) would end the game; None if never (or not started).
        Each other banker keeps the window satisfied until W after their latest round."""
        if self.started_at is None or self.ended:
            return None
        needed = policy.window_players - (banker is not None)
        if needed <= 0:
            return None
        latest: dict[str, datetime] = {}  # per person, under the spelling first met
        for opened_at, _, who in self.rounds:
            if who is None or (banker is not None and same_person(who, banker)):
                continue
            who = next((known for known in latest if same_person(known, who)), who)
            latest[who] = max(latest.get(who, _utc(opened_at)), _utc(opened_at))
        times = sorted(latest.values(), reverse=True)
        start = _utc(self.started_at) + policy.window
        return start if len(times) < needed else max(start, times[needed - 1] + policy.window)

    @property
    def last_banker(self) -> str | None:
        return self.rounds[-1][2] if self.rounds else None

    def _bankers_within(self, policy: RotationPolicy, at: datetime) -> list[str]:
        since = at - policy.window
        return [who for opened_at, _, who in self.rounds if who is not None and since < _utc(opened_at) <= at]


def distinct_persons(ids: list[str]) -> list[str]:
    """One id per person among `ids`: the window counts persons, not spellings, so "P-1",
    "p-1" and "Р-1" (a Cyrillic Р) are one banker (persons.same_person; pairwise, as that
    relation is not transitive)."""
    persons: list[str] = []
    for who in ids:
        if not any(same_person(who, known) for known in persons):
            persons.append(who)
    return persons


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _iso(at: datetime) -> str:
    return at.astimezone(timezone.utc).isoformat()
