"""Sentiment: TextBlob's pattern-based polarity of a text."""

from __future__ import annotations

from typing import Any

from properties.scorers.base import Score, Scorer
from properties.scorers.registry import builtin

# TextBlob(text).sentiment.polarity is this analyser's first value; calling it directly skips the
# blob's construction and gives the same number. It is TextBlob's analyser, built without importing
# TextBlob and with it NLTK and SciPy (see `pattern_sentiment`).
from properties.scorers.text.pattern_sentiment import sentiment as pattern_sentiment


@builtin
class Sentiment(Scorer):
    display_name = "Sentiment"
    description = (
        "Polarity of the text from TextBlob's lexicon (the pattern analyser), from -1 (very negative) "
        "through 0 (neutral, or no opinion words) to 1 (very positive). It averages the polarity of "
        "the adjectives and phrases it knows, with negation and intensifiers; it misses sarcasm and "
        "domain words. The subjectivity (0 objective to 1 subjective) is kept in the details."
    )
    fields = ("input", "output")
    queue = "cpu"
    version = "1"

    @staticmethod
    def name() -> str:
        return "sentiment"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        return [self._score(text) for text in candidate_batch]

    @staticmethod
    def _score(text: str | None) -> Score:
        if not text or not text.strip():
            return Score.not_applicable("the text is empty, so it has no sentiment")
        polarity, subjectivity = pattern_sentiment(text)
        return Score(value=float(polarity), details={"subjectivity": float(subjectivity)})
