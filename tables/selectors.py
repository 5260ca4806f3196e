"""Reads: what clients are shown. Writes are in tables/services.py.

The live screens draw from `table_snapshot`; `view` in it is display data derived from
the rules engine's state here in Python (next step, who owes a decision, which cards are
used), so the browser code only draws it. The engine decides everything: a hint here is
never a rule, and a command the hint allows may still be refused.
"""

import threading
import time
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, OuterRef, Q, Subquery, Sum
from django.utils import timezone

from cardroom.gaming_day import calendar
from collections_fees import jackpot
from collections_fees.counts import boxes_now
from collections_fees.models import CollectionEntry, JackpotMeter
from collections_fees.templatetags.compliance import dollars
from rounds.engine.dealing import cards_needed
from rounds.engine.errors import CommandError
from rounds.engine.sidebets import awaiting_confirmation
from rounds.engine.table import (
    PLAY_MULTIPLES,
    REVEALS,
    STREET_ACTIONS,
    STREETS,
    TableConfig,
    TableGame,
    play_amount,
)
from rounds import labels
from rounds.models import Round

from . import presence
from .models import (
    AlertAcknowledgement,
    Approval,
    DealerAssignment,
    Table,
    TableEvent,
    TableStatusChange,
    void_request_expired,
)
from .visibility import snapshot_for

# A table with players seated and no command for this long is flagged idle on the floor.
IDLE_AFTER = timedelta(minutes=10)


def table_snapshot(table: Table, audience: str) -> dict:
    """What a client of `audience` (tables.visibility) needs to draw the table, with the
    version (event seq) it shows."""
    return snapshot_for(server_snapshot(table), audience)


def server_snapshot(table: Table) -> dict:
    """The whole snapshot, undealt cards and every hole card included: for the server's own
    messages only (the publisher's group message), never sent to a client as it is."""
    return {
        "table": table.pk,
        "name": table.name,
        "version": table.version,
        "game": table.state,
        "view": table_view(table.state, fund=_fund_for_preview(table.state)),
        # The drop boxes on the table now (collections_fees/counts.py), for the tablet's bar.
        "boxes": boxes_now([table])[table.pk],
        "void_request": pending_void(table),
    }


def pending_void(table: Table) -> dict | None:
    """The void asked for the round in progress and not yet decided: part of the table's
    state, so every browser of the table shows it (and none offers to ask again)."""
    current = (table.state.get("round") or {}).get("number")
    if current is None:
        return None
    request = (
        Approval.objects.filter(table=table, kind="void", round_number=current, decision__isnull=True)
        .select_related("requested_by").order_by("pk").first()
    )
    if request is None:
        return None
    return {"approval": request.pk, "round": current, "requested_by": request.requested_by.username,
            "reason": request.payload.get("reason", "")}


def _fund_for_preview(state: dict):
    """The progressive's meter as it stands, for the showdown's preview of its awards (an
    unlocked read: the preview is redrawn after every command); None when not needed."""
    progressive = ((state.get("config") or {}).get("side_bets") or {}).get("progressive")
    if progressive is None or (state.get("round") or {}).get("phase") != "showdown":
        return None
    meter = JackpotMeter.objects.filter(name=progressive["meter"]["name"]).first()
    return jackpot.fund_of(meter) if meter else None


# --- the table as the dealer sees it ---------------------------------------------------

def _decision_templates(street: str) -> list[dict]:
    """The decision commands the engine allows on a street, one per Play multiple."""
    templates = []
    for action, streets in STREET_ACTIONS.items():
        if street in streets:
            if action == "play":
                templates += [{"type": "play", "multiple": m} for m in PLAY_MULTIPLES[street]]
            else:
                templates.append({"type": action})
    return templates


_DECISIONS = {street: _decision_templates(street) for street in STREETS}
# The command that moves the round on from each phase once no decision is pending.
_ADVANCE = {**{reveal.street: command for command, reveal in REVEALS.items()}, "river": "showdown", "showdown": "settle"}


def table_view(state: dict, fund=None) -> dict:
    """Display data for the tablet, the live view and the floor, from the engine state
    (and, at a showdown with a progressive, its meter's `fund`)."""
    game = TableGame.from_dict(state)
    rot, rnd = game.rotation, game.round
    phase = game.phase
    seats = [_seat_view(game, n) for n in range(1, game.config.seats + 1)]
    pending = [s["seat"] for s in seats if s["owes"]]
    preview, bank_left = _bank_now(game, fund)
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
    limit = 1 if rot.pd_player == rot.one_round else rot.limit
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


