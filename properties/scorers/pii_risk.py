"""PII Risk: how much personal data a text exposes, 0 to 1.

Entities come from a named-entity model (the packaged Rampart PII token classifier, or a user's
token-classification model) and from detectors (`text/pii_detectors.py`: presidio-analyzer's
recognizers for Luhn-valid cards, mod-97-valid IBANs, SSNs, IP addresses and passport numbers after
a word of their kind, phonenumbers for phone numbers in any common format, and patterns of ours for
e-mail addresses and dates of birth). Each entity's risk is its
confidence times the risk factor of its type (`pii_risk_factors.json`, overridable per project
with `risk_factors={...}`); the text's value is the highest entity risk, 0 when there is none.

Three readings turn the entities into risks a user can trust (docs/properties.md):

- a number the model took for an address, postal code or phone number that reads as a quantity
  (a figure with thousands separators, a measurement, a price, a year or a range of years, a
  version number: `text/quantities.py`) is not personal data; nor is a year-shaped "postal code"
  with no other part of an address next to it. Each is listed in `details["not_personal_data"]`
  with the reason;
- a street address is one when it locates a household: a building number with its street. A street
  without a number ("Clayton Street") or a number or code without a street ("LC-34") is an
  `address_part`, which counts as a postal code does;
- where a detector that validates a structure (a checksum, a well-formed address) and the model
  claim the same characters, the detector's reading stays: it checked what the model guessed;
- an identifier the model guessed from its shape (a driver licence, passport, tax or national id,
  bank account or routing number) counts half its risk unless a word of its kind stands before it
  ("licence no.", "passport", "IBAN"): order numbers, SKUs and request ids have the same shape. So
  does a phone number not written as one (in international form, with its area code in brackets,
  or in its numbering plan's groups) with no word of calling before it: "invoice 1995417500";
- in a text that holds no contact details or identifiers at all, a person's name or date of birth
  counts a share of its type's risk that depends on how the name is used (`text/pii_context.py`):
  all of it where its sentence, or any sentence of the text, addresses someone ("Hi Priya Raman,
  your account ..."); `ENCYCLOPEDIC_FACTOR` in an encyclopedic statement ("Leonardo da Vinci
  painted the Mona Lisa"); `MENTION_FACTOR` where a text that addresses no one merely names
  someone. A public figure named in the record exposes far less than a person's contact details.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

from properties.scorers.base import Score, Scorer, Span
from properties.scorers.registry import builtin
from properties.scorers.runtime import models, pii_model
from properties.scorers.text import pii_context, pii_detectors, pii_identifiers, quantities

Entity = pii_model.Entity

# Types that tell how to reach or identify a person. One of them anywhere in the text keeps every
# name at its full risk: the name may be the owner's.
CONTACT_DETAILS = frozenset(
    {
        "email",
        "phone",
        "street_address",
        "ip_address",
        "credit_card",
        "iban",
        "bank_account",
        "routing_number",
        "ssn",
        "tax_id",
        "passport",
        "drivers_license",
        "government_id",
    }
)
# Types that tell who someone is, which the public record states of public figures.
PUBLIC_RECORD_TYPES = frozenset({"person_name", "date_of_birth"})
# Shares of a name's risk by how it is used, when the text holds no contact details. Encyclopedic:
# 0.7 x 0.3 = 0.21 at most, "far less" than an e-mail address (0.8). A mention: 0.7 x 0.6 = 0.42 at
# most, under the 0.5 threshold yet above a postal code or a city, for a name is still a name.
ENCYCLOPEDIC_FACTOR = 0.3
MENTION_FACTOR = 0.6
# An identifier the model guessed from its shape alone, with no word of its kind before it: order
# numbers, SKUs and request ids look the same (`text/pii_identifiers.py`). 0.9 x 0.9 x 0.5 = 0.41 at
# most, under the 0.5 threshold; a licence number after "driver licence" counts in full.
UNNAMED_IDENTIFIER = "unnamed identifier"
UNNAMED_IDENTIFIER_FACTOR = 0.5
USE_FACTORS = {
    pii_context.ENCYCLOPEDIC: (
        ENCYCLOPEDIC_FACTOR,
        "named in an encyclopedic statement, no contact details in the text",
    ),
    pii_context.MENTION: (
        MENTION_FACTOR,
        "a name mentioned in a text that addresses no one, no contact details in the text",
    ),
    UNNAMED_IDENTIFIER: (
        UNNAMED_IDENTIFIER_FACTOR,
        "a code of this shape with no word of its kind before it (order numbers and ids look the same)",
    ),
}
ADDRESS_PARTS = frozenset({"street_address", "address_part", "city", "state", "zip_code"})


class Finding(NamedTuple):
    start: int
    end: int
    kind: str
    confidence: float
    # How a pattern detector validated it ("Luhn checksum valid"); "" for the model.
    validated_by: str = ""


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
        "Figures, measurements, prices, years and version numbers are not personal data; a name in a text "
        "without contact details counts less when it is only mentioned (x0.6) or stands in an encyclopedic "
        "statement (x0.3). 0 to 1; 0.5 and above reads as risky. Evidence: every entity with its type, "
        "risk and a note on how the risk comes about."
    )
    fields = ("input", "output")
    queue = "models"
    version = "4"
    threshold = 0.5

    def scored_in_streams(self) -> bool:
        return self.model is None  # the packaged ONNX models (see Scorer.scored_in_streams)

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
        table = default_risk_factors()
        self._factors = {kind: float(row["risk"]) for kind, row in table.items()}
        self._names = {kind: str(row["name"]) for kind, row in table.items()}
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
            results[i] = self.to_score(texts[i], entities, pii_detectors.detect(texts[i]))
        return results

    def to_score(
        self, text: str, entities: list[Entity], detections: list[pii_detectors.Detection] | None = None
    ) -> Score:
        """The value and its evidence from the model's entities and the detectors' findings."""
        kept, dismissed = personal_data(text, [Finding(*entity) for entity in entities])
        kept = [household_or_part(text, entity) for entity in kept]
        patterns = [Finding(*found) for found in detections or []]
        findings = resolve_overlaps(text, kept + patterns, self._factors)
        unnamed = {finding for finding in findings if is_unnamed_identifier(text, finding)}
        contact = any(finding.kind in CONTACT_DETAILS and finding not in unnamed for finding in findings)
        bounds = pii_context.sentences(text) if any(f.kind in PUBLIC_RECORD_TYPES for f in findings) else []
        spans = []
        for finding in findings:
            use = UNNAMED_IDENTIFIER if finding in unnamed else pii_context.PERSONAL
            if finding.kind in PUBLIC_RECORD_TYPES and not contact:
                use = pii_context.name_reading(text, finding.start, finding.end, bounds)
            spans.append(self.to_span(finding, use))
        value = max((span.score or 0.0 for span in spans), default=0.0)
        return Score(value=value, spans=spans, details={"entities": len(spans), "not_personal_data": dismissed})

    def to_span(self, finding: Finding, use: str = pii_context.PERSONAL) -> Span:
        """One entity as evidence: its risk, and a note that says what it is and how its risk comes about."""
        factor = self._factors.get(finding.kind, 0.0)
        risk = finding.confidence * factor
        what = self._names.get(finding.kind, finding.kind.replace("_", " "))
        how = finding.validated_by or "found by the PII model"
        note = f"{what}, {how}: confidence {finding.confidence:.2f} x risk factor {factor:.2f}"
        if use in USE_FACTORS:
            share, why = USE_FACTORS[use]
            risk *= share
            note += f" x {share:.2f}, {why}"
        return Span(self.current_field, finding.start, finding.end, finding.kind, round(risk, 4), note)


def is_unnamed_identifier(text: str, finding: Finding) -> bool:
    """An identifier type that the model guessed (no detector validated it), or a phone number not
    written as one (`pii_detectors.written_as_a_phone_number`), with no word of its kind before it. A
    numbering plan allows invoice, tracking and barcode numbers too: "invoice 1995417500"."""
    if finding.kind == "phone":
        written = pii_detectors.written_as_a_phone_number(text[finding.start : finding.end])
        return not written and not pii_identifiers.has_context(text, finding.start, "phone")
    return (
        finding.kind in pii_identifiers.GUESSED
        and not finding.validated_by
        and not pii_identifiers.has_context(text, finding.start, finding.kind)
    )


def personal_data(text: str, entities: list[Finding]) -> tuple[list[Finding], list[dict[str, str]]]:
    """The model's entities that may be personal data, and the others with the reason they are not."""
    kept: list[Finding] = []
    dismissed: list[dict[str, str]] = []
    for entity in entities:
        reason = not_personal_data(text, entity, entities)
        if reason is None:
            kept.append(entity)
        else:
            dismissed.append({"text": text[entity.start : entity.end], "type": entity.kind, "reason": reason})
    return kept, dismissed


