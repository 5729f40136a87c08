"""Relevance: 0 to 1, whether the output addresses the user's input (QNLI-style: does the answer
respond to the question).

Model: the packaged ms-marco MiniLM-L-12 cross-encoder (`cross_encoder.py`) scores the (input,
output) pair; its logit is turned into a probability by a logistic (Platt) calibration fitted on
the QNLI training file (`python -m properties.training.relevance`, artifact
`artifacts/relevance.json`). A long output is cut into overlapping token windows, each window is
scored with the input, and the best window gives the value: an answer that addresses the question
anywhere addresses it, and padding around it should not dilute that. The best window is returned
as evidence when there was more than one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from properties.scorers.base import Score, Scorer, Span
from properties.scorers.registry import builtin
from properties.scorers.runtime import cross_encoder, models
from properties.scorers.runtime.heads import ARTIFACTS

CALIBRATION = ARTIFACTS / "relevance.json"


@dataclass(frozen=True)
class Calibration:
    """p = 1 / (1 + exp(-(slope * logit + intercept)))."""

    slope: float
    intercept: float
    model: str

    def probability(self, logits: np.ndarray) -> np.ndarray:
        z = np.clip(self.slope * np.asarray(logits, dtype=np.float64) + self.intercept, -50.0, 50.0)
        return 1.0 / (1.0 + np.exp(-z))


def load_calibration(prop: str, path: Path = CALIBRATION) -> Calibration:
    try:
        data = json.loads(path.read_text())
        return Calibration(float(data["slope"]), float(data["intercept"]), str(data.get("model", "")))
    except (OSError, ValueError, KeyError) as exc:
        raise models.unavailable(
            prop,
            str(path),
            f"the calibration cannot be read ({type(exc).__name__}: {exc})",
            "Run `python -m properties.training.relevance` to write it.",
        ) from exc


@builtin
class Relevance(Scorer):
    display_name = "Relevance"
    description = (
        "Whether the output addresses the user's input, 0 to 1 (a calibrated cross-encoder). 0.5 and above reads "
        "as relevant. Long outputs are scored by their most relevant window."
    )
    fields = ("output",)
    queue = "models"
    version = "1"
    threshold = 0.5

    @staticmethod
    def name() -> str:
        return "relevance"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def model_id(self) -> str:
        prop = self.name()
        digest = models.weights_digest(CALIBRATION) if CALIBRATION.is_file() else "missing"
        return f"{cross_encoder.packaged_reranker_id(prop)}+relevance-calibration@{digest}"

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        outputs = [text if isinstance(text, str) else "" for text in candidate_batch]
        inputs = [text if isinstance(text, str) else "" for text in (input_text_batch or [""] * len(outputs))]
        results: list[float | Score] = []
        scored: list[int] = []
        for i, (query, output) in enumerate(zip(inputs, outputs, strict=True)):
            if not output.strip():
                results.append(Score.not_applicable(f"the {self.current_field} is empty"))
            elif not query.strip():
                results.append(Score.not_applicable("the input is empty: relevance needs the user's input"))
            else:
                results.append(Score.failed("not scored"))
                scored.append(i)
        if not scored:
            return results
        model = cross_encoder.packaged_reranker(self.name())
        calibration = load_calibration(self.name())
        logits, where, counts = model.best_windows([inputs[i] for i in scored], [outputs[i] for i in scored])
        for i, logit, (start, end), windows in zip(scored, logits, where, counts, strict=True):
            value = float(calibration.probability(np.array([logit]))[0])
            spans = []
            if windows > 1:  # the whole output is its own evidence otherwise
                spans = [Span(self.current_field, start, end, "most relevant window", round(value, 4))]
            details = {"logit": round(float(logit), 4), "threshold": self.threshold}
            results[i] = Score(value=round(value, 4), spans=spans, details=details)
        return results
