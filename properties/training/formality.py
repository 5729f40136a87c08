"""Train the Formality head: `python -m properties.training.formality` (seconds).

Data: formality_pavlick.jsonl (Pavlick & Tetreault online formality corpus: 1 = formal, mean human
score >= +1; 0 = informal, <= -1) from the training folder.
"""

from __future__ import annotations

from collections.abc import Sequence

from properties.scorers.formality import EXTRA_FEATURES, formality_features
from properties.training.common import load_classification, parse_args, train

FILES = ("formality_pavlick.jsonl",)


def main(argv: Sequence[str] | None = None) -> None:
    train("formality", parse_args("formality", argv), FILES, load_classification, formality_features, EXTRA_FEATURES)


if __name__ == "__main__":
    main()
