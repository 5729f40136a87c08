"""Train the Toxicity head: `python -m properties.training.toxicity` (about 3 minutes on 2 busy cores).

Data: toxicity_davidson.jsonl (tweets, hate speech or offensive vs neither) and
toxicity_hatecheck.jsonl (HateCheck functional tests, hateful vs not) from the training folder,
with their own labels: the head is Toxicity's reading of hate and offence. Abuse aimed at the reader,
which HateCheck labels not hateful, is read beside the head (see properties/scorers/toxicity.py).
Features: `toxicity_features` of each prepared text (spelling tricks undone, quotations set aside).
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
