from django.urls import path

from web.floor import relief, waitlist
from web.tables import views

urlpatterns = [
    path("", views.home, name="home"),
    path("floor/", views.floor, name="floor"),
    path("floor/trends/", views.floor_trend, name="floor-trends"),
    path("tables/<int:table_id>/", views.table_live, name="table-live"),
    path("tables/<int:table_id>/tablet/", views.tablet, name="tablet"),
    path("api/tables/<int:table_id>/commands", views.table_command, name="table-command"),
    path("api/tables/<int:table_id>/state", views.table_state, name="table-state"),
    path("floor/waitlist/", waitlist.waitlist_page, name="waitlist"),
    path("floor/relief/", relief.relief_plan_page, name="relief-plan"),
    path("relief/", relief.relief_mine, name="relief-mine"),
    path("lobby/", waitlist.lobby, name="lobby"),
    path("healthz", views.healthz, name="healthz"),
    path("tablet-sw.js", views.tablet_service_worker, name="tablet-service-worker"),
]
