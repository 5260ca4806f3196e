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

Each socket follows its session as every logged-in socket does (web/sockets.py): it
closes with 4401 (logged out) or 4403 (not allowed) when its standing is gone.
"""


import asyncio
import json
import logging
import time
from urllib.parse import parse_qs

from channels.layers import InMemoryChannelLayer

from cardroom import wire
from cardroom.access import READERS, Actor, can_drive, can_drive_table, can_view_table
from rounds.visibility import LIVE, TABLET

from tables import events, presence
from tables.models import Table
from tables.floor import whole_floor
from tables.relief import board_message
from tables.selectors import table_snapshot
from tables.services import CommandOutcome, command_execute
from web.sockets import (  # noqa: F401 (NOT_LOGGED_IN, NOT_ALLOWED: the close codes, read by the tests and the pages)
    ANOTHER_LOGIN,
    NOT_ALLOWED,
    NOT_LOGGED_IN,
    NO_SUCH_TABLE,
    _LoggedInConsumer,
    in_db_thread,
)

# The floor's periodic re-read: mends a row lost on the way and ages the "idle" alerts. With
# the in-memory layer (the embedded default) a command run by another process, such as
# simulate_floor, cannot reach this one, so the floor re-reads the tables more often. A
# screen is sent only the rows (and the relief board) that differ from what it was last
# sent: an idle floor gets no message, and its screen has nothing to redraw.
#
# Every screen of a process re-reads at the same tick of the wall clock (a multiple of the
# period), so they share one read of the floor (`_floor_at_tick`) and one encoding of its
# rows (`_row_texts`). Each on its own timer from its connect, 40 screens
# re-read about once a second between them: a third of a Daphne process's time at 250
# tables (py-spy under benchmarks/bench_e2e.py), against one read per period now.
FLOOR_REFRESH_SECONDS = 30
FLOOR_REFRESH_IN_MEMORY_SECONDS = 2
# A floor batch older than this reached a screen that fell behind (its queue held a
# backlog): the screen gets one fresh full floor instead of stale batches.
FLOOR_BEHIND_SECONDS = 2.0

logger = logging.getLogger(__name__)


def _snapshot(table_id: int, audience: str) -> dict | None:
    table = Table.objects.filter(pk=table_id).first()
    return table_snapshot(table, audience) if table else None


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
                answer = wire.unsent_answer(content.get("command"), ANOTHER_LOGIN, version=0)
                await self.send_json({"type": "result", **answer})
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
            refused = {"ok": False, "error": {
                "code": "rate_limited", "message": "too many commands on this connection: sent again after retry_after seconds"}}
            answer = wire.unsent_answer(command, refused, version=None, retry_after=round(wait, 3))
            await self.send_json({"type": "result", **answer})
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


# The rows of the last whole floor read and each row's text, encoded once for every screen
# that compares against it (whole_floor hands every caller within its age the same list).
_encoded: tuple[list | None, dict[int, str]] = (None, {})


def _row_texts(rows: list[dict]) -> dict[int, str]:
    global _encoded
    held, texts = _encoded
    if held is not rows:
        texts = {row["table"]: json.dumps(row, sort_keys=True) for row in rows}
        _encoded = (rows, texts)
    return texts


def until_next_tick(period: float, now: float | None = None) -> float:
    """Seconds to the next multiple of `period` on the wall clock: the moment every screen
    of the process re-reads together."""
    now = time.time() if now is None else now
    return period - now % period


# The floor read at a tick, by (event loop, tick): one read for every screen of the process.
_tick_reads: dict[tuple, asyncio.Future] = {}


async def _floor_at_tick(tick: int) -> dict:
    """The floor as read once for tick `tick` by the first screen to ask, shared by every
    screen of this event loop. whole_floor's own sharing (WHOLE_FLOOR_MAX_AGE) does not
    hold under load: each publishing window (up to four a second) forgets it, and the 40
    screens of a process, reading in turn in three database threads, re-read the whole
    floor and the relief board many times over at every tick (bench_e2e)."""
    key = (asyncio.get_running_loop(), tick)
    read = _tick_reads.get(key)
    if read is None:
        for old in [k for k in _tick_reads if k[1] < tick or k[0].is_closed()]:
            del _tick_reads[old]
        read = _tick_reads[key] = asyncio.ensure_future(in_db_thread(_floor_message)())
    # shield: a screen that closes while it waits does not cancel the others' read.
    return await asyncio.shield(read)


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
        await self._send_whole(message)

    async def _send_whole(self, message: dict):
        """A whole floor, from its rows as encoded once for every screen (`_row_texts`: a
        whole floor is some 56 KB at 250 tables), after `_note_sent`."""
        rows = ",".join(self.sent_rows[row["table"]] for row in message["rows"])
        await self.send(text_data=f'{{"type": "floor", "rows": [{rows}], "relief": {self.sent_relief}}}')

    def _note_sent(self, message: dict) -> None:
        self.sent_rows = _row_texts(message["rows"])
        self.sent_relief = json.dumps(message["relief"], sort_keys=True)

    async def _refresh(self):
        in_memory = isinstance(self.channel_layer, InMemoryChannelLayer)
        period = FLOOR_REFRESH_IN_MEMORY_SECONDS if in_memory else FLOOR_REFRESH_SECONDS
        while True:
            wait = until_next_tick(period)
            tick = round((time.time() + wait) / period)
            await asyncio.sleep(wait)
            try:
                await self._send_changes(await _floor_at_tick(tick))
            except Exception:  # noqa: BLE001 (the database away at this tick: the next one reads again)
                # One read serves every screen of the process: were its failure to end the
                # loop, one blip would stop every screen's refresh, which also mends a
                # batch the publisher could not send (tables.events).
                logger.exception("the floor could not be re-read at its tick")

    async def _send_changes(self, message: dict):
        """The floor as re-read (`message`); sent are only the rows and the relief board that
        changed, from the rows' texts encoded once for every screen."""
        before, relief_before = self.sent_rows or {}, self.sent_relief
        if set(before) - {row["table"] for row in message["rows"]}:
            # A table left the floor meanwhile: a whole floor, as on connect.
            self._note_sent(message)
            await self._send_whole(message)
            return
        self._note_sent(message)
        changed = [text for table, text in self.sent_rows.items() if before.get(table) != text]
        if changed:
            await self.send(text_data=f'{{"type": "rows", "rows": [{",".join(changed)}]}}')
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
