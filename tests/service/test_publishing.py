"""Accepted commands reach subscribers through the real Redis channel layer, after commit."""

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection

from tables.events import FLOOR_GROUP, table_group
from tables.services import command_execute, table_create

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def test_an_accepted_command_is_published_to_its_table_and_the_floor(redis_url, settings):
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [redis_url]}}
    }

    async def scenario():
        layer = get_channel_layer()
        table = await sync_to_async(table_create)(name="T", config={"seats": 6}, created_by="test")
        tablet, floor = await layer.new_channel(), await layer.new_channel()
        await layer.group_add(table_group(table.pk), tablet)
        await layer.group_add(FLOOR_GROUP, floor)
        run = sync_to_async(command_execute)
        await run(table_id=table.pk, command={"type": "sit", "seat": 9, "player": "X"}, actor="d")  # refused
        await run(table_id=table.pk, command={"type": "sit", "seat": 1, "player": "P-1"}, actor="d")
        for channel in (tablet, floor):
            message = await asyncio.wait_for(layer.receive(channel), timeout=5)
            assert message["type"] == "table.changed"
            # seq 1: the refused command before it published nothing and took no number.
            assert (message["table"], message["seq"], message["command_type"]) == (table.pk, 1, "sit")
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(layer.receive(tablet), timeout=0.3)
        await layer.flush()
        await sync_to_async(lambda: connection.close())()  # the worker thread's own connection

    asyncio.run(scenario())
