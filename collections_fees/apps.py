from django.apps import AppConfig


class CollectionsFeesConfig(AppConfig):
    default_auto_field = 'django.db.models.BigAutoField'
    name = 'collections_fees'
