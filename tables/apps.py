from django.apps import AppConfig


class TablesConfig(AppConfig):
    default_auto_field = 'django.db.models.BigAutoField'
    name = 'tables'

    def ready(self):
        from cardroom import kernel_models

        from .models import Approval, DealerAssignment, Table

        kernel_models.provide(Table=Table, DealerAssignment=DealerAssignment, Approval=Approval)
        from . import receivers  # noqa: F401  (a logout closes the session's sockets)
        from . import standing  # noqa: F401  (a changed role or assignment reaches the sockets)
