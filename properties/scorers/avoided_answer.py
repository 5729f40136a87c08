"""Avoided Answer: the probability that the model explicitly avoided answering the input (refused,
said it cannot or will not, or that it does not know).

Default model: a logistic-regression head (`python -m properties.training.avoided_answer`) over
the MiniLM embedding of the output, the embedding of its opening (where refusals sit), and counts
of refusal phrases. Evidence: the sentences that carry the refusal, each scored by the same head.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from properties.scorers.base import Score, Span
from properties.scorers.registry import builtin
from properties.scorers.runtime import models
from properties.scorers.runtime.model_scorer import HeadPredictor, ModelScorer
from properties.scorers.runtime.models import sentence_bounds

# Phrases with which assistants refuse or decline, lower-cased; matched on word boundaries.
REFUSAL_PATTERNS = (
    r"i(?:'m| am) (?:sorry|afraid|unable|not able)",
    r"i (?:can ?not|can't|won't|will not|must decline|refuse|do not|don't) (?:help|assist|provide|fulfil|comply|"
    r"answer|give|create|write|engage|support|share|generate|offer|recommend|participate|do that)",
    r"i (?:can ?not|can't|won't|will not) (?:do|be)",
    r"(?:i )?apologi[sz]e,? but",
    r"as an ai(?: language model)?",
    r"i(?:'m| am) (?:just )?an ai",
    r"(?:not|never) (?:appropriate|ethical|legal|able to)",
    r"against (?:my|the) (?:programming|guidelines|policies|ethical)",
    r"i (?:don't|do not) (?:know|have (?:access|information|the ability))",
    r"(?:it is|it's) not (?:possible|appropriate) for me",
    r"i (?:would|must) (?:advise|encourage|recommend) against",
    r"(?:cannot|can't|unable to) (?:fulfil|fulfill|comply with|assist with) (?:this|that|your)",
    r"instead,? (?:i|you|let's)",
)
_REFUSAL = re.compile(r"\b(?:" + "|".join(REFUSAL_PATTERNS) + r")", re.IGNORECASE)
# Refusals come first: the opening sentences are embedded apart from the whole output.
OPENING_SENTENCES = 2
# Beside the two embeddings (whole output, opening), which the head file lists as "embedding".
EXTRA_FEATURES = ("refusal_phrases_opening", "refusal_phrases", "refusal_phrases_per_sentence")


def opening(text: str, bounds: list[tuple[int, int]] | None = None) -> str:
    bounds = bounds or sentence_bounds(text)
    return text[: bounds[min(OPENING_SENTENCES, len(bounds)) - 1][1]]


def refusal_counts(text: str) -> list[float]:
    bounds = sentence_bounds(text)
    total = len(_REFUSAL.findall(text))
    return [float(len(_REFUSAL.findall(opening(text, bounds)))), float(total), total / len(bounds)]


def avoided_answer_features(texts: Sequence[str], encoder: models.Encoder) -> np.ndarray:
    counts = np.array([refusal_counts(text) for text in texts], dtype=np.float64)
    return np.hstack([encoder.encode(texts), encoder.encode([opening(t) for t in texts]), counts])


@builtin
class AvoidedAnswer(ModelScorer):
    display_name = "Avoided Answer"
    description = (
        "The probability that the model explicitly avoided answering the input: refused, said it cannot or "
        "will not, or that it does not know. 0 to 1; 0.5 and above reads as avoided. Evidence: the refusal sentences."
    )
    fields = ("output",)
    positive_labels = ("refusal", "refused", "avoided", "label_1")

    @staticmethod
    def name() -> str:
        return "avoided_answer"

    def featurize(self, texts: Sequence[str], encoder: models.Encoder) -> np.ndarray:
        return avoided_answer_features(texts, encoder)

    def to_score(self, text: str, value: float, index: int, inputs: list[str] | None) -> Score:
        spans = self.refusal_spans(text) if value >= self.threshold else []
        return Score(value=round(value, 4), spans=spans, details={"threshold": self.threshold})

    def refusal_spans(self, text: str) -> list[Span]:
        """The sentences that carry the refusal: those with a refusal phrase, or that the head
        alone scores at or above the threshold."""
        bounds = sentence_bounds(text)
        # Candidates: the opening sentences, where refusals sit, and any sentence with a refusal
        # phrase. Scoring every sentence of a long answer would cost more than the answer itself.
        candidates = [
            (start, end)
            for position, (start, end) in enumerate(bounds)
            if position < OPENING_SENTENCES or _REFUSAL.search(text[start:end])
        ]
        sentences = [text[start:end] for start, end in candidates]
        spans = []
        for (start, end), sentence, score in zip(candidates, sentences, self.sentence_scores(sentences), strict=True):
            phrase = _REFUSAL.search(sentence)
            if phrase or score >= self.threshold:
                note = f"refusal phrase {phrase.group(0)!r}" if phrase else "scored as a refusal on its own"
                spans.append(Span(self.current_field, start, end, "refusal", round(float(score), 4), note))
        return spans

    def sentence_scores(self, sentences: list[str]) -> np.ndarray:
        predictor = self.predictor()
        if not isinstance(predictor, HeadPredictor):  # a user's classifier scores sentences as outputs
            return predictor.predict(sentences)
        # A sentence is its own opening: one encoding serves both embedding features.
        embedded = predictor.encoder.encode(sentences)
        counts = np.array([refusal_counts(sentence) for sentence in sentences], dtype=np.float64)
        return predictor.head.predict(np.hstack([embedded, embedded, counts]))
