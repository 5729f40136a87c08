"""Evalsite. The site (settings, urls, the Celery app) is in this package; the public Python API
(docs/python-api.md) is in `evalsite.sdk`, and reached through the names below:

    from evalsite import Scorer, TestSuite, Evaluation   # Arthur Bench's and Weave's names
    import evalsite as weave                              # weave.init, op, Model, Evaluation

`Scorer`, `Score`, `Span`, `init`, `op` and `Model` are plain Python, and so are Weave's scorer classes in
`evalsite.scorers`. `TestSuite` and `Evaluation` store what they score in the database, so
importing them configures Django first (`evalsite.setup()`), with the default settings when
nothing else has configured it.
"""

from typing import Any

from evalsite.sdk.bootstrap import setup

__all__ = ["Evaluation", "Model", "Score", "Scorer", "Span", "TestSuite", "celery_app", "init", "op", "setup"]

_SCORING = {"Scorer", "Score", "Span"}
_WEAVE = {"init", "op"}
_NEEDS_DJANGO = {"TestSuite": "evalsite.sdk.suites", "Evaluation": "evalsite.sdk.evaluation"}


def __getattr__(name: str) -> Any:
    # Lazy: the web server and workers import this package before Django is configured, and must
    # not pay for, or be configured by, the Python API; `evalsite score` and an `Evaluation` of cheap
    # properties must not pay for Celery (0.15 s). Sending a task imports the Celery app
    # (properties/tasks.py), and `celery -A evalsite` finds it as `evalsite.celery.app`.
    import importlib

    if name == "celery_app":
        return importlib.import_module("evalsite.celery").app

    if name in _SCORING:
        return getattr(importlib.import_module("properties.scorers.base"), name)
    if name in _WEAVE:
        return getattr(importlib.import_module("evalsite.sdk.ops"), name)
    if name == "Model":
        return importlib.import_module("evalsite.sdk.weave_model").Model
    if name in _NEEDS_DJANGO:
        setup()
        return getattr(importlib.import_module(_NEEDS_DJANGO[name]), name)
    raise AttributeError(f"module 'evalsite' has no attribute {name!r}")
