"""The tablet's screen hints: display data for the tablet, the live view and the floor,
derived from the engine's state (next step, who owes a decision, which cards are used,
the settlement a showdown would make), so the browser code only draws it.

Pure, like the rest of the engine: no Django, no database. What it needs from outside
(the progressive meter's fund at a showdown) is passed in as plain data. A hint is never a
rule: where it needs one it asks the engine (TableGame), and a command the hint allows may
still be refused.
"""

from .config import TableConfig, play_amount
from .dealing import cards_needed
from .sidebets import Fund, awaiting_confirmation
from .table import TableGame


def table_view(state: dict, fund: Fund | None = None, withheld: list[int] | tuple = ()) -> dict:
    """Display data for the tablet, the live view and the floor, from the engine state
    (and, at a showdown with a progressive, its meter's `fund` and the seats whose award
    will be `withheld`)."""
    game = TableGame.from_dict(state)
    rot, rnd = game.rotation, game.round
    phase = game.phase
    seats = [_seat_view(game, n) for n in range(1, game.config.seats + 1)]
    pending = [s["seat"] for s in seats if s["owes"]]
    preview, bank_left = bank_now(game, fund, withheld)
    return {
        "phase": phase,
        "seats": seats,
        "pending": pending,
        "next": _awards_to_confirm(game, preview) or _next_step(game, pending),
        "eligible_to_bank": [n for n, p in sorted(game.occupants.items()) if rot.eligible(p)],
        "consecutive_banks": rot.pd_streak,
        "bank_run": bank_run(game),
        "used_cards": sorted(rnd.known_cards()) if rnd else [],
        "picker": _picker(game, pending),
        "bank_left": bank_left,
        "settlement_preview": preview,
        **_policy_view(game),
    }


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def bank_run(game: TableGame) -> dict | None:
    """Which bank in a row this is for the player-dealer, against the limit they bank
    under: during a round the round being banked ("2nd of 2" during the second straight
    bank; `pd_streak` counts settled rounds only, so it is one short then), between rounds
    the next one they would bank, or the last one when they are at the limit."""
    rot = game.rotation
    if rot.pd_player is None:
        return None
    banked = rot.pd_streak
    n = banked if game.round is None and rot.pd_at_limit else banked + 1
    limit = rot.limit_for(rot.pd_player)
    return {"bank": n, "of": limit, "text": f"{ordinal(n)} of {limit}"}


def _policy_view(game: TableGame) -> dict:
    """The rotation policy's facts for the screens (game-rules 2A): whether it is on, the
    table's posted notice, whether the game has ended, and the window's deadline."""
    deadline = game.window_deadline()
    return {
        "rotation_policy": game.policy.to_config() if game.policy else None,
        "notice": game.config.notice,
        "game_ended": game.clock.ended,
        "window_deadline": deadline.isoformat() if deadline else None,
    }


def bank_now(game: TableGame, fund: Fund | None = None, withheld: list[int] | tuple = ()) -> tuple[dict | None, int | None]:
    """At showdown, the settlement its cards give; and the bank left: what that settlement
    leaves at showdown, else the bank the round opened with (None between rounds)."""
    rnd = game.round
    preview = game.settlement_preview(fund, withheld)
    return preview, (preview["balance"] if preview else rnd.bank) if rnd else None


