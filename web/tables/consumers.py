"""Websocket consumers: thin. They authorise, join groups, forward events, and hand
commands to the one command service (tables.services.command_execute).

Protocol, server to client (every message a JSON object with a `type`):
  {"type": "snapshot", "snapshot": {...}}          on connect, on request, and when a void request is made or refused
  {"type": "event", "seq": n, "command_type", "result", "snapshot"}  each accepted command
  {"type": "result", "id", "result", "version", "replayed"}         answer to a command
  floor: {"type": "floor", "rows": [...], "relief": {...}} (all tables, and the relief
         panel, tables.relief.board_message) and {"type": "rows", "rows": [...]} (the tables
         that changed in one window, at most one message per window per process);
         {"type": "relief", ...} the relief panel, when a plan or a take-over changed it
Client to server on the floor socket: {"type": "sync"} (a fresh floor), {"type": "relief"}
(the relief panel again: sent by a screen at the panel's `changes_at`).
Client to server on a table socket:
  {"type": "command", "command": {... docs/commands.md, with "id" and "version" ...}}
  {"type": "sync"} (send me a fresh snapshot), {"type": "heartbeat"} (tablet presence)
Each socket has a rate for syncs and one for commands (tables.socket_rates): past it a
command is answered {"type": "result", "id", "result": {"ok": false, "error": {"code":
"rate_limited", ...}}, "version": null, "retry_after": seconds} and a sync {"type":
"error", "error": {"code": "rate_limited", ...}, "for": "sync", "retry_after": seconds};
neither reads nor changes anything.
A client applies an event whose seq is its version + 1, ignores older ones, and asks
for a snapshot on a gap: one recovery path, the same as after a reconnect.

What a socket is sent is cut for its viewer (rounds.visibility): the tablet's view for a
`?role=tablet` socket of a person who may drive the table, the live view otherwise.

A socket follows its session: when it opens, and when the process's periodic reading
(every SESSION_CHECK_SECONDS, one statement for all its sockets: _StandingWatch) finds
what its standing rests on moved, it checks that the session still stands, the user is
active and their role (a dealer's assignment) still lets them here, and closes otherwise
(4401 logged out, 4403 not allowed); a logout closes the session's sockets at once (tables.receivers). Between
checks it holds the standing it found, and a command is sent as that actor without a
query for it; a change of the user, their groups or their assignments (tables.standing)
makes it check again at once, and before its next command.
"""

import asyncio
import json
import logging
import os
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from importlib import import_module
from types import SimpleNamespace
from urllib.parse import parse_qs

from channels.db import database_sync_to_async as _database_sync_to_async
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import InMemoryChannelLayer
from django.conf import settings
from django.contrib.auth import get_user

from cardroom import wire
from cardroom.access import READERS, Actor, can_drive, can_drive_table, can_view_table
from rounds.visibility import LIVE, TABLET

from tables import events, presence, standing as standings
from tables.socket_rates import TokenBucket
from tables.models import Table
from tables.floor import whole_floor
from tables.relief import board_message
from tables.selectors import table_snapshot
from tables.services import CommandOutcome, command_execute

# Close codes (4000-4999 are the application's): the pages show why the socket closed.
NOT_LOGGED_IN = 4401
NOT_ALLOWED = 4403
NO_SUCH_TABLE = 4404
# The floor's periodic re-read: mends a row lost on the way and ages the "idle" alerts. With
# the in-memory layer (the embedded default) a command run by another process, such as
# simulate_floor, cannot reach this one, so the floor re-reads the tables more often. A
# screen is sent only the rows (and the relief board) that differ from what it was last
# sent: an idle floor gets no message, and its screen has nothing to redraw.
FLOOR_REFRESH_SECONDS = 30
FLOOR_REFRESH_IN_MEMORY_SECONDS = 2
# A floor batch older than this reached a screen that fell behind (its queue held a
# backlog): the screen gets one fresh full floor instead of stale batches.
FLOOR_BEHIND_SECONDS = 2.0
# How often an open socket checks that its session, user and role still let it in: the
# longest a deactivated user or an ended assignment keeps watching (a logout is at once).
SESSION_CHECK_SECONDS = 5


logger = logging.getLogger(__name__)

