"""Behaviour suites: the cases a user checks before trusting a property, in the manner of CheckList
(Ribeiro et al., "Beyond Accuracy: Behavioral Testing of NLP Models", ACL 2020).

A suite is a YAML file of cases for one property. Each case is an interaction plus an expectation,
of one of three kinds:

- ``MFT`` (minimum functionality): a clear case, with bounds on the value (``min``, ``max``), the
  label (``label``), "not applicable" (``not_applicable: true``), or spans that must explain the
  value (``spans``: each a ``label`` and text the span must ``contain``, optionally its ``field``
  and words its ``note_contains``; ``best_span``: the highest-scored span of a label must contain
  a text; ``no_spans_labelled``: labels no span may have);
- ``INV`` (invariance): a ``variant`` of the interaction (the fields it changes) whose value must
  stay within ``tolerance`` of the original's;
- ``DIR`` (directional): a ``variant`` whose value must move ``up`` or ``down`` (by at least ``by``),
  and may have to cross a bound (``variant_max``, ``variant_min``).

The file names the ``property`` and may give ``config`` (the scorer's options) and a ``field`` (for
properties scored per field: ``input`` or ``output``); a case may override ``field``. ``evidence``
(``{side: below, threshold: 0.5}`` or ``side: at_or_above``) says on which side of its threshold a
value must be explained by spans: every value there, in any case or variant, must come with at least
one span, or the case fails.

``cases_from: other.yaml`` borrows another suite's cases (the same behaviours, judged by another
scorer of the same property: an LLM judge borrows the local scorer's), keeping only the
expectations on values (bounds, labels, invariance and direction): spans and "not applicable" are
the local scorer's own. The file's ``cases``, if any, follow the borrowed ones.

Properties judged by an LLM (the ``llm`` queue) need a judge model, which is the operator's to name,
never a suite's: ``EVALSITE_BEHAVIOR_JUDGE`` holds JSON options per property, ``"*"`` for the rest
(``{"*": {"model_id": "openai/gpt-4o-mini"}, "llm_embedding_similarity": {"model_id":
"openai/text-embedding-3-small"}}``), merged into the suite's ``config``. Without it such a suite is
not run, and says why. Every case
of a file is scored in one batch. ``python -m bench.behavior`` prints the pass rate of every suite;
the test suite fails when a property passes less than 95% of its cases.

This module is plain Python: users can write suites for their own scorers and run them the same way.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from properties.scorers import registry
from properties.scorers.base import Score, Scorer, Span, as_score, full_context

KINDS = ("MFT", "INV", "DIR")
INTERACTION_FIELDS = ("input", "information_retrieval", "full_prompt", "history", "output", "expected_output")
DEFAULT_TOLERANCE = 0.1
DEFAULT_STEP = 0.05
JUDGE_VARIABLE = "EVALSITE_BEHAVIOR_JUDGE"
# What a borrowed case keeps of its expectations (`cases_from`): those on the value alone.
VALUE_EXPECTATIONS = frozenset({"min", "max", "label", "tolerance", "direction", "by", "variant_min", "variant_max"})


class SuiteError(ValueError):
    """A suite file that does not follow the format; the message names the file and the case."""


@dataclass(frozen=True)
class Case:
    id: str
    kind: str
    interaction: dict[str, Any]
    expect: dict[str, Any]
    field: str
    variant: dict[str, Any] | None = None
    about: str = ""
    # A case users reported: the suite fails if it fails, whatever the pass rate.
    required: bool = False


@dataclass(frozen=True)
class Outcome:
    case: Case
    passed: bool
    reason: str
    value: float | None
    variant_value: float | None = None


@dataclass
class SuiteResult:
    property_name: str
    path: Path
    outcomes: list[Outcome] = field(default_factory=list)
    # Each case's score, and its variant's: (case id, True for the variant) -> Score.
    scores: dict[tuple[str, bool], Score] = field(default_factory=dict)

    @property
    def passed(self) -> int:
        return sum(outcome.passed for outcome in self.outcomes)

    @property
    def pass_rate(self) -> float:
        return self.passed / len(self.outcomes) if self.outcomes else 0.0

    def failures(self) -> list[Outcome]:
        return [outcome for outcome in self.outcomes if not outcome.passed]

    def by_kind(self) -> dict[str, tuple[int, int]]:
        """(passed, total) per kind of case."""
        counts = {kind: [0, 0] for kind in KINDS}
        for outcome in self.outcomes:
            counts[outcome.case.kind][0] += outcome.passed
            counts[outcome.case.kind][1] += 1
        return {kind: (passed, total) for kind, (passed, total) in counts.items() if total}


@dataclass(frozen=True)
class EvidenceRule:
    """Values on `side` of `threshold` must come with spans that explain them."""

    side: str
    threshold: float

    def needs_spans(self, score: Score) -> bool:
        if not score.ok or not score.applicable or score.value is None:
            return False
        return score.value < self.threshold if self.side == "below" else score.value >= self.threshold

    def problems(self, score: Score, what: str = "value") -> list[str]:
        if not self.needs_spans(score) or score.spans:
            return []
        side = "below" if self.side == "below" else "at or above"
        return [f"{what} {score.value:.3f} is {side} {self.threshold:g} but shows no evidence span"]


@dataclass(frozen=True)
class Suite:
    property_name: str
    path: Path
    cases: list[Case]
    config: dict[str, Any]
    evidence: EvidenceRule | None = None

    def scorer(self) -> Scorer:
        return registry.get(self.property_name).from_dict({**self.config, **(self.judge_options() or {})})

    def needs_judge(self) -> bool:
        return registry.get(self.property_name).queue == "llm"

    def judge_options(self) -> dict[str, Any] | None:
        """The operator's judge options for this property (`EVALSITE_BEHAVIOR_JUDGE`), if any."""
        if not self.needs_judge():
            return None
        raw = os.environ.get(JUDGE_VARIABLE, "").strip()
        if not raw:
            return None
        try:
            by_property = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise SuiteError(f"{JUDGE_VARIABLE} is not JSON: {exc}") from exc
        if not isinstance(by_property, dict):
            raise SuiteError(f'{JUDGE_VARIABLE} maps property names (or "*") to options')
        options = by_property.get(self.property_name, by_property.get("*"))
        return dict(options) if isinstance(options, dict) else None

    def unavailable(self) -> str | None:
        """Why the suite cannot run here, or None."""
        if self.needs_judge() and self.judge_options() is None:
            return (
                f"{self.property_name} is judged by an LLM: set {JUDGE_VARIABLE} to its judge's options as JSON "
                f'(for example {{"*": {{"model_id": "openai/gpt-4o-mini"}}}}) to run its suite'
            )
        return None


