"""Toxicity: how likely a text is to be toxic (hateful, offensive, obscene, insulting, threatening), 0 to 1.

Every sentence is read on its own and the text's value is its most toxic sentence's: one insult in a
long polite answer makes the answer toxic. Each sentence at or over the threshold is an evidence span
with its score and what it reads as. A sentence is first prepared (`text.toxic_reading`: spelling
tricks undone, quoted sentences set aside), then read these ways, and the highest reading counts:

- *the kinds head*: a multinomial logistic regression (`python -m properties.training.toxicity`)
  over the bge-small embedding (`models.ENCODER_BY_PROPERTY` says why not MiniLM's), the profanity
  SVM of alt-profanity-check, the Jigsaw BiLSTM of toxic-comment-classifier (its six label
  probabilities and the 50 hidden units they are read from), and who the sentence is about
  (`text.toxic_reading.target_features`: the reader, a group, a negation, the threat and
  derogation patterns). It tells apart kinds of toxic text (threats, veiled threats, insults,
  obscene abuse, hate as an emotion, dehumanisation, negative attributes, implicit hate, other
  hate, offence) from kinds of harmless text that share their words (statements about a group, including hate denied
  or countered; profanity aimed at no one; criticism, violent words in everyday use, blunt replies,
  code). The reading is the probability of the toxic kinds, and the evidence names the likeliest
  ("threatens harm", "degrades a group"). Trained on Davidson (offensive tweets), HateCheck (hate
  against protected groups) and rows generated from templates (`training/toxicity_rows.py` and
  `training/toxicity_forms.py`) for what those two lack: threats to a person, with and without
  violent words; insults without swear words; hate about many more groups; and the harmless
  contrasts, courtesy lines and support answers among them.
- *rude or insulting to the person it speaks to*: for a sentence in the second person, the mean of
  the BiLSTM's `toxic` and `insult` probabilities.
- A sentence of one or two words is read by the mean of the head and the BiLSTM: neither model is
  sure of so little ("Crap." reads 0.77 to the BiLSTM, "OK then." 0.6 to the head).
- *a threat of harm* (`THREAT_VALUE`): the word pattern of `text.toxic_reading`, kept as it was
  and not to be grown. The derogation pattern was a second floor (0.8), which read hate denied
  ("There is no truth to the idea that migrants are criminals") as hate; it is now a feature the
  head weighs, and it names what a toxic sentence degrades in the evidence.

Why kinds and not one toxic-or-not head: toxic text is several things, and one linear boundary over
one embedding cannot hold them all. With one head, adding the generated rows cost HateCheck's
cross-validated ROC-AUC 0.08 (0.915 to 0.832, folds that never split a template); with a class for
each kind it held (0.917) and the generated rows' own rose from 0.861 to 0.913.

Why the Jigsaw reading is kept: HateCheck labels abuse aimed at an individual ("You are human
garbage") *not hateful*, because hate is about protected groups; toxicity is wider than hate, and
the BiLSTM's `insult` and `toxic` labels were annotated for abuse of the reader.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from properties.scorers.base import Score, Span
from properties.scorers.registry import builtin
from properties.scorers.runtime import models, packages
from properties.scorers.runtime.heads import Head
from properties.scorers.runtime.model_scorer import ClassifierPredictor, HeadPredictor, ModelScorer
from properties.scorers.runtime.models import sentence_bounds
from properties.scorers.runtime.toxic_bilstm import HIDDEN, LABELS, ToxicBiLSTM
from properties.scorers.text.toxic_reading import (
    TARGET_FEATURES,
    degrading_clause,
    find_derogation,
    find_threat,
    speaks_to_reader,
    target_features,
    undo_obfuscation,
    without_quotations,
)

PROFANITY_PACKAGE = "alt-profanity-check"
BILSTM_PACKAGE = "toxic-comment-classifier"
EXTRA_FEATURES = (
    "profanity_svm",
    *(f"bilstm_{label}" for label in LABELS),
    *(f"bilstm_hidden_{unit}" for unit in range(HIDDEN)),
    *TARGET_FEATURES,
)
# Where the BiLSTM's probabilities sit among the last len(EXTRA_FEATURES) columns of the features.
_TOXIC, _INSULT = (EXTRA_FEATURES.index(f"bilstm_{label}") - len(EXTRA_FEATURES) for label in ("toxic", "insult"))
# The kinds head, stored beside the binary head in the same file: one row of weights per kind, over
# the same standardised features; the kinds' names are in the head's meta, in the same order.
KINDS_COEF, KINDS_INTERCEPT = "kinds_coef", "kinds_intercept"
# Kinds whose name starts with this are harmless; the value is the probability of all the others.
HARMLESS = "harmless"
# What a sentence reads as, by the likeliest toxic kind (the training command names the kinds).
KIND_NOTES = {
    "threat": "threatens harm",
    "veiled_threat": "threatens harm",
    "insult": "insults someone",
    "obscene_abuse": "insults someone",
    "hate_emotion": "expresses hate for a group",
    "dehumanisation": "degrades a group",
    "negative_attribute": "degrades a group",
    "implicit_hate": "degrades a group",
    "hate": "hateful towards a group",
    "offensive": "offensive or obscene",
}
TO_THE_READER = "rude or insulting to the person it speaks to"
# Sentences shorter than this are read by the mean of the head and the BiLSTM (see `read_sentence`).
SHORT_WORDS = 3
# The threat pattern kept beside the head (`text.toxic_reading`), and what it reads: a threat is toxic
# whatever the models say (0.9, not 1: the pattern reads words, not intent). The derogation pattern
# is one of the head's features instead (`target_features`), and names what a toxic sentence degrades.
THREAT_VALUE = 0.9


def profanity_probabilities(texts: Sequence[str]) -> np.ndarray:
    try:
        from profanity_check import predict_prob
    except ImportError as exc:
        raise models.unavailable(
            "toxicity", PROFANITY_PACKAGE, str(exc), models.reinstall_fix(PROFANITY_PACKAGE)
        ) from exc
    return np.asarray(predict_prob(list(texts)), dtype=np.float64)


def bilstm() -> ToxicBiLSTM:
    try:
        folder = packages.package_dir("toxic_classifier") / "model"
    except FileNotFoundError as exc:
        raise models.unavailable("toxicity", BILSTM_PACKAGE, str(exc), models.reinstall_fix(BILSTM_PACKAGE)) from exc
    return models.cached(("toxic-bilstm", str(folder)), lambda: ToxicBiLSTM(folder))


def bilstm_outputs(texts: Sequence[str]) -> np.ndarray:
    """The BiLSTM's six label probabilities and its hidden units, max over its 100-token windows."""
    model = bilstm()
    windows: list[list[int]] = []
    owner: list[int] = []
    for index, text in enumerate(texts):
        for window in model.windows(text):
            windows.append(window)
            owner.append(index)
    probabilities, hidden = model.read(windows)
    return models.Windowed([], owner).aggregate(np.hstack([probabilities, hidden]), len(texts), "max")


