"""Typed events for live screens, sent only after the command's transaction commits.

This module is the only place that sends to the channel layer: grep `publish_on_commit`
to find every broadcast.

* `table.<id>` (the tablet, the live table view) gets every accepted command as it
  happens: a `TableChanged` carrying the event (the command's result and the table's
  snapshot at that seq) encoded once for each kind of viewer. A client that sees a gap
  in `seq` takes a fresh snapshot.
* `floor` (the supervisors' dashboards, one group) gets *at most one message per WINDOW
  from each process* (`FloorRowsChanged`), carrying the latest row of every table that
  changed in that window (built from the commands' facts, the rest read in one statement:
  tables.floor.window_rows): with 250 busy tables and 40 screens a message
  per table (or per event) would overrun the screens and the channel layer (measured on
  channels_redis's core layer, before cardroom.channel_layer: a connection's queue held
  100 messages and one process handled about 1,000 group messages a second). A screen that
  falls behind is sent one fresh full floor instead of its backlog (web.tables.consumers).
"""

import asyncio
import json
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields
from functools import partial

from channels import DEFAULT_CHANNEL_LAYER
from channels.layers import channel_layers, get_channel_layer
from django.db import close_old_connections, connections, transaction

from cardroom.access import session_tag
from rounds.visibility import LIVE, TABLET, event_for, snapshot_for

from .models import Table
from .floor import CommandFacts, forget_whole_floor, window_rows
from .selectors import server_snapshot

AUDIENCES = (TABLET, LIVE)

logger = logging.getLogger(__name__)

FLOOR_GROUP = "floor"
# Each process sends the floor at most one message this often (seconds). The first
# change after a quiet spell goes out at once; changes within the window are folded into
# one batch sent when the window ends, so the floor always ends on the latest state.
WINDOW = 0.25
# The facts of this many of a table's last commands are kept (CommandFacts, Publisher.expect).
KEPT_FACTS = 3
# The longest a command's answer waits for its event to be handed to the channel layer
# (seconds); a send takes milliseconds while Redis answers.
SEND_TIMEOUT = 2.0


def table_group(table_id: int) -> str:
    return f"table.{table_id}"


def user_group(user_id: int) -> str:
    """Every socket of one person joins this group (web.tables.consumers)."""
    return f"user.{user_id}"


def encoded(content: dict) -> str:
    """A message as the sockets send it: Channels' own encoding (json.dumps with its
    defaults), done once here instead of once per socket. Not the chains' canonical form
    (cardroom.hashchain), which is never sent."""
    return json.dumps(content)


def per_audience(build) -> dict[str, str]:
    """`build(audience)` encoded for each kind of viewer (rounds.visibility): the group
    message carries these texts, so each socket sends its own as it came, with neither
    decoding a snapshot nor encoding one, and no hole card the viewer may not see ever
    reaches the channel layer."""
    return {audience: encoded(build(audience)) for audience in AUDIENCES}


@dataclass(frozen=True)
class TableChanged:
    """Table `table` reached version `seq` by an accepted command. `texts` holds the event
    message ({"type": "event", "seq", "command_type", "result", "snapshot"}) as each kind
    of viewer may see it (rounds.visibility.event_for of the table's whole snapshot at that
    version, tables.selectors.server_snapshot), encoded: the publisher builds one snapshot
    and encodes it once per kind of viewer, whatever the number of sockets."""

    table: int
    seq: int
    command_type: str
    texts: dict
    type: str = "table.changed"  # the consumer method `table_changed` receives it


@dataclass(frozen=True)
class TableRefreshed:
    """Table `table`'s snapshot changed without a command (no new seq): a void request was
    made or decided. `texts`: the snapshot message as each kind of viewer may see it,
    encoded (as TableChanged's)."""

    table: int
    texts: dict
    type: str = "table.refreshed"  # the consumer method `table_refreshed` receives it


@dataclass(frozen=True)
class FloorRowsChanged:
    """The floor rows (tables.floor.floor_rows) of every table that changed in one
    window, each as it stood when the window closed: its `seq` is the table's version, and
    its `last_command` the last command it had applied (whatever changed since: the
    tablet's presence, opening, closing). `text` is the screens' message {"type": "rows",
    "rows": [...]}, encoded once by the process that sends the batch. `sent_at` (epoch
    seconds) lets a screen tell a fresh batch from a backlog."""

    text: str
    sent_at: float
    type: str = "floor.rows"  # the consumer method `floor_rows` receives it


