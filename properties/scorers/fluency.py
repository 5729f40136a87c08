"""Fluency: how close a text is to fluent, well-formed English, 0 to 1.

Default model: a logistic-regression head (`python -m properties.training.fluency`) over what a
small causal language model makes of each sentence (`causal_lm.py`: token log-probabilities against
a unigram baseline, and the mean hidden states of two of SmolLM2-135M's middle layers) plus
surface markers of casual writing (`linguistic.py`), trained on CoLA acceptability judgements,
tweets (as not fluent), Wikipedia sentences (as fluent) and everyday support and product sentences
written for the project, fluent and not; averaged with an adapter fine-tuned on the same sentences
over the LM's middle layers (`lm_adapter.py`), stored in the same file. On a held-out 15% of CoLA:
head 0.797, adapter 0.804, their mean 0.813 ROC-AUC.

A text is split into sentences (Punkt; a sentence over `causal_lm.SENTENCE_TOKENS` tokens into
overlapping windows), every sentence is scored, and the text's value is the mean of its sentences'
values weighted by their words: the share of the text that reads as fluent, to which every
sentence, the last included, contributes as much as it is long (a two-word greeting before a
reply of forty words weighs a twentieth, not a half).

Case is not fluency: a sentence written all in lower case or all in capitals is read as written in
sentence case (first letter and "I" in capitals), and a sentence's first letter as a capital, at
training and at scoring time alike; the LM otherwise reads "your order ships on monday" as rare
tokens.

`model=` takes a Hugging Face id or local folder of another causal LM (with `head=`, a head trained
on it by `python -m properties.training.fluency --encoder MODEL --out HEAD.npz`), or of a sequence
classifier of acceptability (e.g. a CoLA fine-tune), whose positive-label probability is used.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from properties.scorers.base import Score, Span
from properties.scorers.registry import builtin
from properties.scorers.runtime import causal_lm, lm_adapter, models
from properties.scorers.runtime.heads import Head
from properties.scorers.runtime.model_scorer import ClassifierPredictor, ModelScorer
from properties.scorers.text.linguistic import FLUENCY_MARKERS, SURFACE_FEATURES, explained, surface_features

EXTRA_FEATURES = SURFACE_FEATURES
# What the adapter reads besides hidden states (`adapter_extra`): the LM's scalars, the surface markers.
ADAPTER_EXTRA_WIDTH = len(causal_lm.LM_FEATURES) + len(EXTRA_FEATURES)


def fluency_features(texts: Sequence[str], lm: causal_lm.CausalLM) -> np.ndarray:
    """The LM's features and the surface markers of each text (a sentence or a window of one)."""
    return read_units(texts, lm, None)[0]


def read_units(
    texts: Sequence[str],
    lm: causal_lm.CausalLM,
    token_layer: int | None,
    read: Callable[[Sequence[str]], tuple[np.ndarray, list[np.ndarray]]] | None = None,
) -> tuple[np.ndarray, list[np.ndarray]]:
    """`fluency_features`, and each text's hidden states at `token_layer` for the adapter; `read`
    stands in for `lm.read(texts, token_layer)` (training reads through a feature cache)."""
    features, states = read(texts) if read is not None else lm.read(texts, token_layer)
    return np.hstack([features, surface_features(texts)]), states


def adapter_extra(features: np.ndarray) -> np.ndarray:
    """What the adapter reads besides the hidden states: the LM's scalars and the surface markers."""
    return np.hstack([features[:, : len(causal_lm.LM_FEATURES)], features[:, -len(EXTRA_FEATURES) :]])


