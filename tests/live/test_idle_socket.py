"""An idle socket stays open on the Redis channel layer, and gets the next event.

With channels_redis's core layer a consumer waited for its next message with a 5 s
BZPOPMIN, and the redis client gave up reading a reply after its default 5 s
socket_timeout: the read could time out first, the consumer died and Daphne closed the
socket with 1011 about every 5 s of quiet. The served layer (cardroom.channel_layer, pub/sub)
reads every subscription of the process in one loop instead; the test waits past those
5 s, and past several of that loop's reads, then checks the socket still works.
"""

import asyncio

import pytest
from channels.layers import get_channel_layer

from cardroom.channel_layer import ChannelLayer

from .conftest import amake_table, arun, socket
from .test_consumers import SEATED, TIMEOUT, play

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis, pytest.mark.slow]

IDLE = 6.5  # seconds: past the old layer's BZPOPMIN wait and its read timeout


def test_an_idle_table_socket_outlives_the_layers_receive_timeout(session_cookie):
    assert isinstance(get_channel_layer(), ChannelLayer)

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
