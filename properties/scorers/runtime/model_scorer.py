"""What the model-backed properties share: model resolution, lazy loading, empty texts, model ids.

A property scores each text with a *predictor*, chosen from the scorer's `model` setting:

- unset: the packaged default: the packaged MiniLM encoder, the property's own features, and the
  head trained by `python -m properties.training.<property>` (`properties/scorers/runtime/artifacts/`);
- a Hugging Face id or local folder of a *sequence classifier* (its config names a
  `...ForSequenceClassification` architecture): its probability for the property's positive label
  (`positive_label=` to choose one), through transformers;
- a Hugging Face id or local folder of a *sentence encoder*: that encoder with a head trained on
  it, given as `head="path/to/head.npz"` (`python -m properties.training.<property> --encoder
  MODEL --out PATH` writes one).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from properties.scorers.base import Score, Scorer
from properties.scorers.runtime import models
from properties.scorers.runtime.heads import Head, default_head_path, load_head


class HeadPredictor:
    """Encoder embeddings plus the property's extra features, through a trained head."""

    def __init__(
        self, prop: str, encoder: models.Encoder, head: Head, featurize: Any, how: str, window: tuple[int, int]
    ) -> None:
        if head.encoder and head.encoder != encoder.model_id:
            raise models.unavailable(
                prop,
                encoder.model_id,
                f"the head was trained on the encoder {head.encoder!r}",
                f"Train a head on this encoder with `python -m properties.training.{prop} --encoder MODEL --out "
                "HEAD.npz` and set `head` to it.",
            )
        self.encoder, self.head, self.featurize, self.how, self.window = encoder, head, featurize, how, window
        self.model_id = encoder.model_id

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        if self.how == "mean":
            # The encoder mean-pools the windows of a long text into one embedding.
            return self.head.predict(self.featurize(texts, self.encoder))
        # Score every sentence (long ones in token windows) and keep the highest: one toxic
        # sentence makes a long text toxic, and it would be diluted in a window of harmless text.
        windowed = models.sentence_windows(texts, self.encoder.token_offsets, *self.window)
        values = self.head.predict(self.featurize(windowed.texts, self.encoder))
        return windowed.aggregate(values, len(texts), self.how)


class ClassifierPredictor:
    """A user's Hugging Face sequence classifier: the probability of one label, windowed."""

    def __init__(self, prop: str, source: str, positive_label: str | None, hints: Sequence[str], how: str) -> None:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.device = models.torch_device()
        self.tokenizer = AutoTokenizer.from_pretrained(source)
        self.model = AutoModelForSequenceClassification.from_pretrained(source).to(self.device).eval()
        labels = {int(k): str(v) for k, v in self.model.config.id2label.items()}
        self.index = _positive_index(prop, source, labels, positive_label, hints)
        self.multi_label = self.model.config.problem_type == "multi_label_classification"
        self.how = how
        self.model_id = f"{source}@{models.model_digest(source)}"

    def _offsets(self, text: str) -> list[tuple[int, int]]:
        encoded = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        return [tuple(pair) for pair in encoded["offset_mapping"]]

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        windowed = models.window_texts(texts, self._offsets)
        out = []
        for first in range(0, len(windowed.texts), models.ENCODER_BATCH_SIZE):
            batch = windowed.texts[first : first + models.ENCODER_BATCH_SIZE]
            encoded = self.tokenizer(batch, padding=True, truncation=True, return_tensors="pt").to(self.device)
            with torch.inference_mode():
                logits = self.model(**encoded).logits.float()
            probs = torch.sigmoid(logits) if self.multi_label else torch.softmax(logits, dim=-1)
            out.append(probs[:, self.index].cpu().numpy())
        values = np.concatenate(out) if out else np.zeros(0)
        return windowed.aggregate(values, len(texts), self.how)


def _positive_index(
    prop: str, source: str, labels: dict[int, str], positive_label: str | None, hints: Sequence[str]
) -> int:
    if positive_label is not None:
        for index, label in labels.items():
            if label.lower() == positive_label.lower():
                return index
        raise models.unavailable(prop, source, f"it has no label {positive_label!r} (labels: {labels})", "")
    for hint in hints:
        for index, label in labels.items():
            if label.lower() == hint:
                return index
    if len(labels) == 2:
        return 1  # a binary classifier without telling names: LABEL_1 is the positive class by convention
    raise models.unavailable(
        prop, source, f"cannot tell which of its labels {sorted(labels.values())} is positive", "Set `positive_label`."
    )


