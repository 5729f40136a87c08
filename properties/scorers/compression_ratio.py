"""Compression Ratio: how much shorter the output is than the input."""

from __future__ import annotations

from typing import Any

from properties.scorers.base import Score, Scorer
from properties.scorers.registry import builtin


@builtin
class CompressionRatio(Scorer):
    display_name = "Compression Ratio"
    description = (
        "Characters of the input divided by characters of the output (Unicode code points, "
        "whitespace included). Above 1 the output is shorter than the input (a summary of a long "
        "document scores high); below 1 it is longer; 0 for an empty input. No upper bound. "
        "An empty output cannot be scored."
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
        # Plain floats: the ratio is one division, and a Score object per item would cost more than it.
        return [
            len(source or "") / len(output)
            if output
            else Score.not_applicable("the output is empty, so there is no ratio")
            for source, output in zip(input_text_batch, candidate_batch, strict=True)
        ]
