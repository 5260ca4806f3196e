"""Which tables have their dealer tablet connected (the floor's "tablet disconnected"),
and which have commands failing on the server (the floor's "commands failing").

Kept in Django's cache: Redis when REDIS_URL is set, so every Daphne process sees every
tablet; process memory otherwise (the embedded default runs one process). Each tablet
socket is an entry with an expiry that its heartbeat renews, so a process that dies
without saying goodbye stops counting after TTL seconds.
"""

import time

from django.core.cache import cache

TTL = 60  # seconds; the tablet page sends a heartbeat every HEARTBEAT seconds
HEARTBEAT = 20


def _key(table_id: int) -> str:
    return f"tablets:{table_id}"


def _live(entries: dict | None, now: float) -> dict:
    return {channel: expiry for channel, expiry in (entries or {}).items() if expiry > now}


def tablet_seen(table_id: int, channel_name: str) -> bool:
    """A tablet socket is connected (or sent its heartbeat). True if this changed the count."""
    # Read-modify-write: two tablets of one table joining at the same instant in two
    # processes could lose one entry until its next heartbeat; a table has one tablet.
    now = time.time()
    entries = _live(cache.get(_key(table_id)), now)
    new = channel_name not in entries
    entries[channel_name] = now + TTL
    cache.set(_key(table_id), entries, TTL)
    return new


def tablet_gone(table_id: int, channel_name: str) -> None:
    entries = _live(cache.get(_key(table_id)), time.time())
    entries.pop(channel_name, None)
    cache.set(_key(table_id), entries, TTL)


def tablets_connected(table_ids: list[int]) -> dict[int, int]:
    now = time.time()
    found = cache.get_many([_key(t) for t in table_ids])
    return {t: len(_live(found.get(_key(t)), now)) for t in table_ids}


# --- commands the server failed to execute (an error, not a refusal) ---------------------
FAILING_WINDOW = 120  # seconds: the floor's alert lasts this long after the last failure


def _failing_key(table_id: int) -> str:
    return f"failing:{table_id}"


def command_failed(table_id: int) -> None:
    """A command at this table ended in a server error: the dealer's tap is kept and
    retried, but somebody on the floor has to know."""
    key = _failing_key(table_id)
    failures = cache.get(key) or {"count": 0}
    cache.set(key, {"count": failures["count"] + 1, "last": time.time()}, FAILING_WINDOW)


def commands_failing(table_ids: list[int]) -> dict[int, dict]:
    """{table: {"count", "last" (epoch seconds)}} for the tables with recent failures."""
    found = cache.get_many([_failing_key(t) for t in table_ids])
    return {t: found[_failing_key(t)] for t in table_ids if _failing_key(t) in found}
