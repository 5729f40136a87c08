"""Train the Toxicity head: `python -m properties.training.toxicity` (about 15 minutes on 2 busy cores).

Rows: toxicity_davidson.jsonl (tweets: hate speech, offensive or neither) and toxicity_hatecheck.jsonl
(HateCheck functional tests, hateful or not) from the training folder, with their own labels,
`GENERATED_ROWS` rows generated from templates with a fixed seed (`toxicity_rows.py`: threats to a
person, insults without swear words, hate about many groups, and harmless texts that share their
words), and `FORMS_ROWS` more from a second generator with phrasings of its own (`toxicity_forms.py`:
threats without violent words, dehumanising metaphors, obfuscated spellings, and courtesy lines and
support answers, which the first rows left to near-misses of threats). Never evaluation data.
Abuse aimed at the reader, which HateCheck labels not hateful, is also read beside the head (see
properties/scorers/toxicity.py).

Features: `toxicity_features` of each prepared text (spelling tricks undone, quotations set aside):
the bge-small embedding, the profanity SVM, the BiLSTM, and `target_features` (who the text is about).
Two fits on the same standardised features, both written to one head file:

- the kinds head, which the scorer reads: multinomial logistic regression over what each row reads
  as: for Davidson its class (hate, offensive, harmless), for HateCheck its functionality
  (threats, hate as an emotion, dehumanisation, negative attributes, implicit hate, other hate, or
  harmless), for a generated row its `reads_as` (its template's kind). C is chosen from `KINDS_C_GRID` by 5-fold
  cross-validated ROC-AUC of the toxic kinds' probability, with folds that never split a generated
  template (a template seen in training says little about a new phrasing);
- the binary head (toxic or not, `fit_head`), kept as the head's plain probability for readers that
  know no kinds.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from properties.scorers.runtime.heads import Head
from properties.scorers.toxicity import EXTRA_FEATURES, HARMLESS, KINDS_COEF, KINDS_INTERCEPT, toxicity_features
from properties.training import toxicity_forms, toxicity_rows
from properties.training.common import SEED, encoder_for, file_sha, fit_head, parse_args, read_rows

FILES = ("toxicity_davidson.jsonl", "toxicity_hatecheck.jsonl")
GENERATED_ROWS = 6000
# Rows of the further forms (`toxicity_forms`: threats without violent words, courtesy lines, support
# answers and more, in phrasings of their own); the number is chosen by grouped cross-validation.
FORMS_ROWS = 3000
KINDS_C_GRID = (0.03, 0.1, 0.3)
# Davidson's classes, and HateCheck's hateful functionalities, as the kinds the head learns.
DAVIDSON_KINDS = {0: "hate", 1: "offensive", 2: HARMLESS}
HATECHECK_KINDS = {
    "threat_dir_h": toxicity_rows.THREAT,
    "threat_norm_h": toxicity_rows.THREAT,
    "derog_neg_emote_h": toxicity_rows.HATE_EMOTION,
    "derog_dehum_h": toxicity_rows.DEHUMANISATION,
    "derog_neg_attrib_h": toxicity_rows.NEGATIVE_ATTRIBUTE,
    "derog_impl_h": toxicity_rows.IMPLICIT_HATE,
    "negate_pos_h": toxicity_rows.IMPLICIT_HATE,
}


def public_kind(row: dict[str, Any]) -> str:
    """What a Davidson or HateCheck row reads as: its class, or its functionality if hateful."""
    meta = row.get("meta") or {}
    if "class" in meta:
        return DAVIDSON_KINDS[int(meta["class"])]
    if not int(row["label"]):
        return HARMLESS
    return HATECHECK_KINDS.get(str(meta.get("functionality", "")), "hate")


def fit_kinds(
    features: np.ndarray, kinds: Sequence[str], labels: np.ndarray, groups: Sequence[str], head: Head
) -> tuple[list[str], np.ndarray, np.ndarray, dict[str, Any]]:
    """Multinomial logistic regression over `kinds` on the features standardised as `head` does."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold

    scaled = (features - head.mean) / head.scale
    target = np.asarray(kinds)
    names = sorted(set(kinds))
    toxic = np.array([not name.startswith(HARMLESS) for name in names])
    folds = list(GroupKFold(n_splits=5).split(scaled, labels, list(groups)))
    scores = {}
    for c in KINDS_C_GRID:
        fold_scores = []
        for train_rows, test_rows in folds:
            model = LogisticRegression(C=c, max_iter=5000, random_state=SEED).fit(
                scaled[train_rows], target[train_rows]
            )
            probabilities = model.predict_proba(scaled[test_rows])
            fold_toxic = np.isin(model.classes_, np.array(names)[toxic])
            fold_scores.append(roc_auc_score(labels[test_rows], probabilities[:, fold_toxic].sum(axis=1)))
        scores[c] = float(np.mean(fold_scores))
    best = max(KINDS_C_GRID, key=lambda c: (scores[c], -c))
    model = LogisticRegression(C=best, max_iter=5000, random_state=SEED).fit(scaled, target)
    assert list(model.classes_) == names
    fit = {"C": best, "cv_roc_auc": {str(c): round(s, 4) for c, s in scores.items()}, "cv": "grouped by template"}
    return names, model.coef_, model.intercept_, fit


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args("toxicity", argv)
    started = time.monotonic()
    texts: list[str] = []
    labels: list[int] = []
    kinds: list[str] = []
    groups: list[str] = []
    for name in FILES:
        for index, row in enumerate(read_rows(args.data / name)):
            texts.append(row["text"])
            labels.append(int(row["label"]))
            kinds.append(public_kind(row))
            groups.append(f"{name}#{index}")
    generated = toxicity_rows.generate(GENERATED_ROWS)
    forms = toxicity_forms.generate(FORMS_ROWS)
    for row in generated + forms:
        texts.append(row["text"])
        labels.append(int(row["label"]))
        kinds.append(row["reads_as"])
        groups.append(row["template"])
    encoder = encoder_for("toxicity", args.encoder)
    features = toxicity_features(texts, encoder)
    label_array = np.array(labels)
    head, binary_fit = fit_head(features, label_array)
    names, coef, intercept, kinds_fit = fit_kinds(features, kinds, label_array, groups, head)
    head.extras = {KINDS_COEF: coef, KINDS_INTERCEPT: intercept}
    head.meta = {
        "property": "toxicity",
        "encoder": encoder.model_id,
        "features": ["embedding"] * (features.shape[1] - len(EXTRA_FEATURES)) + list(EXTRA_FEATURES),
        "data": {name: file_sha(args.data / name) for name in FILES},
        "generated": {
            "rows": len(generated),
            "seed": toxicity_rows.SEED,
            "kinds": dict(sorted(Counter(row["kind"] for row in generated).items())),
        },
        "generated_forms": {
            "rows": len(forms),
            "seed": toxicity_forms.SEED,
            "kinds": dict(sorted(Counter(row["kind"] for row in forms).items())),
        },
        "rows": len(texts),
        "seed": SEED,
        "kinds": names,
        "rows_by_kind": dict(sorted(Counter(kinds).items())),
        "kinds_fit": kinds_fit,
        **binary_fit,
    }
    head.save(args.out)
    elapsed = time.monotonic() - started
    print(
        f"toxicity: {len(texts)} rows ({len(generated) + len(forms)} generated), {len(names)} kinds, "
        f"C={kinds_fit['C']}, "
        f"grouped cv ROC-AUC {kinds_fit['cv_roc_auc']}; binary head C={binary_fit['C']}, "
        f"cv ROC-AUC {binary_fit['cv_roc_auc']}; {elapsed:.0f} s -> {args.out}"
    )


if __name__ == "__main__":
    main()
