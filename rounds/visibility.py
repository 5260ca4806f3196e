"""Who sees which cards: the one place that decides what of a table leaves the server.

Audiences:
* TABLET, the dealer's tablet, for a person who may drive the table (cardroom.access
  .can_drive): the board as revealed, and every hole card dealt or entered (the dealer
  deals the hands and enters them at the showdown).
* LIVE, the read-only live view, and whoever asks without being allowed to drive: the
  board as revealed; hole cards at the showdown only, of the hands the showdown turns
  over (the player-dealer's, every player who did not fold, a folded player with Trips,
  Pairs or the progressive:
  rounds.engine.state.RoundState.showdown_seats); a folded hand otherwise stays mucked.
* The floor's rows carry no card at all (tables.floor.floor_rows).

The table's third-party proposition player (game-rules 2A.5): the live view gets the seat
and the badge the table shows, not the licence (company, expiry), which is the tablet's
and the compliance pages'.

A settlement (the showdown's preview, the showdown's and settle's answers) names each
seat's hand; the live view gets the hands of the seats the showdown turns over (its
`shown`), not the category of a mucked hand.

No audience gets the board the software dealt and has not revealed yet
(`pending_community`): with a server shuffle it is the future flop, turn and river.

The records of a round (the compliance pages' round detail, the round export): read away
from the table, they show an unfinished round's cards as the live view does, whoever
reads them (a supervisor who may drive the table sees its hole cards on the tablet, not
in the records); a settled or voided round's records show every card
(withheld_from_records).

Backline wagers (game-rules 12): the tablet names each bettor; the live view (and the
floor, tables.floor.floor_rows) sees how many bettors stand behind a seat and their
wagers and lines, never a bettor's id. Each is told apart by its place behind the seat
(`behind`: 1 for the first placed), wherever the tablet's copy names a bettor: the round's
backlines and fees, the seats' view, a settlement's lines and nets, an event's result.

A snapshot is built once, whole (tables.selectors.server_snapshot), and cut down here for
each audience. The publisher sends one message per event to a table's group, and each
socket cuts it for its own audience before sending (web.tables.consumers), so an event costs
one snapshot whatever the number and kinds of viewers.

It lives in `rounds`, below the back office (collections_fees) and the tables app, so
that the live side and the records (which must redact unfinished rounds too) ask the same
module, and neither layer reaches up for it.
"""

from cardroom.access import Actor, can_drive
from rounds.engine.state import SeatInRound

TABLET = "tablet"
LIVE = "live"
AUDIENCES = (TABLET, LIVE)


def audience_of(actor: Actor, table_id: int, *, asks_tablet: bool) -> str:
    """The tablet's view for someone who asks for it and may drive the table; else live."""
    return TABLET if asks_tablet and can_drive(actor, table_id) else LIVE


def _hole_shown(audience: str, phase: str, turned_over: bool) -> bool:
    if audience == TABLET:
        return True
    if audience == LIVE:
        return phase == "showdown" and turned_over
    raise ValueError(f"unknown audience {audience!r}")


def hidden_cards(game: dict, audience: str) -> set[str]:
    """The cards of the engine state `game` (TableGame.to_dict) that `audience` may not see."""
    if audience not in AUDIENCES:
        raise ValueError(f"unknown audience {audience!r}")
    rnd = game["round"]
    if rnd is None:
        return set()
    hidden = set(rnd["pending_community"])
    phase = rnd["phase"]
    for seat in rnd["seats"].values():
        # The hands the showdown turns over: the engine's rule (RoundState.showdown_seats).
        if not _hole_shown(audience, phase, turned_over=SeatInRound(**seat).turned_over_at_showdown):
            hidden.update(seat["hole"] or ())
    if not _hole_shown(audience, phase, turned_over=True):
        hidden.update(rnd["pd_hole"] or ())
    return hidden


# The round statuses (rounds.models.Round) after which a round's records show every card.
FINISHED = ("settled", "voided")


def withheld_from_records(status: str, game: dict | None, number: int) -> set[str] | None:
    """The cards round `number` (its recorded `status`) may not show in its records, judged
    on its table's state `game` (Table.state): none once it is settled or voided; while it
    is in play, what the live view hides. None (every card withheld) when the table's
    state is not at that round: a record that cannot be judged shows no card."""
    if status in FINISHED:
        return set()
    rnd = (game or {}).get("round")
    if rnd is None or rnd.get("number") != number:
        return None
    return hidden_cards(game, LIVE)


def _mask(cards: list | None, hidden: set[str]) -> list | None:
    # A hidden card stays a place (None): the screens draw its back.
    return [None if c in hidden else c for c in cards] if cards else cards