@dataclass(frozen=True)
class SessionEnded:
    """The session `session` (session_tag) of user `user` has ended (logout): the sockets
    opened with it close."""

    user: int
    session: str
    type: str = "session.ended"  # the consumer method `session_ended` receives it


def session_ended(user_id: int, session_key: str) -> None:
    """A person logged out: their sockets of that session close at once, not at their next
    check (web.tables.sockets.SESSION_CHECK_SECONDS)."""
    if get_channel_layer() is None:
        return
    try:
        publisher.send(user_group(user_id), _message(SessionEnded(user=user_id, session=session_tag(session_key))))
    except Exception:
        # The logout itself goes on: the sockets' periodic check closes them soon after.
        logger.exception("the logout of user %s could not be sent to their sockets", user_id)


@dataclass(frozen=True)
class StandingChanged:
    """User `user`'s standing (role, assignment, account) may have changed
    (tables.standing): their sockets drop the standing they hold and check it again."""

    user: int
    type: str = "standing.changed"  # the consumer method `standing_changed` receives it


def standing_changed(user_id: int) -> None:
    if get_channel_layer() is None:
        return
    try:
        publisher.send(user_group(user_id), _message(StandingChanged(user=user_id)))
    except Exception:
        # The change itself stands: this process's sockets already check again (the
        # generation moved on), the other processes' at their periodic check.
        logger.exception("a change of user %s's standing could not be sent to their sockets", user_id)


def publish_on_commit(*, table, command_type: str, result: dict, facts: CommandFacts | None = None) -> None:
    """Once committed: the event to the table's screens, and the table to the floor's next
    window. What the command knows of its floor row (`facts`) is handed over now, before
    the commit: a window that reads the row committed, before this callback marks the
    table, finds them; a rolled-back command's facts never describe a row (CommandFacts.describes)."""
    if facts is not None:
        publisher.expect(facts)
    # The snapshot is built after commit, outside the table lock, and never for a
    # transaction that is rolled back (a replay).
    transaction.on_commit(partial(_send_changed, table, command_type, result))


def _send_changed(table, command_type: str, result: dict) -> None:
    whole = {"seq": table.version, "command_type": command_type, "result": result, "snapshot": server_snapshot(table)}
    _send(
        TableChanged(
            table=table.pk, seq=table.version, command_type=command_type,
            texts=per_audience(lambda audience: event_for(whole, audience)),
        )
    )


def floor_row_changed_on_commit(table_id: int) -> None:
    """A table changed outside its command stream (opened, closed, configured): its
    floor row follows once the change is committed."""
    transaction.on_commit(partial(publisher.changed, table_id))


@dataclass(frozen=True)
class ReliefChanged:
    """The floor's relief panel changed (a plan made, a take-over; tables.relief). `text`
    is the screens' message {"type": "relief", ...} (tables.relief.board_message), read
    and encoded once by the sending process."""

    text: str
    type: str = "floor.relief"  # the consumer method `floor_relief` receives it


def relief_changed_on_commit(build) -> None:
    """Once committed, every floor screen gets the relief panel `build()` makes (passed in
    by tables.relief, which imports this module)."""
    transaction.on_commit(partial(_send_relief, build))


def _send_relief(build) -> None:
    if get_channel_layer() is None:
        return
    try:
        publisher.send(FLOOR_GROUP, _message(ReliefChanged(text=encoded(build()))))
    except Exception:
        # The plan or hand-over is committed whatever happens here; the screens get the
        # panel with their next full floor (web.tables.consumers, every FLOOR_REFRESH_SECONDS).
        logger.exception("the relief panel could not be sent to the floor")


def table_refreshed_on_commit(table_id: int) -> None:
    """What the table's screens show changed outside its command stream (a pending void
    request): each gets the fresh snapshot once committed."""
    transaction.on_commit(partial(_send_refreshed, table_id))


def _send_refreshed(table_id: int) -> None:
    if get_channel_layer() is None:
        return
    try:
        table = Table.objects.get(pk=table_id)
        snapshot = server_snapshot(table)
        texts = per_audience(lambda audience: {"type": "snapshot", "snapshot": snapshot_for(snapshot, audience)})
        publisher.send(table_group(table_id), _message(TableRefreshed(table=table_id, texts=texts)))
    except Exception:
        # The request is committed whatever happens here; the screens see it at their next
        # snapshot (the next event, a reconnect, a reload).
        logger.exception("the refreshed snapshot of table %s could not be sent", table_id)


