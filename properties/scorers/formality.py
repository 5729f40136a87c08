"""Formality: how formal a text is, 0 (very informal) to 1 (very formal).

Default model: a logistic-regression head (`python -m properties.training.formality`) over the
MiniLM embedding, the Heylighen-Dewaele F-score from spaCy part-of-speech tags, and surface
markers of casual writing (see `linguistic.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from properties.scorers.base import Score, Span
from properties.scorers.registry import builtin
from properties.scorers.runtime import models
from properties.scorers.runtime.model_scorer import ModelScorer
from properties.scorers.text.linguistic import (
    FORMALITY_MARKERS,
    SURFACE_FEATURES,
    explained,
    formality_fscore,
    surface_features,
)

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

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        """The value of each whole text, and for a text that reads as informal, its sentences that do.

        Sentences are scored only for texts under the threshold (a one-sentence text reuses its
        value), so formal texts cost nothing more. Where no sentence alone reads as informal, the
        least formal one is shown: the evidence is never empty for an informal text.
        """
        results = super().run_batch(candidate_batch, reference_batch, input_text_batch, context_batch)
        informal = [
            index
            for index, result in enumerate(results)
            if isinstance(result, Score) and result.value is not None and result.value < self.threshold
        ]
        located = {index: models.sentence_bounds(candidate_batch[index]) for index in informal}
        to_score = [
            candidate_batch[index][start:end]
            for index in informal
            if len(located[index]) > 1
            for start, end in located[index]
        ]
        sentence_values = iter(self.predictor().predict(to_score) if to_score else [])
        for index in informal:
            score = results[index]
            assert isinstance(score, Score)
            bounds = located[index]
            values = [float(next(sentence_values)) for _ in bounds] if len(bounds) > 1 else [float(score.value or 0)]
            score.spans = self._informal_spans(candidate_batch[index], bounds, values)
        return results

    def _informal_spans(self, text: str, bounds: list[tuple[int, int]], values: list[float]) -> list[Span]:
        spans = []
        for (start, end), value in zip(bounds, values, strict=True):
            if value < self.threshold:
                spans.append(self._span(text, start, end, value, "informal", "reads as informal"))
        if not spans:
            lowest = min(range(len(values)), key=values.__getitem__)
            start, end = bounds[lowest]
            note = "the least formal sentence; none reads as informal alone, the whole text does"
            spans.append(self._span(text, start, end, values[lowest], "least formal", note))
        return spans

    def _span(self, text: str, start: int, end: int, value: float, label: str, reading: str) -> Span:
        note = explained(reading, text[start:end], FORMALITY_MARKERS)
        return Span(self.current_field, start, end, label, round(value, 4), note)
