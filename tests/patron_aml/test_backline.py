"""Backline bettors are patrons too (issue 27): a bettor is named by a patron's number or
card, or an unidentified patron's U-id, and the self-exclusion lists apply to them."""

from patrons import identity
from patrons.models import ExclusionHit
from tables.models import Table
from tables.services import command_execute
from tests.engine.test_worked_examples import backline
from tests.playing import new_table

CONFIG = {"seats": 6, "paytable": "UTH-01", "backline": {"max_per_seat": 2, "trips": True}}
UP_TO_BETS = [
    {"type": "sit", "seat": 1, "player": "P-1"},
    {"type": "sit", "seat": 2, "player": "P-2"},
    {"type": "offer_bank", "seat": 1},
    {"type": "accept_bank", "seat": 1},
    {"type": "open_round", "bank": 10000},
    {"type": "wager", "seat": 2, "ante": 1000},
]


def test_a_listed_backline_bettor_is_refused_and_the_floor_told(db, actors, ann):
    table = new_table("E", **CONFIG, boxes=False)
    for command in UP_TO_BETS:
        assert command_execute(table_id=table.pk, command=command, actor="test").ok, command
    identity.state_list_import(actor=actors["compliance"], filename="s.csv", content=b"name\nBob Stone\n")
    listed = identity.patron_create(actor=actors["compliance"], number="P-2002", display_name="Bob S.",
                                    legal_name="Bob Stone")
    version = Table.objects.get(pk=table.pk).version
    for bettor in ("P-2002", "bob stone"):
        refused = command_execute(table_id=table.pk, command=backline(2, bettor, 500), actor="test")
        assert refused.code == "self_excluded", bettor
    assert Table.objects.get(pk=table.pk).version == version
    hits = ExclusionHit.objects.filter(action="backline").order_by("id")
    assert [(h.player, h.patron_id) for h in hits] == [("P-2002", listed.pk), ("bob stone", None)]
    # A patron not listed, and an unidentified patron by their U-id, bet behind the seat.
    stranger = identity.unidentified_create(table_id=table.pk, description="man, 30s, grey hoodie", actor=actors["dealer"])
    for bettor in (ann.card, stranger.player_id):
        assert command_execute(table_id=table.pk, command=backline(2, bettor, 500), actor="test").ok, bettor
    # A table without backline answers wrong_state first, whoever the bettor is.
    plain = new_table("F", boxes=False)
    assert command_execute(table_id=plain.pk, command=backline(2, "P-2002", 500), actor="test").code == "wrong_state"
