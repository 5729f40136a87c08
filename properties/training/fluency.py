"""Train the Fluency head and LM adapter: `python -m properties.training.fluency` (12 minutes on 2
quiet cores, 28 on busy ones, 70 when they are shared with several other jobs: SmolLM2 reading the
~9,800 training sentences, then two epochs of the adapter; a rerun writes the same file byte for
byte).

Data, from the training folder:

- fluency_cola_train.jsonl: CoLA in-domain train, 1 = grammatically acceptable. It teaches
  grammar, but every CoLA sentence is carefully typed, so alone it says nothing of chat-style
  writing ("u r gr8 lol" scored as fluent).
- toxicity_davidson.jsonl texts, all as 0: tweets, with their text-speak, @-handles, missing
  capitals and broken syntax (whatever their toxicity label).
- relevance_qnli.jsonl outputs, all as 1: edited Wikipedia sentences, so that the tweets do not
  teach "long or formal means fluent" alone.

Beside them, fluency_everyday.jsonl (this folder's data/): 249 sentences written for the project,
the text our users score: support answers, product docs, RAG answers, emails, summaries and code or
SQL explanations as fluent (some with a product or place name in lower case, which leaves a
sentence fluent), and as not fluent the broken forms of LLM output and user text: missing words
and articles, scrambled order, stranded verbs, repeated words, cut-off sentences, wrong agreement,
run-ons and translation-like phrasing. CoLA, tweets and Wikipedia hold little of either: an
instruction with its articles and verb dropped read as fluent (0.50), and lower-casing a company's
name lowered a fluent sentence by 0.16.

Every text is cut into the units the scorer scores alone (sentences, long ones in windows), each
with its text's label. Of the tweets and the Wikipedia sentences, a seeded sample of `EXTRA_ROWS`
each is kept: they teach chat against edited prose, but they cost CoLA accuracy (held-out 15% of
CoLA, C=0.003: CoLA alone 0.795, with 500 + 500 0.784, with 1,500 + 1,500 0.768).

Then the LM adapter (`lm_adapter.py`) is fine-tuned on the same units, all but those of a held-out
15% of CoLA, two epochs (about 10 minutes on two busy cores); it is stored in the head's file.

`--encoder` names another causal LM (Hugging Face id or local folder) to train a head for; `--out`
is then required.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from properties.scorers.fluency import (
    ADAPTER_EXTRA_WIDTH,
    EXTRA_FEATURES,
    adapter_extra,
    read_units,
    sentence_units,
)
from properties.scorers.runtime import causal_lm, lm_adapter
from properties.scorers.runtime.heads import Head
from properties.training.common import (
    OWN_DATA,
    SEED,
    file_sha,
    fit_head,
    load_classification,
    parse_args,
    read_rows,
)

PROP = "fluency"
FILES = ("fluency_cola_train.jsonl", "toxicity_davidson.jsonl", "relevance_qnli.jsonl")
OWN_FILES = ("fluency_everyday.jsonl",)
EXTRA_ROWS = 500
# Regularisation strengths tried by 5-fold cross-validation: the LM's 1,161 features want stronger
# regularisation than the shared grid's (held-out CoLA: C=0.003 0.784, C=0.03 0.772).
C_GRID = (0.001, 0.003, 0.01, 0.03)


def load(path: Path) -> tuple[list[str], np.ndarray]:
    """A file's texts and labels: CoLA and the project's own rows are labelled, the tweets and the
    Wikipedia sentences take their file's label."""
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


def data_paths(data: Path) -> list[Path]:
    """The training files, CoLA first (`train_head` holds out from the first rows), then the
    tweets and Wikipedia sentences, then the project's own rows."""
    return [data / name for name in FILES] + [OWN_DATA / name for name in OWN_FILES]


def load_all(paths: Sequence[Path]) -> tuple[list[str], np.ndarray]:
    texts: list[str] = []
    labels: list[np.ndarray] = []
    for path in paths:
        file_texts, file_labels = load(path)
        if not path.name.startswith("fluency_"):
            file_texts, file_labels = sample(file_texts, file_labels, EXTRA_ROWS)
        texts.extend(file_texts)
        labels.append(file_labels)
    return texts, np.concatenate(labels)


