"""Evidence spans turned into segments of text that a template renders, escaped, with marks.

Highlights are built from character offsets on the original text; each segment is escaped by
the template like any other text, so no uploaded character ever becomes markup.

Each span is of a *kind* that says what it is in words ("ungrounded statement", "covered topic")
and has a tone: problems in warm colours, darker the worse; support (a passage that backs the
output, a relevant chunk, a covered topic) in cool colours, darker the stronger; neutral marks in
grey. Kinds come from the property and the span's label and note, which the scorers write.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from properties.quality.criteria import Criterion

PROBLEM, SUPPORT, NEUTRAL = "problem", "support", "neutral"
TONES = {
    PROBLEM: "Problem: warm, darker the worse",
    SUPPORT: "Support: cool, darker the stronger",
    NEUTRAL: "Neutral: grey, for reference",
}
# Coverage and Summarization notes give each topic's salience as a "weight".
SALIENCE = re.compile(r"\bweight (\d+(?:\.\d+)?)")
SALIENCE_WORDS = "how much the topic counts: named entities 2, figures 1, more for each mention and in the lead"


@dataclass(frozen=True)
class Kind:
    name: str
    tone: str
    # What the span's score measures, in words ("support probability"); "" when it has none.
    score_name: str = ""
    # Strength of the span from its score, 0 to 1: how bad a problem, how strong a support.
    strength: Callable[[float], float] = field(default=lambda score: score)
    # The level of a span without a score.
    unscored_level: int = 2


def _inverse(score: float) -> float:
    return 1.0 - score


def _salience(weight: float) -> float:
    return min(1.0, weight / 3.0)


UNGROUNDED = Kind("ungrounded statement", PROBLEM, "support probability", _inverse)
CLOSEST_PASSAGE = Kind("closest passage", SUPPORT, "support probability")
MISSED_TOPIC = Kind("missed topic", PROBLEM, "salience", _salience)
COVERED_TOPIC = Kind("covered topic", SUPPORT, "salience", _salience)
MISSED_KEY_SENTENCE = Kind("missed key sentence", PROBLEM, "best similarity", _inverse)
KEPT_KEY_SENTENCE = Kind("kept key sentence", SUPPORT, "similarity")
MISSED_ENTITY = Kind("missed entity", PROBLEM, "weight", _salience)
KEPT_ENTITY = Kind("kept entity", SUPPORT, "weight", _salience)
PII = Kind("personal data", PROBLEM, "risk")
TOXIC = Kind("toxic sentence", PROBLEM, "toxicity")
REFUSAL = Kind("refusal", PROBLEM, "refusal probability")
BAD_LINK = Kind("bad link", PROBLEM, "", lambda score: 1.0, unscored_level=3)
WORKING_LINK = Kind("working link", SUPPORT, "", lambda score: 0.5)
UNCHECKED_LINK = Kind("link not checked", NEUTRAL)
LOW_INFORMATION = Kind("low-information sentence", PROBLEM, "information", _inverse)
RELEVANT_CHUNK = Kind("relevant chunk", SUPPORT, "relevance")
IRRELEVANT_CHUNK = Kind("not relevant chunk", PROBLEM, "relevance", _inverse)
ANSWERING_SENTENCE = Kind("answering sentence", SUPPORT, "relevance")
FAR_FROM_REFERENCE = Kind("far from the expected output", PROBLEM, "similarity", _inverse)
CLOSE_TO_REFERENCE = Kind("close to the expected output", SUPPORT, "similarity")
NOT_FLUENT = Kind("not fluent sentence", PROBLEM, "fluency", _inverse)
# Formality has no pass or fail: an informal sentence is a reading, not a problem.
INFORMAL = Kind("informal sentence", NEUTRAL, "formality")
FORMAT_ERROR = Kind("format error", PROBLEM, "", lambda score: 1.0, unscored_level=3)
OTHER = Kind("evidence", NEUTRAL, "score")
# What the same spans are on the passing side of the project's threshold (see `JUDGED`).
SUPPORTED_STATEMENT = Kind("supported statement", SUPPORT, "support probability")
PASSAGE_NOT_SUPPORTING = Kind("closest passage, not supporting", NEUTRAL, "support probability")
MOST_TOXIC = Kind("most toxic sentence, under the threshold", NEUTRAL, "toxicity")
CLOSEST_TO_REFUSAL = Kind("closest to a refusal, under the threshold", NEUTRAL, "refusal probability")
LOW_RISK_PII = Kind("personal data, under the threshold", NEUTRAL, "risk")
LEAST_INFORMATIVE = Kind("least informative sentence, over the threshold", NEUTRAL, "information")
LEAST_FLUENT = Kind("least fluent sentence, over the threshold", NEUTRAL, "fluency")
NOT_ADDRESSING = Kind("closest sentence, does not address the input", PROBLEM, "relevance", _inverse)
HARD_SENTENCE = Kind("hard sentence", PROBLEM, "reading ease", lambda ease: min(1.0, max(0.0, (60.0 - ease) / 60.0)))
EASY_ENOUGH_SENTENCE = Kind("sentence, over the threshold", NEUTRAL, "reading ease")
PAST_HALF_THE_SOURCE = Kind("past half the source's length", PROBLEM)
OUTPUT_TOO_LONG = Kind(
    "output too long for its input", PROBLEM, "compression ratio", lambda ratio: min(1.0, max(0.0, 1.0 - ratio))
)
OUTPUT_SHORT_ENOUGH = Kind("output, short enough", NEUTRAL, "compression ratio")

# Kinds whose score is on the property's own scale (a statement's support probability, a sentence's
# toxicity): a scorer writes them at its own threshold, and a project may set another. With the
# project's rule, a span is shown as (failing kind, passing kind) by the side of that rule its score
# is on, so its colour and words always point the same way as the value's verdict.
JUDGED: dict[str, tuple[Kind, Kind]] = {}
for _pair in (
    (UNGROUNDED, SUPPORTED_STATEMENT),
    (PASSAGE_NOT_SUPPORTING, CLOSEST_PASSAGE),
    (TOXIC, MOST_TOXIC),
    (REFUSAL, CLOSEST_TO_REFUSAL),
    (PII, LOW_RISK_PII),
    (LOW_INFORMATION, LEAST_INFORMATIVE),
    (NOT_FLUENT, LEAST_FLUENT),
    (NOT_ADDRESSING, ANSWERING_SENTENCE),
    (IRRELEVANT_CHUNK, RELEVANT_CHUNK),
    (FAR_FROM_REFERENCE, CLOSE_TO_REFERENCE),
    (HARD_SENTENCE, EASY_ENOUGH_SENTENCE),
    (OUTPUT_TOO_LONG, OUTPUT_SHORT_ENOUGH),
):
    for _kind in _pair:
        JUDGED[_kind.name] = _pair
# Judged kinds whose span label is a verdict ("ungrounded"), not what the span is (a PII type).
LABEL_IS_A_VERDICT = frozenset(JUDGED) - {PII.name, LOW_RISK_PII.name}


def kind_of(prop: str, span: dict[str, Any]) -> Kind:
    """What a span is, from its property and the label and note its scorer wrote."""
    label, note = str(span.get("label") or ""), str(span.get("note") or "")
    name = prop.removeprefix("llm_")
    if name in ("grounded_in_context", "hallucination_free"):
        if label in ("ungrounded", "supported"):
            return UNGROUNDED if label == "ungrounded" else SUPPORTED_STATEMENT
        return CLOSEST_PASSAGE
    if name in ("coverage", "summarization"):
        if label == "length":
            return PAST_HALF_THE_SOURCE
        if label == "key sentence":
            return MISSED_KEY_SENTENCE if note.startswith("key sentence missed") else KEPT_KEY_SENTENCE
        return MISSED_TOPIC if note.startswith("missed") else COVERED_TOPIC
    if name == "context_entity_recall":
        return MISSED_ENTITY if note.startswith("missed") else KEPT_ENTITY
    if name == "pii_risk":
        return PII
    if name in ("toxicity", "moderation", "openai_moderation"):
        return TOXIC
    if name == "avoided_answer":
        return REFUSAL
    if name == "invalid_links":
        return WORKING_LINK if label == "ok" else UNCHECKED_LINK if label == "not checked" else BAD_LINK
    if name == "information_density":
        return LOW_INFORMATION
    if name in ("retrieval_relevance", "context_relevancy"):
        return RELEVANT_CHUNK if label == "relevant chunk" else IRRELEVANT_CHUNK
    if name == "relevance":
        return ANSWERING_SENTENCE if label == "addresses the input" else NOT_ADDRESSING
    if name in ("valid_json", "valid_xml", "schema"):
        return FORMAT_ERROR
    if name == "fluency":
        return NOT_FLUENT
    if name == "reading_ease":
        return HARD_SENTENCE
    if name == "embedding_similarity":
        return FAR_FROM_REFERENCE
    if name == "compression_ratio":
        return OUTPUT_TOO_LONG
    if name == "formality":
        return INFORMAL
    return OTHER


@dataclass(frozen=True)
class Evidence:
    """One span as the page shows it: numbered, with its kind, level and words."""

    number: int
    span: dict[str, Any]
    kind: Kind
    prop: str

    @property
    def level(self) -> int:
        """1 to 3: how dark its colour is."""
        if self.kind.tone == NEUTRAL:
            return 1
        score = self.span.get("score")
        if not isinstance(score, int | float):
            return self.kind.unscored_level
        strength = self.kind.strength(float(score))
        return 3 if strength >= 2 / 3 else 2 if strength >= 1 / 3 else 1

    @property
    def label(self) -> str:
        """The span's own label where it says more than its kind (a PII type, a topic, a status)."""
        label = str(self.span.get("label") or "")
        if self.kind.name in LABEL_IS_A_VERDICT:
            return ""  # written at the scorer's threshold; the kind says it at the project's
        return "" if label in self.kind.name or label == "ok" else label

    @property
    def score_text(self) -> str:
        score = self.span.get("score")
        if not isinstance(score, int | float) or not self.kind.score_name:
            return ""
        return f"{self.kind.score_name} {float(score):.2f}"

    @property
    def note(self) -> str:
        note = str(self.span.get("note") or "")
        if self.prop.removeprefix("llm_") in ("coverage", "summarization"):
            note = SALIENCE.sub(r"salience \1", note)
        return note

    @property
    def field(self) -> str:
        return str(self.span.get("field", "output"))

    @property
    def title(self) -> str:
        """The written description: kind, label, score and note (tooltip and screen readers)."""
        parts = [self.kind.name + (f" “{self.label}”" if self.label else ""), self.score_text, self.note]
        return " · ".join(part for part in parts if part)

    @property
    def css(self) -> str:
        return f"ev-{self.kind.tone} ev-{self.kind.tone}-{self.level}"


