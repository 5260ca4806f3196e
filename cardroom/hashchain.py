"""Tamper evidence: each logged row stores the hash of its content and of the row before.

Per table, the event log and the collection log are each a chain: `row_hash =
sha256(prev_hash + canonical JSON of the row's content)`. Altering, inserting or deleting
a row anywhere breaks the link after it, which `manage.py verify_logs` reports.
"""

import hashlib
import json

GENESIS = "0" * 64


def canonical(content: dict) -> str:
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def link(prev_hash: str, content: dict) -> str:
    return hashlib.sha256((prev_hash + canonical(content)).encode("utf-8")).hexdigest()


def only_whole_numbers(value) -> bool:
    """True when a JSON value holds no float anywhere. Floats do not survive a trip
    through PostgreSQL's jsonb unchanged (1e300 comes back as an integer), so a logged
    row holding one could not be re-hashed to the same value."""
    if isinstance(value, float):
        return False
    if isinstance(value, dict):
        return all(only_whole_numbers(v) for v in value.values())
    if isinstance(value, list):
        return all(only_whole_numbers(v) for v in value)
    return True
