"""The witness: the heads of the hash chains, signed, in files the database login cannot rewrite.

Whoever owns the database can delete a chain's last rows and rewind the table's head to
the row before them; until the day closes no checkpoint (cardroom/checkpoints.py) says
where the chain stood, so the cut chain verifies. The witness keeps, outside the
database, where every chain stood: `verify_logs` then finds a cut tail, a rewound head or
a row rewritten after it was witnessed (tables/integrity.py `verify_witness`).

When a line is written (always after the command's transaction commits, never inside it):
* at once, after a command that settles or voids a round: the heads of every chain this
  process changed since its last line (the settled table's events and collections, the
  jackpot meter it moved), and the round;
* otherwise within CARDROOM_WITNESS_INTERVAL seconds (60) of a change, by a timer
  thread: the heads this process changed meanwhile. Nothing changes: nothing is written.
The heads come from the command's own rows in memory: witnessing costs no query.

The store, in CARDROOM_WITNESS_DIR (by default witness/ beside the app's own database:
var/witness/, moved by CARDROOM_LOCALDB_DIR with the database and its development key;
give it to an OS user the database server does not run as, or ship it off the host):
* one file per server process and UTC day, `w-<day>-<host>-<pid>-<random>.jsonl`. One
  writer per file, so a line's number (`n`) and the signature of the line before it
  (`prev`) are known without reading the file or taking a lock: several Daphne workers
  write to the directory without waiting on each other, where one shared file would need
  a flock and a read of its last line at every write;
* `index.jsonl`, shared by every process: a line when a process opens a file (`open`),
  each time its timer writes (`mark`: the file's line count and last signature so far)
  and when it closes the file (`close`, at a new day or exit). Each is one os.write of
  less than PIPE_BUF bytes on a descriptor opened with O_APPEND: the kernel appends it
  whole, never interleaved with another process's line. The index names every file, so
  a removed file is found, and its marks say how long each file was, so a cut file is.
Every line (witness and index) carries the ledger key's id and its HMAC (hashchain.sign);
a witness line also its number and its predecessor's signature, so a line removed from
the middle or the start of a file breaks the sequence.

Every line also names its database (`db`: the uuid of cardroom.models.DatabaseIdentity,
made with the schema), and a process writes one file per database. Two databases may
share a folder (two used from one checkout, each signing with its own key): the reader
checks the lines of the database it verifies and counts the others' as not its own
(Reading.notes), never as forged. Their deletion is found from the database's side:
tables/integrity.py `verify_witness_coverage` holds every chain row written since the
identity was made against the heads this database's lines witnessed.

A failed write (disk full, directory gone) loses no command (it has committed): it is
logged at CRITICAL and the heads stay pending, written by the next successful write.
"""

from __future__ import annotations

import atexit
import hashlib
import hmac
import json
import logging
import os
import secrets
import socket
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.db import transaction

from . import hashchain

logger = logging.getLogger(__name__)

INDEX = "index.jsonl"
PREFIX = "w-"
SUFFIX = ".jsonl"
# Each line is written with one os.write; below PIPE_BUF (4096 on Linux) an O_APPEND write
# is never interleaved with another writer's. Lines of many heads are split to stay under.
MAX_LINE = 4000
HEADS_PER_LINE = 20
# 2: every line names its database (`db`, cardroom.models.DatabaseIdentity); lines of
# version 1 name none and are read as the verifying database's own.
VERSION = 2


def _now() -> str:
    # The real clock, not django.utils.timezone.now (tests patch that to replay a day).
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _signed_line(content: dict) -> tuple[bytes, str]:
    """The line of `content` with its key id and signature, and the signature."""
    key_id = hashchain.current_key_id()
    text = hashchain.canonical(content)
    signature = hmac.new(hashchain.key(key_id), text.encode("utf-8"), hashlib.sha256).hexdigest()  # hashchain.sign
    # The signed fields, then the signature's (one canonical JSON encoding, not two).
    data = (text[:-1] + "," + json.dumps({"key_id": key_id, "sig": signature})[1:] + "\n").encode("utf-8")
    if len(data) > MAX_LINE:
        raise ValueError(f"a witness line of {len(data)} bytes is over {MAX_LINE}")
    return data, signature


def _write_line(fd: int, data: bytes) -> None:
    written = os.write(fd, data)
    if written != len(data):  # a regular file writes all or fails, except on a full disk
        raise OSError(f"short write: {written} of {len(data)} bytes")


def _open_append(path: Path) -> int:
    return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o640)


@dataclass
class _File:
    directory: Path
    name: str
    day: str
    fd: int
    lines: int = 0
    last: str = hashchain.GENESIS  # the signature of the last line written
    marked: int = 0  # the line count the index last recorded


