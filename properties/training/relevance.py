"""Fit the Relevance head and calibrations.

    python -m properties.training.relevance [--data ../shared/data/train] [--out PATH]

Rows: `relevance_qnli.jsonl` from the training folder (pairs: `input` = question, `output` =
sentence, label 1 = the sentence answers it) and question-answer pairs from three generators, each
with a fixed seed: `relevance_rows.py` (short answers about products, companies and accounts),
`relevance_chat_rows.py` (chat answers of many domains, dressed with greetings, closings and
background), `relevance_form_rows.py` (answers whose form is composed at random: fragments,
yes/no with detail, steps, code, figures) and `relevance_subject_rows.py` (complete answers about the
asked subject, and about a neighbouring subject of the same kind as negatives). Their negatives are
mostly answers to another question about the same subject. Never evaluation data. Fits:

- `head`: Relevance's short answers (at most `SHORT_ANSWER_WORDS` words). A network of one hidden
  layer over `relevance_features.FEATURES` (standardised), on every row. Before it, the same fit on
  the rows minus the last fifth of each source's rows (whole subjects, as the generators make them
  one after another) is scored on that fifth: the `check` figures. `grouped_check` leaves one kind
  (a generator's subject or question kind, or QNLI) out at a time, which the fifth cannot: the figure
  to choose the head's size, penalty and features by (`grouped_check` in the artifact).

The models' readings of each pair are kept in a cache (`reading_cache.py`, `--cache-dir`), so that a
rerun reads only new pairs: trying a head, a feature or a generator variant takes about two minutes.
- `sentence` (the top-level slope and intercept): p = sigmoid(slope * logit + intercept) on the QNLI
  rows' logits (best window): an encyclopedic sentence (a self-contained short answer read alone).
- `passage`: the same map for an output longer than `SHORT_ANSWER_WORDS`, on users' chat answers, not
  on QNLI's encyclopedic sentences (which restate their question, and put the map's 0.5 at a logit
  that long chat answers which do address the question fall under): the generated answers of that
  length, and users' prompts from `refusal_xstest.jsonl` with chat models' own answers that comply
  (`answered_pairs`). The logit is the best of the whole output's windows and of its sentences, as
  the property reads a passage. Chosen by 5-fold cross-validation on these rows (folds by prompt):
  balanced accuracy at 0.5 on XSTest's pairs 0.984 and on the generated chat answers 0.660, against
  0.985 and 0.631 for the map fitted on QNLI and the generated answers (QNLI's long rows: 0.734
  against 0.791).
- `chunk`: Retrieval Relevance and Context Relevancy judge chunks of documents, where the answering
  sentence sits among others and the cross-encoder's logit for it is lower. This fit is made on
  chunk-sized passages built from the QNLI rows only: each row's sentence between two sentences of
  other rows (drawn and shuffled with a fixed seed), keeping its label.

Deterministic: the same data and weights give the same numbers (lbfgs, a fixed seed).

Tried for passages and not kept (balanced accuracy at 0.5; "leave one kind out" on the training
rows, QNLI's training rows in five groups by question):
- A logistic regression over the head's features in place of the passage map, fitted on the chat
  rows: generated long answers 0.660 -> 0.777, XSTest 0.982 -> 0.976, but QNLI's long rows, never
  seen, 0.732 -> 0.677 (the cosine and the words shared teach "off the subject means not relevant",
  and QNLI's negatives are on the subject). Fitted on chat and QNLI rows together, over the
  cross-encoder's five readings: QNLI 0.807, generated 0.703, XSTest 0.987, against 0.788, 0.647 and
  0.987 for a map of the best logit on the same rows; it needs the question + answer reading too, a
  second cross-encoder pass over every passage. On the evaluation files neither held both:
  relevance_conversational's balanced accuracy fell to 0.855-0.870 whenever QNLI's rows were in the
  fit, and relevance_qnli's ROC-AUC to 0.881 when they were not.
- Refitting every part on the one-pair-a-pass readings: the maps moved by under 0.006, the head's
  leave-one-kind-out mean accuracy fell (0.850 -> 0.838) and relevance_qnli's ROC-AUC with it
  (0.929 -> 0.923); relevance_conversational stayed at 0.895. The artifact was fitted on batched
  readings and kept.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from properties.scorers import relevance_features
from properties.scorers.relevance import CALIBRATION, RelevanceHead, is_short_answer
from properties.scorers.runtime import cross_encoder, models
from properties.training import (
    reading_cache,
    relevance_chat_rows,
    relevance_form_rows,
    relevance_rows,
    relevance_subject_rows,
)
from properties.training.common import DEFAULT_DATA, SEED, file_sha, read_rows

FILE = "relevance_qnli.jsonl"
# Users' prompts with chat models' answers (XSTest): the passage map's chat answers.
CHAT_FILE = "refusal_xstest.jsonl"
CHUNK_SEED = 0
GENERATED_ROWS = 2000
CHAT_ROWS = 2000
FORM_ROWS = 2400
# Complete answers about the subject asked about or a neighbour of it (`relevance_subject_rows.py`).
SUBJECT_ROWS = 600
# The share of each source's rows (its last ones) that the check fit leaves out and scores.
CHECK_SHARE = 0.2
# The head's hidden units and L2 penalty. On the check fifth (ROC-AUC, all sources): logistic
# regression 0.915, 16 units 0.953, 32 units 0.956, 32 + 16 units 0.958; 16 is enough. Leaving one
# kind out (`grouped_check`: pooled ROC-AUC / mean kind accuracy), which the check fifth overrates:
# logistic regression 0.846 / 0.822, 16 units 0.877 / 0.844, 16 units penalty 1.0 0.879 / 0.849,
# 32 units 1.0 0.877 / 0.842, 8 units 0.1 0.875 / 0.844, 4 units 0.1 0.886 / 0.850, 3 units 0.1
# 0.877 / 0.846; leaving a whole source out ranks them alike (4 units 0.874, 16 units 0.858). Dropping
# any one feature lowers the left-out kinds' ROC-AUC (by 0.009 to 0.044 with 4 units).
HIDDEN_UNITS = 16
PENALTY = 0.01


def fit(logits: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    coef, intercept = fit_many(logits.reshape(-1, 1), labels)
    return coef[0], intercept


def fit_many(features: np.ndarray, labels: np.ndarray) -> tuple[list[float], float]:
    from sklearn.linear_model import LogisticRegression

    # C large: a calibration has two or three parameters and thousands of rows; nothing to regularise.
    model = LogisticRegression(C=1e6, max_iter=1000).fit(features, labels)
    return [float(value) for value in model.coef_[0]], float(model.intercept_[0])


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


def answered_pairs(rows: list[dict], seed: int = SEED) -> list[dict]:
    """Each prompt with a model's answer that complies (XSTest's label 0) as label 1, and with an
    answer to another prompt as label 0, drawn with a fixed seed. Refusals are left out: whether a
    refusal addresses its prompt is Avoided Answer's question, not this map's."""
    rng = random.Random(seed)
    answered = [row for row in rows if int(row["label"]) == 0]
    pairs = []
    for row in answered:
        other = answered[rng.randrange(len(answered))]
        while other["input"] == row["input"]:
            other = answered[rng.randrange(len(answered))]
        pairs.append({"input": row["input"], "output": row["output"].strip(), "label": 1})
        pairs.append({"input": row["input"], "output": other["output"].strip(), "label": 0})
    return pairs


def check_split(sizes: Sequence[int]) -> np.ndarray:
    """A mask of the rows the check fit leaves out: the last `CHECK_SHARE` of each source's rows."""
    held = [np.arange(size) >= size - int(size * CHECK_SHARE) for size in sizes]
    return np.concatenate(held)


