"""Each property's report card: what it measures, its range and direction, its model, and how well it
is measured, read from properties/quality/report_card.json.

The benches write the file (`python -m bench.behavior --write`, `python -m bench.quality --write`)
and the repository keeps it, so that every server shows the figures measured on the code it runs.
A property the file has nothing for is "not measured".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from properties.quality import criteria
from properties.scorers import registry

PATH = Path(__file__).resolve().parent / "report_card.json"
# {path: (modification time, contents)}
_loaded: dict[Path, tuple[float, dict[str, Any]]] = {}


def load(path: Path | None = None) -> dict[str, Any]:
    """The file's contents, read again only when it changed."""
    path = path or PATH
    try:
        mtime = path.stat().st_mtime
    except FileNotFoundError:
        return {}
    if path not in _loaded or _loaded[path][0] != mtime:
        _loaded[path] = (mtime, json.loads(path.read_text()))
    return _loaded[path][1]


@dataclass(frozen=True)
class Behaviour:
    passed: int
    cases: int
    measured_at: str
    # The model the suite was run with (its model_id): the packaged default's, for model properties.
    model: str = ""

    @property
    def rate(self) -> float:
        return self.passed / self.cases if self.cases else 0.0


@dataclass(frozen=True)
class Generated:
    """The generated suite's pass counts (bench/generated/), on the development templates and on the
    held-out ones that no change was tuned on."""

    development_passed: int
    development_cases: int
    held_out_passed: int
    held_out_cases: int
    measured_at: str

    @property
    def development_rate(self) -> float:
        return self.development_passed / self.development_cases if self.development_cases else 0.0

    @property
    def held_out_rate(self) -> float:
        return self.held_out_passed / self.held_out_cases if self.held_out_cases else 0.0


@dataclass(frozen=True)
class Quality:
    file: str
    rows: int
    roc_auc: float
    balanced_accuracy: float
    threshold: float
    target: float | None
    model: str
    measured_at: str

    @property
    def met(self) -> bool | None:
        return None if self.target is None else self.roc_auc >= self.target


@dataclass(frozen=True)
class Card:
    name: str
    display_name: str
    description: str
    fields: tuple[str, ...]
    queue: str
    criterion: criteria.Criterion
    behaviour: Behaviour | None = None
    quality: list[Quality] = field(default_factory=list)
    generated: Generated | None = None

    @property
    def measured(self) -> bool:
        return self.behaviour is not None or bool(self.quality) or self.generated is not None

    @property
    def measured_model(self) -> str:
        """The packaged default model the figures were measured with, where a bench recorded it."""
        if self.behaviour is not None and self.behaviour.model:
            return self.behaviour.model
        return next((row.model for row in self.quality if row.model), "")

    @property
    def model_kind(self) -> str:
        return {"cpu": "no model (rules and libraries)", "models": "a local model", "llm": "an LLM judge"}.get(
            self.queue, self.queue
        )


def card_for(prop: str, criterion: criteria.Criterion | None = None) -> Card:
    entry = load().get("properties", {}).get(prop, {})
    try:
        cls = registry.get(prop)
        about = (registry.display_name(cls), cls.description, tuple(cls.fields), cls.queue)
    except registry.RegistryError:
        about = (prop, "", ("interaction",), "llm" if prop.startswith("prompt_") else "cpu")
    behaviour = Behaviour(**entry["behaviour"]) if entry.get("behaviour") else None
    quality = [Quality(**row) for row in entry.get("quality", [])]
    generated = Generated(**entry["generated"]) if entry.get("generated") else None
    return Card(prop, *about, criterion or criteria.default_for(prop), behaviour, quality, generated)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")


def write_behaviour(
    results: dict[str, tuple[int, int]], path: Path | None = None, models: dict[str, str] | None = None
) -> None:
    """Record behaviour-suite pass counts {property: (passed, cases)}, and for model properties the
    model they were measured with ({property: model_id}); other figures are kept."""
    path = path or PATH
    data = json.loads(path.read_text()) if path.exists() else {}
    properties = data.setdefault("properties", {})
    for prop, (passed, cases) in sorted(results.items()):
        entry: dict[str, Any] = {"passed": passed, "cases": cases, "measured_at": _now()}
        if (models or {}).get(prop):
            entry["model"] = (models or {})[prop]
        properties.setdefault(prop, {})["behaviour"] = entry
    _write(data, path)


def write_generated(results: dict[str, dict[str, tuple[int, int]]], path: Path | None = None) -> None:
    """Record generated-suite pass counts {property: {"development": (passed, cases), "held-out": ...}}."""
    path = path or PATH
    data = json.loads(path.read_text()) if path.exists() else {}
    properties = data.setdefault("properties", {})
    for prop, groups in sorted(results.items()):
        (dev_passed, dev_cases), (held_passed, held_cases) = groups["development"], groups["held-out"]
        properties.setdefault(prop, {})["generated"] = {
            "development_passed": dev_passed,
            "development_cases": dev_cases,
            "held_out_passed": held_passed,
            "held_out_cases": held_cases,
            "measured_at": _now(),
        }
    _write(data, path)


def write_quality(results: list[dict[str, Any]], path: Path | None = None) -> None:
    """Record bench.quality rows; a property's rows for a file replace its earlier ones for that file."""
    path = path or PATH
    data = json.loads(path.read_text()) if path.exists() else {}
    properties = data.setdefault("properties", {})
    for row in results:
        rows = properties.setdefault(row["property"], {}).setdefault("quality", [])
        rows[:] = [old for old in rows if old["file"] != row["file"]]
        rows.append(
            {
                "file": row["file"],
                "rows": row["rows"],
                "roc_auc": round(row["roc_auc"], 4),
                "balanced_accuracy": round(row["balanced_accuracy"], 4),
                "threshold": row["threshold"],
                "target": row["target"],
                "model": row["model"],
                "measured_at": _now(),
            }
        )
        rows.sort(key=lambda old: old["file"])
    _write(data, path)


def _write(data: dict[str, Any], path: Path) -> None:
    about = (
        "Written by `python -m bench.behavior --write`, `python -m bench.behavior --generated --write` and "
        "`python -m bench.quality --write`; "
        "the property pages read it (properties/quality/report_card.py)."
    )
    ordered = {"about": about, "properties": dict(sorted(data.get("properties", {}).items()))}
    path.write_text(json.dumps(ordered, indent=2, ensure_ascii=False) + "\n")
