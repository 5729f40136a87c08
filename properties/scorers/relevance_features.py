"""What the Relevance head reads about a (question, answer) pair: several readings of the packaged
cross-encoder, the packaged sentence encoder's similarity, and the answer's form.

One reading alone fits one form of answer. The cross-encoder's logit of (question, answer) is high
for an answer that restates its question (QNLI's sentences) and low for a chat answer that does not
("$29 a month."); the logit of (question, question + answer), against that of (question, question)
alone, says how much a short answer adds to its question; the best sentence finds the answering
part of a padded reply; the encoder's cosine and the words shared with the question say whether the
answer is about the question's subject at all; the form (length, a list, code, yes or no, a figure,
a question back) says which of these readings to trust. A logistic head weighs them
(`properties/training/relevance.py`), so the same code computes them for training and scoring.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from properties.scorers.runtime import cross_encoder, models

FEATURES = (
    "answer_logit",
    "with_question_logit",
    "question_alone_logit",
    "added_logit",
    "best_sentence_logit",
    "cosine",
    "shared_words",
    "log_words",
    "is_list",
    "has_code",
    "yes_no",
    "asks_back",
    "has_number",
)
LIST_LINE = re.compile(r"^\s*(?:\d+[.)]|[-*•]|step \d+)\s", re.IGNORECASE | re.MULTILINE)
CODE_SIGN = re.compile(r"```|`[^`]+`|[;{}]\s*$|\w+\([^)]*\)|^\s*(?:def|for|if|SELECT|import|const|let)\b", re.MULTILINE)
YES_NO = re.compile(r"^\W*(?:yes|yep|yeah|no|nope|sure|definitely|not really|absolutely|of course)\b", re.IGNORECASE)
WORD = re.compile(r"[a-z0-9]+")
# Words that say nothing about what a question is about.
STOPWORDS = frozenset(
    WORD.findall(
        "a an the is are was were be been do does did i you we it my your our of in on at to for with and or how what "
        "when where who which why can could should would will there this that these those me much many any some"
    )
)


@dataclass
class Readings:
    """The model readings of each pair, kept for the evidence as well as the head."""

    answer_logit: np.ndarray  # best window of (question, answer)
    window: list[tuple[int, int]]  # that window's character range in the answer
    windows: list[int]  # how many windows the answer has
    with_question_logit: np.ndarray  # best window of (question, question + answer)
    question_alone_logit: np.ndarray  # (question, question)
    sentences: list[list[tuple[int, int]]]  # each answer's sentence bounds
    sentence_logits: list[np.ndarray]  # (question, sentence) for each sentence of an answer of several
    cosine: np.ndarray


def answer_after_question(question: str, answer: str) -> str:
    """The answer in the context of its question, as the user read it."""
    return f"{question.strip()} {answer.strip()}"


def read(
    model: cross_encoder.OnnxCrossEncoder, encoder: models.Encoder, questions: Sequence[str], answers: Sequence[str]
) -> Readings:
    whole, where, counts = model.best_windows(questions, answers)
    read_after, _, _ = model.best_windows(
        questions, [answer_after_question(q, a) for q, a in zip(questions, answers, strict=True)]
    )
    alone, _, _ = model.best_windows(questions, questions)
    bounds = [models.sentence_bounds(answer) for answer in answers]
    pieces = [
        (q, a[s:e]) for q, a, spans in zip(questions, answers, bounds, strict=True) if len(spans) > 1 for s, e in spans
    ]
    logits = iter(model.logits(pieces).tolist())
    sentence_logits = [
        np.array([next(logits) for _ in spans]) if len(spans) > 1 else np.array([whole[k]])
        for k, spans in enumerate(bounds)
    ]
    vectors = encoder.encode(list(questions) + list(answers))
    cosine = np.sum(vectors[: len(questions)] * vectors[len(questions) :], axis=1).astype(np.float64)
    return Readings(whole, where, counts, read_after, alone, bounds, sentence_logits, cosine)


def _words(text: str) -> set[str]:
    return {word for word in WORD.findall(text.lower()) if word not in STOPWORDS}


def answer_form(question: str, answer: str) -> list[float]:
    asked = _words(question)
    words = answer.split()
    return [
        len(asked & _words(answer)) / len(asked) if asked else 0.0,
        float(np.log1p(len(words))),
        float(len(LIST_LINE.findall(answer)) >= 2 or answer.count(" -> ") >= 2 or answer.count(", then ") >= 1),
        float(bool(CODE_SIGN.search(answer))),
        float(bool(YES_NO.match(answer))),
        float(answer.rstrip().endswith("?")),
        float(any(ch.isdigit() for ch in answer)),
    ]


# The model readings the head's features are made from, one column each (`model_columns`): what a
# training run keeps in its cache (`properties/training/reading_cache.py`).
MODEL_COLUMNS = ("answer_logit", "with_question_logit", "question_alone_logit", "best_sentence_logit", "cosine")


def model_columns(readings: Readings) -> np.ndarray:
    """The readings the features need, one row of `MODEL_COLUMNS` per pair."""
    best_sentence = [float(np.max(logits)) for logits in readings.sentence_logits]
    columns = [readings.answer_logit, readings.with_question_logit, readings.question_alone_logit, best_sentence]
    return np.column_stack([*columns, readings.cosine]).astype(np.float64)


def features(readings: Readings, questions: Sequence[str], answers: Sequence[str]) -> np.ndarray:
    """One row of `FEATURES` per pair."""
    return features_of(model_columns(readings), questions, answers)


def features_of(columns: np.ndarray, questions: Sequence[str], answers: Sequence[str]) -> np.ndarray:
    """One row of `FEATURES` per pair, from its `MODEL_COLUMNS` and its text."""
    rows = []
    for (answer_logit, with_question, alone, best_sentence, cosine), question, answer in zip(
        columns, questions, answers, strict=True
    ):
        logits = [answer_logit, with_question, alone, with_question - alone]
        rows.append([*logits, best_sentence, cosine, *answer_form(question, answer)])
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURES))
