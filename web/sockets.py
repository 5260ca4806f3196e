"""The socket that follows its session: what every logged-in websocket of the app shares
(web/tables/consumers.py builds the table's and the floor's on it).

A socket follows its session: when it opens, and when the process's periodic reading
(every SESSION_CHECK_SECONDS, one statement for all its sockets: _StandingWatch) finds
what its standing rests on moved, it checks that the session still stands, the user is
active and their role (a dealer's assignment) still lets them here, and closes otherwise
(4401 logged out, 4403 not allowed); a logout closes the session's sockets at once
(tables.receivers). Between checks it holds the standing it found, and a command is sent
as that actor without a query for it; a change of the user, their groups or their
assignments (tables.standing) makes it check again at once, and before its next command.

It also keeps the socket alive through a channel layer outage (it waits, re-joins its
groups and catches the screen up), runs its database work in a small pool of threads of
its own (in_db_thread), and limits how often a socket may sync or send commands
(tables.socket_rates).
"""


import asyncio
import logging
import os
import weakref
from concurrent.futures import ThreadPoolExecutor
from importlib import import_module
from types import SimpleNamespace

from channels.db import database_sync_to_async as _database_sync_to_async
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.contrib.auth import get_user

from cardroom import channel_layer, wire
from cardroom.access import Actor

from tables import events, standing as standings
from tables.socket_rates import TokenBucket

# Close codes (4000-4999 are the application's): the pages show why the socket closed.
NOT_LOGGED_IN = 4401
NOT_ALLOWED = 4403
NO_SUCH_TABLE = 4404
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
    def seen(cls) -> int:
        """The failures of the sockets' own calls and the outages the layer's reading
        loops lived through (cardroom.channel_layer: its receive waits out an outage
        without failing)."""
        return cls.count + channel_layer.outages()

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
    layer_failures_seen = 0  # _LayerFailures.seen() when it last joined all its groups

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
        seen = _LayerFailures.seen()
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
        self.layer_failures_seen = _LayerFailures.seen()
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
