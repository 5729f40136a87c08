from __future__ import annotations

import pytest
import textstat

from properties.scorers.base import Score
from properties.scorers.reading_ease import ReadingEase
from tests.unit.scorers.texts import varied_texts


def test_equals_textstat_on_200_texts() -> None:
    texts = varied_texts(200)
    results = ReadingEase().run_batch(texts)
    for text, result in zip(texts, results, strict=True):
        assert isinstance(result, Score) and result.ok
        # Computed from textstat's counts of each token, equal to textstat's own value.
        assert result.value == textstat.flesch_reading_ease(text)
        assert result.details["sentences"] == textstat.sentence_count(text)


def test_easy_text_scores_higher_than_hard_text() -> None:
    easy, hard = ReadingEase().run_batch(
        [
            "The cat sat on the mat. It was fun. We ran home.",
            "Organisational infrastructure considerations necessitate comprehensive interdisciplinary "
            "evaluation of institutional responsibilities notwithstanding extraordinary circumstances.",
        ]
    )
    assert isinstance(easy, Score) and isinstance(hard, Score)
    assert easy.value > 80 > 20 > hard.value  # type: ignore[operator]
    assert hard.value < 0  # the formula has no lower bound


def test_empty_and_wordless_texts_are_not_applicable_with_a_reason() -> None:
    for text in ["", "   \n\t", "!!! ... ???"]:
        result = ReadingEase().run_batch([text])[0]
        assert isinstance(result, Score) and result.ok and result.value is None
        assert "reading ease" in (result.not_applicable_reason or "")


def test_unicode_and_long_text() -> None:
    long_text = "The quick brown fox jumps over the lazy dog. " * 20_000
    results = ReadingEase().run_batch(["Ünïcödé wörds här. 日本語のテキスト。", long_text])
    assert all(isinstance(r, Score) and r.ok for r in results)
    assert results[1].details["words"] == 180_000  # type: ignore[union-attr]


def test_the_hardest_sentences_are_the_evidence_with_why() -> None:
    text = (
        "Turn it off. Notwithstanding the aforementioned provisions, the indemnification obligations "
        "survive termination. Wait ten seconds. Institutional responsibilities necessitate evaluation."
    )
    result = ReadingEase().run_batch([text])[0]
    assert isinstance(result, Score)
    shown = [(text[span.start : span.end], span.score) for span in result.spans]
    # The hardest, then the other sentence harder than the whole text; the easy ones are not evidence.
    assert [sentence.split()[0] for sentence, _ in shown] == ["Institutional", "Notwithstanding"]
    assert all(score < result.value for _, score in shown)  # type: ignore[operator]
    assert "syllables a word" in result.spans[0].note


def test_a_text_under_a_threshold_always_has_its_hardest_sentence_under_it() -> None:
    # The text's score is at least its sentences' mean weighted by words, so the evidence is on the
    # failing side whatever threshold a project sets.
    for text in varied_texts(200):
        result = ReadingEase().run_batch([text])[0]
        assert isinstance(result, Score)
        assert result.spans[0].score <= result.value + 0.01, text  # type: ignore[operator]


@pytest.mark.parametrize(
    "text", ["e.g. this is it", "Well-known U.S. firms' C++ code... Wow!! ok?", "Hi.", "123 456", "a\nb"]
)
def test_equals_textstat_where_tokens_and_sentences_cut_words(text: str) -> None:
    result = ReadingEase().run_batch([text])[0]
    assert isinstance(result, Score) and result.value == textstat.flesch_reading_ease(text)
