"""Reading Ease: the Flesch reading-ease score of a text, as textstat computes it."""

from __future__ import annotations

import functools
import re
from typing import Any

import textstat

from properties.scorers.base import Score, Scorer, Span
from properties.scorers.registry import builtin
from properties.scorers.text import pronunciations

# Sentences shown as evidence, hardest first: enough to rewrite a text, few enough to read.
HARDEST_SHOWN = 3
# A sentence as textstat's sentence count finds one.
TEXTSTAT_SENTENCE = re.compile(r"\b[^.!?]+[.!?]*")


@builtin
class ReadingEase(Scorer):
    display_name = "Reading Ease"
    description = (
        "Flesch reading ease: 206.835 - 1.015 x words per sentence - 84.6 x syllables per word, "
        "computed with textstat. Higher is easier: 90-100 very easy, 60-70 plain English, 0-30 very "
        "hard (university level). Usually between 0 and 100, but the formula has no bounds: a long "
        "sentence of long words goes below 0, and one-syllable words in short sentences above 100. "
        "Evidence: the hardest sentence and others harder than the whole text, each with its own reading "
        "ease, words and syllables a word."
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
        return [self._score(text, self.current_field) for text in candidate_batch]

    @staticmethod
    def _score(text: str | None, field: str) -> Score:
        if not text or not text.strip():
            return Score.not_applicable("the text is empty, so it has no reading ease")
        pronunciations.preload_for_textstat()  # the first call: 0.3 s instead of textstat's 1.0-1.4 s
        words, syllables = _counts(text)
        if words == 0:
            return Score.not_applicable("the text has no words, so it has no reading ease")
        pieces = [(found, *_counts(found.group())) for found in TEXTSTAT_SENTENCE.finditer(text)]
        # textstat's sentence count: a piece of two words or fewer is not counted, and there is one at least.
        sentences = max(1, len(pieces) - sum(1 for _, in_piece, _ in pieces if in_piece <= 2))
        value = flesch_reading_ease(words, sentences, syllables)
        return Score(
            value=value,
            spans=hardest_sentences(field, pieces, value),
            details={"words": words, "sentences": sentences},
        )


def flesch_reading_ease(words: int, sentences: int, syllables: int) -> float:
    """textstat's `flesch_reading_ease` (0.7.8, English, no rounding) on counts textstat made: 0 for a
    text without a syllable. Computed here from `_counts` so that the sentences of the evidence reuse
    each token's counts; on 6,206 texts (bench/corpus.py's inputs and outputs, the unit tests' varied
    texts) it equals textstat's value exactly, and a test compares them."""
    if syllables == 0:
        return 0.0
    return 206.835 - 1.015 * (words / sentences) - 84.6 * (syllables / words)


@functools.lru_cache(maxsize=1 << 16)
def _token_counts(token: str) -> tuple[int, int]:
    """textstat's words and syllables in one whitespace-separated token; a text's counts are their
    sums (textstat strips punctuation, then splits at whitespace). Kept per token, so that each
    sentence of the evidence is counted from the text's own lookups."""
    return textstat.lexicon_count(token), textstat.syllable_count(token)


def _counts(text: str) -> tuple[int, int]:
    """textstat's words and syllables in a text, from its tokens' counts."""
    words = syllables = 0
    for token in text.split():
        token_words, token_syllables = _token_counts(token)
        words += token_words
        syllables += token_syllables
    return words, syllables


def hardest_sentences(field: str, pieces: list[tuple[re.Match[str], int, int]], value: float) -> list[Span]:
    """The sentence of lowest reading ease, and up to `HARDEST_SHOWN` in all that read harder than the
    whole text, each scored alone, with why in words. `pieces`: each sentence, with its words and
    syllables.

    Sentences are cut as textstat counts them (`TEXTSTAT_SENTENCE`), so the text's Flesch score is
    at least the mean of its sentences' scores weighted by their words (long sentences weigh their
    length twice): a text under a threshold always has a sentence under it, and the hardest sentence
    is on the failing side whenever the value is. `value` is the text's score."""
    scored = []
    for found, in_sentence, syllables_in_sentence in pieces:
        if in_sentence:
            per_word = syllables_in_sentence / in_sentence
            # One sentence is the text: its score is the text's. Otherwise the formula on the sentence
            # alone (its words per sentence are its words).
            ease = value if len(pieces) == 1 else flesch_reading_ease(in_sentence, 1, syllables_in_sentence)
            end = found.start() + len(found.group().rstrip())
            scored.append((ease, found.start(), end, in_sentence, per_word))
    scored.sort()
    # The hardest, and the others harder than the text as a whole: those pull its score down.
    shown = scored[:1] + [item for item in scored[1:HARDEST_SHOWN] if item[0] < value]
    return [_sentence_span(field, *item) for item in shown]


def _sentence_span(field: str, ease: float, start: int, end: int, words: int, syllables: float) -> Span:
    counted = f"{words} word{'s' if words != 1 else ''}, {syllables:.1f} syllables a word"
    return Span(field, start, end, "sentence", round(ease, 2), counted)
