"""Train Information Density's "says nothing" head: `python -m properties.training.information_density`
(about 3 minutes on 2 busy cores).

The head reads one sentence's MiniLM embedding and gives the probability that the sentence says
nothing: thanks, appreciation, platitudes about service, good wishes, talk about the question,
vague hedges, the question said back, a request for more details. The scorer turns it into a
penalty beside its rules (see `properties/scorers/information_density.py`).

Data (no public set labels how much a sentence says):
- `GENERATED_ROWS` sentences generated with a fixed seed (`information_density_rows.py`), half that
  say nothing (1), half that inform (0);
- as informative (0): the QNLI sentences of relevance_qnli.jsonl (encyclopaedic statements, whatever
  their QNLI label) and the acceptable statements of fluency_cola_train.jsonl (short plain sentences:
  "The cat chased the mouse." informs, though it has no figure or name), `PUBLIC_ROWS` of each at
  most, drawn with the seed;
- as informative (0): the sentences written for Fluency in properties/training/data that are fluent.

The regularisation is chosen by 5-fold cross-validation whose folds hold out whole kinds of rows
(each generator of `information_density_rows`, and the public sentences as one kind): whether the
head tells a kind of sentence it has not seen, not the sentences it has (`fit_by_kinds`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from properties.training import information_density_rows
from properties.training.common import (
    OWN_DATA,
    SEED,
    encoder_for,
    file_sha,
    fit_by_kinds,
    parse_args,
    read_rows,
    rows_sha,
)

PROP = "information_density"
# Regularisation strengths tried (`fit_by_kinds`).
C_GRID = (0.003, 0.01, 0.03, 0.1, 0.3)
GENERATED_ROWS = 4000
PUBLIC_ROWS = 1200
QNLI = "relevance_qnli.jsonl"
COLA = "fluency_cola_train.jsonl"
OWN_FLUENT = "fluency_everyday.jsonl"


def public_sentences(folder: Path) -> tuple[list[str], list[Path]]:
    """Informative sentences from public sets: QNLI's encyclopaedic sentences and CoLA's acceptable
    statements (questions and exclamations left out: a question asks rather than tells)."""
    rng = random.Random(SEED)
    qnli = sorted({str(row["output"]).strip() for row in read_rows(folder / QNLI)})
    cola = sorted(
        {
            str(row["text"]).strip()
            for row in read_rows(folder / COLA)
            if int(row["label"]) == 1 and str(row["text"]).strip().endswith(".")
        }
    )
    own = sorted({str(row["text"]).strip() for row in read_rows(OWN_DATA / OWN_FLUENT) if int(row["label"]) == 1})
    picked = [*rng.sample(qnli, min(PUBLIC_ROWS, len(qnli))), *rng.sample(cola, min(PUBLIC_ROWS, len(cola))), *own]
    return picked, [folder / QNLI, folder / COLA, OWN_DATA / OWN_FLUENT]


def training_rows(folder: Path) -> tuple[list[str], np.ndarray, list[str], list[Path]]:
    """Texts, labels (1 says nothing), the kind of each row, and the files read."""
    made = information_density_rows.generate(GENERATED_ROWS)
    public, paths = public_sentences(folder)
    texts = [row["text"] for row in made] + public
    labels = np.array([row["label"] for row in made] + [0] * len(public))
    kinds = [row["template"] for row in made] + ["public"] * len(public)
    return texts, labels, kinds, paths


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(PROP, argv)
    started = time.monotonic()
    texts, labels, kinds, paths = training_rows(args.data)
    encoder = encoder_for(PROP, args.encoder)
    features = encoder.encode(texts)
    head, fit = fit_by_kinds(features, labels, kinds, C_GRID)
    head.meta = {
        "property": PROP,
        "encoder": encoder.model_id,
        "features": ["embedding"] * features.shape[1],
        "label": "1 = the sentence says nothing",
        "data": {path.name: file_sha(path) for path in paths},
        "generated": {
            "module": information_density_rows.__name__,
            "rows": GENERATED_ROWS,
            "seed": information_density_rows.SEED,
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