def judged_kind(prop: str, span: dict[str, Any], criterion: Criterion | None = None) -> Kind:
    """The span's kind under the project's pass/fail rule: a kind of `JUDGED` with a score is the
    failing or the passing one of its pair by the side its score is on; others are as written."""
    kind = kind_of(prop, span)
    score = span.get("score")
    if criterion is None or not criterion.judges or kind.name not in JUDGED or not isinstance(score, int | float):
        return kind
    failing, passing = JUDGED[kind.name]
    return passing if criterion.passes(float(score)) else failing


def evidence_of(prop: str, spans: list[dict[str, Any]], criterion: Criterion | None = None) -> list[Evidence]:
    """The property's spans in reading order (field, then offset), numbered from 1, each of its kind
    under `criterion` (the project's pass/fail rule for the property) when one is given."""
    ordered = sorted(spans, key=lambda s: (_field_order(str(s.get("field", ""))), int(s.get("start", 0))))
    return [
        Evidence(number, span, judged_kind(prop, span, criterion), prop) for number, span in enumerate(ordered, start=1)
    ]


def _field_order(name: str) -> tuple[int, int]:
    order = {"input": 0, "full_prompt": 2, "history": 3, "output": 4, "expected_output": 5}
    if name.startswith("information_retrieval["):
        return 1, int(name[len("information_retrieval[") : -1] or 0)
    return order.get(name, 6), 0


