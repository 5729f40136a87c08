"""PII Risk: how much personal data a text exposes, 0 to 1.

Entities come from a named-entity model (the packaged Rampart PII token classifier, or a user's
token-classification model) and from pattern and checksum detectors (emails, Luhn-valid cards,
mod-97-valid IBANs, SSNs, IP addresses, phones, dates of birth). Each entity's risk is its
confidence times the risk factor of its type (`pii_risk_factors.json`, overridable per project
with `risk_factors={...}`); the text's value is the highest entity risk, 0 when there is none.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from properties.scorers.base import Score, Scorer, Span
from properties.scorers.registry import builtin
from properties.scorers.runtime import models, pii_model
from properties.scorers.text import pii_detectors

Entity = pii_model.Entity


def default_risk_factors() -> dict[str, dict[str, Any]]:
    """The shipped table: type -> {risk, name, detected_by}, for the scorer, the UI and the docs."""
    text = resources.files("properties.scorers").joinpath("pii_risk_factors.json").read_text()
    return json.loads(text)


@builtin
class PIIRisk(Scorer):
    display_name = "PII Risk"
    description = (
        "How much personal data the text exposes: the highest entity risk, where an entity's risk is the "
        "model's confidence times its type's risk factor (a card number 1.0, a name 0.7, a city 0.2). "
        "0 to 1; 0.5 and above reads as risky. Evidence: every entity with its type, confidence and risk."
    )
    fields = ("input", "output")
    queue = "models"
    version = "1"
    threshold = 0.5

    def __init__(
        self,
        model: str | None = None,
        risk_factors: dict[str, float] | None = None,
        label_map: dict[str, str] | None = None,
    ) -> None:
        self.model = model or None
        self.risk_factors = dict(risk_factors or {})
        self.label_map = dict(label_map or {})
        for kind, risk in self.risk_factors.items():
            if not isinstance(risk, int | float) or not 0 <= risk <= 1:
                raise ValueError(f"pii_risk: the risk factor of {kind!r} must be a number from 0 to 1, got {risk!r}")
        if self.model and models.looks_local(self.model) and not Path(self.model).expanduser().exists():
            raise models.unavailable(self.name(), self.model, "no such file or folder", models.override_fix())
        self._factors = {kind: float(row["risk"]) for kind, row in default_risk_factors().items()}
        self._factors.update({kind: float(risk) for kind, risk in self.risk_factors.items()})

    @staticmethod
    def name() -> str:
        return "pii_risk"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def model_id(self) -> str:
        if self.model is None:
            return pii_model.rampart_id(self.name())
        return f"{self.model}@{models.model_digest(self.model)}"

    def ner(self) -> pii_model.RampartModel | pii_model.HFTokenClassifier:
        if self.model is None:
            return pii_model.rampart(self.name())
        source, label_map = self.model, self.label_map
        try:
            key = ("hf-ner", source, json.dumps(label_map, sort_keys=True))
            return models.cached(key, lambda: pii_model.HFTokenClassifier(source, label_map))
        except (OSError, ValueError, ImportError) as exc:
            raise models.unavailable(
                self.name(), source, f"{type(exc).__name__}: {exc}", models.override_fix()
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
        found = self.ner().entities([texts[i] for i in scored])
        for i, entities in zip(scored, found, strict=True):
            results[i] = self.to_score(texts[i], entities + pii_detectors.detect(texts[i]))
        return results

    def to_score(self, text: str, entities: list[Entity]) -> Score:
        spans = [
            Span(
                self.current_field,
                start,
                end,
                kind,
                round(confidence * self._factors.get(kind, 0.0), 4),
                f"confidence {confidence:.2f} x risk factor {self._factors.get(kind, 0.0):.2f}",
            )
            for start, end, kind, confidence in resolve_overlaps(entities, self._factors)
        ]
        value = max((span.score or 0.0 for span in spans), default=0.0)
        return Score(value=value, spans=spans, details={"entities": len(spans)})


def resolve_overlaps(entities: list[Entity], factors: dict[str, float]) -> list[Entity]:
    """Where the model and a detector claim the same characters, keep the riskier reading
    (a Luhn-valid card that the model took for a phone number is a card)."""
    kept: list[Entity] = []
    for entity in sorted(entities, key=lambda e: (-e[3] * factors.get(e[2], 0.0), e[0])):
        if all(entity[1] <= other[0] or entity[0] >= other[1] for other in kept):
            kept.append(entity)
    return sorted(kept)
