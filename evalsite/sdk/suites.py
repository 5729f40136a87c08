"""Arthur Bench's test suites, stored as Evalsite projects.

A suite is a project with a fixed list of inputs and references and fixed scorers; each
`suite.run(...)` is a run of that project, scored in this process through the same functions as
the workers (`scoring.compute_scores`, `scoring.store_values`), and opened in the Data Screen
like any other run.
"""

from __future__ import annotations

import csv
import json
import math
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse

from evalsite.sdk.bootstrap import ensure_database
from properties.models import Interaction, Membership, Project, Run, input_hash
from properties.models import TestSuite as StoredSuite
from properties.pipeline import scoring
from properties.scorers import registry
from properties.scorers.base import Score, Scorer

CONFIG_CHANGED = "scoring method configuration has changed from test suite creation."
HISTOGRAM_BINS = 10

ScoringMethod = Scorer | str | type[Scorer]


def resolve_scorers(scoring_method: ScoringMethod | list[ScoringMethod]) -> list[Scorer]:
    """Scorer instances from an instance, a class, a registered name, or a list of them."""
    items = scoring_method if isinstance(scoring_method, list | tuple) else [scoring_method]
    scorers = []
    for item in items:
        if isinstance(item, Scorer):
            scorers.append(item)
        elif isinstance(item, str):
            scorers.append(registry.get(item)())
        elif isinstance(item, type) and issubclass(item, Scorer):
            scorers.append(item())
        else:
            raise TypeError(f"a scoring method is a Scorer, a Scorer class or a registered name, not {item!r}")
    names = [scorer.name() for scorer in scorers]
    if not scorers or len(set(names)) != len(names):
        raise ValueError(f"give one or more scoring methods with distinct names, not {names}")
    return scorers


def _normalised(config: dict[str, Any]) -> Any:
    return json.loads(json.dumps(config, sort_keys=True, default=str))


def describe(scorer: Scorer) -> dict[str, Any]:
    return {"name": scorer.name(), "config": _normalised(scorer.to_dict())}


def _default_owner() -> Any:
    # The embedded app's first account (`demo` after `make run`), so that the suite shows up there.
    users = get_user_model().objects.filter(is_active=True)
    return users.filter(is_superuser=True).order_by("pk").first() or users.order_by("pk").first()


def _owner(owner: Any) -> Any:
    if owner is None:
        return _default_owner()
    if isinstance(owner, str):
        return get_user_model().objects.get(username=owner)
    return owner


def _read_table(path: str | Path) -> list[dict[str, Any]]:
    path = Path(path)
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    with path.open(newline="", encoding="utf-8-sig") as handle:
        return list(csv.DictReader(handle))


def _records(data: Any, path: str | Path | None) -> list[dict[str, Any]] | None:
    if path is not None:
        return _read_table(path)
    if data is None:
        return None
    # A pandas DataFrame, as Bench takes, or a list of dicts.
    return data.to_dict("records") if hasattr(data, "to_dict") else list(data)


def _column(records: list[dict[str, Any]], column: str, where: str) -> list[Any]:
    missing = [index for index, record in enumerate(records, start=1) if column not in record]
    if missing:
        raise ValueError(f"{where} has no column {column!r} (row {missing[0]})")
    return [record[column] for record in records]


def _cases(
    inputs: list[str] | None,
    references: list[str] | None,
    data: Any,
    path: Any,
    input_column: str,
    reference_column: str,
) -> list[dict[str, str]] | None:
    records = _records(data, path)
    if records is not None:
        inputs = _column(records, input_column, "the reference data")
        has_reference = records and reference_column in records[0]
        references = _column(records, reference_column, "the reference data") if has_reference else None
    if inputs is None:
        return None
    if references is not None and len(references) != len(inputs):
        raise ValueError(f"{len(inputs)} inputs but {len(references)} reference outputs")
    references = references if references is not None else [""] * len(inputs)
    return [
        {"id": str(index), "input": str(text), "reference": "" if ref is None else str(ref)}
        for index, (text, ref) in enumerate(zip(inputs, references, strict=True), start=1)
    ]


