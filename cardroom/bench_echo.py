"""A bare websocket echo for benchmarks.bench_e2e, routed only when CARDROOM_BENCH_ECHO=1.

The end-to-end benchmark compares a tablet's tap with the cheapest round trip the same
Daphne server can make: this consumer answers each text message with itself, has no
channel layer, and reads nothing. (Channels still runs close_old_connections in its
sync thread before each message is handled, as for every consumer: that hop is part of
any socket's round trip on this stack.) Production never sets the variable, so it
has no such route. It sits behind the same origin check and session middleware as the
other sockets and, like them, closes an anonymous socket (the session is read once, at
connect; a message costs nothing more).
"""

import os

from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import path

ENV = "CARDROOM_BENCH_ECHO"


class EchoConsumer(AsyncWebsocketConsumer):
    channel_layer_alias = "no-layer"  # not configured: no channel, no Redis wait per socket

    async def connect(self):
        if not self.scope["user"].is_authenticated:
            await self.close(code=4401)  # web.tables.consumers.NOT_LOGGED_IN
            return
        await self.accept()

    async def receive(self, text_data=None, bytes_data=None):
        await self.send(text_data=text_data, bytes_data=bytes_data)


def websocket_urlpatterns(environ=os.environ) -> list:
    """The echo route when the benchmark asked for it, else none."""
    return [path("ws/echo/", EchoConsumer.as_asgi())] if environ.get(ENV) == "1" else []