def _bank_now(game: TableGame, fund=None) -> tuple[dict | None, int | None]:
    """At showdown, the settlement its cards give; and the bank left: what that settlement
    leaves at showdown, else the bank the round opened with (None between rounds)."""
    rnd = game.round
    preview = _settlement_preview(game, fund) if game.phase == "showdown" else None
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
    owes = bool(entry and rnd.phase in _DECISIONS and entry.owes_decision(rnd.phase))
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
        actions = _DECISIONS[rnd.phase] if owes else []
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
        # tablet gets each bettor's id; tables.visibility takes it out of the live view.
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
        if rnd.phase in STREET_ACTIONS["check"]:
            # Everyone still to decide may check on this street: one tap for all of them.
            decisions["check_all"] = [{"type": "check", "seat": seat} for seat in pending]
        return decisions
    advance = _ADVANCE[rnd.phase]
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
    for command, reveal in REVEALS.items():
        if rnd.phase == reveal.street:
            return {"command": command, "count": reveal.count}
    if rnd.phase in ("river", "showdown"):
        return {"command": "showdown", "hands": ["player_dealer", *rnd.showdown_seats()]}
    return None


def _settlement_preview(game: TableGame, fund=None) -> dict | None:
    """The settlement the engine would make now, asked of the engine itself: a showdown
    with the cards already recorded (applied to a copy; nothing is changed)."""
    rnd = game.round
    command = {"type": "showdown"}
    if not rnd.dealt:
        command["player_dealer"] = rnd.pd_hole
        command["hands"] = {str(s.seat): s.hole for s in rnd.seats.values() if s.hole}
    if fund is None and game.needs_fund(command):
        return None  # no meter to preview the progressive on
    from patrons.awards import withheld_seats  # the layer above: the self-exclusion lists

    withheld = withheld_seats(game, "showdown")
    if withheld:  # the preview withholds what the settle will (tables/services.py _patron_gate)
        command["withheld"] = withheld
    try:
        _, result, _ = game.apply(command, fund=fund)
    except CommandError:
        return None
    return result


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


# --- the floor ---------------------------------------------------------------------------


# Every floor screen asks for the whole floor on connect, at its periodic refresh and when
# it falls behind. 40 screens asking at once read the 250 rows 40 times: over a third of a
# Daphne process's time at peak (benchmarks/bench_e2e.py). One read serves every screen of
# the process that asks within WHOLE_FLOOR_MAX_AGE; a client keeps the highest seq per
# table, so a row a moment old never replaces a newer one.
WHOLE_FLOOR_MAX_AGE = 1.0
_whole_floor_lock = threading.Lock()
_whole_floor: tuple[float, list[dict]] = (float("-inf"), [])


def whole_floor() -> list[dict]:
    """Every table's floor row, read at most once per WHOLE_FLOOR_MAX_AGE per process."""
    global _whole_floor
    with _whole_floor_lock:
        read_at, rows = _whole_floor
        if time.monotonic() - read_at > WHOLE_FLOOR_MAX_AGE:
            rows = floor_rows()
            _whole_floor = (time.monotonic(), rows)
        return rows


def forget_whole_floor() -> None:
    """A table changed (this process's publisher saw it): the next screen reads afresh."""
    global _whole_floor
    with _whole_floor_lock:
        _whole_floor = (float("-inf"), [])


