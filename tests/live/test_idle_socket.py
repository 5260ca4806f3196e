"""An idle socket stays open on the Redis channel layer.

channels-redis 4.3 waits for a consumer's next message with BZPOPMIN and a 5 s timeout,
and the pinned redis client gives up reading a reply after its default socket_timeout,
also 5 s: without a longer read timeout in CHANNEL_LAYERS the read could time out
first, the consumer died and Daphne closed the socket with 1011 about every 5 s of
quiet. The test waits just past that 5 s, then checks the socket still works.
"""

import asyncio

import pytest
from channels.layers import get_channel_layer
from channels_redis.core import RedisChannelLayer

from .conftest import amake_table, arun, socket
from .test_consumers import SEATED, TIMEOUT, play

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis, pytest.mark.slow]

IDLE = RedisChannelLayer.brpop_timeout + 1.5  # seconds: past one BZPOPMIN wait, no more


def test_an_idle_table_socket_outlives_the_layers_receive_timeout(session_cookie):
    assert isinstance(get_channel_layer(), RedisChannelLayer)

    async def scenario():
        table = await amake_table()
        communicator = socket(f"/ws/tables/{table.pk}/", session_cookie)
        assert (await communicator.connect(timeout=TIMEOUT))[0]
        assert (await communicator.receive_json_from(timeout=TIMEOUT))["type"] == "snapshot"
        await asyncio.sleep(IDLE)
        # A consumer killed by the read timeout re-raises it here instead of answering.
        await arun(table.pk, SEATED[0])
        event = await communicator.receive_json_from(timeout=TIMEOUT)
        assert (event["type"], event["seq"]) == ("event", 1)
        await communicator.send_json_to({"type": "sync"})
        assert (await communicator.receive_json_from(timeout=TIMEOUT))["snapshot"]["version"] == 1
        await communicator.disconnect()

    play(scenario)
