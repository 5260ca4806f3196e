"""Player-dealer rotation (game-rules section 2).

The limit follows the person, not the chair: `streak_player` banked the last `streak`
settled rounds in a row (voided rounds do not count). That person may not bank again
while the streak is at the limit, until someone else has banked a round. This one rule
is what makes a third consecutive bank impossible, whoever asks.

Offers go clockwise in a *cycle*: each person is offered at most once per cycle; a
player-dealer who passed under the limit is offered last and may take the bank back;
when nobody is left to offer, the game stops ("no player-dealer") until the house
starts a new cycle with `offer_bank`.
"""

from dataclasses import dataclass, field

from .persons import same_person
from .seats import clockwise_after


@dataclass
class Rotation:
    limit: int = 2
    pd_seat: int | None = None
    pd_player: str | None = None
    offer_seat: int | None = None
    offered: list[str] = field(default_factory=list)  # persons offered in this cycle
    passer: str | None = None  # passed under the limit: offered last in this cycle
    streak_player: str | None = None
    streak: int = 0
    stopped: bool = False  # every eligible seat declined: the game stops
    # The person who may bank only one round at a time (the TPPP under the rotation
    # policy, game-rules 2A.2): their limit is 1, whatever the table's.
    one_round: str | None = None
    # The TPPP under a no-TPPP rule (TableConfig.no_tppp): never offered the bank, may not
    # accept or keep it. Stored only while set (TableGame.to_dict).
    barred: str | None = None

    def known_as(self, player: str) -> str:
        """The spelling this rotation already knows `player` by (the same person written
        with other case or spacing, or in look-alike letters: rounds/engine/persons.py),
        else `player`: a person sitting down again under another spelling stays one
        person, and every comparison here is of one string."""
        known = (self.streak_player, self.pd_player, self.passer, *self.offered)
        return next((p for p in known if p is not None and same_person(p, player)), player)

    def limit_for(self, player: str) -> int:
        """The consecutive rounds `player` may bank: one for the TPPP under the policy's
        one-round rule, else the table's limit."""
        return 1 if player == self.one_round else self.limit

    def eligible(self, player: str) -> bool:
        if player == self.barred:
            return False
        return not (player == self.streak_player and self.streak >= self.limit_for(player))

    def ineligible_code(self, player: str) -> str:
        """Why `player` may not bank now: no TPPP banks, the TPPP's one round, or the limit."""
        if player == self.barred:
            return "tppp_barred"
        return "tppp_one_round" if player == self.one_round else "rotation_limit"

    def walk(self, occupants: dict[int, str], seat_count: int) -> list[int]:
        """The seats the pending offer goes to, in order, if each declines: the pending
        seat first (the tablet lists them so that the dealer asks each in turn)."""
        if self.offer_seat is None:
            return []
        probe = Rotation(**{**vars(self), "offered": list(self.offered)})
        seats = [self.offer_seat]
        while (seat := probe.decline(occupants, seat_count)) is not None:
            seats.append(seat)
        return seats

    def start_cycle(self, occupants: dict[int, str], seat_count: int, after_seat: int, passer: str | None = None):
        """Begin offering clockwise from the seat after `after_seat`; returns the offered seat."""
        self.pd_seat = self.pd_player = None
        self.offered = []
        self.passer = passer
        return self._offer_next(occupants, seat_count, after_seat)

    def offer_to(self, seat: int, player: str) -> None:
        """The house's own choice of the first seat (a table's first round, or a restart)."""
        self.offered, self.passer = [], None
        self._offer(seat, player)

    def decline(self, occupants: dict[int, str], seat_count: int) -> int | None:
        return self._offer_next(occupants, seat_count, self.offer_seat)

    def accept(self, seat: int, player: str) -> None:
        self.pd_seat, self.pd_player = seat, player
        self.offer_seat, self.offered, self.passer, self.stopped = None, [], None, False

    def round_banked(self, player: str) -> None:
        """A settled round counts for the player-dealer's streak."""
        if player == self.streak_player:
            self.streak += 1
        else:
            self.streak_player, self.streak = player, 1

    @property
    def pd_streak(self) -> int:
        """Consecutive settled rounds the current player-dealer has banked (0 if none)."""
        return self.streak if self.pd_player is not None and self.pd_player == self.streak_player else 0

    @property
    def pd_at_limit(self) -> bool:
        return self.pd_player is not None and not self.eligible(self.pd_player)

    def _offer_next(self, occupants: dict[int, str], seat_count: int, after_seat: int) -> int | None:
        clockwise = clockwise_after(after_seat, seat_count)
        for seat in clockwise:
            player = occupants.get(seat)
            if player and player not in self.offered and player != self.passer and self.eligible(player):
                return self._offer(seat, player)
        for seat in clockwise:
            player = occupants.get(seat)
            if player and player == self.passer and player not in self.offered and self.eligible(player):
                return self._offer(seat, player)
        self.offer_seat, self.stopped = None, True
        return None

    def _offer(self, seat: int, player: str) -> int:
        self.offered.append(player)
        self.offer_seat = seat
        self.stopped = False
        return seat