def _seat_view(game: TableGame, n: int) -> dict:
    rnd, rot = game.round, game.rotation
    player = game.occupants.get(n)
    entry = rnd.seats.get(n) if rnd else None
    if player is None:
        role = None
    elif n == (rnd.pd_seat if rnd else rot.pd_seat):
        role = "player_dealer"
    else:
        role = "player"
    owes = game.owes_decision(n)
    # Before `deal` a pre-flop decision is taken only once the dealer says the cards were
    # dealt by hand (`deal_by_hand`): `owes_now` is a decision owed with the cards out.
    owes_now = owes and not rnd.can_deal
    play_amounts = {}
    # Command templates the tablet offers at this seat; the service has the last word.
    if player is None:
        actions = [{"type": "sit"}]
    elif rnd is None:
        actions = [{"type": "leave"}]
    elif role == "player" and rnd.phase == "betting":
        actions = [{"type": "wager"}] + ([{"type": "withdraw"}] if entry else [{"type": "leave"}])
        offer = game.config.backline
        # A backline goes behind a player's wager, up to the table's most per seat (game-rules 12).
        if offer is not None and entry is not None and len(rnd.behind(n)) < offer.max_per_seat:
            actions.append({"type": "backline_wager", "trips": offer.trips})
    elif role == "player" and entry is None:
        actions = [{"type": "leave"}]
    else:
        actions = game.decisions_offered() if owes else []
        # What each offered Play would wager, by multiple (the engine's rule), for the label.
        play_amounts = {str(a["multiple"]): play_amount(a["multiple"], entry.ante) for a in actions if a["type"] == "play"}
    return {
        "seat": n,
        "player": player,
        "role": role,
        "offered": rot.offer_seat == n,
        "wager": (
            {
                "ante": entry.ante,
                "blind": entry.blind,
                "trips": entry.trips,
                "bad_beat": entry.bad_beat,
                "pairs": entry.pairs,
                "progressive": entry.progressive,
                "play": entry.play,
                "checked": list(entry.checked),
                "folded": entry.folded,
                "hole": entry.hole,
            }
            if entry
            else None
        ),
        # The backline wagers behind the seat, in the order first placed (game-rules 12). The
        # tablet gets each bettor's id; rounds.visibility takes it out of the live view.
        "backlines": [
            {"seat": n, "bettor": b.bettor, "ante": b.ante, "blind": b.blind, "trips": b.trips, "play": b.play,
             "folded": b.folded}
            for b in rnd.behind(n)
        ] if entry else [],
        "owes": owes,
        "owes_now": owes_now,
        "tppp": game.tppp.badge if game.tppp and game.tppp.seat == n else None,  # the badge shown at the seat
        "actions": actions,
        "play_amounts": play_amounts,
    }


def _next_step(game: TableGame, pending: list[int]) -> dict:
    """The one obvious thing for the dealer to do now: `step` names it, `commands` are
    the command templates the tablet offers for it (the service still decides)."""
    rot, rnd = game.rotation, game.round
    if rnd is None:
        if rot.offer_seat is not None:
            seat = rot.offer_seat
            # Every seat to ask, in order (the current player-dealer last under the
            # policy); "everyone else declines" is one command, each answer its own row.
            walk = rot.walk(game.occupants, game.config.seats)
            return {
                "step": "offer",
                "seat": seat,
                "walk": walk,
                "commands": [{"type": "accept_bank", "seat": seat}, {"type": "decline_bank", "seat": seat}],
                "everyone_declines": {"type": "decline_bank", "seats": walk} if len(walk) > 1 else None,
            }
        if game.clock.ended:
            return {"step": "game_ended", "commands": [{"type": "start_game"}]}
        if rot.pd_seat is None:
            return {"step": "stopped" if rot.stopped else "choose_player_dealer", "commands": [{"type": "offer_bank"}]}
        if not game.has_players_besides_pd:
            return {"step": "wait_for_players", "commands": [{"type": "sit"}]}
        return {"step": "open_round", "commands": [{"type": "open_round"}, {"type": "pass_bank"}]}
    if rnd.phase == "betting":
        if not rnd.seats:
            return {"step": "take_wagers", "commands": [{"type": "wager"}]}
        return {"step": "no_more_bets", "commands": [{"type": "no_more_bets"}]}
    if rnd.can_deal:
        # Either the software shuffles or a shuffler's sequence is entered, or the cards
        # are dealt by hand and entered as they are revealed (docs/commands.md, `deal`).
        return {"step": "deal", "commands": [{"type": "deal"}, {"type": "deal_by_hand"}], "pending": pending, "cards": cards_needed(len(rnd.seats))}
    if pending:
        decisions = {"step": "decisions", "pending": pending, "commands": []}
        if {"type": "check"} in game.decisions_offered():
            # Everyone still to decide may check on this street: one tap for all of them.
            decisions["check_all"] = [{"type": "check", "seat": seat} for seat in pending]
        return decisions
    advance = game.advance_command()
    return {"step": advance, "commands": [{"type": advance}]}


