"""Train the Formality head: `python -m properties.training.formality` (about a minute).

Data: formality_pavlick.jsonl (Pavlick & Tetreault online formality corpus: 1 = formal, mean human
score >= +1; 0 = informal, <= -1) from the training folder: 95 rows of news, blogs, answers and
emails. Beside it, formality_everyday.jsonl (this folder's data/): 140 sentences written for the
project, support and business replies (formal) and chat messages (informal), the text our users
score, which the public rows barely hold (a short formal reply read as informal: 0.21 for "Thank
you for your order. It will be dispatched tomorrow."). And `GENERATED_ROWS` rows generated with a
fixed seed (`formality_rows.py`): casual speech in full words, and minutes, policies, reports,
letters and notices.

The regularisation is chosen by 5-fold cross-validation whose folds hold out whole kinds of rows
(each generator of `formality_rows`, and each file as one kind): whether the head tells the register
of a kind of text it has not seen (`fit_by_kinds`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from properties.scorers.formality import EXTRA_FEATURES, formality_features
from properties.training import formality_rows
from properties.training.common import (
    OWN_DATA,
    SEED,
    encoder_for,
    file_sha,
    fit_by_kinds,
    load_classification,
    parse_args,
    rows_sha,
)

PROP = "formality"
FILES = ("formality_pavlick.jsonl",)
OWN_FILES = ("formality_everyday.jsonl",)
GENERATED_ROWS = 400
C_GRID = (0.003, 0.01, 0.03, 0.1, 0.3, 1.0)


def training_rows(folder: Path) -> tuple[list[str], np.ndarray, list[str], list[Path]]:
    """Texts, labels (1 formal), the kind of each row (its file, or its generator), and the files read."""
    paths = [folder / name for name in FILES] + [OWN_DATA / name for name in OWN_FILES]
    texts: list[str] = []
    labels: list[int] = []
    kinds: list[str] = []
    for path in paths:
        file_texts, file_labels = load_classification(path)
        texts += file_texts
        labels += [int(label) for label in file_labels]
        kinds += [path.stem] * len(file_texts)
    made = formality_rows.generate(GENERATED_ROWS)
    texts += [row["text"] for row in made]
    labels += [row["label"] for row in made]
    kinds += [row["template"] for row in made]
    return texts, np.array(labels), kinds, paths


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(PROP, argv)
    started = time.monotonic()
    texts, labels, kinds, paths = training_rows(args.data)
    encoder = encoder_for(PROP, args.encoder)
    features = formality_features(texts, encoder)
    head, fit = fit_by_kinds(features, labels, kinds, C_GRID)
    head.meta = {
        "property": PROP,
        "encoder": encoder.model_id,
        "features": ["embedding"] * (features.shape[1] - len(EXTRA_FEATURES)) + list(EXTRA_FEATURES),
        "data": {path.name: file_sha(path) for path in paths},
        "generated": {
            "module": formality_rows.__name__,
            "rows": GENERATED_ROWS,
            "seed": formality_rows.SEED,
            "sha": rows_sha(texts, labels),
        },
        "rows": len(texts),
        "seed": SEED,
        **fit,
    }
    head.save(args.out)
    elapsed = time.monotonic() - started
    print(
        f"{PROP}: {len(texts)} rows, C={fit['C']}, accuracy on kinds held out "
        f"{fit['cv_accuracy_kinds_held_out']}, {elapsed:.0f} s -> {args.out}"
    )


if __name__ == "__main__":
    main()
