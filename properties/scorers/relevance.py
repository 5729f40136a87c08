"""Relevance: 0 to 1, whether the output addresses the user's input (QNLI-style: does the answer
respond to the question).

Model: the packaged ms-marco MiniLM-L-12 cross-encoder (`cross_encoder.py`) scores the (input,
output) pair; its logit is turned into a probability by a logistic (Platt) calibration fitted on
the QNLI training file (`python -m properties.training.relevance`, artifact
`artifacts/relevance.json`). The output is scored whole (a long one by overlapping token windows)
and sentence by sentence, and the best of them gives the value: an answer that addresses the
question anywhere addresses it, and padding around it should not dilute that.

The cross-encoder judges whether a passage answers a question; a one-phrase answer ("Oslo.",
"Eight.") or a clarifying question ("Which version are you using?") is no passage, and it scores
them near 0. For those the packaged sentence encoder, trained on question-answer pairs, decides
too: its cosine, mapped linearly from `COSINE_FLOOR` (0) to `COSINE_FULL` (1), when higher.

Evidence: the sentence that addresses the input best, with its score.
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
# Outputs of at most this many words are one-phrase answers (see the module docstring).
ONE_PHRASE_WORDS = 4
# The sentence encoder's cosine between question and answer, mapped linearly: 0 at the floor (what
# unrelated pairs score), 1 at full (what a matching short answer scores).
COSINE_FLOOR = 0.15
COSINE_FULL = 0.55


@dataclass(frozen=True)
class Calibration:
    """p = 1 / (1 + exp(-(slope * logit + intercept)))."""

    slope: float
    intercept: float
    model: str

    def probability(self, logits: np.ndarray) -> np.ndarray:
        z = np.clip(self.slope * np.asarray(logits, dtype=np.float64) + self.intercept, -50.0, 50.0)
        return 1.0 / (1.0 + np.exp(-z))


def load_calibration(prop: str, path: Path = CALIBRATION, passages: str = "sentence") -> Calibration:
    """The logistic map of the cross-encoder's logit for `sentence` passages (an output, Relevance)
    or for `chunk` passages (a chunk of a document among others: Retrieval Relevance, Context
    Relevancy), both fitted by `python -m properties.training.relevance`."""
    try:
        data = json.loads(path.read_text())
        fit = data if passages == "sentence" else data[passages]
        return Calibration(float(fit["slope"]), float(fit["intercept"]), str(data.get("model", "")))
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
        queries = [inputs[i] for i in scored]
        texts = [outputs[i] for i in scored]
        sentences = [models.sentence_bounds(text) for text in texts]
        pieces = [(q, text[s:e]) for q, text, bounds in zip(queries, texts, sentences, strict=True) for s, e in bounds]
        whole, where, counts = model.best_windows(queries, texts)
        by_sentence = iter(calibration.probability(model.logits(pieces)) if pieces else [])
        similarity = self._similarities(queries, texts)
        for index, i in enumerate(scored):
            bounds = sentences[index]
            scores = [next(by_sentence) for _ in bounds]
            value = float(calibration.probability(np.array([whole[index]]))[0])
            best = max(range(len(bounds)), key=lambda k: scores[k]) if bounds else None
            details: dict[str, Any] = {"logit": round(float(whole[index]), 4), "threshold": self.threshold}
            if similarity[index] is not None:
                details["encoder_similarity"] = round(similarity[index], 4)
                value = max(value, similarity[index])
            if best is not None and scores[best] > value:
                value = float(scores[best])
            results[i] = Score(
                value=round(value, 4),
                spans=self._spans(texts[index], bounds, scores, best, counts[index], where[index], value),
                details=details,
            )
        return results

    def _similarities(self, queries: list[str], texts: list[str]) -> list[float | None]:
        """The encoder's mapped cosine for one-phrase answers and questions; None for the rest."""
        chosen = [k for k, text in enumerate(texts) if _one_phrase_or_question(text)]
        found: list[float | None] = [None] * len(texts)
        if not chosen:
            return found
        encoder = models.packaged_encoder(self.name())
        vectors = encoder.encode([queries[k] for k in chosen] + [texts[k] for k in chosen])
        cosines = np.sum(vectors[: len(chosen)] * vectors[len(chosen) :], axis=1)
        for k, cosine in zip(chosen, cosines, strict=True):
            found[k] = float(np.clip((cosine - COSINE_FLOOR) / (COSINE_FULL - COSINE_FLOOR), 0.0, 1.0))
        return found

    def _spans(
        self,
        text: str,
        bounds: list[tuple[int, int]],
        scores: list[float],
        best: int | None,
        windows: int,
        window: tuple[int, int],
        value: float,
    ) -> list[Span]:
        if best is not None and len(bounds) > 1:
            start, end = bounds[best]
            score = float(scores[best])
        elif windows > 1:
            (start, end), score = window, value
        elif value < self.threshold:
            # A one-sentence output that fails: the span says in words why, on the whole text.
            start, end = bounds[0] if bounds else (0, len(text))
            score = value
        else:
            return []  # a one-sentence output that addresses the input is its own evidence
        if score >= self.threshold:
            label, note = "addresses the input", f"the sentence that best addresses the input: {score:.2f}"
        else:
            label = "closest to the input"
            note = f"no sentence addresses the input; the closest scores {score:.2f}"
        return [Span(self.current_field, start, end, label, round(score, 4), note)]


def _one_phrase_or_question(text: str) -> bool:
    stripped = text.strip()
    return len(stripped.split()) <= ONE_PHRASE_WORDS or stripped.endswith("?")
