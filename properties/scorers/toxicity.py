"""Toxicity: how likely a text is to be toxic (hateful, offensive, obscene, insulting), 0 to 1.

Default model: a logistic-regression head (`python -m properties.training.toxicity`) over three
packaged signals: the MiniLM embedding of the text, the profanity SVM of alt-profanity-check and
the six Jigsaw BiLSTM probabilities of toxic-comment-classifier. Neither packaged classifier
alone sees hate without swear words (ROC-AUC ~0.5 on HateCheck); the embedding head does, and the
two classifiers keep it sharp on profanity. See docs/properties.md for the figures.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from properties.scorers.registry import builtin
from properties.scorers.runtime import models
from properties.scorers.runtime.model_scorer import ModelScorer
from properties.scorers.runtime.toxic_bilstm import LABELS, ToxicBiLSTM

PROFANITY_PACKAGE = "alt-profanity-check"
BILSTM_PACKAGE = "toxic-comment-classifier"
EXTRA_FEATURES = ("profanity_svm", *(f"bilstm_{label}" for label in LABELS))


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
        folder = models.package_dir("toxic_classifier") / "model"
    except FileNotFoundError as exc:
        raise models.unavailable("toxicity", BILSTM_PACKAGE, str(exc), models.reinstall_fix(BILSTM_PACKAGE)) from exc
    return models.cached(("toxic-bilstm", str(folder)), lambda: ToxicBiLSTM(folder))


def bilstm_probabilities(texts: Sequence[str]) -> np.ndarray:
    """The BiLSTM's six label probabilities, max over its 100-token windows."""
    model = bilstm()
    windows: list[list[int]] = []
    owner: list[int] = []
    for index, text in enumerate(texts):
        for window in model.windows(text):
            windows.append(window)
            owner.append(index)
    probs = model.predict(windows)
    return models.Windowed([], owner).aggregate(probs, len(texts), "max")


def toxicity_features(texts: Sequence[str], encoder: models.Encoder) -> np.ndarray:
    extra = np.hstack([profanity_probabilities(texts)[:, None], bilstm_probabilities(texts)])
    return np.hstack([encoder.encode(texts), extra])


@builtin
class Toxicity(ModelScorer):
    display_name = "Toxicity"
    description = (
        "How likely the text is to be toxic: hateful, offensive, obscene or insulting. 0 (not toxic) to 1; "
        "0.5 and above reads as toxic."
    )
    aggregate = "max"
    # Sentences longer than 64 tokens are cut into windows of 64 (overlap 16): the head was trained
    # on tweets and short test cases.
    window = (64, 16)
    positive_labels = ("toxic", "toxicity", "offensive", "hate", "hateful", "label_1")

    @staticmethod
    def name() -> str:
        return "toxicity"

    def featurize(self, texts: Sequence[str], encoder: models.Encoder) -> np.ndarray:
        return toxicity_features(texts, encoder)
