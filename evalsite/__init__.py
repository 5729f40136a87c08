"""Evalsite. The Django project, and the Python API (docs/python-api.md):

    from evalsite import Scorer, TestSuite, Evaluation   # Arthur Bench's and Weave's names
    import evalsite as weave                              # weave.init, op, Model, Evaluation

`Scorer`, `Score`, `Span`, `init`, `op` and `Model` are plain Python, and so are Weave's scorer classes in
`evalsite.scorers`. `TestSuite` and `Evaluation` store what they score in the database, so
importing them configures Django first (`evalsite.setup()`), with the default settings when
nothing else has configured it.
"""

from typing import Any

from evalsite.bootstrap import setup
from evalsite.celery import app as celery_app

__all__ = ["Evaluation", "Model", "Score", "Scorer", "Span", "TestSuite", "celery_app", "init", "op", "setup"]

_SCORING = {"Scorer", "Score", "Span"}
_WEAVE = {"init", "op", "Model"}
_NEEDS_DJANGO = {"TestSuite": "evalsite.suites", "Evaluation": "evalsite.evaluation"}


def __getattr__(name: str) -> Any:
    # Lazy: the web server and workers import this package (for celery_app) before Django is
    # configured, and must not pay for, or be configured by, the Python API.
    import importlib

    if name in _SCORING:
        return getattr(importlib.import_module("properties.scorers.base"), name)
    if name in _WEAVE:
        return getattr(importlib.import_module("evalsite.ops"), name)
    if name in _NEEDS_DJANGO:
        setup()
        return getattr(importlib.import_module(_NEEDS_DJANGO[name]), name)
    raise AttributeError(f"module 'evalsite' has no attribute {name!r}")
