"""The benchmark's echo socket (cardroom/bench_echo.py): routed only when asked for."""

import asyncio

import pytest
from channels.auth import AuthMiddlewareStack
from channels.routing import URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from channels.testing import WebsocketCommunicator

from cardroom import bench_echo

from .conftest import ORIGIN, socket

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_echo_route_exists_only_when_the_benchmark_sets_its_variable():
    assert bench_echo.websocket_urlpatterns({}) == []
    assert bench_echo.websocket_urlpatterns({bench_echo.ENV: "0"}) == []
    assert [str(p.pattern) for p in bench_echo.websocket_urlpatterns({bench_echo.ENV: "1"})] == ["ws/echo/"]


def test_the_application_has_no_echo_route_by_default(session_cookie):
    async def scenario():
        communicator = socket("/ws/echo/", session_cookie)
        with pytest.raises(ValueError, match="No route found"):
            await communicator.connect(timeout=5)

    asyncio.run(scenario())


def test_the_echo_answers_a_logged_in_socket_and_closes_an_anonymous_one(session_cookie):
    app = AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(bench_echo.websocket_urlpatterns({bench_echo.ENV: "1"}))))

    async def scenario():
        anonymous = WebsocketCommunicator(app, "/ws/echo/", headers=[ORIGIN])
        connected, code = await anonymous.connect(timeout=5)
        assert not connected and code == 4401
        communicator = WebsocketCommunicator(app, "/ws/echo/", headers=[ORIGIN, (b"cookie", f"sessionid={session_cookie}".encode())])
        assert (await communicator.connect(timeout=5))[0]
        await communicator.send_to(text_data='{"n": 1}')
        assert await communicator.receive_from(timeout=5) == '{"n": 1}'
        await communicator.disconnect()

    asyncio.run(scenario())