@dataclass
class _Writer:
    """This process's witness in one directory: its open file and the heads not yet
    written ({(log, owner id): (seq, head)}, the highest seq of each chain)."""

    directory: Path
    pid: int
    database: str  # the uuid of the database whose heads these are ("" when it has none)
    file: _File | None = None
    pending: dict = field(default_factory=dict)
    rounds: list = field(default_factory=list)
    timer: threading.Timer | None = None

    def _file(self) -> _File:
        day = datetime.now(UTC).strftime("%Y%m%d")
        if self.file is not None and self.file.day == day:
            return self.file
        if self.file is not None:
            self._close_file()
        self.directory.mkdir(parents=True, exist_ok=True)
        host = socket.gethostname().replace("-", "_")[:40] or "host"
        name = f"{PREFIX}{day}-{host}-{self.pid}-{secrets.token_hex(3)}{SUFFIX}"
        fd = _open_append(self.directory / name)
        self.file = _File(self.directory, name, day, fd)
        self._index({"event": "open", "file": name, "host": host, "pid": self.pid})
        return self.file

    def _index(self, content: dict) -> None:
        fd = _open_append(self.directory / INDEX)
        try:
            _write_line(fd, _signed_line({"v": VERSION, "db": self.database, "at": _now(), **content})[0])
        finally:
            os.close(fd)

    def _mark(self, event: str = "mark") -> None:
        f = self.file
        self._index({"event": event, "file": f.name, "lines": f.lines, "last": f.last})
        f.marked = f.lines

    def unmarked(self) -> bool:
        return self.file is not None and self.file.lines > self.file.marked

    def arm(self) -> None:
        """Start the timer when something is left for it: heads, or lines the index has
        not recorded yet."""
        if self.timer is None and (self.pending or self.unmarked()):
            self.timer = threading.Timer(settings.CARDROOM_WITNESS_INTERVAL, _tick, args=(self,))
            self.timer.daemon = True
            self.timer.start()

    def _close_file(self) -> None:
        f = self.file
        try:
            self._mark("close")
        finally:
            os.close(f.fd)
            self.file = None

    def write(self, reason: str) -> int:
        """Write the pending heads (and settled rounds); the number of lines written."""
        if not self.pending and not self.rounds:
            return 0
        f = self._file()
        heads = [[log, owner, seq, head] for (log, owner), (seq, head) in sorted(self.pending.items())]
        batches = [heads[i : i + HEADS_PER_LINE] for i in range(0, len(heads), HEADS_PER_LINE)] or [[]]
        for i, batch in enumerate(batches):
            content = {
                "v": VERSION, "db": self.database, "file": f.name, "n": f.lines + 1, "prev": f.last, "at": _now(), "why": reason,
                "heads": batch, "rounds": self.rounds if i == 0 else [],
            }
            data, signature = _signed_line(content)
            _write_line(f.fd, data)
            f.lines += 1
            f.last = signature
        self.pending.clear()
        self.rounds = []
        return len(batches)


_lock = threading.Lock()
_writers: dict[tuple, _Writer] = {}


def directory() -> Path:
    return Path(settings.CARDROOM_WITNESS_DIR)


def _writer(database: str) -> _Writer:
    """This process's writer for the configured directory and `database` (a forked child
    gets its own): one file per writer, so a file holds the lines of one database."""
    key = (settings.CARDROOM_WITNESS_DIR, os.getpid(), database)
    writer = _writers.get(key)
    if writer is None:
        writer = _writers[key] = _Writer(Path(key[0]), key[1], database)
    return writer


def committed_on_commit(heads, *, rounds=(), urgent: bool = False) -> None:
    """Called inside a command's transaction: once it commits, witness `heads` (tuples
    (log, owner id, seq, head)) and `rounds` ((table, number, status)): at once when
    `urgent` (a settle or a void), else within the interval. Nothing here touches the
    database, and nothing here can undo the command: the database's identity, which the
    lines name, is read after the commit, once per process (then kept)."""
    transaction.on_commit(lambda: committed(heads, rounds=rounds, urgent=urgent))


def committed(heads, *, rounds=(), urgent: bool = False, database: str | None = None) -> None:
    if database is None:
        database = identity_uuid()
    with _lock:
        writer = _writer(database)
        for log, owner, seq, head in heads:
            if seq > 0 and seq > writer.pending.get((log, owner), (0, ""))[0]:
                writer.pending[(log, owner)] = (seq, head)
        writer.rounds += [list(r) for r in rounds]
        if urgent:
            _write_loudly(writer, "settle")
        writer.arm()


def _write_loudly(writer: _Writer, reason: str) -> None:
    try:
        writer.write(reason)
    except Exception:
        # The command has committed: it stands. The heads stay pending for the next write.
        logger.critical(
            "WITNESS WRITE FAILED in %s: %d chain heads are not witnessed yet (kept for the next write)",
            writer.directory, len(writer.pending), exc_info=True,
        )