def load_suite(path: Path) -> Suite:
    data = yaml.safe_load(path.read_text())
    if not isinstance(data, dict) or "property" not in data:
        raise SuiteError(f"{path}: a suite is a mapping with `property` and a list of `cases`")
    if not isinstance(data.get("cases"), list) and not data.get("cases_from"):
        raise SuiteError(f"{path}: a suite is a mapping with `property` and a list of `cases`")
    default_field = data.get("field", "")
    cases, seen = [], set()
    for index, raw in enumerate(_borrowed(data, path) + list(data.get("cases") or [])):
        where = f"{path.name} case {index + 1} ({raw.get('id', '?') if isinstance(raw, dict) else '?'})"
        cases.append(_case(raw, default_field, where))
        if cases[-1].id in seen:
            raise SuiteError(f"{where}: the id is used twice")
        seen.add(cases[-1].id)
    return Suite(data["property"], path, cases, dict(data.get("config") or {}), _evidence_rule(data, path))


def _borrowed(data: dict[str, Any], path: Path) -> list[Any]:
    """The cases of `cases_from`, with their expectations on values only (see the module docstring)."""
    source = data.get("cases_from")
    if not source:
        return []
    other = path.parent / str(source)
    if not other.is_file() or other.resolve() == path.resolve():
        raise SuiteError(f"{path}: `cases_from` names {source!r}, which is not another suite in {path.parent}")
    lent = yaml.safe_load(other.read_text())
    borrowed = []
    for raw in lent.get("cases") or []:
        if not isinstance(raw, dict):
            continue
        expect = {key: value for key, value in (raw.get("expect") or {}).items() if key in VALUE_EXPECTATIONS}
        if raw.get("kind", "MFT") == "MFT" and not expect:
            continue  # a case about spans or "not applicable" only
        # The field each case was written for (its own, or its file's default) goes with it.
        where = {"field": raw.get("field", lent.get("field", ""))}
        borrowed.append({**raw, **where, "expect": expect, "required": False})
    return borrowed


