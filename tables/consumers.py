"""Websocket consumers: thin. They authorise, join groups, forward events, and hand
commands to the one command service (tables.services.command_execute).

Protocol, server to client (every message a JSON object with a `type`):
  {"type": "snapshot", "snapshot": {...}}          on connect and on request
  {"type": "event", "seq": n, "command_type", "result", "snapshot"}  each accepted command
  {"type": "result", "id", "result", "version", "replayed"}         answer to a command
  floor: {"type": "floor", "rows": [...]} (all tables) and {"type": "row", "row": {...}}
Client to server on a table socket:
  {"type": "command", "command": {... commands.md, with "id" and "version" ...}}
  {"type": "sync"} (send me a fresh snapshot), {"type": "heartbeat"} (tablet presence)
A client applies an event whose seq is its version + 1, ignores older ones, and asks
for a snapshot on a gap: one recovery path, the same as after a reconnect.
"""

import asyncio
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import InMemoryChannelLayer

from cardroom import wire
from cardroom.access import READERS, Actor, can_view_table, role_of

from . import events, presence
from .models import Table
from .selectors import floor_rows, table_snapshot
from .services import CommandOutcome, command_execute

# Close codes (4000-4999 are the application's): the pages show why the socket closed.
NOT_LOGGED_IN = 4401
NOT_ALLOWED = 4403
NO_SUCH_TABLE = 4404
# The floor's full refresh: mends a row lost on the way and ages the "idle" alerts. With
# the in-memory layer (the embedded default) a command run by another process, such as
# simulate_floor, cannot reach this one, so the floor re-reads the tables more often.
FLOOR_REFRESH_SECONDS = 30
FLOOR_REFRESH_IN_MEMORY_SECONDS = 2


def _snapshot(table_id: int) -> dict | None:
    table = Table.objects.filter(pk=table_id).first()
    return table_snapshot(table) if table else None


def _command_from(scope, table_id: int, command, received: str | None = None) -> CommandOutcome:
    """One trip to the database thread: who sends the command, then the command."""
    return command_execute(table_id=table_id, command=command, actor=Actor.from_scope(scope), received=received)


class _LoggedInConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        # Closing before accepting refuses the handshake (HTTP 403 to the browser).
        if not self.scope["user"].is_authenticated:
            await self.close(code=NOT_LOGGED_IN)
            return
        if not await database_sync_to_async(self.allowed)(self.scope["user"]):
            await self.close(code=NOT_ALLOWED)
            return
        events.bind_consumer_loop(asyncio.get_running_loop())
        await self.joined()

    def allowed(self, user) -> bool:
        raise NotImplementedError

    async def joined(self):
        raise NotImplementedError

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
    """`/ws/tables/<id>/`: the tablet (`?role=tablet`, counted for presence) and the
    read-only live view."""

    table_id: int | None = None
    is_tablet = False

    def allowed(self, user) -> bool:
        return can_view_table(Actor.of(user), self.scope["url_route"]["kwargs"]["table_id"])

    async def joined(self):
        self.table_id = self.scope["url_route"]["kwargs"]["table_id"]
        self.is_tablet = parse_qs(self.scope["query_string"].decode()).get("role") == ["tablet"]
        # Join first, then read: an event committed in between is then both in the
        # snapshot and queued behind it, and the client drops it by its seq.
        await self.channel_layer.group_add(events.table_group(self.table_id), self.channel_name)
        snapshot = await database_sync_to_async(_snapshot)(self.table_id)
        if snapshot is None:
            await self.channel_layer.group_discard(events.table_group(self.table_id), self.channel_name)
            await self.close(code=NO_SUCH_TABLE)
            return
        await self.accept()
        await self.send_json({"type": "snapshot", "snapshot": snapshot})
        if self.is_tablet:
            await self._tablet_seen()

    async def disconnect(self, code):
        if self.table_id is None:
            return
        await self.channel_layer.group_discard(events.table_group(self.table_id), self.channel_name)
        if self.is_tablet:
            await database_sync_to_async(presence.tablet_gone)(self.table_id, self.channel_name)
            events.tablet_presence_changed(self.table_id)

    async def receive_json(self, content, **kwargs):
        kind = content.get("type")
        if kind == "command":
            await self._command(content.get("command"))
        elif kind == "sync":
            await self.send_json({"type": "snapshot", "snapshot": await database_sync_to_async(_snapshot)(self.table_id)})
        elif kind == "heartbeat":
            if self.is_tablet:
                await self._tablet_seen()
        else:
            refused = wire.WireError("invalid_command", "expected a message of type command, sync or heartbeat")
            await self.send_json(wire.socket_error(refused))

    async def _command(self, command):
        outcome = await database_sync_to_async(_command_from)(self.scope, self.table_id, command, self.received)
        await self.send_json({"type": "result", **outcome.reply(command)})

    async def _tablet_seen(self):
        if await database_sync_to_async(presence.tablet_seen)(self.table_id, self.channel_name):
            events.tablet_presence_changed(self.table_id)

    async def table_changed(self, message):
        await self.send_json(
            {
                "type": "event",
                "seq": message["seq"],
                "command_type": message["command_type"],
                "result": message["result"],
                "snapshot": message["snapshot"],
            }
        )


class FloorConsumer(_LoggedInConsumer):
    """`/ws/floor/`: every table's row, then each table's latest row at most once per
    coalescing window (tables.events.Publisher)."""

    refresher: asyncio.Task | None = None

    def allowed(self, user) -> bool:
        return role_of(user) in READERS

    async def joined(self):
        await self.channel_layer.group_add(events.FLOOR_GROUP, self.channel_name)
        await self.accept()
        await self._send_floor()
        self.refresher = asyncio.create_task(self._refresh())

    async def _send_floor(self):
        await self.send_json({"type": "floor", "rows": await database_sync_to_async(floor_rows)()})

    async def _refresh(self):
        in_memory = isinstance(self.channel_layer, InMemoryChannelLayer)
        while True:
            await asyncio.sleep(FLOOR_REFRESH_IN_MEMORY_SECONDS if in_memory else FLOOR_REFRESH_SECONDS)
            await self._send_floor()

    async def disconnect(self, code):
        if self.refresher is not None:
            self.refresher.cancel()
        await self.channel_layer.group_discard(events.FLOOR_GROUP, self.channel_name)

    async def receive_json(self, content, **kwargs):
        if content.get("type") == "sync":
            await self._send_floor()

    async def table_changed(self, message):
        await self.send_json({"type": "row", "row": message["row"]})
