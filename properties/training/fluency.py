"""Train the Fluency head: `python -m properties.training.fluency` (about 2 minutes on 2 cores).

Data, from the training folder:

- fluency_cola_train.jsonl: CoLA in-domain train, 1 = grammatically acceptable. It teaches
  grammar, but every CoLA sentence is carefully typed, so alone it says nothing of chat-style
  writing ("u r gr8 lol" scored as fluent).
- toxicity_davidson.jsonl texts, all as 0: tweets, with their text-speak, @-handles, missing
  capitals and broken syntax (whatever their toxicity label).
- relevance_qnli.jsonl outputs, all as 1: edited Wikipedia sentences, so that the tweets do not
  teach "long or formal means fluent" alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from properties.scorers.fluency import EXTRA_FEATURES, fluency_features
from properties.training.common import load_classification, parse_args, read_rows, train

FILES = ("fluency_cola_train.jsonl", "toxicity_davidson.jsonl", "relevance_qnli.jsonl")


def load(path: Path) -> tuple[list[str], np.ndarray]:
    if path.name.startswith("fluency_"):
        return load_classification(path)
    if path.name.startswith("toxicity_"):
        texts = [row["text"] for row in read_rows(path)]
        return texts, np.zeros(len(texts), dtype=int)
    texts = list(dict.fromkeys(row["output"] for row in read_rows(path)))
    return texts, np.ones(len(texts), dtype=int)


def main(argv: Sequence[str] | None = None) -> None:
    train("fluency", parse_args("fluency", argv), FILES, load, fluency_features, EXTRA_FEATURES)


if __name__ == "__main__":
    main()
