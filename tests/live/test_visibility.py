"""No card leaves the server before its audience may see it (rounds.visibility).

The cards each audience may not see are worked out here from the engine's own state
(RoundState: the undealt board, the hole cards, the seats the showdown turns over), then
searched for in every message and page, whatever field they might hide in.
"""

import json
import random

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import Group, User
from django.test import Client
from django.utils import timezone

from cardroom.gaming_day import calendar
from rounds.engine.cards import DECK
from rounds.engine.table import TableGame
from tables.models import DealerAssignment, Table
from rounds.engine.view import table_view
from rounds.visibility import AUDIENCES, LIVE, TABLET, event_for, snapshot_for
from tests.engine.helpers import decide, deal_sequence, new_game, open_round, seated_with_pd, wager

from .conftest import make_table, play, receive_until, run, socket

TIMEOUT = 10

HOLES = {2: ["Qh", "Jh"], 3: ["As", "Ad"], 4: ["3c", "4c"]}
PD = ["Ks", "Qd"]
BOARD = ["Ah", "Kh", "7h", "7c", "2d"]


def a_round(procedure: str, pairs_at_4: bool = False) -> tuple[dict, list[dict]]:
    """(table config, commands): P-1 banks against seats 2-4, who check to the river. There
    seat 2 plays; seat 3 folds with Trips (its hand is turned over at the showdown); seat 4
    folds with no side wager (its hand stays mucked), or with `pairs_at_4` a Pairs wager
    (still in action: its hand is turned over). `procedure`: `server` shuffles,
    `shuffler` and `community_first` deal a shuffler's sequence, `entered` deals by hand."""
    config = {"dealing": procedure} if procedure in ("shuffler", "community_first") else {}
    if pairs_at_4:
        config["side_bets"] = {"pairs": {"paytable": "UPB-1", "min": 100, "max": 2500}}
    commands = seated_with_pd([1, 2, 3, 4], pd=1) + open_round(
        100_000, [wager(2, 1000), wager(3, 1000, trips=500), wager(4, 1000, **({"pairs": 100} if pairs_at_4 else {}))]
    )
    by_hand = procedure == "entered"
    turned_over = (2, 3, 4) if pairs_at_4 else (2, 3)
    if procedure == "server":
        commands.append({"type": "deal"})
    elif not by_hand:
        commands.append({"type": "deal", "cards": deal_sequence(procedure, HOLES, PD, BOARD)})
    commands += [
        *[decide(s, "check") for s in HOLES],
        {"type": "flop", **({"cards": BOARD[:3]} if by_hand else {})},
        *[decide(s, "check") for s in HOLES],
        {"type": "turn_river", **({"cards": BOARD[3:]} if by_hand else {})},
        decide(2, "play", 1),
        decide(3, "fold"),
        decide(4, "fold"),
        {"type": "showdown", **({"player_dealer": PD, "hands": {str(s): HOLES[s] for s in turned_over}} if by_hand else {})},
        {"type": "settle"},
    ]
    return config, commands


def secret(state: dict, audience: str) -> set[str]:
    """The cards of `state` that `audience` may not see, from the engine's objects."""
    rnd = TableGame.from_dict(state).round
    if rnd is None:
        return set()
    hidden = set(rnd.pending_community)
    if audience == LIVE:
        turned_over = set(rnd.showdown_seats()) if rnd.phase == "showdown" else set()
        hidden |= {c for s in rnd.seats.values() if s.seat not in turned_over for c in s.hole or ()}
        if rnd.phase != "showdown":
            hidden |= set(rnd.pd_hole or ())
    return hidden


def shown(state: dict, audience: str) -> set[str]:
    """The cards of `state` that `audience` must see (a redaction that hides too much fails)."""
    rnd = TableGame.from_dict(state).round
    if rnd is None:
        return set()
    known = set(rnd.community) | set(rnd.pd_hole or ()) | {c for s in rnd.seats.values() for c in s.hole or ()}
    return known - secret(state, audience) - set(rnd.pending_community)


def leaked(message, cards: set[str]) -> set[str]:
    text = message if isinstance(message, str) else json.dumps(message)
    return {c for c in cards if f'"{c}"' in text}


def full_snapshot(game: TableGame, version: int) -> dict:
    state = game.to_dict()
    return {"table": 1, "name": "T", "version": version, "game": state, "view": table_view(state)}


