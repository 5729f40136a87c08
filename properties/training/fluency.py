"""Train the Fluency head: `python -m properties.training.fluency` (about 5 minutes on 2 idle cores,
20 on busy ones, nearly all of it SmolLM2 reading the ~9,600 training sentences; 2 minutes with a
filled `--features` cache).

Data, from the training folder:

- fluency_cola_train.jsonl: CoLA in-domain train, 1 = grammatically acceptable. It teaches
  grammar, but every CoLA sentence is carefully typed, so alone it says nothing of chat-style
  writing ("u r gr8 lol" scored as fluent).
- toxicity_davidson.jsonl texts, all as 0: tweets, with their text-speak, @-handles, missing
  capitals and broken syntax (whatever their toxicity label).
- relevance_qnli.jsonl outputs, all as 1: edited Wikipedia sentences, so that the tweets do not
  teach "long or formal means fluent" alone.

Every text is cut into the units the scorer scores alone (sentences, long ones in windows), each
with its text's label. Of the tweets and the Wikipedia sentences, a seeded sample of `EXTRA_ROWS`
each is kept: they teach chat against edited prose, but they cost CoLA accuracy (held-out 15% of
CoLA, C=0.003: CoLA alone 0.795, with 500 + 500 0.784, with 1,500 + 1,500 0.768).

`--encoder` names another causal LM (Hugging Face id or local folder) to train a head for; `--out`
is then required. `--features FILE.npz` keeps the computed features there and reuses them when the
model and data are the same, so that refitting the head takes seconds.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from properties.scorers import causal_lm
from properties.scorers.fluency import EXTRA_FEATURES, fluency_features, sentence_units
from properties.scorers.heads import Head
from properties.training.common import SEED, file_sha, fit_head, load_classification, parse_args, read_rows

PROP = "fluency"
FILES = ("fluency_cola_train.jsonl", "toxicity_davidson.jsonl", "relevance_qnli.jsonl")
EXTRA_ROWS = 500
# Regularisation strengths tried by 5-fold cross-validation: the LM's 1,161 features want stronger
# regularisation than the shared grid's (held-out CoLA: C=0.003 0.784, C=0.03 0.772).
C_GRID = (0.001, 0.003, 0.01, 0.03)


def load(path: Path) -> tuple[list[str], np.ndarray]:
    if path.name.startswith("fluency_"):
        return load_classification(path)
    if path.name.startswith("toxicity_"):
        texts = [row["text"] for row in read_rows(path)]
        return texts, np.zeros(len(texts), dtype=int)
    texts = list(dict.fromkeys(row["output"] for row in read_rows(path)))
    return texts, np.ones(len(texts), dtype=int)


def sample(texts: list[str], labels: np.ndarray, count: int) -> tuple[list[str], np.ndarray]:
    if len(texts) <= count:
        return texts, labels
    keep = np.sort(np.random.default_rng(SEED).permutation(len(texts))[:count])
    return [texts[i] for i in keep], labels[keep]


def load_all(data: Path, files: Sequence[str] = FILES) -> tuple[list[str], np.ndarray]:
    texts: list[str] = []
    labels: list[np.ndarray] = []
    for name in files:
        file_texts, file_labels = load(data / name)
        if not name.startswith("fluency_"):
            file_texts, file_labels = sample(file_texts, file_labels, EXTRA_ROWS)
        texts.extend(file_texts)
        labels.append(file_labels)
    return texts, np.concatenate(labels)


def train_head(
    texts: Sequence[str], labels: np.ndarray, lm: causal_lm.CausalLM, cola_rows: int = 0, cache: Path | None = None
) -> tuple[Head, dict]:
    """Features of every sentence unit, each with its text's label, and the fitted head.

    With `cola_rows` (the first rows are CoLA's), it also measures the ROC-AUC on a held-out 15% of
    CoLA of a head fitted without them, once with the tweets and Wikipedia rows and once without.
    """
    units = sentence_units(texts, lm)
    owner = np.asarray(units.owner)
    features = cached_features(units.texts, lm, cache)
    head, fit = fit_head(features, labels[owner], grid=C_GRID)
    if cola_rows:
        fit["cola_holdout_roc_auc"] = held_out_cola(features, labels, owner, cola_rows, fit["C"])
    head.meta = {
        "property": PROP,
        "encoder": lm.model_id,
        "features": list(causal_lm.LM_FEATURES)
        + [f"hidden_mean_layer{layer}" for layer in lm.layers]
        + list(EXTRA_FEATURES),
        "rows": len(texts),
        "units": len(units.texts),
        "seed": SEED,
        **fit,
    }
    return head, fit


def cached_features(texts: list[str], lm: causal_lm.CausalLM, cache: Path | None) -> np.ndarray:
    """`fluency_features`, each text's row kept in `cache` and reused while the model and the
    number of features are the same: only texts not seen before go through the LM."""
    known: dict[str, np.ndarray] = {}
    if cache is not None and cache.is_file():
        with np.load(cache, allow_pickle=False) as stored:
            if str(stored["model"]) == lm.model_id and stored["features"].shape[1] == lm.width + len(EXTRA_FEATURES):
                known = dict(zip(stored["texts"].tolist(), stored["features"], strict=True))
    missing = list(dict.fromkeys(text for text in texts if text not in known))
    if missing:
        known.update(zip(missing, fluency_features(missing, lm), strict=True))
    if cache is not None:
        np.savez(
            cache, model=np.array(lm.model_id), texts=np.array(list(known)), features=np.vstack(list(known.values()))
        )
    return np.vstack([known[text] for text in texts])


def held_out_cola(features: np.ndarray, labels: np.ndarray, owner: np.ndarray, cola_rows: int, c: float) -> dict:
    """ROC-AUC on 15% of the CoLA rows (stratified, fixed seed) of heads fitted on the rest, with and
    without the other files' rows; a text's value is the mean of its units', as when scoring."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    cola = np.arange(cola_rows)
    _, held = train_test_split(cola, test_size=0.15, random_state=SEED, stratify=labels[:cola_rows])
    is_held = np.isin(owner, held)
    out = {}
    for name, keep in (("mix", ~is_held), ("cola_only", ~is_held & (owner < cola_rows))):
        model = make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=5000, random_state=SEED))
        model.fit(features[keep], labels[owner[keep]])
        values = model.predict_proba(features[is_held])[:, 1]
        per_text = [values[owner[is_held] == row].mean() for row in held]
        out[name] = round(float(roc_auc_score(labels[held], per_text)), 4)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    options = argparse.ArgumentParser(add_help=False)
    options.add_argument("--features", type=Path, default=None)
    known, rest = options.parse_known_args(argv)
    args = parse_args(PROP, rest)
    started = time.monotonic()
    texts, labels = load_all(args.data)
    lm = causal_lm.packaged_lm(PROP) if args.encoder is None else causal_lm.user_lm(PROP, args.encoder)
    head, fit = train_head(texts, labels, lm, cola_rows=len(load(args.data / FILES[0])[0]), cache=known.features)
    head.meta["data"] = {name: file_sha(args.data / name) for name in FILES}
    head.save(args.out)
    elapsed = time.monotonic() - started
    print(
        f"{PROP}: {len(texts)} rows, C={fit['C']}, cv ROC-AUC {fit['cv_roc_auc']}, held-out CoLA ROC-AUC "
        f"{fit['cola_holdout_roc_auc']}, {elapsed:.0f} s -> {args.out}"
    )


if __name__ == "__main__":
    main()