def meter_tables_changed_on_commit(meter_name: str, *, besides: int) -> None:
    """A shared progressive meter moved: the floor rows of the other tables linked to it
    follow once committed. The tables are looked up then, not while the command holds
    its table's and the meter's locks (a scan of every table's configuration)."""
    transaction.on_commit(partial(_meter_tables_changed, meter_name, besides))


def _meter_tables_changed(meter_name: str, besides: int) -> None:
    linked = Table.objects.filter(state__config__side_bets__progressive__meter__name=meter_name).exclude(pk=besides)
    for table_id in linked.values_list("pk", flat=True):
        publisher.changed(table_id)


def floor_alert_changed(table_id: int) -> None:
    """Something the floor's alerts show changed outside the database (a tablet
    connected or left, a command failed on the server): the row follows."""
    publisher.changed(table_id)



def bind_consumer_loop(loop: asyncio.AbstractEventLoop) -> None:
    """The event loop this process's consumers run on (Daphne's). The in-memory channel
    layer's queues belong to that loop, so floor rows are delivered through it."""
    publisher.consumer_loop = loop


def _send(event: TableChanged) -> None:
    if get_channel_layer() is None:
        return
    try:
        publisher.send(table_group(event.table), _message(event))
    except Exception:
        # The command is committed whatever happens here; a client that missed this
        # event sees the gap at the next one (or on reconnect) and takes a snapshot.
        logger.exception("event %s of table %s could not be sent", event.seq, event.table)
    publisher.changed(event.table)


