"""The words a person reads for the codes the records keep: hands, wagers, progressive
awards, commands, statuses, fee bases, audit actions, refusals, roles.

The engine and the ledger keep keys (`one_pair`, `bad_beat`, `royal_first_five`), which
the exports keep too (a file is read by programs); pages show these labels instead. The
tablet's script has its own copy of the award labels (static/table.js, AWARD).
"""

import re

from rounds.engine.hands import CATEGORIES
from rounds.engine.sidebets import (
    BAD_BEAT_TABLES,
    PAIRS_ROWS,
    PAIRS_TABLES,
    PROGRESSIVE_HANDS,
    PROGRESSIVE_TABLES,
)

HAND = {
    "high_card": "high card",
    "one_pair": "one pair",
    "two_pair": "two pair",
    "three_of_a_kind": "three of a kind",
    "straight": "straight",
    "flush": "flush",
    "full_house": "full house",
    "four_of_a_kind": "four of a kind",
    "straight_flush": "straight flush",
    "royal_flush": "royal flush",
}

WAGER = {
    "ante": "Ante",
    "blind": "Blind",
    "trips": "Trips",
    "play": "Play",
    "bad_beat": "Bad Beat",
    "pairs": "Pairs",
    "progressive": "Progressive",
}

PROGRESSIVE = {
    "royal_first_five": "royal flush in the first five cards",
    "royal_seven": "royal flush with a hole card",
    "community_royal": "community royal flush",
    "straight_flush": "straight flush",
    "four_of_a_kind": "four of a kind",
    "full_house": "full house",
}

PAIRS = {
    "aces_against_aces": "aces against the player-dealer's aces",
    "red_aces": "red aces",
    "aces": "aces",
    "ace_king_suited": "ace-king suited",
    "ace_queen_or_jack_suited": "ace-queen or ace-jack suited",
    "ace_king": "ace-king",
    "face_pair": "pair of kings, queens or jacks",
    "ace_queen_or_jack": "ace-queen or ace-jack",
    "low_pair": "pair of tens to twos",
}

# The engine's keys beside their words, for a test that every key has its words.
KEYS = {"hand": (HAND, CATEGORIES), "progressive": (PROGRESSIVE, PROGRESSIVE_HANDS), "pairs": (PAIRS, PAIRS_ROWS)}


# Codes whose words are not their own letters with spaces (`open_round` reads "open
# round" by itself: see `words`).
CODES = {
    # Round statuses and streets.
    "in_progress": "in progress",
    "turn_river": "turn and river",
    # Who pays the collection fee, and on what (collections_fees.FeeSchedule).
    "all_players": "every player",
    "player_dealer": "the player-dealer",
    "per_betting_square": "per betting square",
    "community_first": "community cards first",
    "no_action": "no action",
    "bank_could_not_act": "the bank could not act",
    # Cash at the tables (patrons/cash.py).
    "chip_purchase": "chip purchase for cash",
    "cash_payout": "cash payout",
    # Roles (cardroom/access.py).
    "count_team": "count team",
    # The rotation log.
    "limit_reached": "limit reached",
    # Commands of the engine whose name is terse.
    "no_more_bets": "no more bets",
    "deal_by_hand": "deal by hand",
    "void_round": "void the round",
    "confirm_award": "confirm a progressive award",
    "command_refused": "command refused",
    "login_failed": "failed login",
    "identification_read": "identification read",
}
CODE = re.compile(r"(?<![\w/.@:-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/.-])")


def label(key: str | None) -> str:
    """The words for any of these keys; an unknown key is shown as it is (never hidden)."""
    if not key:
        return ""
    for words in (WAGER, HAND, PROGRESSIVE, PAIRS, CODES):
        if key in words:
            return words[key]
    return key


def words(code: str | None) -> str:
    """A code as words: its label, else its own letters with spaces (`seat_taken` reads
    "seat taken"). For fields that hold a code (a status, an action, a kind), never a name."""
    if not code:
        return ""
    found = label(code)
    return found if found != code else code.replace("_", " ")


def words_in(text: str | None) -> str:
    """A recorded sentence (an audit summary, a refusal's message) with each code in it
    as words: the record keeps the code, the page shows the words."""
    return CODE.sub(lambda m: words(m.group(0)), text or "")



def side_bet_pays(side_bets: dict | None) -> list[dict]:
    """Each side bet the table offers as posted (game-rules 10): its name, pay table,
    limits (cents; None: none) and what each hand pays, in words, for the tablet's "Table
    rules". The progressive's flat wager is its limits too."""
    posted = []
    side_bets = side_bets or {}
    for key, tables in (("bad_beat", BAD_BEAT_TABLES), ("pairs", PAIRS_TABLES)):
        bet = side_bets.get(key)
        if bet:
            rows = [{"hand": label(hand), "pays": f"{pay:,} to 1"} for hand, pay in tables[bet["paytable"]].items()]
            posted.append({"name": WAGER[key], "paytable": bet["paytable"], "min": bet.get("min"), "max": bet.get("max"),
                           "rows": rows})
    progressive = side_bets.get("progressive")
    if progressive:
        rows = [{"hand": label(hand), "pays": f"{amount}% of the meter" if how == "percent" else f"{amount:,} to 1"}
                for hand, (how, amount) in PROGRESSIVE_TABLES[progressive["paytable"]].items()]
        posted.append({"name": WAGER["progressive"], "paytable": progressive["paytable"], "min": progressive["wager"],
                       "max": progressive["wager"], "meter": progressive["meter"]["name"], "rows": rows})
    return posted
