from django.contrib import admin
from django.urls import path

from tables import views as table_views

urlpatterns = [
    path("", table_views.home, name="home"),
    path("api/tables/<int:table_id>/state", table_views.table_state, name="table-state"),
    path("healthz", table_views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
]
