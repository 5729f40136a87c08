"""Evidence that agrees with its verdict, as the Data Screen shows it, at the property's default
threshold and at a project threshold moved either way.

A scorer writes its spans once, at its own threshold; a project may judge the same value at another
(`Project.pass_criteria`), and the side panel colours each span by the project's rule
(`highlight.evidence_of`). What must hold for every value, at each threshold (`thresholds`):

- a value on the failing side has at least one span shown as a problem;
- a span whose score is on the property's scale (`highlight.JUDGED`) is shown as a problem exactly
  when its score fails the rule, and as support or for reference when it passes;
- a span's note does not say the opposite of how it is shown ("does not address" on a span shown as
  support);
- no difference is listed that both texts contain: a note "the documents say 11, 1969, the answer
  says 21" names no figure that the statement itself gives.

`python -m bench.evidence` runs this on every case of every behaviour suite, hand-written and
generated; tests/behavior/test_behavior.py on the hand-written ones.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from properties.quality.criteria import Criterion
from properties.scorers.base import Score
from properties.scorers.text.support import figures
from properties.screen import highlight
from properties.screen.highlight import JUDGED, PROBLEM, SUPPORT

# How far a project's threshold is moved from the default, either way, in units of the range.
SHIFT = 0.2
# Words a note must not hold on a span shown on the other side (these are the scorers' own verdicts).
FAILING_WORDS = ("not supported", "does not address", "nothing addresses", "no sentence addresses", "not fluent")
PASSING_WORDS = ("addresses the input", "is supported", "reads as answered")
_DOCUMENTS_SAY = re.compile(r"the documents say (?P<figures>.+?), the answer says")


def thresholds(criterion: Criterion) -> list[float]:
    """The default threshold, and it moved by SHIFT of the range either way, kept inside the range."""
    if not criterion.judges or criterion.threshold is None:
        return []
    width = (criterion.high - criterion.low) if criterion.low is not None and criterion.high is not None else 1.0
    found = [criterion.threshold]
    for moved in (criterion.threshold - SHIFT * width, criterion.threshold + SHIFT * width):
        if criterion.clip(moved) == moved:
            found.append(round(moved, 6))
    return found


def span_text(texts: Mapping[str, Any], span: Mapping[str, Any]) -> str:
    """The text a span covers, from the interaction's fields (`information_retrieval[i]` included)."""
    name = str(span.get("field", "output"))
    if name.startswith("information_retrieval["):
        documents = texts.get("information_retrieval") or []
        index = int(name[len("information_retrieval[") : -1] or 0)
        text = documents[index] if index < len(documents) else ""
    else:
        text = texts.get(name) or ""
    text = text if isinstance(text, str) else str(text)
    return text[int(span.get("start", 0)) : int(span.get("end", 0))]


def disagreements(prop: str, score: Score, criterion: Criterion, texts: Mapping[str, Any]) -> list[str]:
    """How the value's evidence disagrees with its verdict, in words, at each of `thresholds`."""
    if not score.ok or not score.applicable or score.value is None:
        return []
    spans = [span.to_dict() for span in score.spans]
    found: list[str] = []
    for threshold in thresholds(criterion):
        rule = replace(criterion, threshold=threshold)
        evidence = highlight.evidence_of(prop, spans, rule)
        at = f"at threshold {threshold:g}"
        if rule.passes(score.value) is False and not any(item.kind.tone == PROBLEM for item in evidence):
            shown = ", ".join(sorted({item.kind.name for item in evidence})) or "no spans"
            found.append(f"{at}: value {score.value:.3f} fails, and no span shows a problem ({shown})")
        for item in evidence:
            found += [f"{at}: {problem}" for problem in _span_problems(item, rule, texts)]
    return list(dict.fromkeys(found))


def _span_problems(item: highlight.Evidence, rule: Criterion, texts: Mapping[str, Any]) -> list[str]:
    problems = []
    score = item.span.get("score")
    words = f"{item.kind.name} ({item.score_text or 'no score'}) on “{span_text(texts, item.span)[:50]}”"
    judged = item.kind.name in JUDGED and isinstance(score, int | float)
    if judged and (item.kind is JUDGED[item.kind.name][0]) == bool(rule.passes(float(score))):
        problems.append(f"{words} is shown on the other side of the threshold from its own score")
    note = item.note.lower()
    if item.kind.tone == SUPPORT and any(word in note for word in FAILING_WORDS):
        problems.append(f"{words} is shown as support, but its note says “{item.note[:80]}”")
    if item.kind.tone == PROBLEM and any(word in note for word in PASSING_WORDS):
        problems.append(f"{words} is shown as a problem, but its note says “{item.note[:80]}”")
    said = _DOCUMENTS_SAY.search(item.note)
    if said and item.kind.tone == PROBLEM:
        given = figures(span_text(texts, item.span))
        both = [figure for figure in said.group("figures").split(", ") if figure in given]
        if both:
            problems.append(f"{words} lists as a difference {', '.join(both)}, which the statement also gives")
    return problems
