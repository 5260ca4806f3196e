from django.apps import AppConfig


class WebConfig(AppConfig):
    """Every entry point (pages, forms, URL confs, sockets), by URL prefix: web/tables
    (the table's pages and sockets), web/floor (relief, waitlist, lobby), web/staff (setup,
    approvals, assignments, audit), web/compliance (the back office's pages and exports),
    web/patrons. No models: the domain apps below own the data and the rules, and none of
    them imports web (.importlinter)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "web"