class LMHeadPredictor:
    """Every sentence of every text through the causal LM, the head and, where the head file holds
    one, the LM adapter (`lm_adapter.py`): a sentence's value is the mean of the two; a text's value
    the mean of its sentences'."""

    def __init__(self, prop: str, lm: causal_lm.CausalLM, head: Head) -> None:
        if head.encoder != lm.model_id:
            raise models.unavailable(
                prop,
                lm.model_id,
                f"the head was trained on the language model {head.encoder!r}",
                f"Train a head on this model with `python -m properties.training.{prop} --encoder MODEL --out "
                "HEAD.npz` and set `head` to it.",
            )
        self.lm, self.head, self.model_id = lm, head, lm.model_id
        self.adapter = lm_adapter.Adapter(lm.float32_model(), ADAPTER_EXTRA_WIDTH, head.extras) if head.extras else None

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        windowed = sentence_units(texts, self.lm)
        values = self.predict_units(windowed.texts)
        weights = np.array([unit_weight(unit) for unit in windowed.texts])
        owner = np.asarray(windowed.owner)
        return np.array(
            [np.average(values[owner == index], weights=weights[owner == index]) for index in range(len(texts))]
        )

    def predict_units(self, units: Sequence[str]) -> np.ndarray:
        token_layer = self.adapter.first if self.adapter is not None else None
        features, states = read_units(units, self.lm, token_layer)
        values = self.head.predict(features)
        if self.adapter is not None:
            with causal_lm.autocast(self.lm.bf16):
                values = (values + self.adapter.predict(states, adapter_extra(features))) / 2
        return values


def sentence_units(texts: Sequence[str], lm: causal_lm.CausalLM) -> models.Windowed:
    """The units that are scored alone, at training and at scoring time alike."""
    return located_units(texts, lm)[0]


def located_units(
    texts: Sequence[str], lm: causal_lm.CausalLM
) -> tuple[models.Windowed, list[list[tuple[int, int]]], list[int]]:
    """`sentence_units`, each text's sentence bounds, and each unit's sentence number in its text.

    Runs of whitespace inside a unit become one space: the LM reads "renews   on" as rarer tokens
    than "renews on" and lowered a fluent sentence from 0.90 to 0.79 for its spacing alone.
    """
    windowed, bounds, sentence_of = models.located_sentence_windows(
        texts, lm.token_offsets, causal_lm.SENTENCE_TOKENS, causal_lm.SENTENCE_OVERLAP
    )
    units = models.Windowed([sentence_case(" ".join(unit.split())) for unit in windowed.texts], windowed.owner)
    return units, bounds, sentence_of


def unit_weight(unit: str) -> float:
    """What a unit weighs in its text's value: its words (one at least)."""
    return float(max(1, len(unit.split())))


def sentence_case(unit: str) -> str:
    """A unit written all in lower case or all in capitals in sentence case, and any unit with its
    first letter in capitals (see the module docstring)."""
    letters = [char for char in unit if char.isalpha()]
    if len(letters) >= 3 and (unit == unit.lower() or unit == unit.upper()):
        unit = re.sub(r"\bi\b", "I", unit.lower())
    return re.sub(r"^(\W*)([a-z])", lambda match: match.group(1) + match.group(2).upper(), unit, count=1)


