"""Train the Formality head: `python -m properties.training.formality` (seconds).

Data: formality_pavlick.jsonl (Pavlick & Tetreault online formality corpus: 1 = formal, mean human
score >= +1; 0 = informal, <= -1) from the training folder: 95 rows of news, blogs, answers and
emails. Beside it, formality_everyday.jsonl (this folder's data/): 140 sentences written for the
project, support and business replies (formal) and chat messages (informal), the text our users
score, which the public rows barely hold (a short formal reply read as informal: 0.21 for "Thank
you for your order. It will be dispatched tomorrow.").
"""

from __future__ import annotations

from collections.abc import Sequence

from properties.scorers.formality import EXTRA_FEATURES, formality_features
from properties.training.common import load_classification, parse_args, train

FILES = ("formality_pavlick.jsonl",)
OWN_FILES = ("formality_everyday.jsonl",)


def main(argv: Sequence[str] | None = None) -> None:
    train(
        "formality",
        parse_args("formality", argv),
        FILES,
        load_classification,
        formality_features,
        EXTRA_FEATURES,
        own_files=OWN_FILES,
    )


if __name__ == "__main__":
    main()