def floor_rows(table_ids: list[int] | None = None, *, now: datetime | None = None) -> list[dict]:
    """One row per table for the floor dashboard (all tables when `table_ids` is None).

    A fixed number of queries whatever the number of tables: the coalescer in
    tables/events.py calls this for every table that changed in a window.
    """
    now = now or timezone.now()
    today = calendar().gaming_day(now)
    day_start, _ = calendar().day_bounds(today)
    closed = Round.objects.filter(table=OuterRef("pk")).exclude(status="in_progress").order_by("-number")
    last_event = TableEvent.objects.filter(table=OuterRef("pk"), seq=OuterRef("version"))
    tables = Table.objects.order_by("name", "pk").only("pk", "name", "version", "state", "is_open", "boxes_placed", "retired")
    if table_ids is not None:
        # A table retired meanwhile is still answered for (`retired`): the screens drop it.
        tables = tables.filter(pk__in=table_ids)
    else:
        tables = tables.filter(retired=False)  # a retired table is not on the floor
    tables = list(
        tables.annotate(
            last_command=Subquery(last_event.values("command_type")[:1]),
            last_event_at=Subquery(last_event.values("created_at")[:1]),
            last_round=Subquery(closed.values("number")[:1]),
            last_round_status=Subquery(closed.values("status")[:1]),
            last_round_exhausted=Subquery(closed.values("exhausted")[:1]),
            last_void=Subquery(closed.filter(status="voided").values("void_reason")[:1]),
        )
    )
    ids = [t.pk for t in tables]
    fees = dict(
        CollectionEntry.objects.filter(table_id__in=ids, gaming_day=today)
        .values("table_id")
        .annotate(
            net=Sum("amount", filter=Q(kind="fee"), default=0) - Sum("amount", filter=Q(kind="refund"), default=0)
        )
        .values_list("table_id", "net")
    )
    rounds = {
        r["table_id"]: r
        for r in Round.objects.filter(table_id__in=ids)
        .values("table_id")
        .annotate(
            last_hour=Count("pk", filter=Q(status="settled", closed_at__gte=now - timedelta(hours=1))),
            voids_today=Count("pk", filter=Q(status="voided", closed_at__gte=day_start)),
        )
    }
    tablets = presence.tablets_connected(ids)
    # A tablet is missed only where a dealer is assigned now (the assignments can_drive reads).
    staffed = set(
        DealerAssignment.objects.filter(
            table_id__in=ids, gaming_day=today, shift=calendar().shift(now), ended_at__isnull=True
        ).values_list("table_id", flat=True)
    )
    # The last time a supervisor opened, closed or retired each table: who, when, why.
    status = {
        change["table_id"]: {"action": change["action"], "by": change["by"], "at": change["at"].isoformat(),
                             "reason": change["reason"]}
        for change in TableStatusChange.objects.filter(table_id__in=ids)
        .order_by("table_id", "-at", "-id").distinct("table_id")
        .values("table_id", "action", "by", "at", "reason")
    }
    failing = presence.commands_failing(ids)
    acks = {}
    for ack in AlertAcknowledgement.objects.filter(table_id__in=ids, acknowledged_at__gte=day_start).values(
        "table_id", "kind", "ref", "acknowledged_by__username", "acknowledged_at"
    ):
        acks[(ack["table_id"], ack["kind"], ack["ref"])] = {
            "by": ack["acknowledged_by__username"], "at": ack["acknowledged_at"].isoformat()
        }
    boxes = boxes_now(tables, now)
    waiting = {}
    for request in Approval.objects.filter(table_id__in=ids, decision__isnull=True).values("table_id", "kind", "round_number"):
        waiting.setdefault(request["table_id"], []).append(request)
    meter_names = {_meter_name(t.state) for t in tables} - {None}
    meters = {m.name: m for m in JackpotMeter.objects.filter(name__in=meter_names)} if meter_names else {}
    rows = [
        _floor_row(
            t, now, fees.get(t.pk, 0), rounds.get(t.pk, {}), tablets[t.pk], failing.get(t.pk), waiting.get(t.pk, []),
            meters.get(_meter_name(t.state)),
            boxes[t.pk], t.pk in staffed,
        )
        for t in tables
    ]
    for row, t in zip(rows, tables):
        row["status_change"] = status.get(t.pk)
        row["retired"] = t.retired
    for row in rows:
        for alert in row["alerts"]:
            alert["ack"] = acks.get((row["table"], alert["kind"], alert["ref"]))
    return rows


def _alert_refs(alerts: list[dict], seq: int, last_event_at) -> list[dict]:
    """Each alert's identity (its `ref`), by which an acknowledgement names it: its text
    where the text tells one occurrence from the next (a round number, a count), else the
    table's version while it stands (a tablet gone again later is a new alert; a failing
    tablet's growing count of retries is not)."""
    for alert in alerts:
        if alert["kind"] in (
            "tablet_disconnected", "commands_failing", "stopped", "offer_pending", "game_ended", "window_warning", "meter_below_seed",
        ):
            alert["ref"] = f"{alert['kind']} @ {seq}"
        elif alert["kind"] == "idle":
            alert["ref"] = f"idle since {last_event_at.isoformat()}"
        else:
            alert["ref"] = alert["text"]
    return alerts


