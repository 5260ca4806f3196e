"""The live screens' messages are encoded with orjson (cardroom.wire.encoded): the same
JSON, decoded, as json.dumps wrote before, on every snapshot of a played round."""

import json

import pytest

from cardroom import wire
from rounds.visibility import AUDIENCES
from tables.events import per_audience
from tables.floor import floor_rows
from tables.selectors import table_snapshot
from tables.services import table_create
from tests.engine.helpers import FEES, seated_with_pd

from .conftest import full_round, run_ok

pytestmark = pytest.mark.django_db


def same_json(content) -> bool:
    return json.loads(wire.encoded(content)) == json.loads(json.dumps(content))


def test_every_snapshot_and_floor_row_of_a_played_round_decodes_as_json_dumps_wrote_it():
    table = table_create(name="Ünïcode ♠", config={"seats": 8, "fee_schedule": FEES}, created_by="test")
    run_ok(table, *seated_with_pd([1, 2, 3, 8], pd=8))
    checked = 0
    for command in full_round([1, 2, 3]):
        run_ok(table, command)
        table.refresh_from_db()
        texts = per_audience(lambda audience: {"type": "event", "snapshot": table_snapshot(table, audience)})
        for audience in AUDIENCES:
            snapshot = {"type": "event", "snapshot": table_snapshot(table, audience)}
            assert json.loads(texts[audience]) == json.loads(json.dumps(snapshot))
            checked += 1
        assert same_json({"type": "rows", "rows": floor_rows([table.pk])})
    assert checked == len(full_round([1, 2, 3])) * len(AUDIENCES)


def test_keys_that_are_not_text_are_written_as_json_dumps_writes_them():
    content = {1: "seat", False: "no", None: "none", "n": {2: [3]}}
    assert same_json(content)
    assert wire.encoded({1: "seat"}) == '{"1":"seat"}'  # by orjson itself (compact), not json's fallback


def test_an_integer_past_64_bits_is_encoded_too():
    assert same_json({"amount": 2**70, "negative": -(2**64)})


def test_what_json_cannot_encode_is_refused_as_before():
    with pytest.raises(TypeError):
        wire.encoded({"value": object()})
