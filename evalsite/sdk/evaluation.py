"""Weave's Evaluation: a dataset, scorers, and `await evaluation.evaluate(model)`.

The model is a function (an `@op` or not) or an object with `predict` (a `Model`), sync or async,
called once per row with the row's columns that match its parameter names, several rows at a time.
Scorers are Weave's scorer classes (`evalsite.scorers`), Evalsite scorers (instances, classes or
registered names) or Weave-style functions / objects with `score(output, ...)`. A `column_map`
attribute on a scorer maps its argument names to dataset columns. The summary has Weave's shape;
with `project=` (or after `evalsite.init(project_name)`), the rows and scores are also stored as a
run that opens in the Data Screen.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async
from django.db import connections
from django.utils import timezone

from evalsite.sdk.ops import current_project, op_name
from evalsite.sdk.weave_scorer import WeaveScorer
from properties.models import Interaction, Membership, Project, Run, input_hash
from properties.pipeline import scoring
from properties.scorers import registry
from properties.scorers.base import Score, Scorer, as_score
from properties.uploads.ingest import AUTO_MAPPING_NAMES

logger = logging.getLogger(__name__)

DEFAULT_CONCURRENCY = 8
# Which dataset column feeds an Evalsite scorer's arguments when its column_map names none.
_SCORER_COLUMNS = {
    "input": AUTO_MAPPING_NAMES["input"],
    "reference": AUTO_MAPPING_NAMES["expected_output"],
    "context": AUTO_MAPPING_NAMES["information_retrieval"],
}


def auto_summarize(values: list[Any]) -> dict[str, Any] | None:
    """Weave's summary: booleans as true_count / true_fraction, numbers as mean, dicts key by key."""
    present = [value for value in values if value is not None]
    if not present:
        return None
    if all(isinstance(value, bool) for value in present):
        true_count = sum(present)
        return {"true_count": true_count, "true_fraction": true_count / len(present)}
    if all(isinstance(value, int | float) and not isinstance(value, bool) for value in present):
        return {"mean": sum(present) / len(present)}
    if all(isinstance(value, dict) for value in present):
        keys = dict.fromkeys(key for value in present for key in value)
        nested = {key: auto_summarize([value.get(key) for value in present]) for key in keys}
        return {key: summary for key, summary in nested.items() if summary is not None} or None
    return None


def weave_output(score: Score) -> Any:
    """What a Weave scorer would have returned for this Score."""
    if not score.ok:
        return None
    if any(isinstance(value, bool) for value in score.details.values()):
        return dict(score.details)  # Weave-named results, e.g. valid_json's {"json_valid": bool}
    if score.label in ("true", "false"):
        return score.label == "true"
    if score.value is not None:
        return {"value": score.value, **score.details} if score.details else score.value
    return score.label


def score_from_output(output: Any) -> Score:
    """A Weave scorer's return value as a stored Score: a number or flag as the value, a dict as details."""
    if output is None:
        return Score.failed("the scorer returned no value")
    if isinstance(output, dict):
        flags = [v for v in output.values() if isinstance(v, bool | int | float)]
        value = float(flags[0]) if len(flags) == 1 else None
        return Score(value=value, details=json.loads(json.dumps(output, default=str)))
    return as_score(output)


def _column(row: dict[str, Any], argument: str, column_map: dict[str, str]) -> Any:
    if argument in column_map:
        return row.get(column_map[argument])
    names = [argument, *_SCORER_COLUMNS.get(argument, [])]
    return next((row[name] for name in names if name in row), None)


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _documents(value: Any) -> list[str]:
    if value is None:
        return []
    return [_as_text(item) for item in value] if isinstance(value, list | tuple) else [_as_text(value)]


