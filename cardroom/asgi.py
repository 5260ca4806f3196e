"""ASGI entry point: HTTP goes to Django, websockets to the live-table consumers.

Websockets pass the allowed-hosts origin check (no cross-site socket can ride a
supervisor's session) and the session authentication of Django's login.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardroom.settings.base")

# Django must be set up before anything imports models (the consumers do).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from cardroom import bench_echo  # noqa: E402
from tables.routing import websocket_urlpatterns  # noqa: E402

# The benchmark's echo route exists only when CARDROOM_BENCH_ECHO=1 (cardroom/bench_echo.py).
routes = websocket_urlpatterns + bench_echo.websocket_urlpatterns()

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(routes))),
    }
)
