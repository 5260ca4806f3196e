from django.apps import AppConfig


class PatronsConfig(AppConfig):
    name = "patrons"
    default_auto_field = "django.db.models.BigAutoField"
