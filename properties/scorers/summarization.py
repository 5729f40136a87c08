"""Summarization (Weave's SummarizationScorer, local): a grade of the output as a summary of its
source, poor / ok / excellent (0 / 0.5 / 1), with the summary's entity density beside it.

- Entity density, Weave's definition: unique entities of the summary / words of the summary
  (whitespace-split). Entities are what the LLM version asks a judge for, "named entities and key
  concepts": spaCy named entities, figures and noun-phrase heads. `is_entity_dense` when the
  density reaches Weave's 0.08.
- Quality, 0 to 1 = coverage x brevity x density factor, where
  - coverage: the Coverage property's value (main topics and key sentences of the source kept);
  - brevity: 1 while the summary is at most half as long as its source, falling linearly to 0 when
    it is as long: a text as long as its source does not summarise it;
  - density factor: 0.5 + 0.5 x min(1, density / 0.08): a summary thin in entities (filler,
    repetition) keeps half its credit at worst, so density shades the grade without deciding it.
- Grade: excellent when quality >= `EXCELLENT` (0.5: it keeps at least half of the source's
  weighted main content), poor below `POOR` (0.25: it keeps under a quarter), ok between.

The value is the grade's number, as in Weave; the continuous quality is in the details with the
reasoning spelled out (`llm_eval_reasoning`, the key Weave users read). Evidence: Coverage's topics
covered and missed, and the words past half the source's length when brevity costs the grade.
"""

from __future__ import annotations

import re
from typing import Any

from properties.scorers.base import Score, Scorer, Span
from properties.scorers.coverage import Assessment, Coverage
from properties.scorers.llm.judges import ENTITY_DENSITY_THRESHOLD, GRADES, LLMSummarization
from properties.scorers.llm.weave_routing import JudgedWhenModelNamed
from properties.scorers.registry import builtin

EXCELLENT = 0.5
POOR = 0.25
FULL_BREVITY_RATIO = 0.5
MAX_ENTITIES = 50


@builtin
class Summarization(Scorer, metaclass=JudgedWhenModelNamed):
    # With a model_id (or base_url) the LLM judge scores instead: see weave_routing.
    judge = LLMSummarization
    display_name = "Summarization"
    description = (
        "Weave's SummarizationScorer with local models: grades the output as a summary of the source, poor / ok "
        "/ excellent (0 / 0.5 / 1), from how much of the source's main content it keeps (Coverage), how much "
        "shorter it is and its entity density (entities per word; dense from 0.08)."
    )
    fields = ("output",)
    queue = "models"
    version = "1"
    threshold = 0.5

    def scored_in_streams(self) -> bool:
        return self.model is None  # the packaged ONNX models (see Scorer.scored_in_streams)

    def __init__(self, entity_density_threshold: float = ENTITY_DENSITY_THRESHOLD, model: str | None = None) -> None:
        self.entity_density_threshold = float(entity_density_threshold)
        self.model = model or None
        self._coverage = Coverage(model=self.model)

    @staticmethod
    def name() -> str:
        return "summarization"

    @staticmethod
    def requires_reference() -> bool:
        return False

    @staticmethod
    def categories() -> list[str] | None:
        return list(GRADES)

    def model_id(self) -> str:
        return self._coverage.model_id()

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        self._coverage.current_field = self.current_field
        assessments = self._coverage.assess(candidate_batch, input_text_batch, context_batch)
        return [self.to_score(a) if isinstance(a, Assessment) else a for a in assessments]

    def to_score(self, a: Assessment) -> Score:
        coverage = self._coverage.to_score(a)
        if not coverage.ok:
            return coverage
        entities = list(dict.fromkeys(a.output.text[m.start : m.end] for m in a.output.mentions))
        unique = {m.key for m in a.output.mentions}
        words = len(a.output.text.split())
        density = len(unique) / words if words else 0.0
        compression = words / max(a.source_words(), 1)
        brevity = min(1.0, max(0.0, (1.0 - compression) / (1.0 - FULL_BREVITY_RATIO)))
        density_factor = 0.5 + 0.5 * min(1.0, density / self.entity_density_threshold)
        quality = (coverage.value or 0.0) * brevity * density_factor
        grade = "excellent" if quality >= EXCELLENT else "poor" if quality < POOR else "ok"
        reasoning = (
            f"keeps {coverage.value:.0%} of the source's main content (coverage), is {compression:.0%} of its "
            f"length (brevity {brevity:.2f}), has {len(unique)} entities in {words} words (density {density:.3f}, "
            f"factor {density_factor:.2f}): quality {quality:.2f}, {grade} (excellent from {EXCELLENT}, poor "
            f"under {POOR})"
        )
        details = {
            "summarization_eval_score": GRADES[grade],
            "llm_eval_reasoning": reasoning,
            "entity_density": round(density, 4),
            "is_entity_dense": density >= self.entity_density_threshold,
            "entities": entities[:MAX_ENTITIES],
            "quality": round(quality, 4),
            "coverage": coverage.value,
            "compression": round(compression, 4),
            "brevity": round(brevity, 4),
            "covered_topics": coverage.details["covered_topics"],
            "missed_topics": coverage.details["missed_topics"],
        }
        spans = coverage.spans + _past_half(a.output.text, self.current_field, a.source_words(), brevity, compression)
        return Score(value=GRADES[grade], label=grade, spans=spans, details=details)


def _past_half(text: str, field: str, source_words: int, brevity: float, compression: float) -> list[Span]:
    """The summary's words past half its source's length, where they cost it brevity."""
    if brevity >= 1.0:
        return []
    allowed = int(FULL_BREVITY_RATIO * source_words)
    words = list(re.finditer(r"\S+", text))
    if allowed >= len(words):
        return []
    note = (
        f"the summary is {compression:.0%} of its source's length: brevity {brevity:.2f} (1 up to half, 0 at all of it)"
    )
    return [Span(field, words[allowed].start(), len(text.rstrip()), "length", None, note)]
