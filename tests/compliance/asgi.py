"""Requests through Django's ASGI handler, the way Daphne makes them.

The test client would not do: its handler hands streaming content back unconsumed. Here
`django.core.handlers.asgi.ASGIHandler` runs the request and sends the response as ASGI
messages to a `send` of ours, which sees each body chunk as it leaves the application:
that is what a client of Daphne receives, and when.

The request runs under `async_to_sync` from the test's thread, so the views' database
calls (thread-sensitive `sync_to_async`) use the test's connection and transaction. As
Django's own test client does, the request signals do not close that connection.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

from asgiref.sync import async_to_sync
from django.conf import settings
from django.core import signals
from django.core.handlers.asgi import ASGIHandler
from django.db import close_old_connections


@dataclass
class StreamedResponse:
    status: int = 0
    headers: dict = field(default_factory=dict)
    chunks: int = 0
    size: int = 0
    sha256: str = ""
    body: bytes | None = None  # kept only when asked (keep_body=True)


class AsgiClient:
    def __init__(self, logged_in_client=None):
        cookie = ""
        if logged_in_client is not None:
            cookie = f"{settings.SESSION_COOKIE_NAME}={logged_in_client.cookies[settings.SESSION_COOKIE_NAME].value}"
        self.cookie = cookie

    def get(
        self,
        path: str,
        params: dict | None = None,
        *,
        keep_body: bool = True,
        on_first_chunk: Callable[[bytes], Awaitable[None]] | None = None,
    ) -> StreamedResponse:
        signals.request_started.disconnect(close_old_connections)
        signals.request_finished.disconnect(close_old_connections)
        try:
            return async_to_sync(self._get)(path, params or {}, keep_body, on_first_chunk)
        finally:
            signals.request_started.connect(close_old_connections)
            signals.request_finished.connect(close_old_connections)

    async def _get(self, path, params, keep_body, on_first_chunk) -> StreamedResponse:
        query = urlencode(params)
        headers = [(b"host", b"testserver")]
        if self.cookie:
            headers.append((b"cookie", self.cookie.encode("latin1")))
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
        }
        never = asyncio.Event()
        request_sent = False

        async def receive():
            nonlocal request_sent
            if not request_sent:
                request_sent = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await never.wait()  # the client stays connected

        response = StreamedResponse()
        digest = hashlib.sha256()
        kept = bytearray() if keep_body else None

        async def send(message):
            if message["type"] == "http.response.start":
                response.status = message["status"]
                response.headers = {k.decode().lower(): v.decode() for k, v in message["headers"]}
            elif message["type"] == "http.response.body":
                body = message.get("body", b"")
                if not body:
                    return
                if response.chunks == 0 and on_first_chunk is not None:
                    await on_first_chunk(body)
                response.chunks += 1
                response.size += len(body)
                digest.update(body)
                if kept is not None:
                    kept.extend(body)

        await ASGIHandler()(scope, receive, send)
        response.sha256 = digest.hexdigest()
        response.body = bytes(kept) if kept is not None else None
        return response
