"""What a configuration change changes, in words and dollars, and what a fee schedule
would collect: for the table setup screens and the approval queue, which show the same
comparison to the supervisor who asks and to the one who decides.

No rule lives here. The configurations compared are the engine's own
(`TableConfig.to_config`), and the fee preview asks the engine's fee code
(rounds/engine/fees.py) what it would collect.
"""

from dataclasses import dataclass

from collections_fees.models import JackpotMeter
from rounds.engine.money import dollars
from rounds.engine.errors import CommandError
from rounds.engine.fees import PlayerWager, assess_fees, fee_schedule_from_config
from rounds.engine.paytables import paytable_from_config
from rounds.engine.config import TableConfig as EngineConfig

from .models import Approval, Table
from .lifecycle import is_first_configuration, merged_config

# Words for the configuration's keys (docs/commands.md, `table`); a key not named here
# is shown by its own name.
LABELS = {
    "seats": "Seats",
    "paytable": "Pay table",
    "trips": "Trips",
    "blind": "Blind",
    "limits": "Limits",
    "ante_min": "Ante minimum",
    "ante_max": "Ante maximum",
    "trips_min": "Trips minimum",
    "trips_max": "Trips maximum",
    "dealing": "Dealing procedure",
    "max_consecutive_banks": "Consecutive banks allowed",
    "fee_schedule": "Fee schedule",
    "payers": "Who pays",
    "player_basis": "Player's fee basis",
    "pd_basis": "Player-dealer's fee basis",
    "rates": "Rate",
    "min": "from",
    "max": "up to",
    "player_fee": "player's fee",
    "pd_fee": "player-dealer's fee",
    "side_bets": "Side bets",
    "side_bet_paytables": "Side bets' pay tables",
    "bad_beat": "Bad Beat",
    "pairs": "Pairs",
    "progressive": "Progressive",
    "wager": "wager",
    "meter": "meter",
    "name": "name",  # a pay table's (UTH-01.., custom) or a meter's
    "meter_share": "share to the meter",
    "seed": "seed",
    "reserve": "starting reserve",
    "rotation_policy": "Rotation policy (2A)",
    "offer_every_round": "offer the bank every round",
    "window_minutes": "window",
    "window_players": "players who must bank in the window",
    "tppp_one_round": "TPPP banks one round at a time",
    "notice": "Posted notice",
    "backline": "Backline",
    "max_per_seat": "bettors behind one seat",
    "no_tppp": "No TPPP banks",
}
# Keys whose values are amounts in cents, shown in dollars. `meter` is one only as the
# meter's starting amount (a leaf); as the meter's own object it is a section.
CENTS = {"ante_min", "ante_max", "trips_min", "trips_max", "min", "max", "player_fee", "pd_fee", "wager", "seed",
         "reserve", "meter"}
WORDS = {
    "dealing": {"shoe": "card shoe", "shuffler": "automatic shuffler", "community_first": "community cards first"},
    "payers": {"all_players": "every player and the player-dealer", "players_not_pd": "players, not the player-dealer",
               "pd_only": "the player-dealer only"},
    "player_basis": {"ante": "the Ante", "initial_total": "the initial wagers' total"},
    "pd_basis": {"per_betting_square": "per betting square", "total_table_action": "the total table action"},
}
NOT_SET = "—"


@dataclass(frozen=True)
class Change:
    what: str
    before: str
    after: str


def _leaves(value, path=()) -> dict[tuple, object]:
    """Every leaf of a configuration by its path; an absent or null part has no leaf (it
    reads as not set). A pay table's [X, Y] is one leaf, a fee rate's list is indexed."""
    if value is None:
        return {}
    if isinstance(value, dict):
        leaves = {}
        for key, inner in value.items():
            leaves.update(_leaves(inner, (*path, key)))
        return leaves
    if isinstance(value, list) and not (len(path) >= 2 and path[-2] in ("trips", "blind")):
        leaves = {}
        for index, inner in enumerate(value, start=1):
            leaves.update(_leaves(inner, (*path, index)))
        return leaves
    return {path: value}


def _label(path: tuple) -> str:
    words = []
    for at, key in enumerate(path):
        if isinstance(key, int):
            words[-1] = f"{words[-1]} {key}"
        elif key == "meter" and at > 0 and path[at - 1] == "meter":
            words.append("starting amount")  # the meter's own amount, under the meter's section
        elif len(words) >= 2 and words[-1] in ("Trips", "Blind") and words[-2] == "Pay table":
            words.append(f"pays on {key.replace('_', ' ')}")
        else:
            words.append(LABELS.get(key, key.replace("_", " ")))
    return " · ".join(words)


def _shown(path: tuple, value) -> str:
    if value is None:
        return "does not pay" if path[0] == "paytable" else NOT_SET
    key = path[-1]
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list) and len(value) == 2:
        return f"{value[0]} to {value[1]}"
    if key in WORDS:
        return WORDS[key].get(value, str(value))
    if key in CENTS and type(value) is int:
        return dollars(value)
    if key == "meter_share":
        return f"{value}%"
    if key == "window_minutes":
        return f"{value} min"
    return str(value)


def _odds_shown(config: dict | None) -> dict | None:
    """The configuration with its pay table as name and odds, so that going from UTH-01 to a
    custom table shows the hands whose pay differs, not every hand."""
    if config is None:
        return None
    table = paytable_from_config(config.get("paytable"))
    odds = {section: {hand: list(x) for hand, x in getattr(table, section).items()} for section in ("trips", "blind")}
    return {**config, "paytable": {"name": table.name, **odds}}


