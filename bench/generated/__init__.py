"""Generated behaviour suites: cases no fix was written for, split by template.

Each model-backed property has a module here with CheckList-style templates (Ribeiro et al., ACL
2020). A template is a function that draws its slots from a seeded `Lexicon` (people, organisations,
places, products, figures, identifiers, in several locales) and returns one case in the format of
the hand-written suites (`evalsite/sdk/behavior.py`): an interaction, a kind (MFT, INV, DIR), its
expectations and, for INV and DIR, a variant made by a perturbation. Each template is filled
`fills` times, each fill with its own seed, so the cases are the same on every run.

The split is by template, never by case: the templates of a property are ranked by a SHA-256 hash
of their ids and the first third (rounded up) are *held out*. A change to a scorer, its training
rows or its calibration may be tuned on the development templates only; the held-out ones measure
whether the change carries to cases nobody looked at. `python -m bench.behavior --generated` prints
the two pass rates apart, and the failing cases of the development templates only.

    from bench.generated import build
    generated = build("relevance")
    generated.suite.cases, generated.group_of(case)
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.generated.lexicon import Lexicon
from evalsite.sdk.behavior import Case, EvidenceRule, Suite, _case

DEVELOPMENT = "development"
HELD_OUT = "held-out"
# Properties with generated suites, each a module of this package.
PROPERTIES = (
    "relevance",
    "grounded_in_context",
    "pii_risk",
    "toxicity",
    "avoided_answer",
    "information_density",
    "fluency",
    "formality",
)
MIN_CASES = 300


@dataclass(frozen=True)
class Template:
    id: str
    make: Callable[[Lexicon], dict[str, Any]]
    fills: int
    about: str


@dataclass
class Templates:
    """The templates of one property, in the order they are written."""

    property_name: str
    config: dict[str, Any] = field(default_factory=dict)
    evidence: dict[str, Any] | None = None
    scored_field: str = ""  # input or output, for properties scored per field
    templates: list[Template] = field(default_factory=list)

    def add(self, template_id: str, fills: int = 30, about: str = "") -> Callable:
        def register(make: Callable[[Lexicon], dict[str, Any]]) -> Callable[[Lexicon], dict[str, Any]]:
            if any(template.id == template_id for template in self.templates):
                raise ValueError(f"{self.property_name}: template {template_id!r} is defined twice")
            self.templates.append(Template(template_id, make, fills, about or (make.__doc__ or "").strip()))
            return make

        return register

    def filled(self, key: Callable[[dict[str, Any]], str]) -> Iterator[tuple[Template, str, dict[str, Any]]]:
        """Every template filled `fills` times from seeded lexicons, those with a `key` already seen
        dropped: (template, id `template#k`, what it made). The same on every run."""
        for template in self.templates:
            seen: set[str] = set()
            attempt = 0
            while len(seen) < template.fills and attempt < template.fills * 4:
                seed = _digest(f"{self.property_name}/{template.id}/{attempt}")
                attempt += 1
                raw = template.make(Lexicon(seed))
                if key(raw) in seen:
                    continue
                seen.add(key(raw))
                yield template, f"{template.id}#{len(seen)}", raw

    def held_out(self) -> frozenset[str]:
        ranked = sorted(self.templates, key=lambda template: _digest(f"{self.property_name}/{template.id}"))
        count = (len(ranked) + 2) // 3  # a third, rounded up
        return frozenset(template.id for template in ranked[:count])


@dataclass(frozen=True)
class GeneratedSuite:
    suite: Suite
    held_out: frozenset[str]

    @staticmethod
    def template_of(case: Case) -> str:
        return case.id.rsplit("#", 1)[0]

    def group_of(self, case: Case) -> str:
        return HELD_OUT if self.template_of(case) in self.held_out else DEVELOPMENT


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def templates_of(property_name: str) -> Templates:
    module = importlib.import_module(f"bench.generated.{property_name}")
    return module.templates


def build(property_name: str) -> GeneratedSuite:
    """The property's generated suite: every template filled, duplicates dropped, ids `template#k`."""
    templates = templates_of(property_name)
    cases: list[Case] = []
    for template, case_id, raw in templates.filled(
        lambda raw: repr((raw.get("interaction"), raw.get("variant"), raw.get("field")))
    ):
        raw = {"about": template.about, **raw, "id": case_id}
        cases.append(_case(raw, templates.scored_field, f"{property_name} template {template.id}"))
    evidence = templates.evidence
    rule = EvidenceRule(evidence["side"], float(evidence["threshold"])) if evidence else None
    path = Path(__file__).with_name(f"{property_name}.py")
    suite = Suite(property_name, path, cases, dict(templates.config), rule)
    return GeneratedSuite(suite, templates.held_out())
