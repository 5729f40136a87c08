"""Train the Toxicity head: `python -m properties.training.toxicity` (about 1 minute on 2 cores).

Data: toxicity_davidson.jsonl (tweets, hate speech or offensive vs neither) and
toxicity_hatecheck.jsonl (HateCheck functional tests, hateful vs not) from the training folder.
"""

from __future__ import annotations

from collections.abc import Sequence

from properties.scorers.toxicity import EXTRA_FEATURES, toxicity_features
from properties.training.common import load_classification, parse_args, train

FILES = ("toxicity_davidson.jsonl", "toxicity_hatecheck.jsonl")


def main(argv: Sequence[str] | None = None) -> None:
    train("toxicity", parse_args("toxicity", argv), FILES, load_classification, toxicity_features, EXTRA_FEATURES)


if __name__ == "__main__":
    main()