@dataclass(frozen=True)
class Segment:
    text: str
    evidence: Evidence | None = None

    @property
    def span(self) -> dict[str, Any] | None:
        return self.evidence.span if self.evidence else None

    @property
    def title(self) -> str:
        """What hovering a highlight shows: what it is, its score and note."""
        return self.evidence.title if self.evidence else ""


def segments(text: str, evidence: list[Evidence]) -> list[Segment]:
    """Split text at the spans' offsets; overlapping spans are clipped to the earlier one."""
    result: list[Segment] = []
    position = 0
    ordered = sorted(evidence, key=lambda e: (int(e.span.get("start", 0)), -int(e.span.get("end", 0))))
    for item in ordered:
        start = max(int(item.span.get("start", 0)), position)
        end = min(int(item.span.get("end", 0)), len(text))
        if start >= end:
            continue
        if start > position:
            result.append(Segment(text[position:start]))
        result.append(Segment(text[start:end], item))
        position = end
    if position < len(text) or not result:
        result.append(Segment(text[position:]))
    return result


def by_field(evidence: list[Evidence]) -> dict[str, list[Evidence]]:
    grouped: dict[str, list[Evidence]] = {}
    for item in evidence:
        grouped.setdefault(item.field, []).append(item)
    return grouped


def legend(evidence: list[Evidence]) -> list[tuple[str, str, list[str]]]:
    """(tone, what the tone means, kinds of this property's spans in that tone) for the legend."""
    kinds: dict[str, list[str]] = {tone: [] for tone in TONES}
    for item in evidence:
        if item.kind.name not in kinds[item.kind.tone]:
            kinds[item.kind.tone].append(item.kind.name)
    # Only the tones present: a legend naming kinds the property never marks reads as missing evidence.
    return [(tone, words, kinds[tone]) for tone, words in TONES.items() if kinds[tone]]