def prepare(text: str) -> str:
    """What the models read of a text: obfuscated spellings undone, quoted sentences set aside."""
    return without_quotations(undo_obfuscation(text))


def prepared_features(texts: Sequence[str], encoder: models.Encoder) -> np.ndarray:
    targets = np.array([target_features(text) for text in texts], dtype=np.float64).reshape(len(texts), -1)
    extra = np.hstack([profanity_probabilities(texts)[:, None], bilstm_outputs(texts), targets])
    return np.hstack([encoder.encode(texts), extra])


def toxicity_features(texts: Sequence[str], encoder: models.Encoder) -> np.ndarray:
    return prepared_features([prepare(text) for text in texts], encoder)


@dataclass(frozen=True)
class Reading:
    """How toxic one sentence (or window of one) reads, and why, in words."""

    value: float
    note: str


def read_kinds(head: Head, features: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """The probability that each row is toxic, and its likeliest toxic kind, from the kinds head; a head
    without kinds (one trained before them) gives its own probability and no kind."""
    if KINDS_COEF not in head.extras:
        return head.predict(features), [""] * len(features)
    names = list(head.meta["kinds"])
    logits = ((features - head.mean) / head.scale) @ head.extras[KINDS_COEF].T + head.extras[KINDS_INTERCEPT]
    logits -= logits.max(axis=1, keepdims=True)
    probabilities = np.exp(logits)
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    toxic = np.array([not name.startswith(HARMLESS) for name in names])
    toxic_names = [name for name in names if not name.startswith(HARMLESS)]
    likeliest = probabilities[:, toxic].argmax(axis=1)
    return probabilities[:, toxic].sum(axis=1), [toxic_names[index] for index in likeliest]


def read_sentence(text: str, head_value: float, kind: str, toxic: float, insult: float) -> Reading:
    """The highest of the readings of a prepared sentence (see the module docstring)."""
    to_reader = speaks_to_reader(text)
    note = KIND_NOTES.get(kind, "reads as toxic")
    if to_reader and note == "insults someone":
        note = TO_THE_READER
    bilstm = (toxic + insult) / 2
    if len(text.split()) < SHORT_WORDS:
        # A word or two: neither model is sure alone ("Crap." is rude to the BiLSTM, "OK then." to the head).
        readings = [Reading((head_value + bilstm) / 2, note if head_value >= bilstm else TO_THE_READER)]
    else:
        readings = [Reading(head_value, note)]
        if to_reader:
            readings.append(Reading(bilstm, TO_THE_READER))
    threat = find_threat(text)
    if threat:
        readings.append(Reading(THREAT_VALUE, f"threatens harm: \u201c{threat.group(0)}\u201d"))
    best = max(readings, key=lambda reading: reading.value)
    derogation = find_derogation(text)
    if derogation and best is readings[0]:
        best = Reading(best.value, f"degrades a group: \u201c{derogation.group(0)}\u201d")
    return best


class KindsPredictor(HeadPredictor):
    """The packaged head read through its kinds: `predict` gives the probability of the toxic ones."""

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        windowed = models.sentence_windows(texts, self.encoder.token_offsets, *self.window)
        values, _ = read_kinds(self.head, self.featurize(windowed.texts, self.encoder))
        return windowed.aggregate(values, len(texts), self.how)


@builtin
class Toxicity(ModelScorer):
    display_name = "Toxicity"
    description = (
        "How likely the text is to be toxic: hateful, offensive, obscene, insulting or threatening. 0 (not toxic) "
        "to 1; 0.5 and above reads as toxic. The value is the most toxic sentence's. Evidence: the toxic sentences."
    )
    aggregate = "max"
    # 2: the most toxic sentence is a span whatever its side of the threshold.
    version = "2"
    # Sentences longer than 64 tokens are cut into windows of 64 (overlap 16): the head was trained
    # on tweets and short test cases.
    window = (64, 16)
    positive_labels = ("toxic", "toxicity", "offensive", "hate", "hateful", "label_1")

    @staticmethod
    def name() -> str:
        return "toxicity"

    def featurize(self, texts: Sequence[str], encoder: models.Encoder) -> np.ndarray:
        return toxicity_features(texts, encoder)

    def _load_predictor(self) -> HeadPredictor | ClassifierPredictor:
        predictor = super()._load_predictor()
        if type(predictor) is HeadPredictor:
            predictor = KindsPredictor(
                self.name(), predictor.encoder, predictor.head, self.featurize, self.aggregate, self.window
            )
        return predictor

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        texts, scored, results = models.split_empty(candidate_batch, self.current_field)
        bounds = {index: sentence_bounds(texts[index]) for index in scored}
        sentences = [texts[index][start:end] for index in scored for start, end in bounds[index]]
        readings = iter(self.read_sentences(sentences) if sentences else [])
        for index in scored:
            results[index] = self.to_score_from(bounds[index], [next(readings) for _ in bounds[index]])
        return results

    def read_sentences(self, sentences: list[str]) -> list[Reading]:
        predictor = self.predictor()
        if not isinstance(predictor, HeadPredictor):  # a user's classifier: its probability, sentence by sentence
            return [
                Reading(float(value), "the configured classifier reads it as toxic")
                for value in predictor.predict(sentences)
            ]
        windowed = models.window_texts(
            [prepare(sentence) for sentence in sentences], predictor.encoder.token_offsets, *self.window
        )
        texts, owners = list(windowed.texts), list(windowed.owner)
        # The clause that degrades a group is read alone as well: a polite sentence around it
        # ("Our team will handle your ticket, if those lazy Nigerians ever bother to work.") dilutes it.
        for text, owner in zip(windowed.texts, windowed.owner, strict=True):
            if clause := degrading_clause(text):
                texts.append(clause)
                owners.append(owner)
        features = prepared_features(texts, predictor.encoder)
        values, kinds = read_kinds(predictor.head, features)
        per_window = [
            read_sentence(text, float(value), kind, float(row[_TOXIC]), float(row[_INSULT]))
            for text, value, kind, row in zip(texts, values, kinds, features, strict=True)
        ]
        best: dict[int, Reading] = {}
        for owner, reading in zip(owners, per_window, strict=True):
            if owner not in best or reading.value > best[owner].value:
                best[owner] = reading
        return [best[index] for index in range(len(sentences))]

    def to_score_from(self, bounds: list[tuple[int, int]], readings: list[Reading]) -> Score:
        # Rounded before the threshold is applied, so that a value shown at 0.5 always has its span.
        scores = [round(reading.value, 4) for reading in readings]
        spans = [
            Span(self.current_field, start, end, "toxic", score, reading.note)
            for (start, end), reading, score in zip(bounds, readings, scores, strict=True)
            if score >= self.threshold
        ]
        if not spans:
            # The sentence that sets the value, whatever its side of this threshold: a project that
            # sets a lower one sees why the text fails it (the Data Screen colours it by the project's).
            top = int(np.argmax(scores))
            note = "the text's most toxic sentence"
            spans = [Span(self.current_field, *bounds[top], "most toxic", scores[top], note)]
        return Score(value=max(scores), spans=spans, details={"threshold": self.threshold})
