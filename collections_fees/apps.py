from django.apps import AppConfig


class CollectionsFeesConfig(AppConfig):
    default_auto_field = 'django.db.models.BigAutoField'
    name = 'collections_fees'

    def ready(self):
        from cardroom import kernel_models

        from .models import JackpotMeter

        kernel_models.provide(JackpotMeter=JackpotMeter)
