"""The channel layer the app serves with when REDIS_URL is set (config.settings.base):
channels_redis's pub/sub layer, kept working through a Redis outage.

Why pub/sub (`channels_redis.pubsub`) and not channels_redis's core layer: a group message
is one PUBLISH, which Redis hands once to each process with a member of the group, and
the process puts it in each of its members' queues. The core layer stores a copy per
member (each serialised, pushed by a script after reading the group's members) and each
member's process pops its copy again. Every table event went through that once per
socket of the table, and every floor batch (up to four a second) once per supervisor's
screen: 40 screens, 40 copies of a 9 KiB batch written and read back, four times a
second. Under `bench_e2e` (250 tablets, 40 screens, 52 commands/s on one process) the
channel layer was about a tenth of Daphne's CPU; see benchmarks/RESULTS.md for the pair.

What the core layer kept that pub/sub does not: a message waits in Redis (60 s, 100 per
channel) for a member whose process is not reading at that moment. Nothing here relies
on it: a screen that misses an event sees the gap in `seq` and takes a snapshot, the
floor re-reads itself on its tick (web.tables.consumers), and a socket catches up after
an outage (below). Group memberships live as long as the process's subscription, so no
group expiry is needed. Pub/sub channels are the server's, not a Redis database's: the
channels are prefixed with the database's number, which keeps apart what the database
number kept apart with the core layer.

Through an outage (a socket lives through it and catches up: web.sockets):
* channels_redis subscribes a socket's own channel as the socket opens, which fails
  while Redis is away and would close the socket with 1011; here the channel is made
  anyway, and subscribed when the socket joins its groups again (`group_add`);
* each Redis connection's reading loop counts the outages it sees (`outages()`, which the
  sockets compare with what they last saw) and knows whether it reads now: joining a
  group fails until it does (redis-py reconnects and subscribes the connection again), so
  a socket joins its groups again, and sends its screen what was lost, once Redis is back.
"""

import asyncio
import logging

from channels_redis.pubsub import RedisPubSubChannelLayer, RedisPubSubLoopLayer, RedisSingleShardConnection
from channels_redis.utils import _wrap_close, decode_hosts
from redis.asyncio.connection import parse_url

logger = logging.getLogger(__name__)

# How long a connection's reading loop waits before it reads again after a failure (s).
RETRY_SECONDS = 0.5

_outages = 0


def outages() -> int:
    """How many times this process's Redis connections have been lost or got back."""
    return _outages


def _note_outage(what: str, error: BaseException | None = None) -> None:
    global _outages
    _outages += 1
    if error is None:
        logger.warning("channel layer: %s", what)
    else:
        logger.warning("channel layer: %s (%s: %s)", what, type(error).__name__, error)


class _Shard(RedisSingleShardConnection):
    """One Redis connection's subscriptions, whose reading loop counts outages and knows
    whether it is reading now (`down`)."""

    down = False

    async def _do_receiving(self):
        while True:
            try:
                if self._pubsub is not None and self._pubsub.subscribed:
                    message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=0.1)
                    if self.down:
                        # redis-py reconnected and subscribed the connection again.
                        self.down = False
                        logger.warning("channel layer: reading again")
                    self._receive_message(message)
                else:
                    await asyncio.sleep(0.1)
            except (asyncio.CancelledError, GeneratorExit):
                raise
            except Exception as error:  # noqa: BLE001 (Redis away: read again shortly)
                if not self.down:
                    self.down = True
                    _note_outage("reading failed", error)
                await asyncio.sleep(RETRY_SECONDS)

    async def unsubscribe(self, channel):
        """As channels_redis's, but an unsubscription that fails (Redis away) is forgotten
        here too: redis-py subscribes its connection again to every channel it still holds
        when it reconnects, so a socket closed during an outage would stay subscribed, and
        its messages read and dropped, for the life of the process."""
        try:
            await super().unsubscribe(channel)
        except Exception as error:  # noqa: BLE001 (the connection is re-made without it)
            self._subscribed_to.discard(channel)
            if self._pubsub is not None:
                self._pubsub.channels.pop(self._pubsub.encoder.encode(channel), None)
                self._pubsub.channels.pop(channel, None)
            logger.warning("channel layer: unsubscribing %s failed (%s); dropped", channel, type(error).__name__)

    async def flush(self):
        await super().flush()
        self.down = False  # no connection now: the next one is made afresh


class _LoopLayer(RedisPubSubLoopLayer):
    """The pub/sub layer of one event loop, whose channels open while Redis is away."""

    def __init__(self, hosts=None, **kwargs):
        super().__init__(hosts=hosts, **kwargs)
        self._shards = [_Shard(host, self) for host in decode_hosts(hosts)]

    async def _subscribe_to_channel(self, channel):
        self.channels[channel] = asyncio.Queue()
        try:
            await self._get_shard(channel).subscribe(channel)
        except Exception as error:  # noqa: BLE001 (subscribed when the socket joins its groups again)
            _note_outage(f"subscribing {channel} failed", error)

    async def group_add(self, group, channel):
        # Joining succeeds only while the connection reads: a socket that re-joins during
        # an outage (its group was subscribed before it) would catch up then, and miss
        # what is published until Redis is back.
        for shard in {self._get_shard(channel), self._get_shard(self._get_group_channel_name(group))}:
            if shard.down:
                raise ConnectionError("the channel layer's Redis connection is not reading")
        # A channel made while Redis was away is subscribed now (a no-op once it is).
        if channel in self.channels:
            await self._get_shard(channel).subscribe(channel)
        await super().group_add(group, channel)


def _prefix_of(hosts) -> str:
    """The channels' prefix: a Redis database's number kept apart. Pub/sub channels are
    the server's, not a database's, so two apps (or two test workers) on databases 1 and
    2 of one Redis would otherwise hear each other's groups ("floor", "table.12")."""
    first = decode_hosts(hosts)[0]
    database = first.get("db")
    if "address" in first:  # as redis-py reads it: redis://h/2, redis://h?db=2, unix://path?db=2
        database = parse_url(first["address"]).get("db", database)
    return f"asgi.db{database or 0}."


class ChannelLayer(RedisPubSubChannelLayer):
    """channels_redis's pub/sub layer with the loop layer above (settings' BACKEND), its
    channels prefixed by the Redis database they are configured with."""

    def __init__(self, *args, hosts=None, prefix=None, **kwargs):
        super().__init__(*args, hosts=hosts, prefix=prefix or _prefix_of(hosts), **kwargs)

    def _get_layer(self):
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:
            layer = self._layers[loop] = _LoopLayer(*self._args, **self._kwargs, channel_layer=self)
            _wrap_close(self, loop)  # as channels_redis does: the loop's layer is flushed when it closes
        return layer
