from django.urls import path

from . import staff_views

urlpatterns = [
    path("staff/approvals/", staff_views.approval_queue, name="approval-queue"),
    path("staff/assignments/", staff_views.assignments, name="assignments"),
    path("staff/audit/", staff_views.audit_trail, name="audit-trail"),
    path("api/tables/<int:table_id>/approvals", staff_views.approval_create, name="approval-create"),
    path("api/tables/<int:table_id>/commands/confirmed-here", staff_views.command_confirmed_here, name="command-confirmed-here"),
    path("api/tables/<int:table_id>/alerts/acknowledge", staff_views.alert_acknowledgement, name="alert-acknowledge"),
    path("api/tables/<int:table_id>/open", staff_views.table_status, name="table-status"),
    path("api/tables/<int:table_id>/config", staff_views.table_config, name="table-config"),
    path("api/approvals/<int:approval_id>", staff_views.approval_state, name="approval-state"),
    path("api/approvals/<int:approval_id>/decide", staff_views.approval_decide_on_tablet, name="approval-decide-tablet"),
]