@pytest.mark.parametrize("pairs_at_4", [False, True], ids=["fold_mucked", "fold_with_pairs"])
@pytest.mark.parametrize("procedure", ["server", "shuffler", "community_first", "entered"])
def test_each_audience_sees_no_card_before_its_time_in_any_phase(procedure, pairs_at_4):
    """Each audience sees exactly the cards the engine says it may: a folded hand with
    Pairs is turned over at the showdown (RoundState.showdown_seats), on the live view too."""
    config, commands = a_round(procedure, pairs_at_4)
    game, rng = new_game(6, **config), random.Random(7)
    phases = set()
    for version, command in enumerate(commands, start=1):
        game, result, _ = game.apply(command, rng=rng)
        whole = full_snapshot(game, version)
        phases.add(game.phase)
        for audience in AUDIENCES:
            state = whole["game"]
            snapshot = snapshot_for(whole, audience)
            event = event_for({"seq": version, "command_type": command["type"], "result": result, "snapshot": whole}, audience)
            for message in (snapshot, event):
                assert not leaked(message, secret(state, audience)), (audience, command)
                assert leaked(message, shown(state, audience)) == shown(state, audience), (audience, command)
            assert "pending_community" not in json.dumps(snapshot)
            assert len(snapshot["view"]["seats"]) == len(whole["view"]["seats"])
    assert phases >= {"betting", "preflop", "flop", "river", "showdown", "between_rounds"}


def test_the_tablet_sees_the_dealt_hands_and_the_live_view_their_backs():
    config, commands = a_round("shuffler")
    game = new_game(6, **config)
    for command in commands[: [c["type"] for c in commands].index("deal") + 1]:
        game, result, _ = game.apply(command)
    whole = full_snapshot(game, 1)
    tablet, live = snapshot_for(whole, TABLET), snapshot_for(whole, LIVE)
    assert tablet["game"]["round"]["seats"]["2"]["hole"] == HOLES[2] and tablet["game"]["round"]["pd_hole"] == PD
    # The live view keeps a place for each card (the screens draw its back), not the card.
    assert live["game"]["round"]["seats"]["2"]["hole"] == [None, None] and live["game"]["round"]["pd_hole"] == [None, None]
    assert live["view"]["seats"][1]["wager"]["hole"] == [None, None]
    assert event_for({"seq": 1, "command_type": "deal", "result": result, "snapshot": whole}, LIVE)["result"]["hands"] == {
        str(s): [None, None] for s in HOLES
    }
    assert whole["game"]["round"]["pending_community"] == BOARD  # the input is left whole


# --- through the real application: sockets, pages, the state API, the floor ---------------


def person(name: str, role: str) -> User:
    user = User.objects.create_user(name, password="pw")
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def cookie_of(user) -> tuple[Client, str]:
    client = Client()
    client.force_login(user)
    return client, client.cookies["sessionid"].value


@pytest.mark.django_db(transaction=True)
@pytest.mark.redis
def test_no_message_or_page_carries_a_card_its_viewer_may_not_see_yet():
    """A server-shuffled round watched by the assigned dealer's tablet, compliance (asking
    for the tablet's view, given the live one), a supervisor's live view and the floor."""
    config, commands = a_round("server")
    table = make_table(seats=6, **config)
    supervisor, dealer, compliance = person("sup", "supervisor"), person("dan", "dealer"), person("cora", "compliance")
    now, cal = timezone.now(), calendar()
    DealerAssignment.objects.create(
        dealer=dealer, table=table, gaming_day=cal.gaming_day(now), shift=cal.shift(now), assigned_by=supervisor, assigned_at=now
    )
    clients = {"dealer": cookie_of(dealer), "compliance": cookie_of(compliance), "supervisor": cookie_of(supervisor)}
    viewers = {  # name -> (who, socket path, audience)
        "tablet": ("dealer", f"/ws/tables/{table.pk}/?role=tablet", TABLET),
        "compliance": ("compliance", f"/ws/tables/{table.pk}/?role=tablet", LIVE),
        "live": ("supervisor", f"/ws/tables/{table.pk}/", LIVE),
    }
    pages = [  # (who, address, audience)
        ("dealer", f"/tables/{table.pk}/tablet/", TABLET),
        ("dealer", f"/api/tables/{table.pk}/state?role=tablet", TABLET),
        ("supervisor", f"/tables/{table.pk}/", LIVE),
        ("supervisor", f"/api/tables/{table.pk}/state", LIVE),
        ("compliance", f"/tables/{table.pk}/", LIVE),
        ("compliance", f"/api/tables/{table.pk}/state?role=tablet", LIVE),
    ]
    every_card = set(DECK)

    def state_now() -> dict:
        return Table.objects.get(pk=table.pk).state

    def page(who: str, address: str) -> str:
        response = clients[who][0].get(address)
        assert response.status_code == 200, address
        return response.content.decode()

    async def scenario():
        sockets = {}
        for name, (who, path, audience) in viewers.items():
            sockets[name] = socket(path, clients[who][1])
            assert (await sockets[name].connect(timeout=TIMEOUT))[0]
            first = await sockets[name].receive_json_from(timeout=TIMEOUT)
            assert first["type"] == "snapshot"
        floor = socket("/ws/floor/", clients["supervisor"][1])
        assert (await floor.connect(timeout=TIMEOUT))[0]
        floor_messages = [await floor.receive_json_from(timeout=TIMEOUT)]
        seen = {name: set() for name in viewers}
        for version, command in enumerate(commands, start=1):
            await sync_to_async(run)(table.pk, command)
            state = await sync_to_async(state_now)()
            for name, (who, _, audience) in viewers.items():
                messages = await receive_until(sockets[name], lambda m: m.get("seq") == version)
                await sockets[name].send_json_to({"type": "sync"})
                messages.append(await sockets[name].receive_json_from(timeout=TIMEOUT))
                for message in messages:
                    assert not leaked(message, secret(state, audience)), (name, command, message)
                    seen[name] |= leaked(message, every_card)
            for who, address, audience in pages:
                assert not leaked(await sync_to_async(page)(who, address), secret(state, audience)), (address, command)
        while not await floor.receive_nothing(timeout=0.5):
            floor_messages.append(await floor.receive_json_from(timeout=TIMEOUT))
        assert len(floor_messages) > 1 and not any(leaked(m, every_card) for m in floor_messages)
        # Not blind: the tablet saw every hand, the live views the hands turned over.
        round_cards = {c for name in seen for c in seen[name]}
        assert len(seen["tablet"]) == 2 * 3 + 2 + 5
        assert seen["live"] == seen["compliance"] and len(seen["live"]) == 2 * 2 + 2 + 5 < len(round_cards)
        for communicator in [*sockets.values(), floor]:
            await communicator.disconnect()

    play(scenario)