def _tick(writer: _Writer) -> None:
    with _lock:
        writer.timer = None
        _write_loudly(writer, "interval")
        if writer.unmarked():
            try:
                writer._mark()
            except Exception:
                logger.critical("WITNESS INDEX WRITE FAILED in %s", writer.directory, exc_info=True)
        writer.arm()  # a failed write is tried again after another interval


def flush() -> None:
    """Write every pending head now, and mark the files in the index (as the timer does);
    used at exit and by tests."""
    with _lock:
        writers = [w for (_, pid, _db), w in _writers.items() if pid == os.getpid()]
    for writer in writers:
        with _lock:
            if writer.timer is not None:
                writer.timer.cancel()
        _tick(writer)


@atexit.register
def close() -> None:
    """Write what is pending, record each open file's end in the index (`close`) and
    forget the writers: at exit, and after each test (its folder is its own)."""
    flush()
    with _lock:
        for key, writer in list(_writers.items()):
            if key[1] != os.getpid():
                continue
            if writer.timer is not None:
                writer.timer.cancel()
            if writer.file is not None:
                try:
                    writer._close_file()
                except Exception:
                    logger.critical("WITNESS CLOSE FAILED in %s", writer.directory, exc_info=True)
            del _writers[key]


# --- The database's identity ----------------------------------------------------------


@dataclass(frozen=True)
class Identity:
    uuid: str
    created_at: datetime  # when the database's witness began


_identities: dict[tuple, Identity] = {}


def database_identity(using: str = "default") -> Identity | None:
    """The identity of the database `using` (cardroom.models.DatabaseIdentity), read once
    per process and kept; None when the database has none (its row was removed)."""
    from django.db import connections

    from .models import DatabaseIdentity

    db = connections[using].settings_dict
    key = (db["NAME"], db["HOST"], str(db["PORT"]))
    found = _identities.get(key)
    if found is None:
        row = DatabaseIdentity.objects.using(using).filter(pk=1).values_list("uuid", "created_at").first()
        if row is None:
            return None
        found = _identities[key] = Identity(str(row[0]), row[1])
    return found


def identity_uuid() -> str:
    """The default database's uuid for a witness line; "" when it cannot be read: the
    heads are still written (a line that names no database is checked as the verifying
    database's own), and the failure is logged."""
    try:
        found = database_identity()
    except Exception:
        logger.critical("WITNESS: the database's identity cannot be read; lines are written without it", exc_info=True)
        return ""
    return found.uuid if found else ""


def ensure_identity(sender, using: str = "default", **kwargs) -> None:
    """post_migrate receiver (cardroom/apps.py): a database without an identity gets one
    (a test runner's flush empties the table; the migration made the first), and the
    identities this process kept are forgotten, since the database may be another now."""
    if sender.label != "cardroom":
        return
    import uuid

    from django.utils import timezone

    from .models import DatabaseIdentity

    DatabaseIdentity.objects.using(using).get_or_create(pk=1, defaults={"uuid": uuid.uuid4(), "created_at": timezone.now()})
    _identities.clear()


# --- Reading ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Witnessed:
    """One head as a witness line holds it."""

    log: str  # "events", "collections", "jackpot"
    owner: int  # the table's id (the meter's for "jackpot")
    seq: int
    head: str
    where: str  # "<file> line <n> (<at>)"


@dataclass
class Reading:
    database: str | None = None  # the uuid of the database whose lines are checked
    heads: list = field(default_factory=list)  # Witnessed
    rounds: list = field(default_factory=list)  # (table, number, status, where)
    problems: list = field(default_factory=list)  # str
    files: int = 0
    lines: int = 0
    others: dict = field(default_factory=dict)  # {uuid of another database: its lines here}

    def notes(self) -> list[str]:
        """What was seen and not checked: never a problem."""
        return [f"{n} lines of another database (id {db}): not checked" for db, n in sorted(self.others.items())]

    def another_database(self, doc: dict) -> bool:
        """True (and the line counted) when a parsed line names a database other than the
        one checked. A line of version 1 names none: it is checked as this database's."""
        db = doc.get("db") if isinstance(doc, dict) else None
        if not db or db == self.database:
            return False
        self.others[str(db)] = self.others.get(str(db), 0) + 1
        return True


def _parse(raw: bytes):
    """(content, key_id, signature) of a signed line, or None when it is not one."""
    try:
        doc = json.loads(raw)
        key_id, signature = doc.pop("key_id"), doc.pop("sig")
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return doc, str(key_id), str(signature)


_CURRENT = object()


