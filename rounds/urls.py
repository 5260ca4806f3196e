"""Round history and rotation log, included by collections_fees/urls.py under
/compliance/ (names in the `compliance` namespace)."""

from django.urls import path

from . import views

urlpatterns = [
    path("rounds/", views.round_history, name="rounds"),
    path("rounds/export.csv", views.round_export_csv, name="rounds-export"),
    path("rounds/<int:round_id>/", views.round_detail, name="round-detail"),
    path("rotation/", views.rotation_log, name="rotation"),
    path("rotation/export.csv", views.rotation_export_csv, name="rotation-export"),
    path("rotation/offered/", views.rounds_offered, name="rotation-offered"),
]
