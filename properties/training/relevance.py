"""Fit the Relevance calibrations: the logistic maps from the cross-encoder's logits to 0-1.

    python -m properties.training.relevance [--data ../shared/data/train] [--out PATH]

Rows: `relevance_qnli.jsonl` from the training folder (pairs: `input` = question, `output` =
sentence, label 1 = the sentence answers it), `GENERATED_ROWS` question-answer pairs generated
with a fixed seed (`relevance_rows.py`: short answers about products, companies and accounts, and
answers to other questions about the same subject as negatives) and `CHAT_ROWS` chat answers
(`relevance_chat_rows.py`: many domains and forms, dressed with greetings, closings and background
sentences). Never evaluation data. Three fits, each by unregularised logistic regression:

- `sentence` (the top-level slope and intercept): p = sigmoid(slope * logit + intercept) for an
  encyclopedic sentence (a self-contained short answer read alone), on the QNLI rows' logits (best
  window, as the property does);
- `passage`: the same map for an output longer than `SHORT_ANSWER_WORDS`, on the logits of the
  QNLI rows and of the generated answers of that length: chat answers, which rarely restate the
  question, as well as encyclopedic sentences;
- `short_answer`: for outputs of at most `SHORT_ANSWER_WORDS` words (of both sources), on the
  logit of (question, question + answer) and that of (question, question);
- `chunk`: Retrieval Relevance and Context Relevancy judge chunks of documents, where the answering
  sentence sits among others and the cross-encoder's logit for it is lower. This fit is made on
  chunk-sized passages built from the QNLI rows only: each row's sentence between two sentences of
  other rows (drawn and shuffled with a fixed seed), keeping its label.

Deterministic: the same data and weights give the same numbers (lbfgs on one or two features).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from properties.scorers.relevance import CALIBRATION, answer_after_question, is_short_answer
from properties.scorers.runtime import cross_encoder
from properties.training import relevance_chat_rows, relevance_rows
from properties.training.common import DEFAULT_DATA, file_sha, read_rows

FILE = "relevance_qnli.jsonl"
CHUNK_SEED = 0
GENERATED_ROWS = 4000
CHAT_ROWS = 3000


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


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m properties.training.relevance", description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="training folder (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=CALIBRATION, help="where to write (default: %(default)s)")
    args = parser.parse_args(argv)
    if "eval" in args.data.resolve().parts:
        parser.error("refusing to train on evaluation data: give the training folder")
    started = time.monotonic()
    qnli = read_rows(args.data / FILE)
    rows = qnli + relevance_rows.generate(GENERATED_ROWS) + relevance_chat_rows.generate(CHAT_ROWS)
    model = cross_encoder.packaged_reranker("relevance")
    questions = [row["input"] for row in rows]
    logits, _, _ = model.best_windows(questions, [row["output"] for row in rows])
    labels = np.array([int(row["label"]) for row in rows])
    slope, intercept = fit(logits[: len(qnli)], labels[: len(qnli)])
    # Passages: QNLI's sentences and the generated answers the property reads as passages. The
    # generated short answers are left to the short-answer fit: some of their negatives read alone
    # like positives ("It was founded by ..." of another company).
    short = [k for k, row in enumerate(rows) if is_short_answer(row["output"])]
    generated_short = {k for k in short if k >= len(qnli)}
    passages = [k for k in range(len(rows)) if k not in generated_short]
    passage_slope, passage_intercept = fit(logits[passages], labels[passages])
    asked = [questions[k] for k in short]
    read = [answer_after_question(questions[k], rows[k]["output"]) for k in short]
    with_question, _, _ = model.best_windows(asked, read)
    alone, _, _ = model.best_windows(asked, asked)
    features = np.column_stack([with_question, alone])
    (with_weight, alone_weight), short_intercept = fit_many(features, labels[short])
    qnli_labels = labels[: len(qnli)]
    chunk_logits, _, _ = model.best_windows([row["input"] for row in qnli], chunk_passages(qnli))
    chunk_slope, chunk_intercept = fit(chunk_logits, qnli_labels)
    record = {
        "slope": round(slope, 6),
        "intercept": round(intercept, 6),
        "short_answer": {
            "with_question": round(with_weight, 6),
            "question_alone": round(alone_weight, 6),
            "intercept": round(short_intercept, 6),
            "rows": len(short),
        },
        "chunk": {"slope": round(chunk_slope, 6), "intercept": round(chunk_intercept, 6), "seed": CHUNK_SEED},
        "model": model.model_id,
        "data": {FILE: file_sha(args.data / FILE)},
        "generated": {"rows": GENERATED_ROWS, "seed": relevance_rows.SEED},
        "chat": {"rows": CHAT_ROWS, "seed": relevance_chat_rows.SEED},
        "passage": {
            "slope": round(passage_slope, 6),
            "intercept": round(passage_intercept, 6),
            "rows": len(passages),
        },
        "rows": len(rows),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    elapsed = time.monotonic() - started
    print(
        f"relevance: {len(rows)} rows ({len(short)} short answers, {len(passages)} passages), "
        f"slope {slope:.4f}, intercept {intercept:.4f}, passages {passage_slope:.4f} x {passage_intercept:+.4f}, "
        f"short answers {with_weight:.4f} x with question {alone_weight:+.4f} x question alone "
        f"{short_intercept:+.4f}, "
        f"{elapsed:.0f} s -> {args.out}"
    )


if __name__ == "__main__":
    main()
