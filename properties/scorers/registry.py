"""Scorers by stable name: built-ins register when their module is first needed (`builtins.MODULES`),
plugins come from the `evalsite.scorers` entry-point group or dotted paths, loaded once and lazily."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import entry_points

from properties.scorers import builtins
from properties.scorers.base import FIELDS, Scorer

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "evalsite.scorers"
QUEUES = ("cpu", "models", "llm")

_scorers: dict[str, type[Scorer]] = {}
_builtin_names: set[str] = set()
_plugins_loaded = False
_dotted_paths: list[str] = []


class RegistryError(Exception):
    pass


def _check_contract(cls: type[Scorer]) -> str:
    if not (isinstance(cls, type) and issubclass(cls, Scorer)):
        raise RegistryError(f"{cls!r} is not a subclass of properties.scorers.Scorer")
    name = cls.name()
    if not name or not isinstance(name, str):
        raise RegistryError(f"{cls.__qualname__}.name() must return a non-empty string")
    bad_fields = set(cls.fields) - set(FIELDS)
    if not cls.fields or bad_fields:
        raise RegistryError(f"{cls.__qualname__}.fields must be a subset of {FIELDS}, got {cls.fields!r}")
    if cls.queue not in QUEUES:
        raise RegistryError(f"{cls.__qualname__}.queue must be one of {QUEUES}, got {cls.queue!r}")
    return name


def register(cls: type[Scorer], *, builtin: bool = False) -> type[Scorer]:
    """Register a scorer class; works as a decorator. A missing or duplicate name is an error."""
    name = _check_contract(cls)
    existing = _scorers.get(name)
    if not builtin and name in builtins.MODULES and existing is not cls:
        raise RegistryError(f"scorer name {name!r} of {cls.__qualname__} is already taken by a built-in property")
    if existing is not None and existing is not cls:
        owner = "a built-in property" if name in _builtin_names else existing.__qualname__
        raise RegistryError(f"scorer name {name!r} of {cls.__qualname__} is already taken by {owner}")
    _scorers[name] = cls
    if builtin:
        _builtin_names.add(name)
    return cls


def builtin(cls: type[Scorer]) -> type[Scorer]:
    return register(cls, builtin=True)


def unregister(name: str) -> None:
    _scorers.pop(name, None)
    _builtin_names.discard(name)


@contextmanager
def temporarily(*classes: type[Scorer]) -> Iterator[None]:
    """Register scorers for the length of a block (tests)."""
    for cls in classes:
        register(cls)
    try:
        yield
    finally:
        for cls in classes:
            unregister(cls.name())


def configure_dotted_paths(paths: list[str]) -> None:
    """Scorers named by dotted path in settings; loaded with the entry points, on first use."""
    global _plugins_loaded
    _dotted_paths[:] = list(paths)
    _plugins_loaded = False


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for entry_point in entry_points(group=ENTRY_POINT_GROUP):
        _load_one(entry_point.value, entry_point.load)
    for path in _dotted_paths:
        _load_one(path, lambda path=path: _import_dotted(path))


def _import_dotted(path: str) -> type[Scorer]:
    module_name, _, attribute = path.rpartition(".")
    return getattr(importlib.import_module(module_name), attribute)


def _load_one(source: str, load) -> None:
    # A broken plugin must never take the app down: log it and go on without it.
    try:
        cls = load()
        if cls.name() not in _scorers or _scorers[cls.name()] is not cls:
            register(cls)
    except Exception:
        logger.exception("skipping scorer plugin %s: it failed to load", source)


def get(name: str) -> type[Scorer]:
    if name not in _scorers:
        builtins.import_module_of(name)
    _load_plugins()
    try:
        return _scorers[name]
    except KeyError:
        known = sorted({*_scorers, *builtins.MODULES})
        raise RegistryError(f"unknown property {name!r}; known: {', '.join(known)}") from None


def all_scorers() -> dict[str, type[Scorer]]:
    builtins.import_all()
    _load_plugins()
    return dict(sorted(_scorers.items()))


def is_builtin(name: str) -> bool:
    return name in builtins.MODULES


def display_name(cls: type[Scorer]) -> str:
    return cls.display_name or cls.name().replace("_", " ").title()
