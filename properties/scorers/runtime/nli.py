"""The NLI signal of Grounded in Context: P(the passage entails the statement).

Two implementations, one interface (`entailment(statements, passages, u, v)`):

- `PackagedNli`, the offline default: a logistic-regression head (`artifacts/nli.npz`, written by
  `python -m properties.training.grounded`) on frozen features of the packaged MiniLM encoder,
  InferSent-style [u, v, |u - v|, u * v] for statement u and passage v, plus a few lexical
  features (novel content words, missing numbers, a negation on one side only). Numpy only.
- `HubNli`, a user's stronger NLI model (Hugging Face id or local folder of an
  `...ForSequenceClassification` model, e.g. an MNLI cross-encoder), through transformers: the
  probability of its entailment label for (passage, statement), passage truncated first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from properties.scorers.runtime import models
from properties.scorers.runtime.heads import ARTIFACTS, Head, load_head
from properties.scorers.text import measures, statements

NLI_HEAD = ARTIFACTS / "nli.npz"
LEXICAL_FEATURES = ("novel_words_passage", "missing_numbers_passage", "negation_mismatch", "length_ratio")
# Pairs per forward pass of a user's NLI model; premises are passages of up to ~150 tokens.
HUB_BATCH_SIZE = 16
_NEGATION = re.compile(r"\b(?:not|no|never|none|nobody|nothing|neither|nor|without|n't|cannot)\b", re.IGNORECASE)


def nli_lexical(statement: str, passage: str) -> list[float]:
    """The lexical features of one (statement, passage) pair, in `LEXICAL_FEATURES` order."""
    words = statements.content_stems(statement)
    novel = len(words - statements.content_stems(passage)) / len(words) if words else 0.0
    figures = statements.numbers(statement)
    missing_figures = measures.missing_figures(figures, statement, passage, statements.numbers(passage))
    missing = len(missing_figures) / len(figures) if figures else 0.0
    negated = bool(_NEGATION.search(statement.replace("n't", " n't"))) != bool(
        _NEGATION.search(passage.replace("n't", " n't"))
    )
    ratio = np.log1p(len(statement.split())) - np.log1p(len(passage.split()))
    return [novel, missing, float(negated), float(ratio)]


def pair_features(u: np.ndarray, v: np.ndarray, lexical: np.ndarray) -> np.ndarray:
    """[u, v, |u - v|, u * v, lexical]: one row per (statement, passage) pair."""
    return np.hstack([u, v, np.abs(u - v), u * v, lexical])


class PackagedNli:
    """The trained head on the packaged encoder's embeddings."""

    def __init__(self, prop: str, encoder_id: str) -> None:
        try:
            self.head: Head = load_head(NLI_HEAD)
        except (OSError, ValueError, KeyError) as exc:
            raise models.unavailable(
                prop, str(NLI_HEAD), f"the NLI head cannot be read ({type(exc).__name__}: {exc})", RETRAIN
            ) from exc
        if self.head.encoder != encoder_id:
            raise models.unavailable(
                prop, encoder_id, f"the NLI head was trained on the encoder {self.head.encoder!r}", RETRAIN
            )
        self.model_id = f"nli-head@{models.weights_digest(NLI_HEAD)}"

    def entailment(
        self, hypotheses: Sequence[str], premises: Sequence[str], u: np.ndarray, v: np.ndarray
    ) -> np.ndarray:
        lexical = np.array([nli_lexical(h, p) for h, p in zip(hypotheses, premises, strict=True)]).reshape(-1, 4)
        return self.head.predict(pair_features(u, v, lexical))


RETRAIN = "Run `python -m properties.training.grounded` to write it."


class HubNli:
    """A user's NLI sequence classifier: P(entailment) of (premise, hypothesis)."""

    def __init__(self, prop: str, source: str) -> None:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.device = models.torch_device()
        self.tokenizer = AutoTokenizer.from_pretrained(source)
        self.model = AutoModelForSequenceClassification.from_pretrained(source).to(self.device).eval()
        labels = {int(k): str(v).lower() for k, v in self.model.config.id2label.items()}
        self.index = entailment_index(prop, source, labels)
        self.model_id = f"{source}@{models.model_digest(source)}"

    def entailment(
        self,
        hypotheses: Sequence[str],
        premises: Sequence[str],
        u: np.ndarray | None = None,
        v: np.ndarray | None = None,
    ) -> np.ndarray:
        import torch

        out = np.zeros(len(hypotheses))
        for first in range(0, len(hypotheses), HUB_BATCH_SIZE):
            last = first + HUB_BATCH_SIZE
            encoded = self.tokenizer(
                list(premises[first:last]),
                list(hypotheses[first:last]),
                padding=True,
                truncation="only_first",
                max_length=512,
                return_tensors="pt",
            ).to(self.device)
            with torch.inference_mode():
                logits = self.model(**encoded).logits.float()
            out[first:last] = torch.softmax(logits, dim=-1)[:, self.index].cpu().numpy()
        return out


def entailment_index(prop: str, source: str, labels: dict[int, str]) -> int:
    """The label that means 'entailed': `entailment`, `entailed`, `supported`; LABEL_1 of a binary model."""
    for index, label in labels.items():
        if label.startswith("entail") or label in ("supported", "support", "consistent", "faithful"):
            return index
    if len(labels) == 2:
        return 1
    raise models.unavailable(
        prop, source, f"cannot tell which of its labels {sorted(labels.values())} means entailment", ""
    )


def hub_nli(prop: str, source: str) -> HubNli:
    try:
        return models.cached(("hub-nli", source), lambda: HubNli(prop, source))
    except (OSError, ValueError, ImportError) as exc:
        raise models.unavailable(prop, source, f"{type(exc).__name__}: {exc}", models.override_fix()) from exc
