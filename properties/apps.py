from django.apps import AppConfig


class PropertiesConfig(AppConfig):
    name = "properties"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.conf import settings

        from properties.scorers import registry

        registry.configure_dotted_paths(settings.EVALSITE_SCORERS)
