from __future__ import annotations

from textblob import TextBlob

from properties.scorers.base import Score
from properties.scorers.sentiment import Sentiment
from tests.unit.scorers.texts import varied_texts


def test_agrees_with_textblob_on_200_texts() -> None:
    texts = varied_texts(200, seed=99)
    results = Sentiment().run_batch(texts)
    polarities = [TextBlob(text).sentiment.polarity for text in texts]
    assert len({round(p, 2) for p in polarities}) > 20  # the texts really vary
    for result, polarity in zip(results, polarities, strict=True):
        assert isinstance(result, Score)
        assert abs(result.value - polarity) <= 1e-9  # type: ignore[operator]


def test_direction_and_range() -> None:
    good, bad, neutral, negated = Sentiment().run_batch(
        ["What a wonderful, excellent day!", "This is terrible and awful.", "The table has four legs.", "not good"]
    )
    assert isinstance(good, Score) and isinstance(bad, Score) and isinstance(neutral, Score)
    assert 0 < good.value <= 1 and -1 <= bad.value < 0 and neutral.value == 0  # type: ignore[operator]
    assert negated.value < 0  # type: ignore[union-attr]
    assert 0 <= good.details["subjectivity"] <= 1


def test_empty_text_is_not_applicable_unicode_is_scored() -> None:
    empty, unicode_text = Sentiment().run_batch(["  ", "très bien 🙂 日本語"])
    assert isinstance(empty, Score) and empty.not_applicable_reason
    assert isinstance(unicode_text, Score) and unicode_text.ok