# How long a socket waits before asking a failed channel layer again for its messages.
LAYER_RETRY_SECONDS = 1.0


class _LayerFailures:
    """How many channel-layer operations have failed in this process. channels_redis has
    one task per process reading every socket's messages, so one socket may see the
    outage that all of them lived through: each socket compares this count with the one
    it last joined its groups at (a Redis that was restarted has forgotten them)."""

    count = 0

    @classmethod
    def note(cls, what: str, error: BaseException) -> None:
        cls.count += 1
        logger.warning("channel layer: %s failed (%s: %s)", what, type(error).__name__, error)


# Few threads: the work is mostly Python (engine, ORM, JSON) under one GIL, and more
# threads than this starve the event loop that sends every socket's messages.
DB_THREADS = int(os.environ.get("CARDROOM_DB_THREADS", "3"))
_db_executor = ThreadPoolExecutor(max_workers=DB_THREADS, thread_name_prefix="db")


def in_db_thread(func):
    """`func` run in a worker thread with its own database connection (Channels' database
    wrapper, which closes obsolete connections around each call).

    Not Channels' default single thread per process: there, every socket's command, floor
    read and session check waited for the one before, even while it only waited on
    PostgreSQL (bench_e2e: that thread was saturated while the event loop sat idle).
    Commands of one table stay in order: a socket handles one message at a time, and the
    table row lock orders the sockets of one table."""
    return _database_sync_to_async(func, thread_sensitive=False, executor=_db_executor)


def _snapshot(table_id: int, audience: str) -> dict | None:
    table = Table.objects.filter(pk=table_id).first()
    return table_snapshot(table, audience) if table else None


def session_user(scope):
    """The socket's user as their session stands now, or None: logged out or expired, the
    password changed, the user deactivated or deleted. Django's own check of every HTTP
    request (django.contrib.auth.get_user) on a fresh read of the session, since the
    scope's session was read once, at connect."""
    # A session holds one user: a login as someone else gets a new key (django.contrib.auth.login).
    session = import_module(settings.SESSION_ENGINE).SessionStore(scope["session"].session_key)
    user = get_user(SimpleNamespace(session=session))
    return user if user.is_authenticated else None


# The answer to a tap made under another person's login (web.tables.views.table_command too).
ANOTHER_LOGIN = {"ok": False, "error": {"code": "not_authorized",
                                        "message": "this tap was made under another person's login: not sent"}}


class _StandingWatch:
    """The periodic check of every socket of this process (of this event loop): every
    SESSION_CHECK_SECONDS one statement reads what each socket's standing rests on
    (tables.standing.fingerprints), and only a socket whose reading moved runs its full
    check. One query per process per period, however many sockets."""

    _by_loop: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _StandingWatch]" = weakref.WeakKeyDictionary()

    def __init__(self):
        self.sockets: dict["_LoggedInConsumer", None] = {}  # in the order they opened
        self.task: asyncio.Task | None = None

    @classmethod
    def of_this_loop(cls) -> "_StandingWatch":
        loop = asyncio.get_running_loop()
        watch = cls._by_loop.get(loop)
        if watch is None:
            watch = cls._by_loop[loop] = cls()
        return watch

    def add(self, consumer) -> None:
        self.sockets[consumer] = None
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._run())

    def discard(self, consumer) -> None:
        self.sockets.pop(consumer, None)
        if not self.sockets and self.task is not None:
            self.task.cancel()
            self.task = None

    async def _run(self) -> None:
        while self.sockets:
            await asyncio.sleep(SESSION_CHECK_SECONDS)
            sockets = list(self.sockets)
            try:
                found = await in_db_thread(standings.fingerprints)([s.standing_key() for s in sockets])
            except Exception:  # noqa: BLE001 (the database away: every socket checks itself, as before)
                logger.exception("the periodic standing check could not read; each socket checks on its own")
                found = [None] * len(sockets)
            await asyncio.gather(*(s.periodic_check(f) for s, f in zip(sockets, found) if s in self.sockets),
                                 return_exceptions=True)


