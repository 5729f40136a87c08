"""Fit the Relevance calibration: a logistic (Platt) map from the cross-encoder's logit to 0-1.

    python -m properties.training.relevance [--data ../shared/data/train] [--out PATH]

Reads `relevance_qnli.jsonl` (pairs: `input` = question, `output` = sentence, label 1 = the
sentence answers it) from the training folder only, scores every pair with the packaged
cross-encoder (best window, as the property does), and fits p = sigmoid(slope * logit + intercept)
by unregularised logistic regression: the calibration of Relevance, which judges an output.

Retrieval Relevance and Context Relevancy judge chunks of documents, where the answering sentence
sits among others and the cross-encoder's logit for it is lower. So a second fit, `chunk`, is made
on chunk-sized passages built from the same rows: each row's sentence between two sentences of
other rows (drawn and shuffled with a fixed seed), keeping its label. On the 2,373 training rows:
sentence p(logit 0) = 0.44, chunk p(logit 0) = 0.60 (ROC-AUC 0.90 and 0.87).
Deterministic: the same data and weights give the same numbers (lbfgs on one feature).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from properties.scorers.relevance import CALIBRATION
from properties.scorers.runtime import cross_encoder
from properties.training.common import DEFAULT_DATA, file_sha, read_rows

FILE = "relevance_qnli.jsonl"
CHUNK_SEED = 0


def fit(logits: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    from sklearn.linear_model import LogisticRegression

    # C large: Platt scaling has two parameters and thousands of rows; nothing to regularise.
    model = LogisticRegression(C=1e6, max_iter=1000).fit(logits.reshape(-1, 1), labels)
    return float(model.coef_[0, 0]), float(model.intercept_[0])


def chunk_passages(rows: list[dict], seed: int = CHUNK_SEED) -> list[str]:
    """Each row's sentence between two sentences of other rows, in a shuffled order."""
    rng = random.Random(seed)
    sentences = [row["output"] for row in rows]
    chunks = []
    for index, row in enumerate(rows):
        others = [sentences[j] for j in rng.sample(range(len(rows)), 3) if j != index][:2]
        parts = [*others, row["output"]]
        rng.shuffle(parts)
        chunks.append(" ".join(parts))
    return chunks


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m properties.training.relevance", description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="training folder (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=CALIBRATION, help="where to write (default: %(default)s)")
    args = parser.parse_args(argv)
    if "eval" in args.data.resolve().parts:
        parser.error("refusing to train on evaluation data: give the training folder")
    started = time.monotonic()
    rows = read_rows(args.data / FILE)
    model = cross_encoder.packaged_reranker("relevance")
    logits, _, _ = model.best_windows([row["input"] for row in rows], [row["output"] for row in rows])
    labels = np.array([int(row["label"]) for row in rows])
    slope, intercept = fit(logits, labels)
    chunk_logits, _, _ = model.best_windows([row["input"] for row in rows], chunk_passages(rows))
    chunk_slope, chunk_intercept = fit(chunk_logits, labels)
    record = {
        "slope": round(slope, 6),
        "intercept": round(intercept, 6),
        "chunk": {"slope": round(chunk_slope, 6), "intercept": round(chunk_intercept, 6), "seed": CHUNK_SEED},
        "model": model.model_id,
        "data": {FILE: file_sha(args.data / FILE)},
        "rows": len(rows),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    elapsed = time.monotonic() - started
    print(f"relevance: {len(rows)} rows, slope {slope:.4f}, intercept {intercept:.4f}, {elapsed:.0f} s -> {args.out}")


if __name__ == "__main__":
    main()
