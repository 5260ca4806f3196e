"""Tamper evidence: each logged row stores the keyed hash of its content and of the row before.

Per table, the event log and the collection log are each a chain: `row_hash =
HMAC-SHA256(key, prev_hash + canonical JSON of the row's content)`, and the row keeps the
id of the key that signed it (`hash_key`). Altering, inserting or deleting a row anywhere
breaks the link after it, which `manage.py verify_logs` reports.

Why keyed: a plain SHA-256 chain can be recomputed by anyone who can write the tables
(the database login the app uses), so an edit followed by re-hashing every later row
would verify. The key is not in the database: it comes from the environment
(`CARDROOM_LEDGER_KEY`, "<key id>:<secret>"), and keys retired by a rotation stay
available for verification (`CARDROOM_LEDGER_OLD_KEYS`, comma-separated "<id>:<secret>").
On the embedded database (no DATABASE_URL: `make run`, `make dev`) with no key set, a
development key is generated once into `var/ledger-key` (git-ignored), beside that
database: fine on one machine, never in production (config/settings/prod.py refuses to
start without a key). It is keyed on the database, not on DEBUG: `make run` serves with
DEBUG off, and a database that several machines share (DATABASE_URL) must not be signed
with a key that each checkout would generate for itself.

Rows written before the chains were keyed carry `hash_key = ""` (LEGACY) and verify under
the old rule, plain SHA-256, but only up to the seq sealed by the migration that keyed the
chains (a signed `legacy` checkpoint, cardroom/checkpoints.py).
"""

import hashlib
import hmac
import json
import secrets
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

GENESIS = "0" * 64
LEGACY = ""  # hash_key of rows hashed before the chains were keyed: plain SHA-256
DEV_KEY_ID = "dev"
MIN_SECRET_LENGTH = 32


def canonical(content: dict) -> str:
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def link(prev_hash: str, content: dict, key_id: str) -> str:
    """The row hash of `content` after `prev_hash`, signed with the key `key_id` (plain
    SHA-256 for LEGACY rows). Raises UnknownKey for a key id that is not configured."""
    message = (prev_hash + canonical(content)).encode("utf-8")
    if key_id == LEGACY:
        return hashlib.sha256(message).hexdigest()
    return hmac.new(key(key_id), message, hashlib.sha256).hexdigest()


def sign(content: dict, key_id: str) -> str:
    """HMAC-SHA256 of a document (a checkpoint) under the key `key_id`."""
    return hmac.new(key(key_id), canonical(content).encode("utf-8"), hashlib.sha256).hexdigest()


def signature_valid(content: dict, key_id: str, signature: str) -> bool:
    try:
        return hmac.compare_digest(sign(content, key_id), signature)
    except UnknownKey:
        return False


class UnknownKey(KeyError):
    pass


def current_key_id() -> str:
    """The id of the key that signs new rows and checkpoints."""
    return _keyring(settings.CARDROOM_LEDGER_KEY, settings.CARDROOM_LEDGER_OLD_KEYS, _dev_file())[0]


def key(key_id: str) -> bytes:
    keys = _keyring(settings.CARDROOM_LEDGER_KEY, settings.CARDROOM_LEDGER_OLD_KEYS, _dev_file())[1]
    if key_id not in keys:
        raise UnknownKey(key_id)
    return keys[key_id]


def parse_key(text: str, *, default_id: str | None = None) -> tuple[str, bytes]:
    """("id", secret) from "id:secret" (or a bare secret with `default_id`)."""
    key_id, sep, secret = text.strip().partition(":")
    if not sep:
        key_id, secret = default_id, key_id
    if not key_id or len(secret) < MIN_SECRET_LENGTH:
        raise ImproperlyConfigured(
            f"a ledger key is '<key id>:<secret of {MIN_SECRET_LENGTH}+ characters>' (e.g. "
            "'2026a:' followed by python3 -c \"import secrets; print(secrets.token_urlsafe(48))\")"
        )
    return key_id, secret.encode("utf-8")


def _dev_file() -> str:
    """The development key file's path, only when it may be used: the embedded database,
    no key set."""
    if settings.CARDROOM_LEDGER_KEY or not getattr(settings, "CARDROOM_EMBEDDED_DATABASE", False):
        return ""
    return str(settings.CARDROOM_LEDGER_DEV_KEY_FILE)


@lru_cache(maxsize=8)
def _keyring(current: str, old: str, dev_file: str) -> tuple[str, dict[str, bytes]]:
    if current:
        current_id, secret = parse_key(current)
    elif dev_file:
        current_id, secret = DEV_KEY_ID, _dev_secret(Path(dev_file))
    else:
        raise ImproperlyConfigured("Set CARDROOM_LEDGER_KEY ('<key id>:<secret>') in the environment: it signs the ledger.")
    keys = dict(parse_key(item) for item in old.split(",") if item.strip())
    keys[current_id] = secret
    return current_id, keys


def _dev_secret(path: Path) -> bytes:
    """Read, or generate once, the development key (the embedded database only, not for
    production)."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # Created exclusively: two processes starting at once keep the first one's key.
        try:
            with open(path, "x", encoding="utf-8") as handle:
                handle.write(secrets.token_urlsafe(48) + "\n")
            path.chmod(0o600)
        except FileExistsError:
            pass
    return path.read_text(encoding="utf-8").strip().encode("utf-8")


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
