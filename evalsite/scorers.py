"""`from evalsite.scorers import HallucinationFreeScorer`: the documented import path of Weave's
built-in scorer classes, whose code (and `__all__`) is in evalsite/sdk/weave_scorers.py."""

from evalsite.sdk.weave_scorers import *  # noqa: F403
from evalsite.sdk.weave_scorers import __all__  # noqa: F401
