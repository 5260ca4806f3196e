"""The served channel layer (cardroom.channel_layer: channels_redis's pub/sub layer, kept
through an outage) on a real Redis. Its outage behaviour through Daphne is in
tests/live/test_redis_outage.py."""

import asyncio
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis.asyncio
import redis.exceptions

from cardroom import channel_layer
from cardroom.channel_layer import ChannelLayer

pytestmark = [pytest.mark.redis]


def on_database(redis_url: str, number: int) -> str:
    return urlunsplit(urlsplit(redis_url)._replace(path=f"/{number}"))


def test_apps_on_two_databases_of_one_redis_do_not_hear_each_others_groups(redis_url):
    """Pub/sub channels are the server's, not a database's: two apps (or two test workers)
    on databases 5 and 6 of one Redis both have a "floor" group and a "table.1" group."""

    async def scenario():
        first, second = (ChannelLayer(hosts=[on_database(redis_url, n)]) for n in (5, 6))
        mine, theirs = await first.new_channel(), await second.new_channel()
        await first.group_add("floor", mine)
        await second.group_add("floor", theirs)
        # Published in this order, and read in this order by a connection that hears both.
        await first.group_send("floor", {"type": "floor.rows", "from": "first"})
        await second.group_send("floor", {"type": "floor.rows", "from": "second"})
        assert (await asyncio.wait_for(second.receive(theirs), 5))["from"] == "second"
        assert (await asyncio.wait_for(first.receive(mine), 5))["from"] == "first"
        await first.flush()
        await second.flush()

    asyncio.run(scenario())


def test_a_socket_opens_its_channel_while_redis_is_away_and_joins_no_group_until_it_is_back():
    """A socket opened during an outage gets its channel (channels_redis would fail the
    socket); joining a group fails, so the socket tries again at its next check, and the
    outage is counted for the sockets to catch up (web.sockets)."""

    async def scenario():
        layer = ChannelLayer(hosts=[{"address": "redis://127.0.0.1:9/0", "socket_connect_timeout": 1}])
        before = channel_layer.outages()
        channel = await layer.new_channel()
        assert channel.startswith("asgi.db0.specific.")
        assert channel_layer.outages() > before
        with pytest.raises((ConnectionError, redis.exceptions.ConnectionError)):
            await layer.group_add("floor", channel)
        await layer.flush()

    asyncio.run(scenario())


@pytest.mark.parametrize("address, prefix", [
    ("redis://127.0.0.1:6379/2", "asgi.db2."), ("redis://127.0.0.1:6379?db=3", "asgi.db3."),
    ("unix:///run/redis.sock?db=4", "asgi.db4."), ("redis://127.0.0.1:6379", "asgi.db0."),
])
def test_the_channels_prefix_is_the_database_as_redis_reads_the_address(address, prefix):
    assert ChannelLayer(hosts=[{"address": address}])._kwargs["prefix"] == prefix


def test_a_channel_closed_while_redis_is_away_is_not_subscribed_again_when_it_is_back(redis_url):
    """redis-py subscribes a connection it re-makes to every channel it still holds: an
    unsubscription that failed during an outage must be forgotten, or the closed socket's
    channel stays subscribed (its messages read and dropped) for the life of the process."""

    async def scenario():
        layer = ChannelLayer(hosts=[redis_url])
        closed, kept = await layer.new_channel(), await layer.new_channel()
        admin = redis.asyncio.Redis.from_url(redis_url)
        shard = layer._get_layer()._get_shard(closed)
        real = shard._pubsub.unsubscribe

        async def away(*channels):
            shard._pubsub.unsubscribe = real
            raise redis.exceptions.ConnectionError("Redis is away")

        shard._pubsub.unsubscribe = away
        receiving = asyncio.ensure_future(layer.receive(closed))
        await asyncio.sleep(0.1)
        receiving.cancel()  # the socket closes: its channel is unsubscribed, which fails
        with pytest.raises(asyncio.CancelledError):
            await receiving
        before = channel_layer.outages()
        await admin.client_kill_filter(_type="pubsub")  # the connection drops; redis-py re-makes it
        deadline = asyncio.get_running_loop().time() + 10
        while channel_layer.outages() == before or shard.down:
            assert asyncio.get_running_loop().time() < deadline, "the reading loop did not read again"
            await asyncio.sleep(0.05)
        listed = {c.decode() for c in await admin.pubsub_channels("asgi.*")}
        assert kept in listed and closed not in listed
        await layer.flush()
        await admin.aclose()

    asyncio.run(scenario())


def test_a_layer_flushed_while_its_connection_was_down_joins_groups_again(redis_url):
    async def scenario():
        layer = ChannelLayer(hosts=[redis_url])
        channel = await layer.new_channel()
        shard = layer._get_layer()._get_shard(channel)
        shard.down = True  # as the reading loop leaves it during an outage
        with pytest.raises(ConnectionError):
            await layer.group_add("floor", channel)
        await layer.flush()  # e.g. the loop's layer closed: no connection now
        fresh = await layer.new_channel()
        await layer.group_add("floor", fresh)
        await layer.group_send("floor", {"type": "floor.rows", "n": 1})
        assert (await asyncio.wait_for(layer.receive(fresh), 5))["n"] == 1
        await layer.flush()

    asyncio.run(scenario())
