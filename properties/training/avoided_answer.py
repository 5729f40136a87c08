"""Train the Avoided Answer head: `python -m properties.training.avoided_answer` (about 1 minute).

Data: refusal_xstest.jsonl (XSTest completions: 1 = full or partial refusal, 0 = full compliance)
from the training folder; the head reads the output only.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from properties.scorers.avoided_answer import EXTRA_FEATURES, avoided_answer_features
from properties.training.common import parse_args, read_rows, train

FILES = ("refusal_xstest.jsonl",)


def load_outputs(path: Path) -> tuple[list[str], np.ndarray]:
    rows = [row for row in read_rows(path) if str(row["output"]).strip()]
    return [row["output"] for row in rows], np.array([int(row["label"]) for row in rows])


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args("avoided_answer", argv)
    train("avoided_answer", args, FILES, load_outputs, avoided_answer_features, EXTRA_FEATURES)


if __name__ == "__main__":
    main()
