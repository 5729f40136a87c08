"""Formality: how formal a text is, 0 (very informal) to 1 (very formal).

Default model: a logistic-regression head (`python -m properties.training.formality`) over the
MiniLM embedding, the Heylighen-Dewaele F-score from spaCy part-of-speech tags, and surface
markers of casual writing (see `linguistic.py`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from properties.scorers.registry import builtin
from properties.scorers.runtime import models
from properties.scorers.runtime.model_scorer import ModelScorer
from properties.scorers.text.linguistic import SURFACE_FEATURES, formality_fscore, surface_features

EXTRA_FEATURES = ("fscore", *SURFACE_FEATURES)


def formality_features(texts: Sequence[str], encoder: models.Encoder) -> np.ndarray:
    return np.hstack([encoder.encode(texts), formality_fscore(texts)[:, None], surface_features(texts)])


@builtin
class Formality(ModelScorer):
    display_name = "Formality"
    description = "How formal the text is: 0 (very informal) to 1 (very formal); 0.5 and above reads as formal."
    positive_labels = ("formal", "label_1")

    @staticmethod
    def name() -> str:
        return "formality"

    def featurize(self, texts: Sequence[str], encoder: models.Encoder) -> np.ndarray:
        return formality_features(texts, encoder)