def summarize_scores(values: list[float | str | None], categorical: bool = False) -> dict[str, Any]:
    """Bench's run summary: the average and a histogram, or counts per category."""
    numbers = [float(v) for v in values if isinstance(v, int | float) and math.isfinite(v)]
    errors = sum(1 for v in values if v is None)
    if categorical or (not numbers and any(isinstance(v, str) for v in values)):
        labels = Counter(str(v) for v in values if v is not None)
        return {"count": len(values) - errors, "errors": errors, "categories": dict(sorted(labels.items()))}
    mean = sum(numbers) / len(numbers) if numbers else None
    return {"count": len(numbers), "errors": errors, "mean": mean, "histogram": build_histogram(numbers)}


def build_histogram(numbers: list[float], bins: int = HISTOGRAM_BINS) -> list[dict[str, float]]:
    if not numbers:
        return []
    low, high = min(numbers), max(numbers)
    if low >= 0 and high <= 1:
        low, high = 0.0, 1.0  # the usual score range: runs' histograms line up
    width = (high - low) / bins or 1.0
    counts = [0] * bins
    for number in numbers:
        counts[min(int((number - low) / width), bins - 1)] += 1
    return [{"low": low + i * width, "high": low + (i + 1) * width, "count": n} for i, n in enumerate(counts)]


def _result_field(scorer: Scorer) -> str:
    return next((name for name in ("output", "interaction") if name in scorer.fields), scorer.fields[0])


def _shown_value(score: Score, categorical: bool) -> float | str | None:
    if not score.ok:
        return None
    if categorical or score.value is None:
        return score.label
    return score.value


@dataclass
class SuiteRun:
    """A scored run of a suite: `scores` in input order, as Bench's run object has them.

    `errors` holds each item's error (None where it was scored), by scoring method; `failed`
    counts the items that have one."""

    name: str
    run: Run
    scores_by_property: dict[str, list[float | str | None]]
    errors: dict[str, list[str | None]]
    categorical: dict[str, bool] = field(default_factory=dict)

    @property
    def failed(self) -> int:
        return sum(error is not None for errors in self.errors.values() for error in errors)

    @property
    def scores(self) -> list[float | str | None] | dict[str, list[float | str | None]]:
        """One scoring method: its list of scores; several: a list per method name."""
        if len(self.scores_by_property) == 1:
            return next(iter(self.scores_by_property.values()))
        return self.scores_by_property

    @property
    def url(self) -> str:
        """The run's page in the dashboard (path only)."""
        return reverse("properties:run-detail", kwargs={"pk": self.run.pk})

    def summary(self) -> dict[str, dict[str, Any]]:
        return {
            name: summarize_scores(values, self.categorical.get(name, False))
            for name, values in self.scores_by_property.items()
        }


