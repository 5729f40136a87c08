"""Train the Avoided Answer head: `python -m properties.training.avoided_answer` (about 2 minutes).

Data:
- refusal_xstest.jsonl (XSTest completions: 1 = full or partial refusal, 0 = full compliance) from
  the training folder;
- `GENERATED_ROWS` short replies generated with a fixed seed (`avoided_answer_rows.py`): avoided
  answers of many forms (a hand-off to a team, a person or a document without the answer, nothing
  found in the sources, not in a position to, policy refusals, not knowing, each alone or after a
  greeting or an apology) as 1, and answers of many forms (direct, after an apology or a hedge,
  with "cannot" as their content, partial with a caveat, the answer and then a team for more) as 0;
- `FORMS_ROWS` more, from `avoided_answer_forms.py` with its own seed: avoidance and answers in the
  shapes the first generator lacks (asking to rephrase, steering to another topic, refusals with no
  subject, "cannot tell from this"; yes/no, step lists, an answer after saying what it cannot do,
  bare values, JSON and tables), weighted as the others.

Each generated row weighs `GENERATED_WEIGHT` in the fit (an XSTest row 1): enough for the head to
learn short replies, little enough that XSTest's long completions keep their weights (the head also
has weights of its own for short outputs; see `shortness` in the scorer). The regularisation is
chosen by 5-fold cross-validated ROC-AUC, fitted and scored with the same weights, the folds grouped by
the generated rows' kind (`template` up to the slash), so that the choice rewards reading kinds of
reply the fit never saw rather than other fills of the same templates (with folds that mixed the
templates, C=0.3 was chosen; leaving whole kinds out, the replies of the held-out kinds were read right
84.4% of the time at C=0.03 and 83.9% at C=0.3, before the forms rows came). The head
reads the output only. The head file records the data file's hash, and the generated rows' count,
seed, weight and hash.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from properties.scorers.avoided_answer import avoided_answer_features, feature_names
from properties.scorers.runtime.heads import Head
from properties.training import avoided_answer_forms, avoided_answer_rows
from properties.training.common import C_GRID, SEED, encoder_for, file_sha, parse_args, read_rows, rows_sha

FILES = ("refusal_xstest.jsonl",)
GENERATED_ROWS = 6000
GENERATED_WEIGHT = 0.1
# Rows of the further forms (avoided_answer_forms): leaving whole kinds out of the fit, adding 3,000 of
# them raised the share of held-out kinds' replies read right from 84.4% to 88.0%, and to 89.8% with
# the bare hand-offs to a role (XSTest ROC-AUC in the same folds 0.976, 0.974, 0.962; on the public
# held-back XSTest rows 0.991 before and after).
FORMS_ROWS = 3000


def load_outputs(path: Path) -> tuple[list[str], np.ndarray]:
    rows = [row for row in read_rows(path) if str(row["output"]).strip()]
    return [row["output"] for row in rows], np.array([int(row["label"]) for row in rows])


def generated_rows(count: int = GENERATED_ROWS) -> tuple[list[str], np.ndarray]:
    rows = avoided_answer_rows.generate(count)
    return [row["output"] for row in rows], np.array([row["label"] for row in rows])


def generated_kinds() -> tuple[list[dict], list[dict]]:
    """The rows of both generators, each with its template: (rows, forms)."""
    return avoided_answer_rows.generate(GENERATED_ROWS), avoided_answer_forms.generate(FORMS_ROWS)


def fit_weighted_head(
    features: np.ndarray,
    labels: np.ndarray,
    weights: np.ndarray,
    groups: np.ndarray,
    grid: Sequence[float] = C_GRID,
) -> tuple[Head, dict[str, Any]]:
    """`common.fit_head` with a weight per row: standardise, then logistic regression with C from
    `grid` chosen by 5-fold cross-validated ROC-AUC, the folds fitted and scored with the weights (so that
    thousands of easy generated rows do not outvote XSTest in the choice) and kept apart by `groups` (a
    group's rows all in one fold)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold
    from sklearn.preprocessing import StandardScaler

    def fitted(rows: np.ndarray, c: float) -> tuple[StandardScaler, LogisticRegression]:
        scaler = StandardScaler().fit(features[rows])
        model = LogisticRegression(C=c, max_iter=5000, random_state=SEED)
        return scaler, model.fit(scaler.transform(features[rows]), labels[rows], sample_weight=weights[rows])

    folds = list(GroupKFold(n_splits=5).split(features, labels, groups))
    scores = {}
    for c in grid:
        fold_scores = []
        for train_rows, test_rows in folds:
            scaler, model = fitted(train_rows, c)
            predicted = model.predict_proba(scaler.transform(features[test_rows]))[:, 1]
            fold_scores.append(roc_auc_score(labels[test_rows], predicted, sample_weight=weights[test_rows]))
        scores[c] = float(np.mean(fold_scores))
    best = max(grid, key=lambda c: (scores[c], -c))
    scaler, model = fitted(np.arange(len(labels)), best)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    head = Head(mean=scaler.mean_, scale=scale, coef=model.coef_[0], intercept=float(model.intercept_[0]))
    return head, {"C": best, "cv_roc_auc": {str(c): round(s, 4) for c, s in scores.items()}}


def _record(module: Any, rows: list[dict]) -> dict[str, Any]:
    """What the head file says of one generator's rows."""
    texts, labels = [row["output"] for row in rows], np.array([row["label"] for row in rows])
    return {
        "module": module.__name__,
        "rows": len(rows),
        "seed": module.SEED,
        "weight": GENERATED_WEIGHT,
        "sha": rows_sha(texts, labels),
    }


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args("avoided_answer", argv)
    started = time.monotonic()
    texts: list[str] = []
    labels: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    groups: list[str] = []
    paths = [args.data / name for name in FILES]
    for path in paths:
        file_texts, file_labels = load_outputs(path)
        texts.extend(file_texts)
        labels.append(file_labels)
        weights.append(np.ones(len(file_texts)))
        groups.extend(f"{path.name}#{index}" for index in range(len(file_texts)))  # a row is its own group
    rows, forms = generated_kinds()
    for module, made_rows in ((avoided_answer_rows, rows), (avoided_answer_forms, forms)):
        texts.extend(row["output"] for row in made_rows)
        labels.append(np.array([row["label"] for row in made_rows]))
        weights.append(np.full(len(made_rows), GENERATED_WEIGHT))
        groups.extend(f"{module.__name__}:{row['template'].split('/')[0]}" for row in made_rows)
    encoder = encoder_for("avoided_answer", args.encoder)
    features = avoided_answer_features(texts, encoder)
    head, fit = fit_weighted_head(features, np.concatenate(labels), np.concatenate(weights), np.array(groups))
    dimension = (features.shape[1] - len(feature_names(0))) // 4
    head.meta = {
        "property": "avoided_answer",
        "encoder": encoder.model_id,
        "features": feature_names(dimension),
        "data": {path.name: file_sha(path) for path in paths},
        "generated": _record(avoided_answer_rows, rows),
        "generated_forms": _record(avoided_answer_forms, forms),
        "folds": "grouped by generated kind",
        "rows": len(texts),
        "seed": SEED,
        **fit,
    }
    head.save(args.out)
    elapsed = time.monotonic() - started
    print(
        f"avoided_answer: {len(texts)} rows ({len(rows) + len(forms)} generated), C={fit['C']}, "
        f"cv ROC-AUC {fit['cv_roc_auc']}, {elapsed:.0f} s -> {args.out}"
    )


if __name__ == "__main__":
    main()