def floor_state(is_open: bool, game: TableGame) -> str:
    """The table's state as the floor colours it."""
    if not is_open:
        return "closed"
    if game.round is not None:
        return "dealing"
    if game.rotation.stopped or (game.policy is not None and game.clock.ended):
        return "stopped"
    if game.rotation.pd_seat is None:
        return "no_player_dealer"
    return "waiting"


def _meter_name(state: dict) -> str | None:
    """The progressive meter a table's configuration names, if any."""
    progressive = ((state.get("config") or {}).get("side_bets") or {}).get("progressive")
    return progressive["meter"]["name"] if progressive else None


def _meter_alerts(game: TableGame, meter, preview: dict | None) -> list[dict]:
    """A percentage award waiting for a supervisor, a meter below its seed (a reseed the
    reserve could not cover), and awards the fund could not pay (game-rules 10.3)."""
    alerts = []
    for award in unconfirmed_awards(game, preview):
        alerts.append({"kind": "award_unconfirmed", "seat": award["seat"],
                       "text": f"Progressive award at seat {award['seat']} waits for a supervisor's confirmation",
                       # What the supervisor confirms, read before the one tap that pays it.
                       "award": _award_facts(game, award)})
    if meter is None:
        return alerts
    seed = game.config.side_bets.progressive.seed
    if meter.meter < seed:
        alerts.append({"kind": "meter_below_seed", "text": f"Meter {meter.name} below its seed ({dollars(meter.meter)}, seed {dollars(seed)})"})
    if meter.owed:
        alerts.append({"kind": "award_owed", "text": f"Meter {meter.name}: {dollars(meter.owed)} of awards owed to players"})
    return alerts


def _award_facts(game: TableGame, award: dict) -> dict:
    """Seat, person, hand, cards and amount of a percentage award waiting for a supervisor."""
    rnd = game.round
    entry = rnd.seats.get(award["seat"])
    return {
        "seat": award["seat"],
        "player": entry.player if entry else "",
        "hand": labels.PROGRESSIVE.get(award["hand"], award["hand"]),
        "hole": list(entry.hole or ()) if entry else [],
        "board": [*rnd.community, *rnd.pending_community],
        "amount": award["award"],
        "meter": game.config.side_bets.progressive.meter,
    }


def _approval_alerts(requests: list[dict], rnd) -> list[dict]:
    """Requests waiting for a supervisor; a void whose round has ended meanwhile is expired
    (tables.approvals.approval_status), to be dismissed, not approved."""
    current = rnd.number if rnd else None
    expired = sum(1 for r in requests if void_request_expired(r["kind"], r["round_number"], current))
    alerts = []
    if len(requests) > expired:
        n = len(requests) - expired
        alerts.append({"kind": "approval_pending", "text": f"{n} approval{'s' if n > 1 else ''} waiting", "count": n})
    if expired:
        alerts.append({"kind": "approval_expired", "text": f"{expired} expired request{'s' if expired > 1 else ''} to dismiss", "count": expired})
    return alerts