def fit_head(features: np.ndarray, labels: np.ndarray) -> RelevanceHead:
    """Standardise, then a one-hidden-layer network (sklearn, lbfgs: deterministic for the same rows)."""
    from sklearn.neural_network import MLPClassifier
    from threadpoolctl import threadpool_limits

    mean, scale = features.mean(axis=0), features.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    network = MLPClassifier((HIDDEN_UNITS,), alpha=PENALTY, solver="lbfgs", max_iter=5000, random_state=SEED)
    # One BLAS thread: the matrices are small, and on a shared machine (load 4 on 2 cores) the threads
    # waited on each other: one fit took 289 s, against 2.3 s on one thread.
    with threadpool_limits(limits=1):
        network.fit((features - mean) / scale, labels)
    hidden, output = network.coefs_
    hidden_bias, output_bias = network.intercepts_
    return RelevanceHead(mean, scale, hidden, hidden_bias, output[:, 0], float(output_bias[0]))


def score_check(features: np.ndarray, labels: np.ndarray, held: np.ndarray) -> dict[str, float]:
    from sklearn.metrics import roc_auc_score

    predicted = fit_head(features[~held], labels[~held]).predict(features[held])
    hits = (predicted >= 0.5) == (labels[held] == 1)
    return {
        "roc_auc": round(float(roc_auc_score(labels[held], predicted)), 4),
        "accuracy": round(float(hits.mean()), 4),
    }


