"""Websocket consumers: thin. They authorise, join groups, forward events, and hand
commands to the one command service (tables.services.command_execute).

Protocol, server to client (every message a JSON object with a `type`):
  {"type": "snapshot", "snapshot": {...}}          on connect and on request
  {"type": "event", "seq": n, "command_type", "result", "snapshot"}  each accepted command
  {"type": "result", "id", "result", "version", "replayed"}         answer to a command
  floor: {"type": "floor", "rows": [...]} (all tables) and {"type": "rows", "rows": [...]}
         (the tables that changed in one window, at most one message per window per process)
Client to server on a table socket:
  {"type": "command", "command": {... commands.md, with "id" and "version" ...}}
  {"type": "sync"} (send me a fresh snapshot), {"type": "heartbeat"} (tablet presence)
A client applies an event whose seq is its version + 1, ignores older ones, and asks
for a snapshot on a gap: one recovery path, the same as after a reconnect.
"""

import asyncio
import json
import time
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import InMemoryChannelLayer

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
# A floor batch older than this reached a screen that fell behind (its queue held a
# backlog): the screen gets one fresh full floor instead of stale batches.
FLOOR_BEHIND_SECONDS = 2.0


def _snapshot(table_id: int) -> dict | None:
    table = Table.objects.filter(pk=table_id).first()
    return table_snapshot(table) if table else None


def _command_from(scope, table_id: int, command) -> CommandOutcome:
    """One trip to the database thread: who sends the command, then the command."""
    return command_execute(table_id=table_id, command=command, actor=Actor.from_scope(scope))


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

    @classmethod
    async def decode_json(cls, text_data):
        try:
            content = json.loads(text_data)
        except ValueError:
            return {"type": "invalid"}
        return content if isinstance(content, dict) else {"type": "invalid"}


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
            await self.send_json({"type": "error", "message": "expected a message of type command, sync or heartbeat"})

    async def _command(self, command):
        outcome = await database_sync_to_async(_command_from)(self.scope, self.table_id, command)
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
    """`/ws/floor/`: every table's row, then the rows that changed, batched per window by
    each process's publisher (tables.events.Publisher)."""

    refresher: asyncio.Task | None = None
    caught_up_at = 0.0  # when this screen last got a full floor for falling behind

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

    async def floor_rows(self, message):
        if time.time() - message["sent_at"] <= FLOOR_BEHIND_SECONDS:
            await self.send_json({"type": "rows", "rows": message["rows"]})
        elif time.monotonic() - self.caught_up_at > FLOOR_BEHIND_SECONDS:
            # Behind: one fresh floor replaces the backlog; the batches still queued
            # behind this one are as old, and are dropped until the screen is current.
            self.caught_up_at = time.monotonic()
            await self._send_floor()
