"""ASGI entry point: HTTP goes to Django, websockets to the live-table consumers.

HTTP bodies larger than cardroom.wire.MAX_BODY_BYTES are refused (413) before Django
reads them; the upload of the state's self-exclusion list alone has a limit of its own
(patrons.identity.STATE_LIST_BODY_BYTES, a real list is megabytes). Websockets pass the origin check (same scheme, host and port as the page:
no cross-site socket can ride a supervisor's session) and the session authentication of
Django's login.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

# Django must be set up before anything imports models (the consumers do).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from cardroom import bench_echo  # noqa: E402
from cardroom.wire import BodyLimitMiddleware, OriginValidator  # noqa: E402
from patrons.identity import STATE_LIST_BODY_BYTES, STATE_LIST_UPLOAD_PATH  # noqa: E402
from web.tables.routing import websocket_urlpatterns  # noqa: E402

# The benchmark's echo route exists only when CARDROOM_BENCH_ECHO=1 (cardroom/bench_echo.py).
routes = websocket_urlpatterns + bench_echo.websocket_urlpatterns()

application = ProtocolTypeRouter(
    {
        "http": BodyLimitMiddleware(django_asgi_app, routes={STATE_LIST_UPLOAD_PATH: STATE_LIST_BODY_BYTES}),
        "websocket": OriginValidator(AuthMiddlewareStack(URLRouter(routes))),
    }
)
