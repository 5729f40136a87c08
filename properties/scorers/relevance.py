"""Relevance: 0 to 1, whether the output addresses the user's input (QNLI-style: does the answer
respond to the question), for chat answers as well as passages.

Model: the packaged ms-marco MiniLM-L-12 cross-encoder (`cross_encoder.py`). A passage (more than
`SHORT_ANSWER_WORDS` words) is scored whole and sentence by sentence, the best through a logistic
map (`passage`, fitted on chat answers: users' prompts with chat models' answers, and generated
ones). A short answer is read several ways, with the packaged MiniLM sentence encoder, weighed by a
small trained head (`relevance_features.py` says what it reads and why). No single reading fits
every form of answer: the cross-encoder's logit of (question, answer) is high for an answer that
restates its question and low for a chat answer that does not ("$29 a month.", "Yes, on the Pro
plan.", a list of steps, a line of code); such an answer means the question plus the answer, so the
logit of (question, question + answer) against that of (question, question) alone says how much it
adds; the best sentence finds the part of a padded reply that answers; the encoder's cosine and the
words it shares with the question say whether it is about the question's subject; the answer's form
says which reading to trust. An answer to another question about the same product adds nothing, and
scores low.

The head is fitted by `python -m properties.training.relevance` (artifact `artifacts/relevance.json`,
key `head`) on the QNLI training file and on generated question-answer pairs of four generators
(`relevance_rows.py`, `relevance_chat_rows.py`, `relevance_form_rows.py`, `relevance_subject_rows.py`),
never on evaluation data. Whether a short answer is about the question's subject at all ("Paris is
the capital of France." after "What is the capital of Germany?") the head reads from both parses
(`subject_match`: the names and nouns of the question the answer repeats, and the subjects it names
instead). The same file keeps the one-logit calibrations that Retrieval Relevance and Context
Relevancy use.

Evidence: the sentence that addresses the input best (a short answer: the answer itself), with the
value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from properties.scorers import relevance_features
from properties.scorers.base import Score, Scorer, Span
from properties.scorers.registry import builtin
from properties.scorers.runtime import cross_encoder, models
from properties.scorers.runtime.heads import ARTIFACTS

CALIBRATION = ARTIFACTS / "relevance.json"
# Outputs of at most this many words are their own evidence, read after their question: about a sentence.
SHORT_ANSWER_WORDS = 16


@dataclass(frozen=True)
class Calibration:
    """p = 1 / (1 + exp(-(slope * logit + intercept)))."""

    slope: float
    intercept: float
    model: str

    def probability(self, logits: np.ndarray) -> np.ndarray:
        z = np.clip(self.slope * np.asarray(logits, dtype=np.float64) + self.intercept, -50.0, 50.0)
        return 1.0 / (1.0 + np.exp(-z))


def is_short_answer(text: str) -> bool:
    return len(text.split()) <= SHORT_ANSWER_WORDS


@dataclass(frozen=True)
class RelevanceHead:
    """A one-hidden-layer network over `relevance_features.FEATURES`:
    p = sigmoid(relu(((x - mean) / scale) @ hidden + hidden_bias) @ output + output_bias).
    Not a logistic regression: which reading to trust depends on the others and on the answer's form
    (the logit of the answer alone, for one that names its subject; the logit after the question, for
    one that leans on it), and on the training rows' held-out fifth the network separates them better
    (ROC-AUC in `relevance.json`, `head.check`)."""

    mean: np.ndarray
    scale: np.ndarray
    hidden: np.ndarray
    hidden_bias: np.ndarray
    output: np.ndarray
    output_bias: float

    def predict(self, features: np.ndarray) -> np.ndarray:
        activations = np.maximum(((features - self.mean) / self.scale) @ self.hidden + self.hidden_bias, 0.0)
        z = activations @ self.output + self.output_bias
        return 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))

    def to_dict(self) -> dict[str, Any]:
        arrays = {key: np.round(getattr(self, key), 6).tolist() for key in ("mean", "scale", "hidden", "hidden_bias")}
        return {**arrays, "output": np.round(self.output, 6).tolist(), "output_bias": round(self.output_bias, 6)}


def load_head(prop: str, path: Path = CALIBRATION) -> RelevanceHead:
    """The head fitted by `python -m properties.training.relevance`."""
    try:
        fit = json.loads(path.read_text())["head"]
        if tuple(fit["features"]) != relevance_features.FEATURES:
            raise ValueError(f"the head reads {fit['features']}, this version computes {relevance_features.FEATURES}")
        keys = ("mean", "scale", "hidden", "hidden_bias", "output")
        return RelevanceHead(*(np.asarray(fit[key], dtype=np.float64) for key in keys), float(fit["output_bias"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise models.unavailable(
            prop,
            str(path),
            f"the relevance head cannot be read ({type(exc).__name__}: {exc})",
            "Run `python -m properties.training.relevance` to write it.",
        ) from exc


def load_calibration(prop: str, path: Path = CALIBRATION, passages: str = "sentence") -> Calibration:
    """The logistic map of the cross-encoder's logit for `sentence` passages (an encyclopedic
    sentence, QNLI's) or for `chunk` passages (a chunk of a document among others: Retrieval
    Relevance, Context Relevancy), both fitted by `python -m properties.training.relevance`."""
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
        "Whether the output addresses the user's input, 0 to 1 (a cross-encoder read several ways and a sentence "
        "encoder, weighed by a small trained network). 0.5 and above reads as relevant."
    )
    fields = ("output",)
    queue = "models"
    # 3: the span that sets the value is shown on either side of the threshold, with the value.
    # 4: passages calibrated on chat answers as well as QNLI; "Jan Novak does." leans on its question.
    # 5: one head over several readings and the answer's form, trained on answers of many forms.
    # 6: passages calibrated on chat answers only (users' prompts with models' answers, generated ones).
    # 7: no bound by the answer read alone; the head reads whether the answer keeps the question's subject.
    version = "7"
    threshold = 0.5

    def scored_in_streams(self) -> bool:
        return True  # the packaged ONNX models (see Scorer.scored_in_streams)

    @staticmethod
    def name() -> str:
        return "relevance"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def model_id(self) -> str:
        prop = self.name()
        digest = models.weights_digest(CALIBRATION) if CALIBRATION.is_file() else "missing"
        return f"{cross_encoder.packaged_reranker_id(prop)}+{models.packaged_encoder_id(prop)}+relevance-head@{digest}"

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
        prop = self.name()
        model = cross_encoder.packaged_reranker(prop)
        short = [i for i in scored if is_short_answer(outputs[i])]
        passages = [i for i in scored if not is_short_answer(outputs[i])]
        if short:
            self._score_short(model, short, inputs, outputs, results)
        if passages:
            self._score_passages(model, load_calibration(prop, passages="passage"), passages, inputs, outputs, results)
        return results

    def _score_short(
        self,
        model: cross_encoder.OnnxCrossEncoder,
        scored: list[int],
        inputs: list[str],
        outputs: list[str],
        results: list[float | Score],
    ) -> None:
        """Short answers: the head over every reading, an answer about another subject than the one
        asked about included (the head reads the names and nouns both share). It replaces a bound by
        the answer read alone for every self-contained answer, which turned most correct complete
        answers that do not restate the question ("Nico Ferrabosco is the chief executive.") wrong."""
        prop = self.name()
        head = load_head(prop)
        queries, texts = [inputs[i] for i in scored], [outputs[i] for i in scored]
        readings = relevance_features.read(model, models.packaged_encoder(prop), queries, texts)
        values = head.predict(relevance_features.features(readings, queries, texts, prop))
        for k, i in enumerate(scored):
            value = float(values[k])
            value = round(value, 4)
            details = {
                "reading": "answer after its question",
                "logit": round(float(readings.answer_logit[k]), 4),
                "with_question_logit": round(float(readings.with_question_logit[k]), 4),
                "question_alone_logit": round(float(readings.question_alone_logit[k]), 4),
                "encoder_similarity": round(float(readings.cosine[k]), 4),
                "threshold": self.threshold,
            }
            start, end = len(texts[k]) - len(texts[k].lstrip()), len(texts[k].rstrip())
            label = "addresses the input" if value >= self.threshold else "closest to the input"
            note = f"the whole answer, read after the question: {value:.2f}"
            results[i] = Score(
                value=value, spans=[Span(self.current_field, start, end, label, value, note)], details=details
            )

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