class Publisher:
    """This process's sender: table events at once, floor rows coalesced.

    It runs an event loop in a thread of its own, so it works the same in Daphne, in a
    management command and in tests, and keeps its Redis connections open (a fresh
    `async_to_sync` loop per event would open new ones every time).

    For the floor it keeps which tables changed since its last batch, and sends them all
    in one message at most once per window. It also keeps, per table, the facts of the
    last few commands this process applied there (tables.floor.CommandFacts: the game as
    each left it): a table whose row, as the window reads it, one of them wrote gets its
    row built from them, with what no command knows read in one statement for the whole
    batch; any other table is read whole (tables.floor.floor_rows). Either way the rest is read when
    sent, so the rows are the latest committed state whichever process changed the table;
    several Daphne processes each send their own batches and the dashboard keeps the
    highest `seq` per table. A command's answer never waits for the floor.
    """

    def __init__(self, window: float):
        self.window = window
        self.consumer_loop: asyncio.AbstractEventLoop | None = None
        self.floor_sent = 0  # floor messages sent by this process (the benchmark reads it)
        self._lock = threading.Lock()
        self._dirty: set[int] = set()
        # The last few commands' facts per table, by version (tables this process has played).
        self._known: dict[int, dict[int, CommandFacts]] = {}
        self._last_flush = -window
        self._idle = threading.Event()
        self._idle.set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None  # started with the first event
        self._wakeup: asyncio.Event | None = None
        self._own = self._own_for = None  # our own channel layer, and the shared one it copies
        self._reader: ThreadPoolExecutor | None = None  # the window's database thread (_run)

    def send(self, group: str, message: dict) -> None:
        """Send now, from any thread that is not running an event loop; returns once sent,
        or raises once SEND_TIMEOUT has passed (the command that published is answered
        after this: a Redis that stopped answering must not hold that answer long)."""
        future = asyncio.run_coroutine_threadsafe(self._group_send(group, message), self._start())
        try:
            future.result(timeout=SEND_TIMEOUT)
        except TimeoutError:
            future.cancel()
            raise

    def expect(self, facts: CommandFacts) -> None:
        """A command is about to commit with these facts of its table's floor row: kept
        with the table's last few (a window may read the row between the commit and the
        command's `changed`, or this command's predecessor's row)."""
        with self._lock:
            held = self._known.setdefault(facts.table, {})
            held[facts.version] = facts
            while len(held) > KEPT_FACTS:
                del held[min(held)]

    def facts(self, table_ids: list[int]) -> dict[int, list[CommandFacts]]:
        """The facts held now for these tables (the window asks again after its read)."""
        with self._lock:
            return {t: list(self._known[t].values()) for t in table_ids if t in self._known}

    def changed(self, table_id: int) -> None:
        loop = self._start()
        with self._lock:
            self._dirty.add(table_id)
            self._idle.clear()
        loop.call_soon_threadsafe(self._wakeup.set)

    def drain(self, timeout: float = 10.0) -> bool:
        """Wait until every floor change has been sent (a management command calls this
        before it exits, since the publisher's thread dies with the process). False if
        they were not sent in time, and at once if the publisher's thread has stopped."""
        if self.thread is not None and not self.thread.is_alive():
            return self._idle.is_set()
        return self._idle.wait(timeout)

    def _start(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                ready = threading.Event()
                self.thread = threading.Thread(target=self._run, args=(ready,), name="publisher", daemon=True)
                self.thread.start()
                ready.wait()
            return self._loop

    def _run(self, ready: threading.Event) -> None:
        # The window reads the database in one thread of its own, which keeps its
        # connection while the floor is busy (`_pump`).
        self._reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="floor-window")
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._wakeup = asyncio.Event()
        self._loop = loop
        ready.set()
        loop.run_until_complete(self._pump())

    async def _pump(self) -> None:
        holding = False  # the window's thread holds a database connection
        while True:
            self._wakeup.clear()  # before reading _dirty: a later change sets it again
            with self._lock:
                now = time.monotonic()
                wait = self._last_flush + self.window - now
                due, known = [], {}
                if self._dirty and wait <= 0:
                    due = sorted(self._dirty)
                    known = {t: list(self._known[t].values()) for t in due if t in self._known}
                    self._dirty.clear()
                    self._last_flush = now
                quiet = not self._dirty
            if due:
                await self._flush(due, known)
                holding = True
                continue
            if quiet and wait <= 0 and holding:
                # A whole window without a change: the floor is idle, and the window's
                # thread lets its connection go (no connection held open for nothing, nor
                # a test database busy). While the floor is busy it keeps it: a new one
                # each window cost a connection's set-up (SCRAM and a backend's start) up
                # to four times a second under load (py-spy under bench_e2e).
                await asyncio.get_running_loop().run_in_executor(self._reader, connections.close_all)
                holding = False
            if quiet:
                with self._lock:
                    if not self._dirty:
                        self._idle.set()
            try:
                await asyncio.wait_for(self._wakeup.wait(), timeout=wait if wait > 0 else None)
            except TimeoutError:
                pass

    async def _flush(self, table_ids: list[int], known: dict | None = None) -> None:
        if get_channel_layer() is None:
            return
        try:
            rows = await asyncio.get_running_loop().run_in_executor(
                self._reader, _rows, table_ids, known or {}, self.facts)
            text = encoded({"type": "rows", "rows": rows})
            await self._group_send(FLOOR_GROUP, _message(FloorRowsChanged(text=text, sent_at=time.time())))
            self.floor_sent += 1
        except Exception:
            # The floor's periodic full refresh (web.tables.consumers) mends a lost batch.
            logger.exception("floor rows for tables %s could not be sent", table_ids)

    async def _group_send(self, group: str, message: dict) -> None:
        layer = get_channel_layer()
        target = self.consumer_loop
        if target is not None and target.is_running():
            # Through the loop the consumers run on: the in-memory layer's queues belong to it.
            future = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), target)
            try:
                await asyncio.wait_for(asyncio.wrap_future(future), timeout=5)
            except asyncio.CancelledError:
                if asyncio.current_task().cancelling():
                    raise  # this publisher itself is being stopped
                # That loop cancelled the send, as a loop shutting down cancels whatever is
                # pending (Daphne's on exit, a test's asyncio.run). It is one lost send, not
                # the end of the publisher: raised as CancelledError it would stop _pump,
                # and with it every later floor row and table event of this process.
                raise ConnectionAbortedError(f"the consumers' event loop cancelled the send to {group}") from None
        else:
            # No consumer in this process (a management command, a worker): send with a
            # layer of our own, whose Redis connections belong to this thread's loop.
            await (await self._own_layer(layer)).group_send(group, message)

    async def _own_layer(self, shared):
        if self._own_for is not shared:
            if self._own is not None:
                await self._own.flush()  # its Redis connections (any layer has flush)
            self._own, self._own_for = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER), shared
        return self._own


def _message(event) -> dict:
    # Not dataclasses.asdict: it deep-copies the snapshot, which costs milliseconds per
    # event; the channel layer serialises (or, in memory, copies) the message anyway.
    return {f.name: getattr(event, f.name) for f in fields(event)}


def _rows(table_ids: list[int], known: dict | None = None, later=None) -> list[dict]:
    forget_whole_floor()
    close_old_connections()  # one past its age (CONN_MAX_AGE) or broken is replaced
    return window_rows(table_ids, known or {}, later=later)


publisher = Publisher(WINDOW)