class _LoggedInConsumer(AsyncJsonWebsocketConsumer):
    session: str = ""  # events.session_tag of the socket's session
    layer_failures_seen = 0  # _LayerFailures.count when it last joined all its groups

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.groups_wanted: set[str] = set()  # the groups to re-join after an outage
        self.sync_rate = TokenBucket(settings.CARDROOM_SOCKET_SYNC_BURST, settings.CARDROOM_SOCKET_SYNCS_PER_SECOND)
        self.command_rate = TokenBucket(
            settings.CARDROOM_SOCKET_COMMAND_BURST, settings.CARDROOM_SOCKET_COMMANDS_PER_SECOND)

    async def sync_allowed(self) -> bool:
        """Takes a token for a `sync`; without one, answers `rate_limited` (no read)."""
        wait = self.sync_rate.take()
        if wait:
            refused = wire.WireError("rate_limited", "too many syncs on this connection: ask again after retry_after seconds")
            await self.send_json({**wire.socket_error(refused), "for": "sync", "retry_after": round(wait, 3)})
        return not wait

    # Channels builds `channel_receive` (the layer's receive for this socket) in its
    # __call__ and dispatches whatever it returns; an exception there (Redis down) ends
    # the consumer and Daphne closes the socket with 1011. The property hands Channels
    # a receive that waits out a failure instead.
    @property
    def channel_receive(self):
        return self._layer_receive

    @channel_receive.setter
    def channel_receive(self, receive):
        self._layer_receive_once = receive

    async def _layer_receive(self):
        while True:
            try:
                return await self._layer_receive_once()
            except Exception as error:  # noqa: BLE001 (any failure of the layer: wait, retry)
                _LayerFailures.note("receive", error)
                await asyncio.sleep(LAYER_RETRY_SECONDS)

    async def join(self, group: str) -> None:
        """Join `group`; if the layer is down, the socket goes on without its messages
        until the next check re-joins (_rejoin)."""
        self.groups_wanted.add(group)
        try:
            await self.channel_layer.group_add(group, self.channel_name)
        except Exception as error:  # noqa: BLE001
            _LayerFailures.note(f"joining {group}", error)

    async def leave(self, group: str) -> None:
        self.groups_wanted.discard(group)
        try:
            await self.channel_layer.group_discard(group, self.channel_name)
        except Exception as error:  # noqa: BLE001 (a restarted Redis forgot the membership anyway)
            _LayerFailures.note(f"leaving {group}", error)

    async def _rejoin(self) -> None:
        """After a failure of the layer in this process: join every group again and,
        once that worked, send the screen what it missed."""
        seen = _LayerFailures.count
        if seen == self.layer_failures_seen:
            return
        for attempt in (1, 2):  # the first may meet a pooled connection the restart closed
            try:
                for group in sorted(self.groups_wanted):
                    await self.channel_layer.group_add(group, self.channel_name)
                break
            except Exception as error:  # noqa: BLE001 (still down: the next check tries again)
                if attempt == 2:
                    _LayerFailures.note("re-joining groups", error)
                    return
        self.layer_failures_seen = seen
        logger.info("channel layer: %s re-joined %s", self.channel_name, sorted(self.groups_wanted))
        await self.catch_up()

    async def catch_up(self) -> None:
        """Send the screen the state it may have missed while the layer was down."""
        raise NotImplementedError

    async def connect(self):
        # Closing before accepting refuses the handshake (HTTP 403 to the browser).
        user = self.scope["user"]
        if not user.is_authenticated:
            await self.close(code=NOT_LOGGED_IN)
            return
        if not await in_db_thread(self._allowed_at_connect)():
            await self.close(code=NOT_ALLOWED)
            return
        events.bind_consumer_loop(asyncio.get_running_loop())
        self.session = events.session_tag(self.scope["session"].session_key or "")
        self.layer_failures_seen = _LayerFailures.count
        await self.join(events.user_group(user.pk))
        await self.joined()

    def _allowed_at_connect(self) -> bool:
        # The scope's user was read from the session just now (AuthMiddleware): what it
        # finds is held as the socket's standing, so the first command needs no check.
        generation = standings.generation(self.scope["user"].pk)
        actor = Actor.from_scope(self.scope)
        if not self.allowed(actor):
            return False
        self.held = (generation, actor)
        return True

    def allowed(self, actor: Actor) -> bool:
        """May this person open this socket?"""
        raise NotImplementedError

    def still_allowed(self, actor: Actor) -> bool:
        """May this person keep this socket open (checked before each command, and periodically)?"""
        return self.allowed(actor)

    async def joined(self):
        raise NotImplementedError

    async def accepted(self):
        await self.accept()
        _StandingWatch.of_this_loop().add(self)

    # (tables.standing.generation, Actor) of the last check that let the person stay; None
    # once a check refused them or a change of their standing was announced.
    held: tuple[tuple[int, int], Actor] | None = None

    def standing(self) -> tuple[int | None, Actor | None]:
        """(None, the person as they now stand) while this socket may stay open, else (the
        code it closes with, None). Takes the user afresh into the scope; the role is read
        once, and a command is sent as that actor. What it finds is held (held_standing)."""
        generation = standings.generation(self.scope["user"].pk)
        self.held = None
        # What the standing rests on, read before the check: a change committed during it
        # moves the next periodic reading, which then checks again (_StandingWatch).
        fingerprint = standings.fingerprints([self.standing_key()])[0]
        user = session_user(self.scope)
        if user is None:
            return NOT_LOGGED_IN, None
        self.scope["user"] = user
        actor = Actor.from_scope(self.scope)
        if not self.still_allowed(actor):
            return NOT_ALLOWED, None
        self.held, self.fingerprint = (generation, actor), fingerprint
        return None, actor

    # What the last full check found the standing resting on (tables.standing.fingerprints);
    # None until the first periodic check, which therefore runs the full check.
    fingerprint: tuple | None = None

    def standing_key(self) -> standings.Socket:
        """(session key, user id, table id or None): what the periodic statement reads for
        this socket."""
        return self.scope["session"].session_key or "", self.scope["user"].pk, self.table_key()

    def table_key(self) -> int | None:
        return None

    def held_standing(self) -> tuple[int | None, Actor | None]:
        """standing(), without a query while the one held is current: checked within
        SESSION_CHECK_SECONDS (the watcher checks again) and no change of the person's
        standing announced since (tables.standing)."""
        held = self.held
        if held is not None and held[0] == standings.generation(held[1].user_id):
            return None, held[1]
        return self.standing()

    async def stays_open(self) -> bool:
        code, _ = await in_db_thread(self.standing)()
        if code is not None:
            await self.close(code=code)
        return code is None

    async def periodic_check(self, fingerprint: tuple) -> None:
        """The process's periodic reading found `fingerprint` for this socket: the full
        check runs only if it moved since the last one."""
        if fingerprint != self.fingerprint and not await self.stays_open():
            _StandingWatch.of_this_loop().discard(self)  # closed: no more periods for it
            return
        await self._rejoin()

    async def standing_changed(self, message):
        """Sent to the person's sockets when their role, account or assignments changed
        (tables.standing): check again now, and close if they may no longer stay."""
        self.held = None
        await self.stays_open()

    async def session_ended(self, message):
        if message["session"] == self.session:
            await self.close(code=NOT_LOGGED_IN)

    async def disconnect(self, code):
        _StandingWatch.of_this_loop().discard(self)
        if self.scope["user"].is_authenticated:
            await self.leave(events.user_group(self.scope["user"].pk))

    async def dispatch(self, message):
        """Channels' own dispatch first closes old database connections in its single
        sync thread before every message (every frame, every group message), so each of a
        process's sockets waited for that one thread. These consumers touch the database
        only through in_db_thread, whose wrapper closes old connections in its own thread."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    received: str | None = None  # the frame being handled, as it came

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        """Every frame is read by the one strict reader (cardroom.wire); one it cannot
        read (binary, empty, too large, not JSON, not an object) is answered with an
        error message and changes nothing. Channels' own would raise, closing the socket."""
        try:
            if text_data is None:
                raise wire.WireError("invalid_command", "frames are JSON text, not binary")
            content = wire.read_json(text_data)
            if not isinstance(content, dict):
                raise wire.WireError("invalid_command", "a message is a JSON object with a 'type'")
        except wire.WireError as refused:
            await self.send_json(wire.socket_error(refused))
            return
        self.received = text_data
        await self.receive_json(content, **kwargs)