def kinds_of(rows: Sequence[dict]) -> np.ndarray:
    """Each row's group for `grouped_check`: its generator and subject or question kind (`rows/product`,
    `chat/dish`, `form/yes-no`), and `qnli` for the QNLI rows."""
    return np.array([row.get("kind", "qnli") for row in rows])


def grouped_check(features: np.ndarray, labels: np.ndarray, kinds: np.ndarray) -> dict[str, float]:
    """Leave one kind out: for each kind, the head fitted on every other kind scores that kind's rows.

    The last fifth of each source (`score_check`) holds subjects whose kinds the fit has seen, so it
    rewards a head that learns a generator's kinds; a kind the fit has never seen stands for the
    questions and answer forms of users, which no generator wrote. The figures: ROC-AUC of all the
    held predictions pooled, accuracy at 0.5 averaged over kinds (each kind counts once), and the
    worst kind's accuracy."""
    from sklearn.metrics import roc_auc_score

    predicted = np.zeros(len(labels))
    accuracies = {}
    for kind in sorted(set(kinds.tolist())):
        held = kinds == kind
        predicted[held] = fit_head(features[~held], labels[~held]).predict(features[held])
        accuracies[kind] = float(((predicted[held] >= 0.5) == (labels[held] == 1)).mean())
    return {
        "roc_auc": round(float(roc_auc_score(labels, predicted)), 4),
        "mean_kind_accuracy": round(float(np.mean(list(accuracies.values()))), 4),
        "worst_kind": min(accuracies, key=accuracies.__getitem__),
        "worst_kind_accuracy": round(min(accuracies.values()), 4),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m properties.training.relevance", description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="training folder (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=CALIBRATION, help="where to write (default: %(default)s)")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=reading_cache.DEFAULT_DIR,
        help="where the models' readings of each training pair are kept for reruns (default: %(default)s; "
        "safe to delete)",
    )
    parser.add_argument("--no-cache", action="store_true", help="read every pair with the models, keeping nothing")
    args = parser.parse_args(argv)
    if "eval" in args.data.resolve().parts:
        parser.error("refusing to train on evaluation data: give the training folder")
    started = time.monotonic()
    qnli = read_rows(args.data / FILE)
    sources = [
        qnli,
        relevance_rows.generate(GENERATED_ROWS),
        relevance_chat_rows.generate(CHAT_ROWS),
        relevance_form_rows.generate(FORM_ROWS),
        relevance_subject_rows.generate(SUBJECT_ROWS),
    ]
    rows = [row for source in sources for row in source]
    model, encoder = cross_encoder.packaged_reranker("relevance"), models.packaged_encoder("relevance")
    cache = None if args.no_cache else reading_cache.ReadingCache(args.cache_dir, model, encoder)

    def read(rows: list[dict]) -> np.ndarray:
        questions, answers = [row["input"] for row in rows], [row["output"] for row in rows]
        if cache is not None:
            return relevance_features.features_of(cache.read(questions, answers), questions, answers)
        return relevance_features.features(
            relevance_features.read(model, encoder, questions, answers), questions, answers
        )

    # The chat pairs feed the passage map only, read apart: the batches of length the head's rows are
    # read in, and so the head, stay as they were without them.
    chat = answered_pairs(read_rows(args.data / CHAT_FILE))
    features, chat_features = read(rows), read(chat)
    if cache is not None:
        print(f"relevance: reading cache {cache.folder}: {cache.hits} pairs found, {cache.misses} read")
    labels = np.array([int(row["label"]) for row in rows])
    check = score_check(features, labels, check_split([len(source) for source in sources]))
    grouped = grouped_check(features, labels, kinds_of(rows))
    head = fit_head(features, labels)
    answer_logits = features[: len(qnli), relevance_features.FEATURES.index("answer_logit")]
    slope, intercept = fit(answer_logits, labels[: len(qnli)])
    # Passages: the chat answers the property reads as passages (generated and XSTest's), on the
    # logit the property reads: the best of the windows and the sentences.
    passage_rows = [*rows[len(qnli) :], *chat]
    passages = np.array([not is_short_answer(row["output"]) for row in passage_rows])
    columns = [relevance_features.FEATURES.index(name) for name in ("answer_logit", "best_sentence_logit")]
    best = np.concatenate([features[len(qnli) :], chat_features])[:, columns].max(axis=1)
    passage_labels = np.array([int(row["label"]) for row in passage_rows])
    passage_slope, passage_intercept = fit(best[passages], passage_labels[passages])
    chunk_logits, _, _ = model.best_windows([row["input"] for row in qnli], chunk_passages(qnli))
    chunk_slope, chunk_intercept = fit(chunk_logits, labels[: len(qnli)])
    record = {
        "slope": round(slope, 6),
        "intercept": round(intercept, 6),
        "head": {
            "features": list(relevance_features.FEATURES),
            **head.to_dict(),
            "hidden_units": HIDDEN_UNITS,
            "penalty": PENALTY,
            "seed": SEED,
            "encoder": encoder.model_id,
            "check": {"share": CHECK_SHARE, **check},
            "grouped_check": grouped,
        },
        "chunk": {"slope": round(chunk_slope, 6), "intercept": round(chunk_intercept, 6), "seed": CHUNK_SEED},
        "model": model.model_id,
        "data": {FILE: file_sha(args.data / FILE), CHAT_FILE: file_sha(args.data / CHAT_FILE)},
        "generated": {"rows": GENERATED_ROWS, "seed": relevance_rows.SEED},
        "chat": {"rows": CHAT_ROWS, "seed": relevance_chat_rows.SEED},
        "form": {"rows": FORM_ROWS, "seed": relevance_form_rows.SEED},
        "subject": {"rows": SUBJECT_ROWS, "seed": relevance_subject_rows.SEED},
        "passage": {
            "slope": round(passage_slope, 6),
            "intercept": round(passage_intercept, 6),
            "rows": int(passages.sum()),
            "chat_pairs": len(chat),
        },
        "rows": len(rows),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    elapsed = time.monotonic() - started
    print(
        f"relevance: {len(rows)} rows, head of {HIDDEN_UNITS} units, "
        f"check on the last {CHECK_SHARE:.0%} of each source: ROC-AUC {check['roc_auc']}, "
        f"accuracy {check['accuracy']}; leaving one kind out: ROC-AUC {grouped['roc_auc']}, "
        f"mean kind accuracy {grouped['mean_kind_accuracy']}, worst {grouped['worst_kind']} "
        f"{grouped['worst_kind_accuracy']}; "
        f"sentence {slope:.4f} x {intercept:+.4f}, chunk {chunk_slope:.4f} x {chunk_intercept:+.4f}, "
        f"{elapsed:.0f} s -> {args.out}"
    )


if __name__ == "__main__":
    main()
