"""A project's property configuration: what its members may set, and the options scorers are built with.

Users configure projects, operators configure the server. A configuration may pick a provider key
by the name of one of the project's stored keys (`api_key_name`) or of an environment variable the
operator allows (`api_key_variable`), and a base URL the operator allows; it can never hold a key
itself, nor widen what the operator allows (private addresses for links).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.module_loading import import_string

from properties.models import Project
from properties.scorers.base import ScorerUnavailable
from properties.scorers.net import policy

# Options that were once per project and are the operator's settings now.
OPERATOR_SETTINGS = {"allow_private_addresses": "EVALSITE_LINKS_ALLOW_PRIVATE_ADDRESSES"}
KEY_NAME = "api_key_name"
# Options that would name Python code. A project's configuration never names code to import (any
# module's import-time side effects, any module's memory, for any member); it names one of the
# objects the operator registered in a setting, by the name given there.
REGISTERED_OBJECTS = {"pydantic_model": "EVALSITE_PYDANTIC_MODELS"}


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
    found.extend(f"{name}: {problem}" for problem in _registered_object_problems(options))
    return found


def _registered_object_problems(options: dict[str, Any]) -> list[str]:
    found = []
    for option, setting in REGISTERED_OBJECTS.items():
        value = options.get(option)
        if value is None:
            continue
        registered = getattr(settings, setting)
        if not isinstance(value, str) or value not in registered:
            names = ", ".join(sorted(registered)) or "none yet"
            found.append(
                f"{option} names one of the objects this server's operator registered in {setting} "
                f"({names}); a project's configuration cannot name code to import"
                + ('. Give the schema as data with "json_schema" instead' if option == "pydantic_model" else "")
            )
    return found


def _resolve_registered_objects(options: dict[str, Any]) -> None:
    """Replace each registered name by the operator's object, imported from the setting's path."""
    for option, setting in REGISTERED_OBJECTS.items():
        if options.get(option) is None:
            continue
        problems_found = _registered_object_problems(options)
        if problems_found:
            # Saved before this rule, or written around the form: never imported.
            raise ScorerUnavailable(problems_found[0])
        options[option] = import_string(getattr(settings, setting)[options[option]])


def scorer_options(project: Project, name: str) -> dict[str, Any]:
    """The options a scorer is built with: the stored configuration, its project key decrypted."""
    options = project.config_for(name)
    if "api_key" in options:
        # Saved before keys left configurations, or written around the form: never used.
        raise ScorerUnavailable(problems(project, name, {"api_key": None})[0])
    _resolve_registered_objects(options)
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
    # A registered object's name is checked by `problems`, and resolved only when the scorer runs.
    return {
        key: value
        for key, value in options.items()
        if key != KEY_NAME and key not in OPERATOR_SETTINGS and key not in REGISTERED_OBJECTS
    }
