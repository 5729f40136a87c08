"""What every training command shares: arguments, data reading, fitting and saving a head."""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from properties.scorers.runtime import models
from properties.scorers.runtime.heads import Head, default_head_path

SEED = 0
# Regularisation strengths tried, each by 5-fold cross-validation on the training data only.
C_GRID = (0.03, 0.1, 0.3, 1.0)
DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "train"
# Rows written for this project (everyday support, business and chat text the public sets lack).
OWN_DATA = Path(__file__).resolve().parent / "data"

Featurize = Callable[[Sequence[str], models.Encoder], np.ndarray]


def parse_args(
    prop: str, argv: Sequence[str] | None = None, more: Callable[[argparse.ArgumentParser], None] | None = None
) -> argparse.Namespace:
    """The shared options; `more` adds a command's own."""
    parser = argparse.ArgumentParser(prog=f"python -m properties.training.{prop}", description=__doc__)
    if more is not None:
        more(parser)
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, help="folder of training files (default: %(default)s)"
    )
    parser.add_argument("--encoder", default=None, help="Hugging Face id or local folder of a sentence encoder")
    parser.add_argument("--out", type=Path, default=None, help="where to write the head (default: the packaged one)")
    args = parser.parse_args(argv)
    if "eval" in args.data.resolve().parts:
        parser.error("refusing to train on evaluation data: give the training folder")
    if args.out is None:
        if args.encoder is not None:
            parser.error("--out is required with --encoder: the packaged head must match the packaged encoder")
        args.out = default_head_path(prop)
    return args


def read_rows(path: Path) -> list[dict[str, Any]]:
    with path.open() as handle:
        return [json.loads(line) for line in handle if line.strip()]


def file_sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def encoder_for(prop: str, source: str | None) -> models.Encoder:
    return models.packaged_encoder(prop) if source is None else models.user_encoder(prop, source)


def fit_head(features: np.ndarray, labels: np.ndarray, grid: Sequence[float] = C_GRID) -> tuple[Head, dict[str, Any]]:
    """Standardise, then logistic regression with C from `grid` chosen by 5-fold cross-validated ROC-AUC."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=SEED)
    scores = {}
    for c in grid:
        pipeline = make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=5000, random_state=SEED))
        scores[c] = float(np.mean(cross_val_score(pipeline, features, labels, cv=folds, scoring="roc_auc")))
    best = max(grid, key=lambda c: (scores[c], -c))
    scaler = StandardScaler().fit(features)
    model = LogisticRegression(C=best, max_iter=5000, random_state=SEED).fit(scaler.transform(features), labels)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    head = Head(mean=scaler.mean_, scale=scale, coef=model.coef_[0], intercept=float(model.intercept_[0]))
    return head, {"C": best, "cv_roc_auc": {str(c): round(s, 4) for c, s in scores.items()}}


def fit_by_kinds(
    features: np.ndarray, labels: np.ndarray, kinds: Sequence[str], grid: Sequence[float] = C_GRID
) -> tuple[Head, dict[str, Any]]:
    """Standardise, then logistic regression with C from `grid` chosen by 5-fold cross-validation
    whose folds hold out whole kinds (`GroupKFold`), scored by accuracy at 0.5: the head must tell a
    kind of text it has not seen, and row-wise folds (every kind on both sides) rate every C alike
    (Information Density's head: ROC-AUC 0.998)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    scores = {}
    for c in grid:
        pipeline = make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=5000, random_state=SEED))
        folds = GroupKFold(n_splits=5)
        scores[c] = float(np.mean(cross_val_score(pipeline, features, labels, groups=kinds, cv=folds)))
    best = max(grid, key=lambda c: (scores[c], -c))
    scaler = StandardScaler().fit(features)
    model = LogisticRegression(C=best, max_iter=5000, random_state=SEED).fit(scaler.transform(features), labels)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    head = Head(mean=scaler.mean_, scale=scale, coef=model.coef_[0], intercept=float(model.intercept_[0]))
    return head, {"C": best, "cv_accuracy_kinds_held_out": {str(c): round(s, 4) for c, s in scores.items()}}


def distinct_rows(count: int, seed: int, draw: Callable[[Any], dict[str, Any]]) -> list[dict[str, Any]]:
    """`count` rows of distinct "text", each drawn by `draw` from a Lexicon seeded in turn from
    `seed` (a text drawn twice is drawn again, up to 20 tries a row): the template generators'
    shared loop."""
    from bench.generated.lexicon import Lexicon  # Faker: a development dependency, for training only

    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    attempts = 0
    while len(rows) < count and attempts < count * 20:
        attempts += 1
        row = draw(Lexicon(rng.getrandbits(48)))
        if row["text"] in seen:
            continue
        seen.add(row["text"])
        rows.append(row)
    return rows


def rows_sha(texts: Sequence[str], labels: np.ndarray) -> str:
    joined = "\n".join(f"{label}\t{text}" for text, label in zip(texts, labels, strict=True))
    return hashlib.sha256(joined.encode()).hexdigest()[:12]


def train(
    prop: str,
    args: argparse.Namespace,
    files: Sequence[str],
    load: Callable[[Path], tuple[list[str], np.ndarray]],
    featurize: Featurize,
    extra_features: Sequence[str],
    own_files: Sequence[str] = (),
) -> Head:
    """Read `files` from the data folder and `own_files` from OWN_DATA, featurize, fit, record how,
    and write the head."""
    started = time.monotonic()
    texts: list[str] = []
    labels: list[np.ndarray] = []
    paths = [args.data / name for name in files] + [OWN_DATA / name for name in own_files]
    for path in paths:
        file_texts, file_labels = load(path)
        texts.extend(file_texts)
        labels.append(file_labels)
    encoder = encoder_for(prop, args.encoder)
    features = featurize(texts, encoder)
    head, fit = fit_head(features, np.concatenate(labels))
    head.meta = {
        "property": prop,
        "encoder": encoder.model_id,
        "features": ["embedding"] * (features.shape[1] - len(extra_features)) + list(extra_features),
        "data": {path.name: file_sha(path) for path in paths},
        "rows": len(texts),
        "seed": SEED,
        **fit,
    }
    head.save(args.out)
    elapsed = time.monotonic() - started
    print(f"{prop}: {len(texts)} rows, C={fit['C']}, cv ROC-AUC {fit['cv_roc_auc']}, {elapsed:.0f} s -> {args.out}")
    return head


def load_classification(path: Path) -> tuple[list[str], np.ndarray]:
    rows = read_rows(path)
    return [row["text"] for row in rows], np.array([int(row["label"]) for row in rows])
