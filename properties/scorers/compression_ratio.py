"""Compression Ratio: how much shorter the output is than the input."""

from __future__ import annotations

from typing import Any

from properties.scorers.base import Score, Scorer, Span
from properties.scorers.registry import builtin


@builtin
class CompressionRatio(Scorer):
    display_name = "Compression Ratio"
    description = (
        "Characters of the input divided by characters of the output (Unicode code points, "
        "whitespace included). Above 1 the output is shorter than the input (a summary of a long "
        "document scores high); below 1 it is longer; 0 for an empty input. No upper bound. "
        "An empty output cannot be scored. Evidence: the output, with both lengths."
    )
    fields = ("interaction",)
    queue = "cpu"
    version = "1"

    @staticmethod
    def name() -> str:
        return "compression_ratio"

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
        if input_text_batch is None:
            return [Score.not_applicable("compression ratio needs the input text") for _ in candidate_batch]
        return [
            _ratio(len(source or ""), len(output))
            if output
            else Score.not_applicable("the output is empty, so there is no ratio")
            for source, output in zip(input_text_batch, candidate_batch, strict=True)
        ]


def _ratio(source: int, output: int) -> Score:
    """The ratio, and the output as its evidence (the span's score is the ratio: a project's threshold
    shows it as too long or not)."""
    value = source / output
    note = f"{output} characters of output for {source} of input"
    # Positional arguments: this runs once per interaction and keywords cost a third of Score's time.
    return Score(value, "", [Span("output", 0, output, "output", value, note)])