def not_personal_data(text: str, entity: Finding, entities: list[Finding]) -> str | None:
    """Why a model's entity is not personal data (a quantity, a year read as a postal code), or None."""
    words = text[entity.start : entity.end]
    reading = quantities.quantity_reading(text, entity.start, entity.end)
    if reading is not None:
        return reading
    year = entity.kind == "zip_code" and quantities.looks_like_a_year(words)
    if year and not _next_to_address(text, entity, entities):
        return "a year: no address around it"
    return None


# A figure (4,686) counts something, an ordinal (82nd, 5th) names a street: neither is a building number.
_NOT_A_BUILDING_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+\.?|\d+(?:st|nd|rd|th|d)\.?,?", re.IGNORECASE)


def household_or_part(text: str, entity: Finding) -> Finding:
    """A street address locates a household when it has a building number and a street: "42 Elm
    Road", "Flat 3, 17 Victoria Road". A street alone ("Clayton Street", a venue) or a number or code
    alone ("232", "LC-34") is part of an address, which tells an area, not a home."""
    if entity.kind != "street_address":
        return entity
    words = text[entity.start : entity.end].split()
    numbered = [word for word in words if re.search(r"\d", word) and not _NOT_A_BUILDING_NUMBER.fullmatch(word)]
    named = [word for word in words if re.search(r"[^\W\d_]", word) and word not in numbered]
    return entity if numbered and named else entity._replace(kind="address_part")