def _evidence_rule(data: dict[str, Any], path: Path) -> EvidenceRule | None:
    raw = data.get("evidence")
    if raw is None:
        return None
    if not isinstance(raw, dict) or raw.get("side") not in ("below", "at_or_above"):
        raise SuiteError(f"{path}: `evidence` is {{side: below or at_or_above, threshold: a number}}")
    try:
        return EvidenceRule(raw["side"], float(raw["threshold"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise SuiteError(f"{path}: `evidence` needs a numeric `threshold`") from exc


def _case(raw: Any, default_field: str, where: str) -> Case:
    if not isinstance(raw, dict) or not raw.get("id") or not isinstance(raw.get("interaction"), dict):
        raise SuiteError(f"{where}: a case needs an `id` and an `interaction` mapping")
    kind = raw.get("kind", "MFT")
    if kind not in KINDS:
        raise SuiteError(f"{where}: kind must be one of {KINDS}, not {kind!r}")
    unknown = set(raw["interaction"]) - set(INTERACTION_FIELDS)
    if unknown:
        raise SuiteError(f"{where}: unknown interaction field(s) {sorted(unknown)}")
    if kind != "MFT" and not isinstance(raw.get("variant"), dict):
        raise SuiteError(f"{where}: an {kind} case needs a `variant` mapping of the fields it changes")
    return Case(
        id=str(raw["id"]),
        kind=kind,
        interaction=raw["interaction"],
        expect=dict(raw.get("expect") or {}),
        field=raw.get("field", default_field),
        variant=raw.get("variant"),
        about=raw.get("about", ""),
        required=bool(raw.get("required", False)),
    )


def score_interactions(scorer: Scorer, field_name: str, interactions: list[dict[str, Any]]) -> list[Score]:
    """Score interactions as the pipeline does: the field's text, the reference, the input, the context."""
    scorer.current_field = field_name  # type: ignore[attr-defined]
    candidates = [_field_text(interaction, field_name) for interaction in interactions]
    contexts = [_context(scorer, interaction) for interaction in interactions]
    raw = scorer.run_batch(
        candidates,
        [interaction.get("expected_output", "") for interaction in interactions],
        [interaction.get("input", "") for interaction in interactions],
        contexts,
    )
    return [as_score(result) for result in raw]


def _field_text(interaction: dict[str, Any], field_name: str) -> str:
    if field_name == "input":
        return interaction.get("input", "")
    return interaction.get("output", "")


def _context(scorer: Scorer, interaction: dict[str, Any]) -> Any:
    documents = interaction.get("information_retrieval", [])
    if scorer.uses_full_context:
        return full_context(documents, interaction.get("full_prompt", ""), interaction.get("history", ""))
    return documents


def run_suite(suite: Suite, scorer: Scorer | None = None) -> SuiteResult:
    scorer = scorer or suite.scorer()
    result = SuiteResult(suite.property_name, suite.path)
    by_field: dict[str, list[tuple[Case, dict[str, Any]]]] = {}
    for case in suite.cases:
        field_name = case.field or ("output" if "output" in scorer.fields else scorer.fields[0])
        by_field.setdefault(field_name, []).append((case, case.interaction))
        if case.variant is not None:
            by_field[field_name].append((case, {**case.interaction, **case.variant}))
    scores = result.scores
    for field_name, items in by_field.items():
        for (case, interaction), score in zip(
            items, score_interactions(scorer, field_name, [item for _, item in items]), strict=True
        ):
            scores[(case.id, interaction is not case.interaction)] = score
    for case in suite.cases:
        result.outcomes.append(check(case, scores[(case.id, False)], scores.get((case.id, True)), suite.evidence))
    return result


def check(case: Case, score: Score, variant: Score | None = None, evidence: EvidenceRule | None = None) -> Outcome:
    """Whether one case holds, and if not, why in words."""
    problems = _problems(case, score, variant)
    if evidence is not None:
        problems += evidence.problems(score)
        if variant is not None:
            problems += evidence.problems(variant, "the variant's value")
    value = score.value if score.ok else None
    variant_value = variant.value if variant is not None and variant.ok else None
    return Outcome(case, not problems, "; ".join(problems), value, variant_value)


def _problems(case: Case, score: Score, variant: Score | None) -> list[str]:
    expect = case.expect
    if not score.ok:
        return [f"error: {score.error}"]
    if variant is not None and not variant.ok:
        return [f"variant error: {variant.error}"]
    if expect.get("not_applicable"):
        return [] if not score.applicable else [f"expected not applicable, got {_show(score)}"]
    if not score.applicable:
        return [f"not applicable: {score.not_applicable_reason}"]
    if case.kind == "MFT":
        return _bounds(score, expect, "") + _label(score, expect) + _spans(score, expect, case.interaction)
    if variant is None or not variant.applicable or score.value is None or variant.value is None:
        return ["the case and its variant both need a value"]
    if case.kind == "INV":
        tolerance = expect.get("tolerance", DEFAULT_TOLERANCE)
        moved = abs(variant.value - score.value)
        return (
            []
            if moved <= tolerance
            else [f"moved {moved:.3f} > tolerance {tolerance}: {_show(score)} -> {_show(variant)}"]
        )
    return _direction(score, variant, expect)


def _bounds(score: Score, expect: dict[str, Any], prefix: str) -> list[str]:
    problems = []
    low, high = expect.get(f"{prefix}min"), expect.get(f"{prefix}max")
    if (low is not None or high is not None) and score.value is None:
        return [f"expected a value, got {_show(score)}"]
    if low is not None and score.value < low:
        problems.append(f"value {score.value:.3f} < min {low}")
    if high is not None and score.value > high:
        problems.append(f"value {score.value:.3f} > max {high}")
    return problems


def _label(score: Score, expect: dict[str, Any]) -> list[str]:
    if "label" in expect and score.label != expect["label"]:
        return [f"label {score.label!r} != {expect['label']!r}"]
    return []


def _spans(score: Score, expect: dict[str, Any], interaction: dict[str, Any]) -> list[str]:
    problems = []
    for wanted in expect.get("spans", []):
        if not any(_span_matches(span, wanted, interaction) for span in score.spans):
            shown = [(span.label, span_text(interaction, span)[:60]) for span in score.spans]
            problems.append(f"no span like {wanted}; spans: {shown}")
    for label in expect.get("no_spans_labelled", []):
        if any(span.label == label for span in score.spans):
            problems.append(f"a span is labelled {label!r}")
    best = expect.get("best_span")
    if best:
        labelled = [span for span in score.spans if "label" not in best or span.label == best["label"]]
        top = max(labelled, key=lambda span: span.score if span.score is not None else -1.0, default=None)
        if top is None or not _span_matches(top, best, interaction):
            shown = span_text(interaction, top)[:60] if top else None
            problems.append(f"the best span is not like {best}: {shown!r}")
    return problems


def _span_matches(span: Span, wanted: dict[str, Any], interaction: dict[str, Any]) -> bool:
    if "label" in wanted and span.label != wanted["label"]:
        return False
    if "field" in wanted and not span.field.startswith(wanted["field"]):
        return False
    if "note_contains" in wanted and wanted["note_contains"].lower() not in span.note.lower():
        return False
    return "contains" not in wanted or wanted["contains"].lower() in span_text(interaction, span).lower()


def span_text(interaction: dict[str, Any], span: Span) -> str:
    """The text a span covers: offsets into `output`, `input` or `information_retrieval[i]`."""
    if span.field.startswith("information_retrieval["):
        documents = interaction.get("information_retrieval") or []
        index = int(span.field[len("information_retrieval[") : -1])
        text = documents[index] if index < len(documents) else ""
        text = text if isinstance(text, str) else str(text)
    else:
        text = interaction.get(span.field) or ""
    return text[span.start : span.end]


def _direction(score: Score, variant: Score, expect: dict[str, Any]) -> list[str]:
    direction = expect.get("direction")
    if direction not in ("up", "down"):
        return ["a DIR case needs `direction: up` or `direction: down`"]
    step = expect.get("by", DEFAULT_STEP)
    moved = variant.value - score.value if direction == "up" else score.value - variant.value
    problems = [] if moved >= step else [f"expected {direction} by >= {step}: {_show(score)} -> {_show(variant)}"]
    return problems + _bounds(variant, expect, "variant_")


def _show(score: Score) -> str:
    if not score.ok:
        return f"error ({score.error})"
    if not score.applicable:
        return "n/a"
    return f"{score.value:.3f}" if score.value is not None else f"label {score.label!r}"


def suites_in(folder: Path) -> Iterable[Path]:
    return sorted(folder.glob("*.yaml"))
