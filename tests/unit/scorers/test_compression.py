from __future__ import annotations

from properties.scorers.base import Score
from properties.scorers.compression_ratio import CompressionRatio


def test_ratio_of_characters() -> None:
    results = CompressionRatio().run_batch(["abcd", "ab", "日本"], input_text_batch=["abcdefgh", "", "日本語です"])
    assert results == [2.0, 0.0, 2.5]


def test_empty_output_or_missing_input_is_not_applicable() -> None:
    empty = CompressionRatio().run_batch([""], input_text_batch=["some input"])[0]
    assert isinstance(empty, Score) and empty.ok and "empty" in (empty.not_applicable_reason or "")
    no_input = CompressionRatio().run_batch(["output"])[0]
    assert isinstance(no_input, Score) and no_input.not_applicable_reason


def test_whitespace_counts_and_long_text() -> None:
    result = CompressionRatio().run_batch([" "], input_text_batch=["x" * 1_000_000])[0]
    assert result == 1_000_000.0