async def _call(function: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    if inspect.iscoroutinefunction(function):
        return await function(**kwargs)
    result = await asyncio.to_thread(function, **kwargs)
    return await result if inspect.isawaitable(result) else result


def _arguments(function: Callable[..., Any], row: dict[str, Any], column_map: dict[str, str]) -> dict[str, Any]:
    """The row's values for the function's parameters, through column_map (argument -> column)."""
    parameters = inspect.signature(function).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return {**row, **{arg: row.get(col) for arg, col in column_map.items()}}
    kwargs = {}
    for name, parameter in parameters.items():
        column = column_map.get(name, name)
        if column in row:
            kwargs[name] = row[column]
        elif parameter.default is inspect.Parameter.empty and name not in ("output", "model_output"):
            raise ValueError(f"{getattr(function, '__name__', function)} needs {name!r}; the dataset has no {column!r}")
    return kwargs


@dataclass
class _Prediction:
    output: Any = None
    latency: float = 0.0
    error: str | None = None


@dataclass
class _ScorerResult:
    name: str
    outputs: list[Any]  # Weave-style, one per row (None where nothing was scored)
    scores: list[Score]  # what is stored, one per row
    setup: scoring.ScorerSetup | None = None


@dataclass
class Evaluation:
    dataset: list[dict[str, Any]]
    scorers: list[Any] = field(default_factory=list)
    name: str | None = None
    project: str | None = None
    owner: Any = None
    concurrency: int = DEFAULT_CONCURRENCY

    async def evaluate(self, model: Any) -> dict[str, Any]:
        predict = model.predict if hasattr(model, "predict") else model
        semaphore = asyncio.Semaphore(self.concurrency)
        predictions = await asyncio.gather(*(self._predict(predict, row, semaphore) for row in self.dataset))
        results = [await self._score(scorer, predictions, semaphore) for scorer in self.scorers]
        # Weave's `init(project_name)` stores every evaluation; `project=` names one for this one.
        project = self.project if self.project is not None else current_project()
        if project is not None:
            # The ORM refuses to run inside an event loop: sync_to_async gives it a thread of its own.
            await sync_to_async(self._store_and_close)(project, predictions, results)
        return self._summary(predictions, results)

    async def _predict(
        self, predict: Callable[..., Any], row: dict[str, Any], semaphore: asyncio.Semaphore
    ) -> _Prediction:
        async with semaphore:
            started = time.perf_counter()
            try:
                output = await _call(predict, _arguments(predict, row, {}))
            except Exception as exc:  # the model is the user's code: one failing row must not end the run
                logger.info("model failed on a row: %s", exc)
                return _Prediction(None, time.perf_counter() - started, f"{type(exc).__name__}: {exc}")
            return _Prediction(output, time.perf_counter() - started)

    async def _score(self, scorer: Any, predictions: list[_Prediction], semaphore: asyncio.Semaphore) -> _ScorerResult:
        if isinstance(scorer, WeaveScorer):
            return await asyncio.to_thread(self._score_weave, scorer, predictions)
        if isinstance(scorer, str | type | Scorer):
            return await asyncio.to_thread(self._score_evalsite, _evalsite_scorer(scorer), predictions)
        function = scorer.score if hasattr(scorer, "score") else scorer
        name = op_name(scorer) or getattr(scorer, "name", None) or getattr(scorer, "__name__", None)
        name = name or type(scorer).__name__
        column_map = getattr(scorer, "column_map", None) or {}
        outputs = await asyncio.gather(
            *(
                self._score_row(function, row, p, column_map, semaphore)
                for row, p in zip(self.dataset, predictions, strict=True)
            )
        )
        scores = [score_from_output(output) for output in outputs]
        setup = scoring.ScorerSetup(str(name), None, ("interaction",), "cpu", "weave-function", "")
        return _ScorerResult(str(name), list(outputs), scores, setup)

    async def _score_row(
        self,
        function: Callable[..., Any],
        row: dict[str, Any],
        prediction: _Prediction,
        column_map: dict[str, str],
        semaphore: asyncio.Semaphore,
    ) -> Any:
        if prediction.error is not None:
            return None
        kwargs = _arguments(function, row, column_map)
        parameters = inspect.signature(function).parameters
        kwargs["model_output" if "model_output" in parameters else "output"] = prediction.output
        async with semaphore:
            try:
                return await _call(function, kwargs)
            except Exception as exc:  # a user's scorer: record the row as unscored, go on
                logger.info("scorer %s failed on a row: %s", getattr(function, "__name__", function), exc)
                return None

    def _score_weave(self, weave: WeaveScorer, predictions: list[_Prediction]) -> _ScorerResult:
        """A Weave scorer class: its property scores interactions built from Weave's arguments."""
        scored = [i for i, p in enumerate(predictions) if p.error is None]
        rows = [
            Interaction(**weave.interaction_fields(predictions[i].output, weave.arguments_of(self.dataset[i])))
            for i in scored
        ]
        computed = scoring.score_field(weave.scorer, weave.field, rows) if rows else []
        scores = [Score.failed(p.error or "") for p in predictions]
        outputs: list[Any] = [None] * len(predictions)
        for index, score in zip(scored, computed, strict=True):
            scores[index], outputs[index] = score, weave.result(score)
        scorer = weave.scorer
        setup = scoring.ScorerSetup(
            scorer.name(), scorer, (weave.field,), scorer.queue, scorer.version_key(), scorer.model_id()
        )
        return _ScorerResult(weave.name, outputs, scores, setup)

    def _score_evalsite(self, scorer: Scorer, predictions: list[_Prediction]) -> _ScorerResult:
        column_map = getattr(scorer, "column_map", None) or {}
        rows = [
            Interaction(
                input=_as_text(_column(row, "input", column_map)),
                expected_output=_as_text(_column(row, "reference", column_map)),
                information_retrieval=_documents(_column(row, "context", column_map)),
                output=_as_text(p.output),
            )
            for row, p in zip(self.dataset, predictions, strict=True)
        ]
        scored = [i for i, p in enumerate(predictions) if p.error is None]
        computed = scoring.score_field(scorer, "output", [rows[i] for i in scored]) if scored else []
        scores = [Score.failed(p.error or "") for p in predictions]
        for index, score in zip(scored, computed, strict=True):
            scores[index] = score
        setup = scoring.ScorerSetup(
            scorer.name(), scorer, ("output",), scorer.queue, scorer.version_key(), scorer.model_id()
        )
        return _ScorerResult(scorer.name(), [weave_output(score) for score in scores], scores, setup)

    def _summary(self, predictions: list[_Prediction], results: list[_ScorerResult]) -> dict[str, Any]:
        summary: dict[str, Any] = {}
        output = auto_summarize([p.output for p in predictions if p.error is None])
        if output is not None:
            summary["output"] = output
        for result in results:
            summary[result.name] = auto_summarize(result.outputs) or {}
        latencies = [p.latency for p in predictions]
        summary["model_latency"] = {"mean": sum(latencies) / len(latencies) if latencies else math.nan}
        return summary

    def _store_and_close(self, project: str, predictions: list[_Prediction], results: list[_ScorerResult]) -> Run:
        try:
            return self._store(project, predictions, results)
        finally:
            # This runs on sync_to_async's thread: its connection would otherwise stay open for
            # the life of the process (and block a test database from being dropped).
            connections.close_all()

    def _store(self, project_name: str, predictions: list[_Prediction], results: list[_ScorerResult]) -> Run:
        from evalsite.sdk.bootstrap import ensure_database
        from evalsite.sdk.suites import _owner

        ensure_database()
        owner = _owner(self.owner)
        project = Project.objects.filter(name=project_name, memberships__user=owner).first()
        if project is None:
            project = Project.objects.create(name=project_name, description="Evaluations from Python")
            if owner is not None:
                project.add_member(owner, Membership.Role.OWNER)
        run = Run.objects.create(project=project, name=self._run_name(project), metadata={"source": "evaluation"})
        interactions = [
            self._interaction(run, index, row, p)
            for index, (row, p) in enumerate(zip(self.dataset, predictions, strict=True))
        ]
        Interaction.objects.bulk_create(interactions)
        saved = list(run.interactions.order_by("pk"))
        with scoring.in_process_job(run.pk, [result.setup.name for result in results]) as tally:
            for result in results:
                values = {(i.pk, result.setup.fields[0]): score for i, score in zip(saved, result.scores, strict=True)}
                scoring.store_values(run.pk, result.setup, values)
                tally.add(values)
        return run

    def _run_name(self, project: Project) -> str:
        base = self.name or f"evaluation {timezone.now():%Y-%m-%d %H:%M:%S}"
        name, suffix = base, 1
        while project.runs.filter(name=name).exists():
            suffix += 1
            name = f"{base} ({suffix})"
        return name

    @staticmethod
    def _interaction(run: Run, index: int, row: dict[str, Any], prediction: _Prediction) -> Interaction:
        text = _as_text(_column(row, "input", {}))
        metadata = json.loads(json.dumps({**row, "model_latency": prediction.latency}, default=str))
        if prediction.error:
            metadata["model_error"] = prediction.error
        return Interaction(
            run=run,
            user_interaction_id=str(row.get("id", index + 1)),
            input=text,
            input_hash=input_hash(text),
            expected_output=_as_text(_column(row, "reference", {})),
            information_retrieval=_documents(_column(row, "context", {})),
            output=_as_text(prediction.output),
            metadata=metadata,
        )


def _evalsite_scorer(scorer: Any) -> Scorer:
    if isinstance(scorer, Scorer):
        return scorer
    cls = registry.get(scorer) if isinstance(scorer, str) else scorer
    return cls()
