"""Pass or fail: each property's direction, threshold, range and comparison tolerance.

A value passes when it is on the good side of its property's threshold: `higher` passes from the
threshold up (value >= threshold), `lower` passes below it (value < threshold), so a threshold is
where a value starts to read as "yes" (toxic, avoided, risky), as docs/properties.md says. A
property without a direction (Sentiment, Formality, counts) shows its value, never pass or fail.

The defaults below are documented in docs/properties.md ("Pass or fail"); a project overrides
them per property (`Project.pass_criteria`). Not applicable values are neither passing nor failing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from django.db.models import Q

if TYPE_CHECKING:
    from properties.models import Project, PropertyValue

# PropertyValue.Status.NOT_APPLICABLE: this module is read without Django set up (the report card
# of bench/behavior.py), so it does not import the models.
NOT_APPLICABLE = "not_applicable"

HIGHER, LOWER, NO_DIRECTION = "higher", "lower", ""
DIRECTIONS = (HIGHER, LOWER, NO_DIRECTION)
DEFAULT_TOLERANCE = 0.01


@dataclass(frozen=True)
class Criterion:
    direction: str = NO_DIRECTION
    threshold: float | None = None
    # The range values can take (None: unbounded on that side), to clip intervals and bins.
    low: float | None = None
    high: float | None = None
    # Row-by-row comparison ignores changes smaller than this.
    tolerance: float = DEFAULT_TOLERANCE

    @property
    def judges(self) -> bool:
        """Whether values of this property pass or fail at all."""
        return self.direction in (HIGHER, LOWER) and self.threshold is not None

    def passes(self, value: float | None) -> bool | None:
        """True or False for a number; None when there is nothing to judge."""
        if not self.judges or value is None:
            return None
        return value >= self.threshold if self.direction == HIGHER else value < self.threshold

    def passing_q(self) -> Q:
        """The values that pass, as a filter on PropertyValue (read from the value index)."""
        if self.direction == HIGHER:
            return Q(value__gte=self.threshold)
        return Q(value__lt=self.threshold)

    def failing_q(self) -> Q:
        if self.direction == HIGHER:
            return Q(value__lt=self.threshold)
        return Q(value__gte=self.threshold)

    def clip(self, number: float) -> float:
        """A number (an interval's end) kept inside the property's range."""
        if self.low is not None:
            number = max(self.low, number)
        if self.high is not None:
            number = min(self.high, number)
        return number

    def describe(self) -> str:
        """The rule in words: "passes at 0.5 and above"."""
        if not self.judges:
            return "no pass or fail: neither higher nor lower is better"
        if self.direction == HIGHER:
            return f"higher is better; passes at {self.threshold:g} and above"
        return f"lower is better; passes below {self.threshold:g}"

    def describe_range(self) -> str:
        low = "-∞" if self.low is None else f"{self.low:g}"
        high = "∞" if self.high is None else f"{self.high:g}"
        return f"{low} to {high}"

    def to_dict(self) -> dict[str, Any]:
        return {"direction": self.direction, "threshold": self.threshold, "tolerance": self.tolerance}


UNIT = {"low": 0.0, "high": 1.0}
GOOD_HIGH = Criterion(HIGHER, 0.5, **UNIT)
BAD_HIGH = Criterion(LOWER, 0.5, **UNIT)
# The documented default of every built-in property (docs/properties.md, "Pass or fail").
DEFAULTS: dict[str, Criterion] = {
    "avoided_answer": BAD_HIGH,
    "char_count": Criterion(low=0.0, tolerance=1.0),
    "compression_ratio": Criterion(HIGHER, 1.0, low=0.0),
    "content_type": Criterion(),
    "context_entity_recall": GOOD_HIGH,
    "context_relevancy": GOOD_HIGH,
    "coverage": GOOD_HIGH,
    "embedding_similarity": Criterion(HIGHER, 0.5, low=-1.0, high=1.0),
    "fluency": GOOD_HIGH,
    "formality": Criterion(**UNIT),
    "grounded_in_context": GOOD_HIGH,
    "hallucination_free": GOOD_HIGH,
    "information_density": GOOD_HIGH,
    # Any broken link fails: one link in a hundred is 0.01.
    "invalid_links": Criterion(LOWER, 0.01, **UNIT),
    "llm_context_entity_recall": GOOD_HIGH,
    "llm_context_relevancy": GOOD_HIGH,
    "llm_embedding_similarity": Criterion(HIGHER, 0.5, low=-1.0, high=1.0),
    "llm_hallucination_free": GOOD_HIGH,
    "llm_summarization": GOOD_HIGH,
    "moderation": BAD_HIGH,
    "openai_moderation": BAD_HIGH,
    "pii_risk": BAD_HIGH,
    # Flesch: 50-60 "fairly difficult", 60-70 plain English.
    "reading_ease": Criterion(HIGHER, 50.0, tolerance=0.5),
    "relevance": GOOD_HIGH,
    "retrieval_relevance": GOOD_HIGH,
    "schema": GOOD_HIGH,
    "sentiment": Criterion(low=-1.0, high=1.0),
    "summarization": GOOD_HIGH,
    "toxicity": BAD_HIGH,
    "valid_json": GOOD_HIGH,
    "valid_xml": GOOD_HIGH,
    "word_count": Criterion(low=0.0, tolerance=1.0),
}
# Prompt properties score 0 to 1 where the prompt asks "is it ...?": higher reads as yes.
PROMPT_DEFAULT = Criterion(HIGHER, 0.5, **UNIT)


def default_for(prop: str) -> Criterion:
    if prop in DEFAULTS:
        return DEFAULTS[prop]
    if prop.startswith("prompt_"):
        return PROMPT_DEFAULT
    return Criterion()


def criterion_for(project: Project, prop: str) -> Criterion:
    """The project's criterion for a property: its own settings over the documented default."""
    base = default_for(prop)
    override = (project.pass_criteria or {}).get(prop) or {}
    changes: dict[str, Any] = {}
    if override.get("direction") in DIRECTIONS:
        changes["direction"] = override["direction"]
    for key in ("threshold", "tolerance"):
        if _finite(override.get(key)):
            changes[key] = float(override[key])
    return replace(base, **changes) if changes else base


def criteria_for(project: Project, addresses: list[str]) -> dict[str, Criterion]:
    """{address: criterion} for the addresses a page shows."""
    return {address: criterion_for(project, address.partition(".")[0]) for address in addresses}


def check_override(options: dict[str, Any]) -> list[str]:
    """What is wrong with one property's pass criteria as a user wrote them."""
    problems = []
    if options.get("direction", NO_DIRECTION) not in DIRECTIONS:
        problems.append("direction must be higher, lower or empty")
    for key in ("threshold", "tolerance"):
        if options.get(key) is not None and not _finite(options[key]):
            problems.append(f"{key} must be a number")
    if _finite(options.get("tolerance")) and float(options["tolerance"]) < 0:
        problems.append("tolerance must be 0 or more")
    return problems


def threshold_problem(prop: str, criterion: Criterion, threshold: float | None) -> str:
    """Why a threshold cannot be this property's ("" when it can): a value outside the property's
    range would make every value pass, or every value fail."""
    if threshold is None or criterion.clip(threshold) == threshold:
        return ""
    return f"{threshold:g} is outside {prop}'s range ({criterion.describe_range()}): every value would pass or fail"


def _finite(number: Any) -> bool:
    return isinstance(number, int | float) and not isinstance(number, bool) and math.isfinite(number)


# --- not applicable --------------------------------------------------------------------------
# A value the property does not apply to has its own status, no number, no label, and its reason
# in details["not_applicable"] (scoring.store_values).


def is_not_applicable(value: PropertyValue | None) -> bool:
    return value is not None and value.status == NOT_APPLICABLE


def not_applicable_reason(value: PropertyValue) -> str:
    return reason_in(value.details)


def reason_in(details: dict | None) -> str:
    """Why a value is not applicable, from its details (exports read the details alone)."""
    return str((details or {}).get("not_applicable") or "the property does not apply here")


def not_applicable_q() -> Q:
    """Not applicable values, as a filter on PropertyValue."""
    return Q(status=NOT_APPLICABLE)


def verdict(value: PropertyValue | None, criterion: Criterion) -> str:
    """One stored value judged: pass, fail, n/a, error, or empty (no value, or nothing to judge)."""
    if value is None:
        return ""
    if value.status == "error":
        return "error"
    if is_not_applicable(value):
        return "n/a"
    passed = criterion.passes(value.value)
    return "" if passed is None else ("pass" if passed else "fail")