class TableConsumer(_LoggedInConsumer):
    """`/ws/tables/<id>/`: the tablet (`?role=tablet` from a person who may drive the
    table: counted for presence, sent the tablet's view) and the read-only live view."""

    table_id: int | None = None
    is_tablet = False
    audience = LIVE

    def allowed(self, actor: Actor) -> bool:
        table_id = self.scope["url_route"]["kwargs"]["table_id"]
        if not can_view_table(actor, table_id):
            return False
        # Asked by someone who may only watch (compliance), `?role=tablet` opens the live
        # view: it neither counts as the table's tablet nor shows its cards.
        asks_tablet = parse_qs(self.scope["query_string"].decode()).get("role") == ["tablet"]
        self.is_tablet = asks_tablet and can_drive(actor, table_id)
        self.audience = TABLET if self.is_tablet else LIVE
        return True

    def table_key(self) -> int | None:
        return self.scope["url_route"]["kwargs"]["table_id"]

    def still_allowed(self, actor: Actor) -> bool:
        table_id = self.scope["url_route"]["kwargs"]["table_id"]
        # A dealer's tablet: the table's drivers_version says whether the answer its
        # commands hold (the socket's DriveGrant) still stands, so the periodic check reads
        # the assignments only after they changed, as the commands do.
        return can_drive_table(actor, table_id) if self.is_tablet else can_view_table(actor, table_id)

    async def joined(self):
        self.table_id = self.scope["url_route"]["kwargs"]["table_id"]
        # Join first, then read: an event committed in between is then both in the
        # snapshot and queued behind it, and the client drops it by its seq.
        await self.join(events.table_group(self.table_id))
        snapshot = await in_db_thread(_snapshot)(self.table_id, self.audience)
        if snapshot is None:
            await self.leave(events.table_group(self.table_id))
            await self.close(code=NO_SUCH_TABLE)
            return
        await self.accepted()
        await self.send_json({"type": "snapshot", "snapshot": snapshot})
        if self.is_tablet:
            await self._tablet_seen()

    async def disconnect(self, code):
        await super().disconnect(code)
        if self.table_id is None:
            return
        await self.leave(events.table_group(self.table_id))
        if self.is_tablet:
            await in_db_thread(presence.tablet_gone)(self.table_id, self.channel_name)
            events.floor_alert_changed(self.table_id)

    async def receive_json(self, content, **kwargs):
        kind = content.get("type")
        if kind == "command":
            if not self._made_by_this_login(content.get("user")):
                command = content.get("command")
                command_id = command.get("id") if isinstance(command, dict) else None
                await self.send_json({"type": "result", "id": command_id, "version": 0, "replayed": False,
                                      "result": ANOTHER_LOGIN})
                return
            await self._command(content.get("command"))
        elif kind == "sync":
            if await self.sync_allowed():
                await self.catch_up()
        elif kind == "heartbeat":
            if self.is_tablet:
                await self._tablet_seen()
        else:
            refused = wire.WireError("invalid_command", "expected a message of type command, sync or heartbeat")
            await self.send_json(wire.socket_error(refused))

    def _made_by_this_login(self, user) -> bool:
        """A tap names the login it was made under (`user`, static/table.js): one made under
        another person's is never run under this socket's. Without it, as before."""
        return user is None or user == self.scope["user"].pk

    async def _command(self, command):
        wait = self.command_rate.take()
        if wait:
            # Not a refusal of the command (nothing is logged): the tablet sends it again,
            # with the same id, after retry_after seconds (static/table.js).
            await self.send_json({
                "type": "result", "id": command.get("id") if isinstance(command, dict) else None,
                "result": {"ok": False, "error": {
                    "code": "rate_limited", "message": "too many commands on this connection: sent again after retry_after seconds"}},
                "version": None, "replayed": False, "retry_after": round(wait, 3),
            })
            return
        refusal, outcome = await in_db_thread(self._checked_command)(command)
        if refusal is not None:
            await self.close(code=refusal)
            return
        await self.send_json({"type": "result", **outcome.reply(command)})

    def _checked_command(self, command) -> tuple[int | None, CommandOutcome | None]:
        """One trip to the database thread: the socket's session and user as they stand
        (held between checks), then the command as that user (the service checks they may
        drive the table)."""
        refusal, actor = self.held_standing()
        if refusal is not None:
            return refusal, None
        return None, command_execute(table_id=self.table_id, command=command, actor=actor, received=self.received)

    async def catch_up(self):
        snapshot = await in_db_thread(_snapshot)(self.table_id, self.audience)
        await self.send_json({"type": "snapshot", "snapshot": snapshot})

    async def _tablet_seen(self):
        if await in_db_thread(presence.tablet_seen)(self.table_id, self.channel_name):
            events.floor_alert_changed(self.table_id)

    async def table_changed(self, message):
        # Encoded once per kind of viewer by the publisher (tables.events.per_audience):
        # this socket sends its viewer's text as it came.
        await self.send(text_data=message["texts"][self.audience])

    async def table_refreshed(self, message):
        await self.send(text_data=message["texts"][self.audience])