def rules_shown(rules: dict) -> list[tuple[str, str]]:
    """A rule set's rules (tables/rule_sets.py) in words: each value's label and value, as
    the setup screens show a configuration."""
    return [(_label(path), _shown(path, value)) for path, value in _leaves(rules).items()]


def config_changes(before: dict | None, after: dict) -> list[Change]:
    """What going from `before` (the version in force; None for a new table) to `after`
    changes, one line per value, in the configuration's order. Both are whole
    configurations as the engine writes them (to_config)."""
    old, new = _leaves(_odds_shown(before)), _leaves(_odds_shown(after))
    order = list(new) + [p for p in old if p not in new]
    shared = _shared_meter(before, after)
    changes = []
    for path in order:
        if old.get(path) == new.get(path):
            continue
        after_shown = _shown(path, new.get(path))
        if shared is not None and path[:3] == METER_PATH and path[3:] in (("meter",), ("reserve",)):
            # A meter that exists keeps its amounts: the starting amounts asked are not applied.
            after_shown = f"{after_shown} (not applied: the shared meter keeps its own)"
        changes.append(Change(_label(path), _shown(path, old.get(path)), after_shown))
    if shared is not None:
        changes.append(shared)
    return changes


METER_PATH = ("side_bets", "progressive", "meter")


def _shared_meter(before: dict | None, after: dict) -> Change | None:
    """The line that says a progressive's meter named here exists already: shared, with
    which tables, at what amounts now (a linked progressive: its amounts are the fund's,
    never reset by a table joining it). None when the meter is new or already this table's."""
    def meter_name(config):
        return (((config or {}).get("side_bets") or {}).get("progressive") or {}).get("meter", {}).get("name")

    name = meter_name(after)
    if not name or name == meter_name(before):
        return None
    meter = JackpotMeter.objects.filter(name=name).first()
    if meter is None:
        return None
    # The tables naming it, found by the database (a JSON path), not by reading every table's state.
    tables = list(Table.objects.filter(retired=False, state__config__side_bets__progressive__meter__name=name)
                  .order_by("name").values_list("name", flat=True))
    sharing = f"shared with {', '.join(tables)}" if tables else "no table plays it now"
    return Change("Side bets · Progressive · shared meter", NOT_SET,
                  f"{name} exists ({sharing}): meter {dollars(meter.meter)}, reserve {dollars(meter.reserve)} now")


def asked_config(table: Table, change: dict) -> dict:
    """The whole configuration a change asks for, as the engine checks and writes it
    (CommandError for one the engine refuses)."""
    return EngineConfig.from_config(merged_config(table.state["config"], change)).to_config()


def in_force(table: Table) -> dict | None:
    """The configuration in force, as a comparison's `before`: None for a table whose first
    configuration waits for approval (nothing is in force yet)."""
    return table.state["config"] if table.config_approved else None


def request_changes(approval: Approval) -> list[Change] | None:
    """A configuration request's comparison against the version in force now (as the
    deciding supervisor sees it); None when it can no longer be applied as asked."""
    try:
        asked = asked_config(approval.table, approval.payload["config"])
    except CommandError:  # the configuration moved on under it: it will be refused on approval
        return None
    first = is_first_configuration(approval) and not approval.table.config_approved
    return config_changes(None if first else approval.table.state["config"], asked)


@dataclass(frozen=True)
class FirstConfiguration:
    """Where a table's first configuration stands, for its setup page: `approved` (the
    table may open), `waiting` (its request is in the queue) or `refused` (no request
    waits: it is filed again from the setup page), with the last refusal's decision."""

    state: str
    refusal: object | None = None  # the ApprovalDecision of the last refused first configuration


def first_configuration(table: Table) -> FirstConfiguration:
    if table.config_approved:
        return FirstConfiguration("approved")
    firsts = [a for a in Approval.objects.filter(table=table, kind="config").select_related("decision__decided_by")
              .order_by("-requested_at", "-pk") if is_first_configuration(a)]
    if any(getattr(a, "decision", None) is None for a in firsts):
        return FirstConfiguration("waiting")
    refused = next((a.decision for a in firsts), None)
    return FirstConfiguration("refused", refused)


# Sample Antes for the fee preview, in cents, when the supervisor names none.
SAMPLE_ANTES = (500, 1000, 2500, 5000, 10000)


def fee_preview(fee_schedule: dict | None, antes, seats: int) -> list[dict]:
    """What the schedule collects for each sample Ante (Blind equal to it, no Trips), as
    the engine assesses a round at "no more bets": the player's fee, and the player-
    dealer's with one player and with every other seat taken at that Ante."""
    schedule = fee_schedule_from_config(fee_schedule)

    def collected(ante: int, players: int) -> dict[str, int]:
        wagers = [PlayerWager(seat, f"P-{seat}", ante, ante, 0) for seat in range(2, 2 + players)]
        lines = assess_fees(schedule, pd_seat=1, pd_player="PD", wagers=wagers)
        return {
            "player": next((line.amount for line in lines if line.payer == "player"), 0),
            "player_dealer": sum(line.amount for line in lines if line.payer == "player_dealer"),
        }

    full_table = max(1, seats - 1)  # every seat but the player-dealer's
    rows = []
    for ante in antes:
        one, full = collected(ante, 1), collected(ante, full_table)
        rows.append({"ante": ante, "player": one["player"], "pd_one": one["player_dealer"],
                     "pd_full": full["player_dealer"], "full_players": full_table})
    return rows
