"""Weave's `init` and `op`, so that model and scorer code written for Weave runs unchanged.

Weave's `@weave.op` traces each call to its servers. Evalsite has nothing to send them to: what an
evaluation calls is kept as its run instead (each row's output, latency and scores), so `op` only
names the function, the name Weave shows for it (a function scorer's key in the summary).
`init(project_name)` names the project that evaluations are stored in, as Weave's does; Weave's
`Model` is in `evalsite.sdk.weave_model`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

F = TypeVar("F", bound=Callable[..., Any])

_project: str | None = None


def init(project_name: str) -> None:
    """Store this process's evaluations as runs of `project_name` (unless one names its own)."""
    global _project
    _project = project_name


def current_project() -> str | None:
    """The project `init` named, None before it is called (evaluations are then not stored)."""
    return _project


@overload
def op(func: F, *, name: str | None = None) -> F: ...
@overload
def op(func: None = None, *, name: str | None = None) -> Callable[[F], F]: ...


def op(func: F | None = None, *, name: str | None = None) -> F | Callable[[F], F]:
    """`@op`, `@op()` or `@op(name="...")`: the function itself, sync or async, with its op name set."""

    def mark(function: F) -> F:
        function.op_name = name or function.__name__  # type: ignore[attr-defined]
        return function

    return mark(func) if func is not None else mark


def op_name(function: Any) -> str | None:
    """The name `@op` gave a function or method, None for one it did not decorate."""
    return getattr(function, "op_name", None)