class ModelScorer(Scorer):
    """Base of the properties that score one text at a time with a model (0 to 1)."""

    fields = ("input", "output")
    queue = "models"
    version = "1"
    threshold: ClassVar[float] = 0.5
    # How window scores of a long text combine into one ('max' or 'mean'), see models.split_windows.
    aggregate: ClassVar[str] = "mean"
    # Window size and overlap in tokens where `aggregate` is "max" (each window scored alone).
    window: ClassVar[tuple[int, int]] = (models.WINDOW_TOKENS, models.WINDOW_OVERLAP)
    # Label names a user's classifier may give the positive class, most telling first.
    positive_labels: ClassVar[tuple[str, ...]] = ()

    def scored_in_streams(self) -> bool:
        return self.model is None  # the packaged ONNX models (see Scorer.scored_in_streams)

    def __init__(self, model: str | None = None, head: str | None = None, positive_label: str | None = None) -> None:
        self.model = model or None
        self.head = head or None
        self.positive_label = positive_label
        for path in (self.model, self.head):
            if path and models.looks_local(path) and not Path(path).expanduser().exists():
                raise models.unavailable(self.name(), path, "no such file or folder", models.override_fix())

    @staticmethod
    def requires_reference() -> bool:
        return False

    @abstractmethod
    def featurize(self, texts: Sequence[str], encoder: models.Encoder) -> np.ndarray:
        """Embeddings and extra features of texts, as the property's head was trained on."""

    def predictor(self) -> HeadPredictor | ClassifierPredictor:
        """The loaded model for this configuration, from the per-process cache."""
        key = (self.name(), self.model or "", self.head or "", self.positive_label or "")
        return models.cached(("predictor", *key), self._load_predictor)

    def _load_predictor(self) -> HeadPredictor | ClassifierPredictor:
        prop = self.name()
        if self.model is None:
            encoder = models.packaged_encoder(prop)
            return HeadPredictor(prop, encoder, self._load_head(), self.featurize, self.aggregate, self.window)
        try:
            classifier = models.is_classifier(self.model)
        except (OSError, ValueError, ImportError) as exc:
            raise models.unavailable(prop, self.model, f"{type(exc).__name__}: {exc}", models.override_fix()) from exc
        if classifier:
            try:
                return ClassifierPredictor(prop, self.model, self.positive_label, self.positive_labels, self.aggregate)
            except (OSError, ValueError, ImportError) as exc:
                raise models.unavailable(
                    prop, self.model, f"{type(exc).__name__}: {exc}", models.override_fix()
                ) from exc
        if self.head is None:
            raise models.unavailable(
                prop,
                self.model,
                "it is a sentence encoder, and a head trained on it is needed",
                f"Train one with `python -m properties.training.{prop} --encoder {self.model} --out HEAD.npz` and "
                "set `head` to its path, or give a sequence-classification model.",
            )
        return HeadPredictor(
            prop, models.user_encoder(prop, self.model), self._load_head(), self.featurize, self.aggregate, self.window
        )

    def _load_head(self) -> Head:
        path = Path(self.head).expanduser() if self.head else default_head_path(self.name())
        try:
            return load_head(path)
        except (OSError, ValueError, KeyError) as exc:
            raise models.unavailable(
                self.name(),
                str(path),
                f"the trained head cannot be read ({type(exc).__name__}: {exc})",
                f"Run `python -m properties.training.{self.name()}` to write it.",
            ) from exc

    def model_id(self) -> str:
        """Which weights produce the values, read from the files without loading the model (the
        planner calls this for every job): id or path, a hash of the weights, and of the head."""
        prop = self.name()
        if self.model is None:
            return f"{models.packaged_encoder_id(prop)}+{prop}-head@{self._head_digest()}"
        model = f"{self.model}@{models.model_digest(self.model)}"
        if self.positive_label:
            model += f":{self.positive_label}"
        return f"{model}+head@{self._head_digest()}" if self.head else model

    def _head_digest(self) -> str:
        path = Path(self.head).expanduser() if self.head else default_head_path(self.name())
        try:
            return models.weights_digest(path)
        except OSError as exc:
            raise models.unavailable(
                self.name(),
                str(path),
                f"the trained head is missing ({exc})",
                f"Run `python -m properties.training.{self.name()}` to write it.",
            ) from exc

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        texts, scored, results = models.split_empty(candidate_batch, self.current_field)
        if not scored:
            return results
        values = self.predictor().predict([texts[i] for i in scored])
        for i, value in zip(scored, values, strict=True):
            results[i] = self.to_score(texts[i], float(value), i, input_text_batch)
        return results

    def to_score(self, text: str, value: float, index: int, inputs: list[str] | None) -> Score:
        """One item's Score; properties with evidence override this."""
        return Score(value=round(value, 4))
