"""The served channel layer (cardroom.channel_layer: channels_redis's pub/sub layer, kept
through an outage) on a real Redis. Its outage behaviour through Daphne is in
tests/live/test_redis_outage.py."""

import asyncio
from urllib.parse import urlsplit, urlunsplit

import pytest
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
