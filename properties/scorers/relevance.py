"""Relevance: 0 to 1, whether the output addresses the user's input (QNLI-style: does the answer
respond to the question), for chat answers as well as passages.

Model: the packaged ms-marco MiniLM-L-12 cross-encoder (`cross_encoder.py`), read two ways.

- A passage (more than `SHORT_ANSWER_WORDS` words) is scored whole (a long one by overlapping token
  windows) and sentence by sentence, and the best of them gives the value: an answer that addresses
  the question anywhere addresses it, and padding around it should not dilute that. The
  cross-encoder's logit becomes a probability by a logistic (Platt) calibration fitted on chat
  answers as well as encyclopedic sentences: a chat answer rarely restates the question, and its
  logit runs lower than a QNLI sentence's for the same relevance.
- A short answer ("It costs $29 per month.", "Yes, on the Pro plan.", "Jan Novak does.", a line of
  code) leaves the question implicit: its meaning is the question plus the answer. The cross-encoder
  judges passages, and such an answer alone is no passage, so it reads the answer after its
  question, as the user did. The logit of (question, question + answer), against that of
  (question, question) alone, says how much the answer adds to answering it; a small logistic
  model turns the two into a probability. An answer to another question about the same product
  adds nothing, and scores low. A short answer that names its own subject ("Paris is the capital
  of France.") must also hold read alone as a passage: the lower of the two readings. A reply
  that asks a question back (a clarifying question) answers nothing; the packaged sentence
  encoder's similarity with the input decides for it too, when higher.

Both maps are fitted by `python -m properties.training.relevance` (artifact
`artifacts/relevance.json`) on the QNLI training file and on generated question-answer pairs
(`properties/training/relevance_rows.py`, short answers; `relevance_chat_rows.py`, chat answers of
many domains and forms), never on evaluation data.

Evidence: the sentence that addresses the input best, with its score; for a failing short answer,
the answer itself, with why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from properties.scorers.base import Score, Scorer, Span
from properties.scorers.registry import builtin
from properties.scorers.runtime import cross_encoder, models, spacy_english
from properties.scorers.runtime.heads import ARTIFACTS

CALIBRATION = ARTIFACTS / "relevance.json"
# Outputs of at most this many words are read after their question (see the module docstring): about
# a sentence. On the training rows, 12 to 20 words gave the same separation.
SHORT_ANSWER_WORDS = 16
# Pronouns do not make a short answer self-contained: "It costs $29." leans on the question.
PRONOUN_TAGS = frozenset({"PRP", "PRP$", "WP", "WDT", "EX", "DT"})
# Nor does a verb whose predicate is left to the question ("Jan Novak does.", "Maria can."): a
# self-contained clause states it, with an object, an attribute, a complement or a prepositional phrase.
PREDICATE_DEPS = frozenset({"dobj", "attr", "acomp", "xcomp", "ccomp", "oprd", "dative", "agent", "prep"})
# A reply that asks a question back: the sentence encoder's cosine with the input, mapped linearly,
# 0 at the floor (what unrelated pairs score) and 1 at full (what a matching short reply scores).
COSINE_FLOOR = 0.15
COSINE_FULL = 0.55


@dataclass(frozen=True)
class Calibration:
    """p = 1 / (1 + exp(-(slope * logit + intercept)))."""

    slope: float
    intercept: float
    model: str

    def probability(self, logits: np.ndarray) -> np.ndarray:
        z = np.clip(self.slope * np.asarray(logits, dtype=np.float64) + self.intercept, -50.0, 50.0)
        return 1.0 / (1.0 + np.exp(-z))


@dataclass(frozen=True)
class ShortAnswerCalibration:
    """p = sigmoid(with_question * logit(q, q + answer) + question_alone * logit(q, q) + intercept)."""

    with_question: float
    question_alone: float
    intercept: float

    def probability(self, with_question: np.ndarray, question_alone: np.ndarray) -> np.ndarray:
        logits = np.column_stack([with_question, question_alone]).astype(np.float64)
        z = logits @ np.array([self.with_question, self.question_alone]) + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))


def load_short_answer_calibration(prop: str, path: Path = CALIBRATION) -> ShortAnswerCalibration:
    try:
        fit = json.loads(path.read_text())["short_answer"]
        weights = (fit["with_question"], fit["question_alone"], fit["intercept"])
        return ShortAnswerCalibration(*(float(weight) for weight in weights))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise models.unavailable(
            prop,
            str(path),
            f"the short-answer calibration cannot be read ({type(exc).__name__}: {exc})",
            "Run `python -m properties.training.relevance` to write it.",
        ) from exc


def is_short_answer(text: str) -> bool:
    return len(text.split()) <= SHORT_ANSWER_WORDS


def is_self_contained(answer: str, prop: str = "relevance") -> bool:
    """Whether a short answer names its own subject and states its predicate: a clause whose subject
    is a noun or a name ("Paris is the capital of France.", "Jan Novak leads the billing team."), not a pronoun
    ("It costs $29."), a fragment ("$29 a month."), code, or a clause that leaves its predicate to the
    question ("Jan Novak does.")."""
    (doc,) = spacy_english.parse([answer], prop, spacy_english.FULL, batch_size=1)
    return any(
        token.dep_ in ("nsubj", "nsubjpass")
        and token.tag_ not in PRONOUN_TAGS
        and token.head.dep_ == "ROOT"
        and any(child.dep_ in PREDICATE_DEPS for child in token.head.children)
        for token in doc
    )


def answer_after_question(question: str, answer: str) -> str:
    """What the cross-encoder reads for a short answer: the answer in the context of its question."""
    return f"{question.strip()} {answer.strip()}"


def load_calibration(prop: str, path: Path = CALIBRATION, passages: str = "sentence") -> Calibration:
    """The logistic map of the cross-encoder's logit for `sentence` passages (an encyclopedic
    sentence, QNLI's: a short answer read alone), for `passage` (an output longer than a short
    answer, chat answers as well as encyclopedic text) or for `chunk` passages (a chunk of a document
    among others: Retrieval Relevance, Context Relevancy), all fitted by
    `python -m properties.training.relevance`."""
    try:
        data = json.loads(path.read_text())
        fit = data if passages == "sentence" else data[passages]
        return Calibration(float(fit["slope"]), float(fit["intercept"]), str(data.get("model", "")))
    except (OSError, ValueError, KeyError) as exc:
        raise models.unavailable(
            prop,
            str(path),
            f"the calibration cannot be read ({type(exc).__name__}: {exc})",
            "Run `python -m properties.training.relevance` to write it.",
        ) from exc


@builtin
class Relevance(Scorer):
    display_name = "Relevance"
    description = (
        "Whether the output addresses the user's input, 0 to 1 (a calibrated cross-encoder). 0.5 and above reads "
        "as relevant. Long outputs are scored by their most relevant window."
    )
    fields = ("output",)
    queue = "models"
    # 3: the span that sets the value is shown on either side of the threshold, with the value.
    # 4: passages calibrated on chat answers as well as QNLI; "Jan Novak does." leans on its question.
    version = "4"
    threshold = 0.5

    @staticmethod
    def name() -> str:
        return "relevance"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def model_id(self) -> str:
        prop = self.name()
        digest = models.weights_digest(CALIBRATION) if CALIBRATION.is_file() else "missing"
        return f"{cross_encoder.packaged_reranker_id(prop)}+relevance-calibration@{digest}"

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        outputs = [text if isinstance(text, str) else "" for text in candidate_batch]
        inputs = [text if isinstance(text, str) else "" for text in (input_text_batch or [""] * len(outputs))]
        results: list[float | Score] = []
        scored: list[int] = []
        for i, (query, output) in enumerate(zip(inputs, outputs, strict=True)):
            if not output.strip():
                results.append(Score.not_applicable(f"the {self.current_field} is empty"))
            elif not query.strip():
                results.append(Score.not_applicable("the input is empty: relevance needs the user's input"))
            else:
                results.append(Score.failed("not scored"))
                scored.append(i)
        if not scored:
            return results
        model = cross_encoder.packaged_reranker(self.name())
        calibration = load_calibration(self.name())
        passage_calibration = load_calibration(self.name(), passages="passage")
        short_calibration = load_short_answer_calibration(self.name())
        short = [i for i in scored if is_short_answer(outputs[i])]
        passages = [i for i in scored if not is_short_answer(outputs[i])]
        if short:
            queries = [inputs[i] for i in short]
            read = [answer_after_question(inputs[i], outputs[i]) for i in short]
            with_question, _, _ = model.best_windows(queries, read)
            alone, _, _ = model.best_windows(queries, queries)
            values = short_calibration.probability(with_question, alone)
            standalone = [k for k, i in enumerate(short) if is_self_contained(outputs[i], self.name())]
            if standalone:
                # A self-contained statement must also hold read alone, as a passage about its own subject.
                read_alone, _, _ = model.best_windows(
                    [queries[k] for k in standalone], [outputs[short[k]] for k in standalone]
                )
                as_passage = calibration.probability(read_alone)
                for k, passage_value in zip(standalone, as_passage, strict=True):
                    values[k] = min(values[k], passage_value)
            asking = self._question_back_similarities(queries, [outputs[i] for i in short])
            for k, (i, value) in enumerate(zip(short, values, strict=True)):
                details = {"reading": "answer after its question", "logit": round(float(with_question[k]), 4)}
                details |= {"question_alone_logit": round(float(alone[k]), 4), "threshold": self.threshold}
                if asking[k] is not None:
                    details["encoder_similarity"] = round(asking[k], 4)
                    value = max(float(value), asking[k])
                spans = self._short_spans(outputs[i], float(value))
                results[i] = Score(value=round(float(value), 4), spans=spans, details=details)
        if passages:
            self._score_passages(model, passage_calibration, passages, inputs, outputs, results)
        return results

    def _score_passages(
        self,
        model: cross_encoder.OnnxCrossEncoder,
        calibration: Calibration,
        scored: list[int],
        inputs: list[str],
        outputs: list[str],
        results: list[float | Score],
    ) -> None:
        queries = [inputs[i] for i in scored]
        texts = [outputs[i] for i in scored]
        sentences = [models.sentence_bounds(text) for text in texts]
        pieces = [(q, text[s:e]) for q, text, bounds in zip(queries, texts, sentences, strict=True) for s, e in bounds]
        whole, where, counts = model.best_windows(queries, texts)
        by_sentence = iter(calibration.probability(model.logits(pieces)) if pieces else [])
        for index, i in enumerate(scored):
            bounds = sentences[index]
            scores = [next(by_sentence) for _ in bounds]
            value = float(calibration.probability(np.array([whole[index]]))[0])
            best = max(range(len(bounds)), key=lambda k: scores[k]) if bounds else None
            details: dict[str, Any] = {"reading": "passage", "logit": round(float(whole[index]), 4)}
            details["threshold"] = self.threshold
            if best is not None and scores[best] > value:
                value = float(scores[best])
            results[i] = Score(
                value=round(value, 4),
                spans=self._spans(texts[index], bounds, scores, best, counts[index], where[index], value),
                details=details,
            )

    def _question_back_similarities(self, queries: list[str], answers: list[str]) -> list[float | None]:
        """For a reply that asks a question back ("Which version are you using?"): the packaged
        sentence encoder's cosine with the input, mapped linearly from `COSINE_FLOOR` (0) to
        `COSINE_FULL` (1). A clarifying question answers nothing, so the cross-encoder scores it low,
        yet one about the user's problem engages with it. None for other replies."""
        chosen = [k for k, answer in enumerate(answers) if answer.rstrip().endswith("?")]
        found: list[float | None] = [None] * len(answers)
        if not chosen:
            return found
        encoder = models.packaged_encoder(self.name())
        vectors = encoder.encode([queries[k] for k in chosen] + [answers[k] for k in chosen])
        cosines = np.sum(vectors[: len(chosen)] * vectors[len(chosen) :], axis=1)
        for k, cosine in zip(chosen, cosines, strict=True):
            found[k] = float(np.clip((cosine - COSINE_FLOOR) / (COSINE_FULL - COSINE_FLOOR), 0.0, 1.0))
        return found

    def _short_spans(self, text: str, value: float) -> list[Span]:
        """A short answer is its own evidence, shown whole with its value on either side of this
        threshold (the Data Screen colours it by the project's)."""
        start = len(text) - len(text.lstrip())
        label = "addresses the input" if value >= self.threshold else "closest to the input"
        note = f"the whole answer, read after the question: {value:.2f}"
        return [Span(self.current_field, start, len(text.rstrip()), label, round(value, 4), note)]

    def _spans(
        self,
        text: str,
        bounds: list[tuple[int, int]],
        scores: list[float],
        best: int | None,
        windows: int,
        window: tuple[int, int],
        value: float,
    ) -> list[Span]:
        """The span that sets the value, with the value as its score, on either side of this threshold:
        the best sentence when it does, else the best window or the whole output."""
        what = "sentence"
        if best is not None and len(bounds) > 1 and round(float(scores[best]), 4) >= round(value, 4):
            start, end = bounds[best]
        elif windows > 1:
            (start, end), what = window, "part of the output"
        else:
            start, end, what = len(text) - len(text.lstrip()), len(text.rstrip()), "output"
        # The note says what the span is, not a verdict: its kind says whether it addresses the input
        # by the project's threshold.
        label = "addresses the input" if value >= self.threshold else "closest to the input"
        note = f"the {what} closest to the input: {value:.2f}"
        return [Span(self.current_field, start, end, label, round(value, 4), note)]