@builtin
class Fluency(ModelScorer):
    # 2: the least fluent sentence is a span whatever its side of the threshold. 3: sentences weighted
    # by their words; one-case sentences read in sentence case. 4: head and adapter retrained with chat
    # replies, fluent and made disfluent (`fluency_chat_rows.py`).
    version = "4"
    display_name = "Fluency"
    description = "How close the text is to fluent, well-formed English: 0 to 1; 0.5 and above reads as fluent."
    positive_labels = ("acceptable", "fluent", "grammatical", "label_1")

    def scored_in_streams(self) -> bool:
        return False  # a causal LM in torch (see Scorer.scored_in_streams)

    @staticmethod
    def name() -> str:
        return "fluency"

    def featurize(self, texts: Sequence[str], encoder: models.Encoder) -> np.ndarray:
        raise TypeError("Fluency reads a causal language model, not a sentence encoder: see fluency_features")

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        """Each text's value, and as evidence every sentence that reads as not fluent.

        The value is the mean over the scored units (sentences, or windows of a long one), weighted by
        their words, exactly as `LMHeadPredictor.predict` computes it; a sentence's score is the mean of its windows. A
        text under the threshold therefore always has at least one sentence under it to show.
        """
        predictor = self.predictor()
        if not isinstance(predictor, LMHeadPredictor):  # a user's classifier reads whole texts
            return super().run_batch(candidate_batch, reference_batch, input_text_batch, context_batch)
        texts, scored, results = models.split_empty(candidate_batch, self.current_field)
        if not scored:
            return results
        units, bounds, sentence_of = located_units([texts[i] for i in scored], predictor.lm)
        values = predictor.predict_units(units.texts)
        per_text: dict[int, list[tuple[float, float]]] = {}
        per_sentence: dict[tuple[int, int], list[float]] = {}
        for owner, number, unit, value in zip(units.owner, sentence_of, units.texts, values, strict=True):
            per_text.setdefault(owner, []).append((float(value), unit_weight(unit)))
            per_sentence.setdefault((owner, number), []).append(float(value))
        for position, index in enumerate(scored):
            mine = per_text[position]
            spans = []
            sentences = []
            for number, (start, end) in enumerate(bounds[position]):
                sentence_values = per_sentence.get((position, number))
                if not sentence_values:
                    continue
                score = sum(sentence_values) / len(sentence_values)
                sentences.append((score, start, end))
                if score < self.threshold:
                    spans.append(self._not_fluent_span(texts[index], start, end, score))
            if not spans and sentences:
                # The least fluent sentence, whatever its side of this threshold: it is at or under the
                # value (a mean of the sentences'), so a project that sets a higher threshold sees why
                # the text fails it (the Data Screen colours it by the project's threshold).
                score, start, end = min(sentences)
                spans.append(self._not_fluent_span(texts[index], start, end, score, "least fluent"))
            value = sum(v * weight for v, weight in mine) / sum(weight for _, weight in mine)
            results[index] = Score(value=round(value, 4), spans=spans, details={"threshold": self.threshold})
        return results

    def _not_fluent_span(self, text: str, start: int, end: int, score: float, label: str = "not fluent") -> Span:
        # Verdict-free words: the span's kind says fluent or not by the project's threshold.
        note = explained("as the fluency model reads it", text[start:end], FLUENCY_MARKERS)
        return Span(self.current_field, start, end, label, round(score, 4), note)

    def _load_predictor(self) -> LMHeadPredictor | ClassifierPredictor:
        prop = self.name()
        if self.model is None:
            return LMHeadPredictor(prop, causal_lm.packaged_lm(prop), self._load_head())
        architectures = _architectures(self.model)
        if architectures is None or any(name.endswith("ForSequenceClassification") for name in architectures):
            # A sequence classifier, or a model that cannot be read: the shared loading and messages.
            return super()._load_predictor()  # type: ignore[return-value]
        if not any(name.endswith("ForCausalLM") for name in architectures):
            raise models.unavailable(
                prop,
                self.model,
                f"it is neither a causal language model nor a sequence classifier ({architectures})",
                "Give a causal LM (with a head trained on it) or an acceptability classifier.",
            )
        if self.head is None:
            raise models.unavailable(
                prop,
                self.model,
                "it is a causal language model, and a head trained on it is needed",
                f"Train one with `python -m properties.training.{prop} --encoder {self.model} --out HEAD.npz` and "
                "set `head` to its path, or give a sequence-classification model.",
            )
        return LMHeadPredictor(prop, causal_lm.user_lm(prop, self.model), self._load_head())

    def model_id(self) -> str:
        # The LM's precision is part of the id: bfloat16 values differ from float32 ones by up to ~0.01.
        bf16 = "+bf16" if causal_lm.precision() == "bf16" else ""
        if self.model is None:
            return f"{causal_lm.packaged_lm_id(self.name())}{bf16}+{self.name()}-head@{self._head_digest()}"
        causal = any(name.endswith("ForCausalLM") for name in _architectures(self.model) or [])
        return super().model_id() + (bf16 if causal else "")


def _architectures(source: str) -> list[str] | None:
    """The architectures a model's config names; None where the config cannot be read."""
    try:
        return list(models._read_config(source).get("architectures") or [])
    except (OSError, ValueError, ImportError):
        return None