@pytest.mark.parametrize("between_rounds", [True, False])
def test_the_live_view_shows_the_tppp_badge_but_not_the_licence(between_rounds):
    """game-rules 2A.5: the table shows the TPPP's badge; the licence's company and expiry
    are for the dealer's tablet (and the compliance pages), not the read-only live view."""
    tppp = {"badge": "TPPP-0042", "company": "Acme Gaming Services", "expires": "2027-01-31"}
    game = new_game(6)
    for command in [
        {"type": "sit", "seat": 1, "player": "P-1"},
        {"type": "sit", "seat": 2, "player": "T-1", "tppp": tppp, "at": "2026-11-23T20:00:00-08:00"},
        {"type": "offer_bank", "seat": 1},
        {"type": "accept_bank", "seat": 1},
        *([] if between_rounds else [{"type": "open_round", "bank": 10_000}]),
    ]:
        game, _, _ = game.apply(command)
    whole = full_snapshot(game, 1)
    live = json.dumps(snapshot_for(whole, LIVE))
    assert snapshot_for(whole, LIVE)["game"]["tppp"] == {"seat": 2, "player": "T-1", "badge": "TPPP-0042"}
    assert "Acme Gaming Services" not in live and "2027-01-31" not in live
    assert snapshot_for(whole, TABLET)["game"]["tppp"]["company"] == "Acme Gaming Services"
    assert whole["game"]["tppp"]["company"] == "Acme Gaming Services"  # the input is not changed


@pytest.mark.parametrize("procedure", ["server", "entered"])
def test_the_live_view_never_learns_what_a_mucked_hand_was(procedure):
    """Seat 4 folds with no side wager: its hand stays mucked. The settlement (the showdown's
    preview, the showdown's and settle's answers) names its hand's category to the tablet
    only; seat 3 (folded with Trips) and seat 2 are turned over for everyone."""
    config, commands = a_round(procedure)
    game, rng = new_game(6, **config), random.Random(7)
    settlements = {TABLET: [], LIVE: []}
    for version, command in enumerate(commands, start=1):
        game, result, _ = game.apply(command, rng=rng)
        whole = full_snapshot(game, version)
        message = {"seq": version, "command_type": command["type"], "result": result, "snapshot": whole}
        for audience in AUDIENCES:
            event = event_for(message, audience)
            if command["type"] in ("showdown", "settle"):
                settlements[audience].append(event["result"])
            if event["snapshot"]["view"]["settlement_preview"]:
                settlements[audience].append(event["snapshot"]["view"]["settlement_preview"])
    assert len(settlements[LIVE]) == 3  # the showdown's answer, its preview, settle's answer
    for settlement in settlements[LIVE]:
        hands = {s["seat"]: s["hand"] for s in settlement["seats"]}
        assert hands[4] is None and hands[2] and hands[3], hands
    for settlement in settlements[TABLET]:
        hands = {s["seat"]: s["hand"] for s in settlement["seats"]}
        assert all(hands[s] for s in (2, 3)) and (hands[4] is not None) == (procedure == "server")


