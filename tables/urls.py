from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("api/tables/<int:table_id>/state", views.table_state, name="table-state"),
    path("healthz", views.healthz, name="healthz"),
]