def read(folder: Path | None = None, database=_CURRENT) -> Reading:
    """Every witness file of the directory, checked against itself and the index: the
    lines of `database` (a uuid; by default the database the app uses, None when it has
    no identity). Lines naming another database are counted (Reading.notes), not checked:
    a file or index line of another database, signed with its own ledger key, is not a
    forgery of this one's."""
    folder = folder or directory()
    if database is _CURRENT:
        found = database_identity()
        database = found.uuid if found else None
    reading = Reading(database=database)
    files = sorted(p.name for p in folder.glob(f"{PREFIX}*{SUFFIX}")) if folder.is_dir() else []
    index = _read_index(folder, reading)
    indexed = index is not None
    ours = []
    for name in files:
        others_before = sum(reading.others.values())
        lines = _read_file(folder / name, index.get(name) if indexed else None, reading)
        if name in (index or {}) or lines or sum(reading.others.values()) == others_before:
            ours.append(name)  # this database's file (or one nobody can claim: checked as ours)
    if not indexed:
        if ours:
            reading.problems.append(f"the witness index {folder / INDEX} is missing, but {len(ours)} witness files are there")
        index = {}
    for name, entry in sorted(index.items()):
        if name not in files:
            reading.problems.append(
                f"witness file {name} (opened {entry['opened']} by {entry['host']} pid {entry['pid']}) is missing"
            )
    for name in ours:
        reading.files += 1
        if name not in index and indexed:
            reading.problems.append(f"witness file {name} is not in the witness index: its lines there were removed")
    return reading


def _read_index(folder: Path, reading: Reading) -> dict | None:
    """{file name: {"opened", "host", "pid", "lines", "last"}} from the index's valid lines."""
    path = folder / INDEX
    if not path.exists():
        return None
    index = {}
    for number, raw in enumerate(path.read_bytes().splitlines(), start=1):
        parsed = _parse(raw)
        if parsed is not None and reading.another_database(parsed[0]):
            continue
        if parsed is None or not hashchain.signature_valid(*parsed):
            reading.problems.append(f"witness index line {number}: not a line signed with the ledger key: forged or altered, not used")
            continue
        doc = parsed[0]
        if doc.get("event") == "open":
            index[doc["file"]] = {"opened": doc["at"], "host": doc["host"], "pid": doc["pid"], "lines": 0, "last": ""}
        elif doc.get("event") in ("mark", "close") and doc.get("file") in index:
            entry = index[doc["file"]]
            if doc["lines"] >= entry["lines"]:
                entry["lines"], entry["last"] = doc["lines"], doc["last"]
    return index


def _read_file(path: Path, entry: dict | None, reading: Reading) -> int:
    """Check one file's lines of the database read; their number."""
    name = path.name
    data = path.read_bytes()
    raws = data.split(b"\n")
    cut_short = bool(raws) and raws[-1] != b""
    if not cut_short and raws:
        raws.pop()
    expected_n, prev, signatures = 1, hashchain.GENESIS, {}
    ours, others_before = 0, sum(reading.others.values())
    for raw in raws:
        parsed = _parse(raw)
        if parsed is not None and reading.another_database(parsed[0]):
            continue
        ours += 1
        if parsed is None or not hashchain.signature_valid(*parsed):
            reading.problems.append(
                f"witness file {name} after line {expected_n - 1}: a line not signed with the ledger key: forged or altered, not used"
            )
            continue
        doc = parsed[0]
        n = doc.get("n")
        if doc.get("file") != name:
            reading.problems.append(f"witness file {name} line {n}: it was written to {doc.get('file')}: copied, not used")
            continue
        if n != expected_n or doc.get("prev") != prev:
            what = (
                f"lines {expected_n} to {n - 1} were removed" if isinstance(n, int) and n > expected_n
                else f"line {n} does not follow line {expected_n - 1}"
            )
            reading.problems.append(f"witness file {name}: {what}: truncated")
        reading.lines += 1
        where = f"{name} line {n} ({doc['at']})"
        for log, owner, seq, head in doc.get("heads", []):
            reading.heads.append(Witnessed(log, owner, seq, head, where))
        for table, number, status in doc.get("rounds", []):
            reading.rounds.append((table, number, status, where))
        signatures[n] = parsed[2]
        expected_n, prev = (n if isinstance(n, int) else expected_n) + 1, parsed[2]
    if entry is not None and entry["lines"]:
        last = expected_n - 1
        if last < entry["lines"]:
            reading.problems.append(
                f"witness file {name} was truncated: the index recorded {entry['lines']} lines, the file ends at line {last}"
            )
        elif signatures.get(entry["lines"]) != entry["last"]:
            reading.problems.append(
                f"witness file {name} line {entry['lines']} is not the line the index recorded: rewritten"
            )
    if cut_short and (ours or sum(reading.others.values()) == others_before):
        reading.problems.append(f"witness file {name}: its last line is cut short (no line end): truncated")
    return ours
