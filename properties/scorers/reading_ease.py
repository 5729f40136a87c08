"""Reading Ease: the Flesch reading-ease score of a text, as textstat computes it."""

from __future__ import annotations

from typing import Any

import textstat

from properties.scorers.base import Score, Scorer
from properties.scorers.registry import builtin
from properties.scorers.text import pronunciations


@builtin
class ReadingEase(Scorer):
    display_name = "Reading Ease"
    description = (
        "Flesch reading ease: 206.835 - 1.015 x words per sentence - 84.6 x syllables per word, "
        "computed with textstat. Higher is easier: 90-100 very easy, 60-70 plain English, 0-30 very "
        "hard (university level). Usually between 0 and 100, but the formula has no bounds: a long "
        "sentence of long words goes below 0, and one-syllable words in short sentences above 100."
    )
    fields = ("input", "output")
    queue = "cpu"
    version = "1"

    @staticmethod
    def name() -> str:
        return "reading_ease"

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
            return Score.not_applicable("the text is empty, so it has no reading ease")
        pronunciations.preload_for_textstat()  # the first call: 0.3 s instead of textstat's 1.0-1.4 s
        value = textstat.flesch_reading_ease(text)
        # textstat caches its counts per text, so these repeat none of the work above.
        words, sentences = textstat.lexicon_count(text), textstat.sentence_count(text)
        if words == 0:
            return Score.not_applicable("the text has no words, so it has no reading ease")
        return Score(value=float(value), details={"words": words, "sentences": sentences})