def train_head(
    texts: Sequence[str], labels: np.ndarray, lm: causal_lm.CausalLM, cola_rows: int = 0, adapter_epochs: float = 2.0
) -> tuple[Head, dict]:
    """Features of every sentence unit, each with its text's label, the fitted head and the LM
    adapter stored in it (`lm_adapter.py`; none with `adapter_epochs=0`).

    With `cola_rows` (the first rows are CoLA's), a stratified 15% of the CoLA rows (fixed seed) is
    held out of the adapter's training, and the ROC-AUC on them is measured of a head fitted
    without them (with the tweets and Wikipedia rows and without), of the adapter, and of the two
    averaged as the property averages them. The head itself is then fitted on every row.
    """
    units = sentence_units(texts, lm)
    owner = np.asarray(units.owner)
    first, _ = lm_adapter.layer_span(lm.model.config.num_hidden_layers)
    features, states = read_units(units.texts, lm, first if adapter_epochs else None)
    head, fit = fit_head(features, labels[owner], grid=C_GRID)
    held = held_out_rows(labels, cola_rows)
    adapter = None
    if adapter_epochs:
        adapter = lm_adapter.Adapter(lm.model, ADAPTER_EXTRA_WIDTH)
        keep = np.flatnonzero(~np.isin(owner, held))
        lm_adapter.fit(
            adapter,
            [states[i] for i in keep],
            adapter_extra(features[keep]),
            labels[owner[keep]],
            epochs=adapter_epochs,
            seed=SEED,
        )
        head.extras = adapter.arrays()
    if cola_rows:
        fit["cola_holdout_roc_auc"] = held_out_cola(features, states, labels, owner, cola_rows, held, fit["C"], adapter)
    head.meta = {
        "property": PROP,
        "encoder": lm.model_id,
        "features": list(causal_lm.LM_FEATURES)
        + [f"hidden_mean_layer{layer}" for layer in lm.layers]
        + list(EXTRA_FEATURES),
        "adapter": {"layers": list(lm_adapter.layer_span(lm.model.config.num_hidden_layers)), "rank": lm_adapter.RANK}
        if adapter_epochs
        else None,
        "rows": len(texts),
        "units": len(units.texts),
        "seed": SEED,
        **fit,
    }
    return head, fit


def held_out_rows(labels: np.ndarray, cola_rows: int) -> np.ndarray:
    """A stratified 15% of the CoLA rows (fixed seed); none without CoLA rows."""
    from sklearn.model_selection import train_test_split

    if not cola_rows:
        return np.zeros(0, dtype=int)
    _, held = train_test_split(np.arange(cola_rows), test_size=0.15, random_state=SEED, stratify=labels[:cola_rows])
    return np.sort(held)


def held_out_cola(
    features: np.ndarray,
    states: list[np.ndarray],
    labels: np.ndarray,
    owner: np.ndarray,
    cola_rows: int,
    held: np.ndarray,
    c: float,
    adapter: lm_adapter.Adapter | None,
) -> dict:
    """ROC-AUC on the held-out CoLA rows; a text's value is the mean of its units', as when scoring."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    is_held = np.isin(owner, held)
    units = np.flatnonzero(is_held)

    def auc(values: np.ndarray) -> float:
        per_text = [values[owner[units] == row].mean() for row in held]
        return round(float(roc_auc_score(labels[held], per_text)), 4)

    out = {}
    head_values = {}
    for name, keep in (("mix", ~is_held), ("cola_only", ~is_held & (owner < cola_rows))):
        model = make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=5000, random_state=SEED))
        model.fit(features[keep], labels[owner[keep]])
        head_values[name] = model.predict_proba(features[units])[:, 1]
        out[name] = auc(head_values[name])
    if adapter is not None:
        adapter_values = adapter.predict([states[i] for i in units], adapter_extra(features[units]))
        out["adapter"] = auc(adapter_values)
        out["mix_and_adapter"] = auc((head_values["mix"] + adapter_values) / 2)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(PROP, argv)
    started = time.monotonic()
    paths = data_paths(args.data)
    texts, labels = load_all(paths)
    lm = causal_lm.packaged_lm(PROP) if args.encoder is None else causal_lm.user_lm(PROP, args.encoder)
    lm.bf16 = False  # the head and the adapter learn from float32 features, whatever this CPU offers
    head, fit = train_head(texts, labels, lm, cola_rows=len(load(paths[0])[0]))
    head.meta["data"] = {path.name: file_sha(path) for path in paths}
    head.save(args.out)
    elapsed = time.monotonic() - started
    print(
        f"{PROP}: {len(texts)} rows, C={fit['C']}, cv ROC-AUC {fit['cv_roc_auc']}, held-out CoLA ROC-AUC "
        f"{fit['cola_holdout_roc_auc']}, {elapsed:.0f} s -> {args.out}"
    )


if __name__ == "__main__":
    main()
