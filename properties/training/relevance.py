"""Fit the Relevance calibration: a logistic (Platt) map from the cross-encoder's logit to 0-1.

    python -m properties.training.relevance [--data ../shared/data/train] [--out PATH]

Reads `relevance_qnli.jsonl` (pairs: `input` = question, `output` = sentence, label 1 = the
sentence answers it) from the training folder only, scores every pair with the packaged
cross-encoder (best window, as the property does), and fits p = sigmoid(slope * logit + intercept)
by unregularised logistic regression. Deterministic: the same data and weights give the same
two numbers (lbfgs on one feature, no shuffling).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from properties.scorers.relevance import CALIBRATION
from properties.scorers.runtime import cross_encoder
from properties.training.common import DEFAULT_DATA, file_sha, read_rows

FILE = "relevance_qnli.jsonl"


def fit(logits: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    from sklearn.linear_model import LogisticRegression

    # C large: Platt scaling has two parameters and thousands of rows; nothing to regularise.
    model = LogisticRegression(C=1e6, max_iter=1000).fit(logits.reshape(-1, 1), labels)
    return float(model.coef_[0, 0]), float(model.intercept_[0])


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
    record = {
        "slope": round(slope, 6),
        "intercept": round(intercept, 6),
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
