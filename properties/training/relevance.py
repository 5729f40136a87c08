"""Fit the Relevance head and calibrations.

    python -m properties.training.relevance [--data ../shared/data/train] [--out PATH]

Rows: `relevance_qnli.jsonl` from the training folder (pairs: `input` = question, `output` =
sentence, label 1 = the sentence answers it) and question-answer pairs from three generators, each
with a fixed seed: `relevance_rows.py` (short answers about products, companies and accounts),
`relevance_chat_rows.py` (chat answers of many domains, dressed with greetings, closings and
background) and `relevance_form_rows.py` (answers whose form is composed at random: fragments,
yes/no with detail, steps, code, figures). Their negatives are mostly answers to another question
about the same subject. Never evaluation data. Fits:

- `head`: Relevance's short answers (at most `SHORT_ANSWER_WORDS` words). A network of one hidden
  layer over `relevance_features.FEATURES` (standardised), on every row. Before it, the same fit on
  the rows minus the last fifth of each source's rows (whole subjects, as the generators make them
  one after another) is scored on that fifth: the `check` figures, which chose the head's size.
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
from properties.training import relevance_chat_rows, relevance_form_rows, relevance_rows
from properties.training.common import DEFAULT_DATA, SEED, file_sha, read_rows

FILE = "relevance_qnli.jsonl"
# Users' prompts with chat models' answers (XSTest): the passage map's chat answers.
CHAT_FILE = "refusal_xstest.jsonl"
CHUNK_SEED = 0
GENERATED_ROWS = 2000
CHAT_ROWS = 2000
FORM_ROWS = 2400
# The share of each source's rows (its last ones) that the check fit leaves out and scores.
CHECK_SHARE = 0.2
# The head's hidden units and L2 penalty. On the check fifth (ROC-AUC, all sources): logistic
# regression 0.915, 16 units 0.953, 32 units 0.956, 32 + 16 units 0.958; 16 is enough.
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

    mean, scale = features.mean(axis=0), features.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    network = MLPClassifier((HIDDEN_UNITS,), alpha=PENALTY, solver="lbfgs", max_iter=5000, random_state=SEED).fit(
        (features - mean) / scale, labels
    )
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


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m properties.training.relevance", description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="training folder (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=CALIBRATION, help="where to write (default: %(default)s)")
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
    ]
    rows = [row for source in sources for row in source]
    model, encoder = cross_encoder.packaged_reranker("relevance"), models.packaged_encoder("relevance")

    def read(rows: list[dict]) -> np.ndarray:
        questions, answers = [row["input"] for row in rows], [row["output"] for row in rows]
        return relevance_features.features(
            relevance_features.read(model, encoder, questions, answers), questions, answers
        )

    # The chat pairs feed the passage map only, read apart: the batches of length the head's rows are
    # read in, and so the head, stay as they were without them.
    chat = answered_pairs(read_rows(args.data / CHAT_FILE))
    features, chat_features = read(rows), read(chat)
    labels = np.array([int(row["label"]) for row in rows])
    check = score_check(features, labels, check_split([len(source) for source in sources]))
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
        },
        "chunk": {"slope": round(chunk_slope, 6), "intercept": round(chunk_intercept, 6), "seed": CHUNK_SEED},
        "model": model.model_id,
        "data": {FILE: file_sha(args.data / FILE), CHAT_FILE: file_sha(args.data / CHAT_FILE)},
        "generated": {"rows": GENERATED_ROWS, "seed": relevance_rows.SEED},
        "chat": {"rows": CHAT_ROWS, "seed": relevance_chat_rows.SEED},
        "form": {"rows": FORM_ROWS, "seed": relevance_form_rows.SEED},
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
        f"accuracy {check['accuracy']}; "
        f"sentence {slope:.4f} x {intercept:+.4f}, chunk {chunk_slope:.4f} x {chunk_intercept:+.4f}, "
        f"{elapsed:.0f} s -> {args.out}"
    )


if __name__ == "__main__":
    main()