def _floor_message() -> dict:
    return {"type": "floor", "rows": whole_floor(), "relief": board_message()}


class FloorConsumer(_LoggedInConsumer):
    """`/ws/floor/`: every table's row, then the rows that changed, batched per window by
    each process's publisher (tables.events.Publisher)."""

    refresher: asyncio.Task | None = None
    caught_up_at = 0.0  # when this screen last got a full floor for falling behind
    # What this screen was last sent by a full floor or a re-read: each row (JSON) by table,
    # and the relief board. (The batches of changed rows are not noted: a re-read may send
    # one of those rows again, which the screen ignores as unchanged.)
    sent_rows: dict | None = None
    sent_relief: str | None = None

    def allowed(self, actor: Actor) -> bool:
        return actor.role in READERS

    async def joined(self):
        await self.join(events.FLOOR_GROUP)
        await self.accepted()
        await self._send_floor()
        self.refresher = asyncio.create_task(self._refresh())

    async def catch_up(self):
        await self._send_floor()

    async def _send_floor(self):
        message = await in_db_thread(_floor_message)()
        self._note_sent(message)
        await self.send_json(message)

    def _note_sent(self, message: dict) -> None:
        self.sent_rows = {row["table"]: json.dumps(row, sort_keys=True) for row in message["rows"]}
        self.sent_relief = json.dumps(message["relief"], sort_keys=True)

    async def _refresh(self):
        in_memory = isinstance(self.channel_layer, InMemoryChannelLayer)
        while True:
            await asyncio.sleep(FLOOR_REFRESH_IN_MEMORY_SECONDS if in_memory else FLOOR_REFRESH_SECONDS)
            await self._send_changes()

    async def _send_changes(self):
        """The floor re-read; sent are only the rows and the relief board that changed."""
        message = await in_db_thread(_floor_message)()
        before, relief_before = self.sent_rows or {}, self.sent_relief
        if set(before) - {row["table"] for row in message["rows"]}:
            # A table left the floor meanwhile: a whole floor, as on connect.
            self._note_sent(message)
            await self.send_json(message)
            return
        self._note_sent(message)
        changed = [row for row in message["rows"] if before.get(row["table"]) != self.sent_rows[row["table"]]]
        if changed:
            await self.send_json({"type": "rows", "rows": changed})
        if self.sent_relief != relief_before:
            await self.send_json(message["relief"])

    async def disconnect(self, code):
        await super().disconnect(code)
        if self.refresher is not None:
            self.refresher.cancel()
        await self.leave(events.FLOOR_GROUP)

    async def receive_json(self, content, **kwargs):
        kind = content.get("type")
        if kind == "sync" and await self.sync_allowed():
            await self._send_floor()
        elif kind == "relief" and await self.sync_allowed():
            await self.send_json(await in_db_thread(board_message)())

    async def floor_relief(self, message):
        await self.send(text_data=message["text"])  # encoded once by the sending process

    async def floor_rows(self, message):
        if time.time() - message["sent_at"] <= FLOOR_BEHIND_SECONDS:
            await self.send(text_data=message["text"])  # encoded once by the sending process
        elif time.monotonic() - self.caught_up_at > FLOOR_BEHIND_SECONDS:
            # Behind: one fresh floor replaces the backlog; the batches still queued
            # behind this one are as old, and are dropped until the screen is current.
            self.caught_up_at = time.monotonic()
            await self._send_floor()