def _floor_row(
    table, now, fees_today, rounds, tablets, failing=None, approvals=(), meter=None, boxes=None, staffed=True
) -> dict:
    # The floor needs three facts of the table view, not the view itself (every seat, the
    # next step, the card picker): about half the cost of a row outside the showdown.
    game = TableGame.from_dict(table.state)
    rot, rnd = game.rotation, game.round
    fund = jackpot.fund_of(meter) if meter is not None and game.phase == "showdown" else None
    preview, bank_left = _bank_now(game, fund)
    is_open = table.is_open
    alerts = []
    if table.last_round_status == "settled" and table.last_round_exhausted:
        alerts.append({"kind": "bank_exhausted", "text": f"Bank exhausted in round {table.last_round}"})
    if rot.stopped:
        alerts.append({"kind": "stopped", "text": "Game stopped: no player-dealer"})
    if rot.offer_seat is not None:
        alerts.append({"kind": "offer_pending", "text": f"Bank offered to seat {rot.offer_seat}"})
    if rounds.get("voids_today"):
        alerts.append({"kind": "void", "text": f"{rounds['voids_today']} void(s) today, last: {table.last_void}"})
    # A missing tablet matters where a game is on (an open table with players or a round)
    # and a dealer is assigned now: at a table nobody is to drive, no tablet is expected.
    if is_open and staffed and not tablets and (game.occupants or rnd):
        alerts.append({"kind": "tablet_disconnected", "text": "Tablet disconnected"})
    if failing:
        alerts.append(
            {"kind": "commands_failing", "text": f"Tablet commands failing: {failing['count']} server error(s), tablet retrying"}
        )
    alerts += _approval_alerts(list(approvals), rnd)
    if game.config.side_bets.progressive is not None:
        alerts += _meter_alerts(game, meter, preview)
    window = _window(game, now)
    if window and window["state"] == "ended":
        alerts.append({"kind": "game_ended", "text": "Game ended by the rotation window: a supervisor starts a new game"})
    elif window and window["state"] == "warning":
        minutes = max(0, int((window["deadline_at"] - now).total_seconds() // 60))
        alerts.append({"kind": "window_warning", "text": f"Rotation window: game ends in {minutes} min unless another player banks"})
    last_at = table.last_event_at
    if is_open and last_at is not None and now - last_at >= IDLE_AFTER:
        alerts.append({"kind": "idle", "text": f"Idle for {int((now - last_at).total_seconds() // 60)} min"})
    return {
        "table": table.pk,
        "name": table.name,
        "seq": table.version,
        "open": is_open,
        "street": game.phase,
        "round": rnd.number if rnd else None,
        "player_dealer": (
            {"seat": rot.pd_seat, "player": rot.pd_player, "consecutive_banks": rot.pd_streak,
             "bank_run": bank_run(game)}
            if rot.pd_seat is not None
            else None
        ),
        "bank": rnd.bank if rnd else None,
        "bank_left": bank_left,
        "seated": len(game.occupants),
        "seats": game.config.seats,
        "rounds_per_hour": rounds.get("last_hour", 0),
        "fees_today": fees_today,
        "last_command": table.last_command,
        "last_event_at": last_at.isoformat() if last_at else None,
        "tablets": tablets,
        "state": floor_state(is_open, game),
        "alerts": _alert_refs(alerts, table.version, last_at),
        "meter": {"name": meter.name, "meter": meter.meter, "reserve": meter.reserve} if meter else None,
        "boxes": boxes or {"fees": None, "jackpot": None},  # the drop boxes on the table now
        "tppp": {"seat": game.tppp.seat, "badge": game.tppp.badge} if game.tppp else None,
        # Only the TPPP sits: no game a player can join (the lobby board counts it apart).
        "props_only": game.props_only,
        "backlines": _floor_backlines(rnd),
        "window": {k: v for k, v in window.items() if k != "deadline_at"} if window else None,
    }


def _floor_backlines(rnd) -> list[dict]:
    """The backline wagers of the round in play, seat by seat: how many a seat carries and
    each one's amounts, never a bettor's id (the floor sees the table's action, not who
    stands behind a seat)."""
    if rnd is None:
        return []
    seats = sorted({b.seat for b in rnd.backlines})
    return [
        {
            "seat": seat,
            "count": len(rnd.behind(seat)),
            "wagers": [{"ante": b.ante, "blind": b.blind, "trips": b.trips, "play": b.play} for b in rnd.behind(seat)],
        }
        for seat in seats
    ]


def _window(game: TableGame, now: datetime) -> dict | None:
    """Under the rotation policy, the window rule's clock for the floor (game-rules 2A.4):
    when it would end the game unless another player banks, from when the floor warns
    (CARDROOM_WINDOW_WARNING_MINUTES ahead), and the state now: ok, warning or ended."""
    if game.policy is None:
        return None
    if game.clock.ended:
        return {"state": "ended", "deadline": None, "warn_from": None, "deadline_at": None}
    deadline = game.window_deadline()
    if deadline is None:
        return {"state": "ok", "deadline": None, "warn_from": None, "deadline_at": None}
    warn_from = deadline - timedelta(minutes=settings.CARDROOM_WINDOW_WARNING_MINUTES)
    return {
        "state": "warning" if now >= warn_from else "ok",
        "deadline": deadline.isoformat(),
        "warn_from": warn_from.isoformat(),
        "deadline_at": deadline,
    }