# Bettor ids no person could mistake for another field's value in the JSON.
BETTORS = ("BL-Alpha-7", "BL-Bravo-9")


def backline_round() -> list[dict]:
    """Worked example E's round with two bettors behind seat 2, a fee schedule (the round's
    fee lines name the bettors too), and a third bettor placed and withdrawn."""
    return [
        {"type": "sit", "seat": 1, "player": "P-1"},
        {"type": "sit", "seat": 2, "player": "P-2"},
        {"type": "offer_bank", "seat": 1},
        {"type": "accept_bank", "seat": 1},
        {"type": "open_round", "bank": 10000},
        {"type": "wager", "seat": 2, "ante": 1000},
        {"type": "backline_wager", "seat": 2, "bettor": BETTORS[0], "ante": 500, "trips": 500},
        {"type": "backline_wager", "seat": 2, "bettor": "BL-Gone-3", "ante": 700},
        {"type": "backline_withdraw", "seat": 2, "bettor": "BL-Gone-3"},
        {"type": "backline_wager", "seat": 2, "bettor": BETTORS[1], "ante": 2000},
        {"type": "no_more_bets"},
        {"type": "play", "seat": 2, "multiple": 4},
        {"type": "flop", "cards": ["2h", "7h", "9h"]},
        {"type": "turn_river", "cards": ["Kc", "4d"]},
        {"type": "showdown", "player_dealer": ["Ks", "3c"], "hands": {"2": ["Ah", "5h"]}},
        {"type": "settle"},
    ]


def test_the_live_view_counts_a_seats_backlines_and_their_amounts_but_never_names_a_bettor():
    """game-rules 12 on the screens: the live view (snapshot and every event, settlement
    lines and nets included) sees how many bettors stand behind seat 2, their wagers, and
    their lines told apart by place; never a bettor's id. The tablet sees the ids."""
    from tests.engine.helpers import ONE_RATE_FEES

    game = new_game(6, paytable="UTH-01", backline={"max_per_seat": 2, "trips": True}, fee_schedule=ONE_RATE_FEES)
    seen = {"behind": [], "settled": None, "tablet_bettors": set()}
    for version, command in enumerate(backline_round(), start=1):
        game, result, _ = game.apply(command)
        whole = full_snapshot(game, version)
        message = {"seq": version, "command_type": command["type"], "result": result, "snapshot": whole}
        live = event_for(message, LIVE)
        text = json.dumps([live, snapshot_for(whole, LIVE)])
        assert not any(b in text for b in (*BETTORS, "BL-Gone-3")), (command, text)
        tablet = event_for(message, TABLET)
        seen["tablet_bettors"] |= {b["bettor"] for s in tablet["snapshot"]["view"]["seats"] for b in s["backlines"]}
        if command["type"] == "play":
            seen["behind"] = live["snapshot"]["view"]["seats"][1]["backlines"]
        if command["type"] == "settle":
            seen["settled"] = live["result"]
    # How many, and each one's amounts (the Play taken with the seat's: 4x each Ante).
    assert seen["behind"] == [
        {"seat": 2, "behind": 1, "ante": 500, "blind": 500, "trips": 500, "play": 2000, "folded": False},
        {"seat": 2, "behind": 2, "ante": 2000, "blind": 2000, "trips": 0, "play": 8000, "folded": False},
    ]
    assert seen["tablet_bettors"] == {*BETTORS, "BL-Gone-3"}
    settled = seen["settled"]
    assert [(line["seat"], line.get("behind"), line["wager"]) for line in settled["lines"]][3:] == [
        (2, 1, "ante"), (2, 1, "play"), (2, 1, "blind"), (2, 1, "trips"), (2, 2, "ante"), (2, 2, "play"), (2, 2, "blind"),
    ]
    assert settled["backline"] == [{"seat": 2, "behind": 1, "net": 3500}, {"seat": 2, "behind": 2, "net": 0}]


def test_a_seats_withdrawal_tells_the_live_view_how_many_backlines_went_back_not_whose():
    game = new_game(6, backline={"max_per_seat": 2})
    for command in backline_round()[:6]:
        game, _, _ = game.apply(command)
    game, _, _ = game.apply({"type": "backline_wager", "seat": 2, "bettor": BETTORS[0], "ante": 500})
    game, result, _ = game.apply({"type": "withdraw", "seat": 2})
    message = {"seq": 8, "command_type": "withdraw", "result": result, "snapshot": full_snapshot(game, 8)}
    assert event_for(message, TABLET)["result"]["backline_returned"] == [BETTORS[0]]
    live = event_for(message, LIVE)
    assert live["result"]["backline_returned"] == 1 and BETTORS[0] not in json.dumps(live)