class TestSuite:
    """Create a suite, or load the one stored under `name` (Arthur Bench's TestSuite)."""

    __test__ = False  # not a pytest test class, whatever its name says

    def __init__(
        self,
        name: str,
        scoring_method: ScoringMethod | list[ScoringMethod] | None = None,
        input_text_list: list[str] | None = None,
        reference_output_list: list[str] | None = None,
        reference_data: Any = None,
        reference_data_path: str | Path | None = None,
        input_column: str = "input",
        reference_column: str = "reference_output",
        owner: Any = None,
        description: str = "",
    ) -> None:
        ensure_database()
        cases = _cases(
            input_text_list, reference_output_list, reference_data, reference_data_path, input_column, reference_column
        )
        scorers = resolve_scorers(scoring_method) if scoring_method is not None else None
        # One transaction: a suite refused by the checks below is not left half-created.
        with transaction.atomic():
            stored = StoredSuite.objects.select_related("project").filter(name=name).first()
            if stored is None:
                stored = self._create(name, cases, scorers, _owner(owner), description)
            elif cases is not None and cases != stored.cases:
                raise ValueError(f"test suite {name!r} already exists with other inputs or references")
            self.name = name
            self.stored = stored
            self.scorers = scorers if scorers is not None else self._stored_scorers()
            self._check_scorers()

    @staticmethod
    def _create(name: str, cases: Any, scorers: list[Scorer] | None, owner: Any, description: str) -> StoredSuite:
        if cases is None:
            raise ValueError(f"no test suite {name!r}: give input_text_list or reference_data_path to create it")
        if scorers is None:
            raise ValueError(f"give a scoring_method to create test suite {name!r}")
        if not cases:
            raise ValueError("a test suite needs at least one input")
        methods = [describe(scorer) for scorer in scorers]
        project = Project.objects.create(
            name=name,
            description=description or "Test suite",
            enabled_properties=[method["name"] for method in methods],
            property_config={method["name"]: method["config"] for method in methods},
        )
        if owner is not None:
            project.add_member(owner, Membership.Role.OWNER)
        return StoredSuite.objects.create(project=project, name=name, cases=cases, scoring_methods=methods)

    def _stored_scorers(self) -> list[Scorer]:
        try:
            return [registry.get(m["name"]).from_dict(m["config"]) for m in self.stored.scoring_methods]
        except registry.RegistryError as exc:
            raise ValueError(f"pass the suite's scoring_method: it is not a registered scorer ({exc})") from exc

    def _check_scorers(self) -> None:
        stored = {method["name"]: method["config"] for method in self.stored.scoring_methods}
        given = {scorer.name(): describe(scorer)["config"] for scorer in self.scorers}
        if set(given) != set(stored):
            raise ValueError(
                f"test suite {self.name!r} was created with scoring method {', '.join(stored)}, not {', '.join(given)}"
            )
        if any(given[name] != stored[name] for name in given):
            warnings.warn(CONFIG_CHANGED, UserWarning, stacklevel=3)
        for scorer in self.scorers:
            if scorer.requires_reference() and not any(case["reference"] for case in self.stored.cases):
                raise ValueError(f"scoring method {scorer.name()!r} requires reference outputs; the suite has none")

    @property
    def project(self) -> Project:
        return self.stored.project

    @property
    def input_texts(self) -> list[str]:
        return [case["input"] for case in self.stored.cases]

    def run(
        self,
        run_name: str,
        candidate_output_list: list[str] | None = None,
        candidate_data: Any = None,
        candidate_data_path: str | Path | None = None,
        candidate_column: str = "candidate_output",
        context_list: list[Any] | None = None,
        replace_existing: bool = False,
        continue_on_error: bool = False,
        **metadata: Any,
    ) -> SuiteRun:
        """Score candidate outputs, one per input in suite order, and store them as a run.

        A scorer that raises makes the run raise that exception and stores nothing, as in Bench.
        With `continue_on_error=True` each failing item is stored with its error (None in
        `scores`, the message in `errors`), the others are scored, and a warning says how many
        failed. Extra keyword arguments (model_name, prompt_template, ...) are kept in the run's
        metadata.
        """
        outputs = self._candidates(candidate_output_list, candidate_data, candidate_data_path, candidate_column)
        if context_list is not None and len(context_list) != len(outputs):
            raise ValueError(f"{len(context_list)} contexts for {len(outputs)} candidate outputs")
        run = self._new_run(run_name, replace_existing, metadata)
        try:
            interactions = self._store_interactions(run, outputs, context_list)
            result = self._score(run, interactions, raise_errors=not continue_on_error)
        except BaseException:
            # Bench keeps nothing of a run whose scorer raised; neither do we, so that the same
            # run name can be used again once the scorer is fixed.
            run.delete()
            raise
        if result.failed:
            warnings.warn(_failure_report(result, len(outputs)), UserWarning, stacklevel=2)
        return result

    def _candidates(self, outputs: Any, data: Any, path: Any, column: str) -> list[str]:
        records = _records(data, path)
        if records is not None:
            outputs = _column(records, column, "the candidate data")
        if outputs is None:
            raise ValueError("give candidate_output_list, candidate_data or candidate_data_path")
        if len(outputs) != len(self.stored.cases):
            raise ValueError(f"{len(outputs)} candidate outputs for the suite's {len(self.stored.cases)} inputs")
        return ["" if output is None else str(output) for output in outputs]

    def _new_run(self, run_name: str, replace_existing: bool, metadata: dict[str, Any]) -> Run:
        existing = self.project.runs.filter(name=run_name)
        if existing.exists():
            if not replace_existing:
                raise ValueError(f"test suite {self.name!r} already has a run named {run_name!r}")
            existing.delete()
        return Run.objects.create(project=self.project, name=run_name, metadata=_normalised(metadata))

    def _store_interactions(self, run: Run, outputs: list[str], contexts: list[Any] | None) -> list[Interaction]:
        rows = []
        for index, (case, output) in enumerate(zip(self.stored.cases, outputs, strict=True)):
            context = contexts[index] if contexts is not None else []
            interaction = Interaction(
                run=run,
                user_interaction_id=case["id"],
                input=case["input"],
                expected_output=case["reference"],
                output=output,
                information_retrieval=context if isinstance(context, list) else [str(context)],
            )
            interaction.input_hash = input_hash(interaction.input)  # bulk_create skips save()
            rows.append(interaction)
        Interaction.objects.bulk_create(rows)
        # Re-read in suite order: ids are what compute_scores keys its results on.
        by_id = {i.user_interaction_id: i for i in run.interactions.all()}
        return [by_id[case["id"]] for case in self.stored.cases]

    def _score(self, run: Run, interactions: list[Interaction], raise_errors: bool) -> SuiteRun:
        names = [scorer.name() for scorer in self.scorers]
        result = SuiteRun(run.name, run, {}, {})
        with scoring.in_process_job(run.pk, names) as tally:
            for scorer in self.scorers:
                setup = scoring.ScorerSetup(
                    scorer.name(), scorer, tuple(scorer.fields), scorer.queue, scorer.version_key(), scorer.model_id()
                )
                values = scoring.compute_scores(setup, interactions, raise_errors)
                scoring.store_values(run.pk, setup, values)
                tally.add(values)
                categorical = bool(scorer.is_categorical())
                shown = [values[(i.pk, _result_field(scorer))] for i in interactions]
                result.scores_by_property[scorer.name()] = [_shown_value(score, categorical) for score in shown]
                result.errors[scorer.name()] = [score.error for score in shown]
                result.categorical[scorer.name()] = categorical
        return result

    def runs(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Each stored run's summary, by run name: Bench's comparison of runs."""
        summaries = {}
        for run in self.project.runs.order_by("created_at", "pk"):
            summaries[run.name] = run_summary(run, {s.name(): bool(s.is_categorical()) for s in self.scorers})
        return summaries


def _failure_report(result: SuiteRun, count: int) -> str:
    parts = []
    for name, errors in result.errors.items():
        failed = [error for error in errors if error is not None]
        if failed:
            parts.append(f"{name}: {len(failed)} of {count} items failed (first: {failed[0]})")
    return f"run {result.name!r}: " + "; ".join(parts) + ". Their errors are in run.errors."


def run_summary(run: Run, categorical: dict[str, bool]) -> dict[str, dict[str, Any]]:
    summary = {}
    for name, is_categorical in categorical.items():
        rows = run.property_values.filter(property_name=name).order_by("interaction_id")
        fields = {row.field for row in rows}
        chosen = next((f for f in ("output", "interaction") if f in fields), next(iter(fields), "output"))
        values = [
            (row.label if is_categorical or row.value is None else row.value) if row.status == "ok" else None
            for row in rows
            if row.field == chosen
        ]
        summary[name] = summarize_scores(values, is_categorical)
    return summary
