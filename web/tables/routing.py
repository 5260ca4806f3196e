from django.urls import path

from web.tables import consumers

websocket_urlpatterns = [
    path("ws/tables/<int:table_id>/", consumers.TableConsumer.as_asgi()),
    path("ws/floor/", consumers.FloorConsumer.as_asgi()),
]
