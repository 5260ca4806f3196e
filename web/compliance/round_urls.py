"""Round history and rotation log, included by web/compliance/urls.py under
/compliance/ (names in the `compliance` namespace): compliance pages of the back office."""

from django.urls import path

from web.compliance import rounds as round_views

urlpatterns = [
    path("rounds/", round_views.round_history, name="rounds"),
    path("rounds/export.csv", round_views.round_export_csv, name="rounds-export"),
    path("rounds/<int:round_id>/", round_views.round_detail, name="round-detail"),
    path("rounds/<int:round_id>/timeline", round_views.round_timeline, name="round-timeline"),
    path("rounds/<int:round_id>/replay.csv", round_views.round_replay_export, name="round-replay-export"),
    path("rotation/", round_views.rotation_log, name="rotation"),
    path("rotation/export.csv", round_views.rotation_export_csv, name="rotation-export"),
    path("rotation/offered/", round_views.rounds_offered, name="rotation-offered"),
]
