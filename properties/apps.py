from django.apps import AppConfig
from django.core.signals import setting_changed

OUTBOUND_SETTINGS = frozenset(
    {"EVALSITE_LLM_BASE_URLS", "EVALSITE_LLM_KEY_VARIABLES", "EVALSITE_LINKS_ALLOW_PRIVATE_ADDRESSES"}
)


def configure_outbound_policy(**_: object) -> None:
    """The scorers' network and key policy, from the operator's settings (properties.scorers.net.policy)."""
    from django.conf import settings

    from properties.scorers.net import policy

    policy.configure(
        allow_private_links=settings.EVALSITE_LINKS_ALLOW_PRIVATE_ADDRESSES,
        llm_base_urls=settings.EVALSITE_LLM_BASE_URLS,
        llm_key_variables=settings.EVALSITE_LLM_KEY_VARIABLES,
    )


def _on_setting_changed(setting: str, **kwargs: object) -> None:
    if setting in OUTBOUND_SETTINGS:
        configure_outbound_policy()


class PropertiesConfig(AppConfig):
    name = "properties"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.conf import settings

        from properties.scorers import registry

        registry.configure_dotted_paths(settings.EVALSITE_SCORERS)
        configure_outbound_policy()
        # Tests change settings with pytest-django's `settings` fixture; the policy follows them.
        setting_changed.connect(_on_setting_changed, dispatch_uid="evalsite-outbound-policy")
