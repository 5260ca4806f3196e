"""Which tables have their dealer tablet connected (the floor's "tablet disconnected"),
and which have commands failing on the server (the floor's "commands failing").

Kept in Django's cache: Redis when REDIS_URL is set, so every Daphne process sees every
tablet; process memory otherwise (the embedded default runs one process). Each tablet
socket is an entry with an expiry that its heartbeat renews, so a process that dies
without saying goodbye stops counting after TTL seconds.
"""

import time

from django.core.cache import cache
from django.utils import timezone

from cardroom.gaming_day import calendar

TTL = 60  # seconds; the tablet page sends a heartbeat every HEARTBEAT seconds
HEARTBEAT = 20
# A table's tablet, once connected, is remembered for its gaming day and shift this long
# (longer than any shift): the floor misses a tablet only where one was there this shift.
SEEN_TTL = 24 * 3600


def _key(table_id: int) -> str:
    return f"tablets:{table_id}"


def _live(entries: dict | None, now: float) -> dict:
    return {channel: expiry for channel, expiry in (entries or {}).items() if expiry > now}


def _shift_key(table_id: int) -> str:
    return f"tablet-shift:{table_id}"


def _shift_now() -> str:
    """The gaming day and shift now, as the presence marks name them."""
    now = timezone.now()
    return f"{calendar().gaming_day(now)}/{calendar().shift(now)}"


def tablet_seen(table_id: int, channel_name: str) -> bool:
    """A tablet socket is connected (or sent its heartbeat). True if this changed the count."""
    # Read-modify-write: two tablets of one table joining at the same instant in two
    # processes could lose one entry until its next heartbeat; a table has one tablet.
    now = time.time()
    entries = _live(cache.get(_key(table_id)), now)
    new = channel_name not in entries
    entries[channel_name] = now + TTL
    cache.set(_key(table_id), entries, TTL)
    cache.set(_shift_key(table_id), _shift_now(), SEEN_TTL)
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


def floor_marks(table_ids: list[int]) -> tuple[dict[int, int], set[int], dict[int, dict]]:
    """What the floor rows of `table_ids` show of the tablets, in one cache read: the
    tablets connected now per table; the tables whose tablet connected during the gaming
    day and shift now (and may be gone since: only there is a missing tablet news, a table
    nobody has dealt this shift has had no tablet to lose); and {table: {"count", "last"
    (epoch seconds)}} for the tables whose commands failed recently."""
    now, shift = time.time(), _shift_now()
    keys = [key(t) for t in table_ids for key in (_key, _shift_key, _failing_key)]
    found = cache.get_many(keys)
    tablets = {t: len(_live(found.get(_key(t)), now)) for t in table_ids}
    seen = {t for t in table_ids if found.get(_shift_key(t)) == shift}
    failing = {t: found[_failing_key(t)] for t in table_ids if _failing_key(t) in found}
    return tablets, seen, failing