def snapshot_for(snapshot: dict, audience: str) -> dict:
    """`snapshot` (tables.selectors.server_snapshot) as `audience` may see it. The input is
    not changed: one snapshot is cut for several audiences."""
    shown = _snapshot_cards_for(snapshot, audience)
    if audience != TABLET and "last_wagers" in shown:
        # Last round's wagers are the dealer's "Same bets as last round", not the live view's.
        shown = {key: value for key, value in shown.items() if key != "last_wagers"}
    return shown if audience == TABLET or not _offers_backline(snapshot) else _without_bettors(shown, {})


def _offers_backline(snapshot: dict) -> bool:
    """Bettors exist only at a table that offers backline: elsewhere the live view's cut
    skips the walk through every field (about 17 times the cost of the cards' cut)."""
    return bool(((snapshot.get("game") or {}).get("config") or {}).get("backline"))


def _without_bettors(value, places: dict):
    """`value` with every backline bettor's id replaced by its place behind its seat
    (`behind`), for the live view. `places` ((seat, bettor) -> place) is filled in the
    order the bettors are met: a round's backlines, and a settlement's lines, come in the
    order the wagers were first placed, so one snapshot numbers each bettor once and alike.
    A line naming a `bettor` (a wager's, a fee's) has the bettor as its `player` too: both go."""
    if isinstance(value, list):
        return [_without_bettors(item, places) for item in value]
    if not isinstance(value, dict):
        return value
    bettor = value.get("bettor")
    out = {key: _without_bettors(item, places) for key, item in value.items() if key != "bettor"}
    if bettor:
        seat = value.get("seat")
        behind = places.setdefault((seat, bettor), 1 + sum(1 for s, _ in places if s == seat))
        out["behind"] = behind
        if out.get("player") == bettor:
            del out["player"]
    # The withdrawn seat's bettors handed back (the `withdraw` answer): how many, not who.
    if "backline_returned" in out:
        out["backline_returned"] = len(value["backline_returned"])
    return out


def _snapshot_cards_for(snapshot: dict, audience: str) -> dict:
    game = _tppp_for(snapshot["game"], audience)
    hidden = hidden_cards(game, audience)
    rnd = game["round"]
    if rnd is None:
        return {**snapshot, "game": game}  # between rounds no card is in play
    shown_round = {key: value for key, value in rnd.items() if key != "pending_community"}
    shown_round["pd_hole"] = _mask(rnd["pd_hole"], hidden)
    shown_round["seats"] = {n: {**seat, "hole": _mask(seat["hole"], hidden)} for n, seat in rnd["seats"].items()}
    view = snapshot["view"]
    shown_view = {
        **view,
        "settlement_preview": _settlement_for(view["settlement_preview"], audience),
        "used_cards": [c for c in view["used_cards"] if c not in hidden],
        "seats": [
            {**seat, "wager": {**seat["wager"], "hole": _mask(seat["wager"]["hole"], hidden)}} if seat["wager"] else seat
            for seat in view["seats"]
        ],
    }
    return {**snapshot, "game": {**game, "round": shown_round}, "view": shown_view}


# What the live view may know of the table's TPPP: the badge shown at the seat.
_TPPP_SHOWN_LIVE = ("seat", "player", "badge")


def _tppp_for(game: dict, audience: str) -> dict:
    tppp = game.get("tppp")
    if audience == TABLET or not tppp:
        return game
    return {**game, "tppp": {key: tppp[key] for key in _TPPP_SHOWN_LIVE}}


def _settlement_for(settlement: dict | None, audience: str) -> dict | None:
    """A settlement as `audience` may see it: a mucked hand's category stays mucked."""
    if not settlement or audience == TABLET:
        return settlement
    # An answer stored before `shown` was recorded: the hands of the seats that did not fold.
    shown = set(settlement.get("shown") or (s["seat"] for s in settlement["seats"] if not s.get("folded")))
    return {**settlement, "seats": [s if s["seat"] in shown else {**s, "hand": None} for s in settlement["seats"]]}


def event_for(message: dict, audience: str) -> dict:
    """A table event (tables.events.TableChanged, as the group received it) as `audience`
    may see it: its snapshot, the hands in a `deal` result, and a settlement's mucked hands."""
    snapshot = message["snapshot"]
    result = message["result"]
    if message["command_type"] == "deal" and result.get("ok"):
        hidden = hidden_cards(snapshot["game"], audience)
        result = {
            **result,
            "hands": {seat: _mask(cards, hidden) for seat, cards in result.get("hands", {}).items()},
            "player_dealer": _mask(result.get("player_dealer"), hidden),
        }
    if message["command_type"] in ("showdown", "settle") and result.get("ok"):
        result = _settlement_for(result, audience)
    if audience != TABLET and _offers_backline(snapshot):
        # Numbered as the snapshot numbers them: the round's backlines first, as placed.
        places: dict = {}
        _without_bettors(((snapshot["game"] or {}).get("round") or {}).get("backlines", []), places)
        result = _without_bettors(result, places)
    return {
        "type": "event",
        "seq": message["seq"],
        "command_type": message["command_type"],
        "result": result,
        "snapshot": snapshot_for(snapshot, audience),
    }
