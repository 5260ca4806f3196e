"""Property tests of the rotation policy (game-rules 2A): random command streams with
random times, checked against an independent reading of the rules from the records.

Under the policy, whatever the stream:
* no round opens unless its player-dealer accepted an offer since the last round closed
  (the offer cycle before every round);
* the TPPP never banks the round after a settled round of their own;
* no round opens that breaks the window, and every game end was required by it;
* at most one TPPP is seated.
"""

import random
from datetime import datetime, timedelta, timezone

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rounds.engine.errors import CommandError
from rounds.engine.records import Left, RotationEntry, RoundOpened, RoundSettled, RoundVoided, Seated
from tests.engine.helpers import new_game, quick_round, snapshot, void, wager
from tests.hypothesis_profiles import examples

START = datetime(2026, 5, 1, 18, 0, tzinfo=timezone.utc)
PLAYERS = [f"P-{i}" for i in range(8)]
LICENCES = ["2027-12-31", "2027-12-31", "2026-04-30"]  # the last has expired by START

PROFILE = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=examples(60),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


class Checker:
    def __init__(self, policy: dict):
        self.window = timedelta(minutes=policy["window_minutes"])
        self.players = policy["window_players"]
        self.tppps: set[str] = set()  # persons seated as TPPP now
        self.accepted: str | None = None  # who accepted since the last round closed
        self.last_settled_banker: str | None = None
        self.open_banker: dict[int, str] = {}
        self.started: datetime | None = None
        # opened, number, banker or None for a TPPP (who never counts); voided ones removed
        self.rounds: list[tuple[datetime, int, str | None]] = []
        self.opened = self.ended = 0

    def counted(self, at: datetime, banker: str) -> int:
        since = at - self.window
        persons = {who for t, _, who in self.rounds if since < t <= at} | {self.counting(banker)}
        return len(persons - {None})

    def counting(self, banker: str) -> str | None:
        return None if banker in self.tppps else banker

    def window_applies(self, at: datetime) -> bool:
        return self.started is not None and at - self.started >= self.window

    def accepted_command(self, at: datetime, records: list):
        for rec in records:
            if isinstance(rec, Seated) and rec.tppp:
                self.tppps.add(rec.player)
                assert len(self.tppps) <= 1, "two TPPPs seated"
            elif isinstance(rec, Left):
                self.tppps.discard(rec.player)
            elif isinstance(rec, RotationEntry) and rec.action == "accept":
                self.accepted = rec.player
            elif isinstance(rec, RotationEntry) and rec.action == "game_ended":
                assert self.window_applies(at) and self.counted(at, rec.player) < self.players, "game ended needlessly"
                self.ended += 1
            elif isinstance(rec, RotationEntry) and rec.action == "game_started":
                self.started, self.rounds = None, []
            elif isinstance(rec, RoundOpened):
                assert self.accepted == rec.pd_player, "a round opened without a completed offer cycle"
                if rec.pd_player in self.tppps:
                    assert self.last_settled_banker != rec.pd_player, "the TPPP banked two rounds in a row"
                if self.window_applies(at):
                    assert self.counted(at, rec.pd_player) >= self.players, "a round opened that breaks the window"
                self.started = self.started or at
                self.rounds.append((at, rec.round, self.counting(rec.pd_player)))
                self.open_banker[rec.round] = rec.pd_player
                self.opened += 1
            elif isinstance(rec, RoundSettled):
                self.accepted = None
                self.last_settled_banker = self.open_banker[rec.round]
            elif isinstance(rec, RoundVoided):
                self.accepted = None
                self.rounds = [r for r in self.rounds if r[1] != rec.round]


def next_commands(data, game) -> list[dict]:
    """A mostly sensible next step; a whole round counts as one step."""
    rot, occupied = game.rotation, sorted(game.occupants)
    empty = [s for s in range(1, game.config.seats + 1) if s not in game.occupants]
    free = [p for p in PLAYERS if p not in game.occupants.values()]
    options = []
    if empty and free:
        def sit():
            command = {"type": "sit", "seat": data.draw(st.sampled_from(empty)), "player": data.draw(st.sampled_from(free))}
            if data.draw(st.integers(0, 3)) == 0:
                command["tppp"] = {"badge": "B-9", "company": "Acme", "expires": data.draw(st.sampled_from(LICENCES))}
            return [command]
        options.append(sit)
    if len(occupied) > 2:
        options.append(lambda: [{"type": "leave", "seat": data.draw(st.sampled_from(occupied))}])
    if rot.offer_seat is not None:
        walk = rot.walk(game.occupants, game.config.seats)
        options.append(lambda: [{"type": "accept_bank", "seat": rot.offer_seat}] * 2)
        options.append(lambda: [{"type": "decline_bank", "seats": walk[: data.draw(st.integers(1, len(walk)))]}])
    elif occupied:
        options.append(lambda: [{"type": "offer_bank", "seat": data.draw(st.sampled_from(occupied))}])
    if rot.pd_seat is not None:
        players = [s for s in occupied if s != rot.pd_seat]
        if players:
            seat = data.draw(st.sampled_from(players))
            options += [lambda: quick_round(seat)] * 3
            options.append(lambda: [{"type": "open_round", "bank": 10_000}, wager(seat, 100), {"type": "no_more_bets"}, void()])
        options.append(lambda: [{"type": "pass_bank"}])
    options.append(lambda: [{"type": "start_game", "approved_by": "SUP-1"}])
    options.append(lambda: [{"type": "open_round", "bank": 10_000}])
    return options[data.draw(st.integers(0, len(options) - 1))]()


def run_stream(data, policy: dict, steps: int) -> Checker:
    game = new_game(data.draw(st.integers(3, 6)), rotation_policy=policy)
    checker = Checker(policy)
    now = START
    for _ in range(steps):
        now += timedelta(minutes=data.draw(st.sampled_from([0, 0, 1, 4, 9, 17, 30, 41])))
        for command in next_commands(data, game):
            command = {**command, "at": now.isoformat()}
            before = snapshot(game)
            try:
                game, result, records = game.apply(command, rng=random.Random(0))
            except CommandError:
                assert snapshot(game) == before
                break  # the rest of a whole round makes no sense after a refusal
            checker.accepted_command(now, records)
    return checker


POLICIES = st.fixed_dictionaries({
    "offer_every_round": st.just(True),
    "window_minutes": st.sampled_from([10, 40, 60]),
    "window_players": st.sampled_from([1, 2, 3]),
    "tppp_one_round": st.just(True),
})


@PROFILE
@given(st.data())
def test_random_streams_under_the_policy_keep_every_rule_of_2a(data):
    run_stream(data, data.draw(POLICIES), steps=60)


def test_the_streams_open_rounds_and_end_games():
    """The generator is not vacuous: the same streams open rounds and end games."""
    totals = {"opened": 0, "ended": 0}

    @settings(PROFILE, max_examples=25)  # a fixed count under every profile: the thresholds below need it
    @given(st.data())
    def count(data):
        checker = run_stream(data, data.draw(POLICIES), steps=60)
        totals["opened"] += checker.opened
        totals["ended"] += checker.ended

    count()
    assert totals["opened"] >= 50 and totals["ended"] >= 3, totals
