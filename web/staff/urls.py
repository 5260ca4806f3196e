"""Table and staff routes of supervisors and the tablet (config/urls.py includes them at
the root): approvals, assignments, the audit trail, table setup, the floor's table actions."""

from django.urls import path

from web.staff import approvals, rule_sets, setup, views

urlpatterns = [
    path("staff/approvals/", approvals.approval_queue, name="approval-queue"),
    path("staff/assignments/", views.assignments, name="assignments"),
    path("staff/audit/", views.audit_trail, name="audit-trail"),
    path("staff/rule-sets/", rule_sets.rule_set_list, name="rule-sets"),
    path("staff/rule-sets/<int:rule_set_id>/changes", rule_sets.rule_set_change_file, name="rule-set-file"),
    path("staff/rule-set-changes/<int:change_id>/decide", rule_sets.rule_set_change_decide, name="rule-set-decide"),
    path("staff/tables/", setup.table_list, name="table-list"),
    path("staff/tables/<int:table_id>/", setup.table_setup, name="table-setup"),
    path("staff/tables/<int:table_id>/retire", setup.table_retirement, name="table-retire"),
    path("staff/tables/<int:table_id>/expected", setup.table_game_math, name="table-game-math"),
    path("staff/tables/<int:table_id>/first-configuration", setup.table_first_configuration,
         name="table-first-configuration"),
    path("staff/tables/<int:table_id>/<slug:section>/", setup.table_setup, name="table-setup-section"),
    path("api/tables/<int:table_id>/approvals", approvals.approval_create, name="approval-create"),
    path("api/tables/<int:table_id>/commands/confirmed-here", approvals.command_confirmed_here, name="command-confirmed-here"),
    path("api/tables/<int:table_id>/alerts/acknowledge", views.alert_acknowledgement, name="alert-acknowledge"),
    path("api/tables/<int:table_id>/open", views.table_status, name="table-status"),
    path("api/tables/<int:table_id>/config", views.table_config, name="table-config"),
    path("api/approvals/<int:approval_id>", approvals.approval_state, name="approval-state"),
    path("api/approvals/<int:approval_id>/decide", approvals.approval_decide_on_tablet, name="approval-decide-tablet"),
]
