"""A project's property configuration: what its members may set, and the options scorers are built with.

Users configure projects, operators configure the server. A configuration may pick a provider key
by the name of one of the project's stored keys (`api_key_name`) or of an environment variable the
operator allows (`api_key_variable`), and a base URL the operator allows; it can never hold a key
itself, nor widen what the operator allows (private addresses for links).
"""

from __future__ import annotations

from typing import Any

from properties.models import Project
from properties.scorers.base import ScorerUnavailable
from properties.scorers.net import policy

# Options that were once per project and are the operator's settings now.
OPERATOR_SETTINGS = {"allow_private_addresses": "EVALSITE_LINKS_ALLOW_PRIVATE_ADDRESSES"}
KEY_NAME = "api_key_name"


def problems(project: Project | None, name: str, options: dict[str, Any]) -> list[str]:
    """What is wrong with one property's options, in words; [] when they may be saved."""
    found = []
    if "api_key" in options:
        found.append(
            f"{name}: a key never goes into the configuration, where it would be stored and shown in plain "
            f'text; add it on the project\'s "Provider keys" page and name it with "{KEY_NAME}", or name an '
            'allowed environment variable with "api_key_variable"'
        )
    for option, setting in OPERATOR_SETTINGS.items():
        if option in options:
            found.append(f"{name}: {option} is the operator's setting ({setting}), not a project option")
    outbound = policy.current()
    try:
        if options.get("base_url"):
            outbound.check_llm_base_url(str(options["base_url"]))
        if options.get("api_key_variable"):
            outbound.check_key_variable(str(options["api_key_variable"]))
    except policy.OutboundRefused as exc:
        found.append(f"{name}: {exc}")
    key_name = options.get(KEY_NAME)
    if key_name is not None and (project is None or not project.provider_keys.filter(name=key_name).exists()):
        found.append(f'{name}: the project has no provider key named "{key_name}"')
    return found


def scorer_options(project: Project, name: str) -> dict[str, Any]:
    """The options a scorer is built with: the stored configuration, its project key decrypted."""
    options = project.config_for(name)
    if "api_key" in options:
        # Saved before keys left configurations, or written around the form: never used.
        raise ScorerUnavailable(problems(project, name, {"api_key": None})[0])
    key_name = options.pop(KEY_NAME, None)
    if key_name is None:
        return options
    key = project.provider_keys.filter(name=key_name).first()
    if key is None:
        raise ScorerUnavailable(f'the project has no provider key named "{key_name}"')
    options["api_key"] = key.key()  # SecretsUnavailable is a ScorerUnavailable
    return options


def strip_for_scorer_check(options: dict[str, Any]) -> dict[str, Any]:
    """The options a scorer class is asked to accept at save time (the project key is resolved later)."""
    return {key: value for key, value in options.items() if key != KEY_NAME and key not in OPERATOR_SETTINGS}
