from django.apps import AppConfig


class CardroomConfig(AppConfig):
    name = "cardroom"
    verbose_name = "Cardroom audit trail"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.db.models.signals import post_migrate

        from . import receivers  # noqa: F401  (connects the audit receivers)
        from .audit import restart_emptied_house_chain
        from .db_roles import grant_after_migrate
        from .witness import ensure_identity

        # The app's least-privilege database login, re-granted after every migrate.
        post_migrate.connect(grant_after_migrate, dispatch_uid="cardroom.grant_app_role")
        # The database's identity, named by every witness line (cardroom/witness.py).
        post_migrate.connect(ensure_identity, dispatch_uid="cardroom.ensure_identity")
        # The house audit chain starts again on an emptied database (cardroom/audit.py).
        post_migrate.connect(restart_emptied_house_chain, dispatch_uid="cardroom.restart_emptied_house_chain")
