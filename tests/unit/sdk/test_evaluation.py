"""Weave-style evaluations: model calls, scorers with column maps, Weave's summary shape."""

from __future__ import annotations

import asyncio
import time

import pytest

from evalsite.sdk.evaluation import Evaluation, auto_summarize, weave_output
from properties.models import PropertyValue, Run, ScoringJob
from properties.quality import pass_rates
from properties.scorers.base import Score
from properties.scorers.valid_json import ValidJSON
from tests.factories import UserFactory

DATASET = [
    {"id": "q1", "question": "What is 2+2?", "expected": "4"},
    {"id": "q2", "question": "Capital of France?", "expected": "Paris"},
    {"id": "q3", "question": "Say JSON", "expected": '{"a": 1}'},
]
ANSWERS = {"What is 2+2?": "4", "Capital of France?": "Lyon", "Say JSON": '{"a": 1}'}


def match(expected: str, output: str) -> dict:
    return {"match": output == expected}


async def length(output: str) -> float:
    return float(len(output))


class Model:
    async def predict(self, question: str) -> str:
        await asyncio.sleep(0.01)
        return ANSWERS[question]


def test_auto_summarize_has_weaves_shapes():
    assert auto_summarize([True, False, True, None]) == {"true_count": 2, "true_fraction": 2 / 3}
    assert auto_summarize([1, 2.0, 3]) == {"mean": 2.0}
    nested = [
        {"ok": True, "score": 1.0, "why": "text", "inner": {"n": 2}},
        {"ok": False, "score": 0.0, "inner": {"n": 4}},
    ]
    assert auto_summarize(nested) == {
        "ok": {"true_count": 1, "true_fraction": 0.5},
        "score": {"mean": 0.5},
        "inner": {"n": {"mean": 3.0}},
    }
    assert auto_summarize(["text", None]) is None


def test_scores_map_to_weave_outputs():
    assert weave_output(Score(1.0, "true", details={"json_valid": True, "json_type": "object"})) == {
        "json_valid": True,
        "json_type": "object",
    }
    assert weave_output(Score(1.0, "true")) is True
    assert weave_output(Score(0.25)) == 0.25
    assert weave_output(Score(0.5, details={"subjectivity": 0.1})) == {"value": 0.5, "subjectivity": 0.1}
    assert weave_output(Score(label="json")) == "json"
    assert weave_output(Score.failed("no")) is None


def test_evaluate_summarises_function_and_builtin_scorers_with_column_maps():
    valid_json = ValidJSON()
    exact = match
    exact.column_map = {"expected": "expected"}  # type: ignore[attr-defined]
    evaluation = Evaluation(dataset=DATASET, scorers=[exact, length, valid_json, "word_count"])
    summary = asyncio.run(evaluation.evaluate(Model()))
    assert summary["match"] == {"match": {"true_count": 2, "true_fraction": 2 / 3}}
    assert summary["length"] == {"mean": (1 + 4 + 8) / 3}
    assert summary["valid_json"] == {"json_valid": {"true_count": 2, "true_fraction": 2 / 3}}
    assert summary["word_count"] == {"mean": (1 + 1 + 2) / 3}
    assert summary["model_latency"]["mean"] >= 0.01
    assert "output" not in summary  # strings have no summary, as in Weave


def test_column_map_renames_a_scorer_argument():
    def contains(output: str, needle: str) -> bool:
        return needle in output

    contains.column_map = {"needle": "expected"}  # type: ignore[attr-defined]
    summary = asyncio.run(Evaluation(dataset=DATASET, scorers=[contains]).evaluate(lambda question: ANSWERS[question]))
    assert summary["contains"] == {"true_count": 2, "true_fraction": 2 / 3}


def test_model_rows_run_concurrently_and_failures_are_kept_apart():
    def slow_model(question: str) -> dict:
        if question == "Say JSON":
            raise RuntimeError("model down")
        time.sleep(0.2)
        return {"confidence": 0.5, "answer": ANSWERS[question]}

    started = time.perf_counter()
    summary = asyncio.run(Evaluation(dataset=DATASET, scorers=[]).evaluate(slow_model))
    assert time.perf_counter() - started < 0.39  # two 0.2 s calls side by side
    assert summary["output"] == {"confidence": {"mean": 0.5}}


@pytest.mark.django_db(transaction=True)
def test_with_a_project_the_evaluation_is_stored_as_a_run():
    owner = UserFactory()
    evaluation = Evaluation(dataset=DATASET, scorers=[match, ValidJSON()], name="nightly", project="QA bot")
    asyncio.run(evaluation.evaluate(Model()))
    run = Run.objects.get(name="nightly", project__name="QA bot")
    assert run.project.members.get() == owner
    assert list(run.interactions.values_list("input", "expected_output", "output")) == [
        ("What is 2+2?", "4", "4"),
        ("Capital of France?", "Paris", "Lyon"),
        ("Say JSON", '{"a": 1}', '{"a": 1}'),
    ]
    matched = PropertyValue.objects.filter(run=run, property_name="match").order_by("interaction")
    assert [v.value for v in matched] == [1.0, 0.0, 1.0]
    assert PropertyValue.objects.filter(run=run, property_name="valid_json", field="output").count() == 3
    # Recorded as a job of the run, as the workers' values are: caches keyed by the run's scoring
    # state (pass rates, comparisons) see the values once they are stored.
    job = ScoringJob.objects.get(run=run)
    assert (job.status, job.properties, job.total, job.done, job.failed) == ("done", ["match", "valid_json"], 6, 6, 0)
    assert pass_rates.scoring_state(run) == (job.pk, 6, 0, "done")
