from django.apps import AppConfig


class CardroomConfig(AppConfig):
    name = "cardroom"
    verbose_name = "Cardroom audit trail"
    default_auto_field = "django.db.models.BigAutoField"