def _awards_to_confirm(game: TableGame, preview: dict | None) -> dict | None:
    """At showdown, the percentage progressive awards a supervisor must confirm before
    the round settles (game-rules 10.3): the step that comes before `settle`."""
    awards = unconfirmed_awards(game, preview)
    if not awards:
        return None
    return {
        "step": "confirm_award",
        "awards": awards,
        "commands": [{"type": "confirm_award", "seat": a["seat"]} for a in awards],
    }


def unconfirmed_awards(game: TableGame, preview: dict | None) -> list[dict]:
    """The preview's percentage awards not yet confirmed (the engine says which are)."""
    progressive = game.config.side_bets.progressive
    if progressive is None or not preview:
        return []
    return awaiting_confirmation(progressive, preview.get("progressive", []))


def _picker(game: TableGame, pending: list[int]) -> dict | None:
    """What the card picker must collect for the next reveal (none when dealt)."""
    rnd = game.round
    if rnd is None or rnd.dealt or pending:
        return None
    due = game.reveal_due()
    if due is not None:
        command, count = due
        return {"command": command, "count": count}
    if rnd.phase in ("river", "showdown"):
        return {"command": "showdown", "hands": ["player_dealer", *rnd.showdown_seats()]}
    return None


# --- what is posted at the table ----------------------------------------------------------

# Chip presets for the Ante, as multiples of the table minimum (within the maximum).
_PRESET_MULTIPLES = (1, 2, 5, 10, 20, 50)
_DEFAULT_MINIMUM = 500  # a table with no posted minimum: presets from $5


def posted_rules(config: dict) -> dict:
    """The table's limits, pay table, collection schedule and bank rotation as posted at
    the table, from its configuration (the engine's), for the tablet's "Table rules"
    panel; and the Ante presets that panel's limits give the wager step."""
    engine_config = TableConfig.from_config(config)
    limits = engine_config.limits
    paytable = engine_config.paytable
    schedule = engine_config.fee_schedule
    low = limits.ante_min or _DEFAULT_MINIMUM
    # Without a posted minimum, a maximum below the default one leaves that maximum alone.
    presets = [low * m for m in _PRESET_MULTIPLES if limits.ante_max is None or low * m <= limits.ante_max]
    presets = presets or [limits.ante_max]
    return {
        "limits": {"ante_min": limits.ante_min, "ante_max": limits.ante_max,
                   "trips_min": limits.trips_min, "trips_max": limits.trips_max},
        "paytable": {"name": paytable.name, "blind": _pays(paytable.blind), "trips": _pays(paytable.trips)},
        "fees": (
            {"payers": schedule.payers, "player_basis": schedule.player_basis, "pd_basis": schedule.pd_basis,
             "rates": [{"min": r.min, "max": r.max, "player_fee": r.player_fee, "pd_fee": r.pd_fee} for r in schedule.rates]}
            if schedule else None
        ),
        "max_consecutive_banks": engine_config.max_consecutive_banks,
        "ante_presets": presets,
        # The side bets offered, their pay tables and limits (game-rules 10), or None.
        "side_bets": engine_config.side_bets.to_config(),
    }


def _pays(odds: dict) -> list[dict]:
    return [{"hand": hand, "pays": f"{x} to {y}"} for hand, (x, y) in odds.items()]