def _next_to_address(text: str, entity: Finding, entities: list[Finding]) -> bool:
    """Another part of an address right before or after it, on the same line or the next (an address
    block spans lines): "Sydney NSW 2000", "Kaevu 94\nNicosia"."""
    for other in entities:
        if other is entity or other.kind not in ADDRESS_PARTS:
            continue
        gap = text[other.end : entity.start] if other.end <= entity.start else text[entity.end : other.start]
        if len(gap) <= 4 and not gap.strip(" ,\t\r\n"):
            return True
    return False


def resolve_overlaps(text: str, findings: list[Finding], factors: dict[str, float]) -> list[Finding]:
    """Where two readings claim the same characters, one stays: a detector's that validated a
    structure (a checksum, a well-formed address) over the model's guess (203.0.113.42 is an IP
    address, not a phone number); of two validated readings the one that checked more letters and
    digits (an IBAN over the Luhn-valid run of sixteen digits inside it, a passport number over
    the local phone number in its digits); else the riskier one."""
    kept: list[Finding] = []

    def rank(f: Finding) -> tuple[bool, int, float, int]:
        checked = sum(char.isalnum() for char in text[f.start : f.end]) if f.validated_by else 0
        return (not f.validated_by, -checked, -f.confidence * factors.get(f.kind, 0.0), f.start)

    ranked = sorted(findings, key=rank)
    for finding in ranked:
        if all(finding.end <= other.start or finding.start >= other.end for other in kept):
            kept.append(finding)
    return sorted(kept)
