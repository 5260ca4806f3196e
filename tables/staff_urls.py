"""Table and staff routes of supervisors and the tablet (cardroom/urls.py includes them at
the root): approvals, assignments, the audit trail, table setup, the floor's table actions."""

from django.urls import path

from . import approval_views, setup_views, staff_views

urlpatterns = [
    path("staff/approvals/", approval_views.approval_queue, name="approval-queue"),
    path("staff/assignments/", staff_views.assignments, name="assignments"),
    path("staff/audit/", staff_views.audit_trail, name="audit-trail"),
    path("staff/tables/", setup_views.table_list, name="table-list"),
    path("staff/tables/<int:table_id>/", setup_views.table_setup, name="table-setup"),
    path("staff/tables/<int:table_id>/retire", setup_views.table_retirement, name="table-retire"),
    path("staff/tables/<int:table_id>/first-configuration", setup_views.table_first_configuration,
         name="table-first-configuration"),
    path("staff/tables/<int:table_id>/<slug:section>/", setup_views.table_setup, name="table-setup-section"),
    path("api/tables/<int:table_id>/approvals", approval_views.approval_create, name="approval-create"),
    path("api/tables/<int:table_id>/commands/confirmed-here", approval_views.command_confirmed_here, name="command-confirmed-here"),
    path("api/tables/<int:table_id>/alerts/acknowledge", staff_views.alert_acknowledgement, name="alert-acknowledge"),
    path("api/tables/<int:table_id>/open", staff_views.table_status, name="table-status"),
    path("api/tables/<int:table_id>/config", staff_views.table_config, name="table-config"),
    path("api/approvals/<int:approval_id>", approval_views.approval_state, name="approval-state"),
    path("api/approvals/<int:approval_id>/decide", approval_views.approval_decide_on_tablet, name="approval-decide-tablet"),
]
