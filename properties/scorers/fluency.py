"""Fluency: how close a text is to fluent, well-formed English, 0 to 1.

Default model: a logistic-regression head (`python -m properties.training.fluency`) over the
MiniLM embedding and surface markers of broken or casual writing (see `linguistic.py`), trained
on CoLA grammatical acceptability judgements.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from properties.scorers import models
from properties.scorers.linguistic import SURFACE_FEATURES, surface_features
from properties.scorers.model_scorer import ModelScorer
from properties.scorers.registry import builtin

EXTRA_FEATURES = SURFACE_FEATURES


def fluency_features(texts: Sequence[str], encoder: models.Encoder) -> np.ndarray:
    return np.hstack([encoder.encode(texts), surface_features(texts)])


@builtin
class Fluency(ModelScorer):
    display_name = "Fluency"
    description = "How close the text is to fluent, well-formed English: 0 to 1; 0.5 and above reads as fluent."
    positive_labels = ("acceptable", "fluent", "grammatical", "label_1")

    @staticmethod
    def name() -> str:
        return "fluency"

    def featurize(self, texts: Sequence[str], encoder: models.Encoder) -> np.ndarray:
        return fluency_features(texts, encoder)
