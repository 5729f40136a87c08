from __future__ import annotations

from dataclasses import replace

from properties.quality.criteria import default_for
from properties.scorers.base import Score, as_score
from properties.scorers.compression_ratio import CompressionRatio
from properties.screen import highlight


def test_ratio_of_characters() -> None:
    results = CompressionRatio().run_batch(["abcd", "ab", "日本"], input_text_batch=["abcdefgh", "", "日本語です"])
    assert [as_score(result).value for result in results] == [2.0, 0.0, 2.5]


def test_the_evidence_is_the_output_with_both_lengths() -> None:
    output = "Retrieval-augmented generation answers from retrieved documents."
    score = as_score(CompressionRatio().run_batch([output], input_text_batch=["What is RAG?"])[0])
    (span,) = score.spans
    assert (span.field, span.start, span.end, span.score) == ("output", 0, len(output), score.value)
    assert span.note == f"{len(output)} characters of output for 12 of input"


def test_the_output_is_shown_too_long_exactly_when_the_project_threshold_fails_the_ratio() -> None:
    score = as_score(CompressionRatio().run_batch(["a" * 10], input_text_batch=["b" * 9])[0])
    spans = [span.to_dict() for span in score.spans]
    for threshold, shown in ((1.0, highlight.OUTPUT_TOO_LONG), (0.8, highlight.OUTPUT_SHORT_ENOUGH)):
        rule = replace(default_for("compression_ratio"), threshold=threshold)
        (evidence,) = highlight.evidence_of("compression_ratio", spans, rule)
        assert evidence.kind is shown
        assert evidence.score_text == "compression ratio 0.90"


def test_empty_output_or_missing_input_is_not_applicable() -> None:
    empty = CompressionRatio().run_batch([""], input_text_batch=["some input"])[0]
    assert isinstance(empty, Score) and empty.ok and "empty" in (empty.not_applicable_reason or "")
    no_input = CompressionRatio().run_batch(["output"])[0]
    assert isinstance(no_input, Score) and no_input.not_applicable_reason


def test_whitespace_counts_and_long_text() -> None:
    result = CompressionRatio().run_batch([" "], input_text_batch=["x" * 1_000_000])[0]
    assert as_score(result).value == 1_000_000.0
