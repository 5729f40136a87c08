"""Summaries, charts and comparisons over every small shape of values (hypothesis): none, one, two,
all equal, all failed or not applicable. Runs on SQLite and, in the PostgreSQL pass, on PostgreSQL."""

from __future__ import annotations

import math
import statistics

import pytest
from django.db import transaction
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from properties.compare import charts, comparison
from properties.models import ApiToken, PropertyValue
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory

pytestmark = pytest.mark.django_db

NUMBERS = st.one_of(st.sampled_from([0.0, 0.5, 1.0]), st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
# What one interaction holds for the property: a number, an error, "not applicable", or nothing yet.
CELL = st.one_of(
    NUMBERS.map(lambda value: ("ok", value)),
    st.sampled_from([("error", None), ("not_applicable", None), ("missing", None)]),
)
RUN = st.lists(CELL, max_size=4)
EXAMPLES = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def user():
    return UserFactory()


def store(user, runs_cells: list[list[tuple[str, float | None]]]):
    project = ProjectFactory(owner=user, enabled_properties=["reading_ease"])
    runs = []
    for cells in runs_cells:
        run = RunFactory(project=project)
        for status, value in cells:
            interaction = InteractionFactory(run=run)
            if status != "missing":
                PropertyValue.objects.create(
                    interaction=interaction,
                    run=run,
                    property_name="reading_ease",
                    field="output",
                    value=value,
                    status=status,
                    scorer_version="v",
                )
        runs.append(run)
    return project, runs


def numbers(cells) -> list[float]:
    return [value for status, value in cells if status == "ok"]


@EXAMPLES
@given(runs_cells=st.lists(RUN, min_size=1, max_size=2))
def test_summaries_count_only_numbers_and_never_fail(user, runs_cells):
    with transaction.atomic():
        project, runs = store(user, runs_cells)
        for summary, cells in zip(comparison.summarize_runs(runs), runs_cells, strict=True):
            values = numbers(cells)
            stat = summary.stats.get("reading_ease.output")
            if not values:
                assert stat is None
                continue
            assert stat.count == len(values)
            assert math.isclose(stat.mean, statistics.fmean(values), rel_tol=1e-9, abs_tol=1e-6)
            expected = statistics.stdev(values) if len(values) > 1 else 0.0
            assert math.isclose(stat.stddev, expected, rel_tol=1e-6, abs_tol=1e-3 * max(1.0, abs(stat.mean)))
            assert stat.ci95 >= 0.0
        transaction.set_rollback(True)


@EXAMPLES
@given(runs_cells=st.lists(RUN, min_size=2, max_size=2))
def test_project_compare_and_summary_pages_answer_for_any_shape(client, user, runs_cells):
    client.force_login(user)
    with transaction.atomic():
        project, runs = store(user, runs_cells)
        assert client.get(reverse("properties:project-detail", args=[project.pk])).status_code == 200
        compare = reverse("properties:project-compare", args=[project.pk])
        response = client.get(compare, {"runs": [run.pk for run in runs]})
        assert response.status_code == 200
        summaries = comparison.summarize_runs(runs)
        (compared,) = comparison.compare_properties(runs, ["reading_ease.output"], project)
        counted = sum(sum(stat.counts) for stat in compared.stats.values())
        assert counted == sum(len(numbers(cells)) for cells in runs_cells)
        colours = charts.run_colours(runs)
        for figure in (charts.distribution_figure, charts.summary_figure, charts.trend_figure):
            figure(compared, runs, colours)
        charts.score_figure(summaries, colours)
        _, secret = ApiToken.issue(user, "t")
        summary = client.get(f"/api/runs/{runs[0].pk}/summary", HTTP_AUTHORIZATION=f"Bearer {secret}")
        assert summary.status_code == 200
        transaction.set_rollback(True)


@pytest.mark.parametrize(
    ("values", "expected"),
    [([], None), ([2.0], 0.0), ([2.0, 2.0], 0.0), ([1e6] * 3, 0.0), ([1.0, 3.0], math.sqrt(2.0))],
)
def test_the_deviation_of_none_one_two_and_equal_values(user, values, expected):
    _, (run,) = store(user, [[("ok", value) for value in values]])
    stat = comparison.summarize_runs([run])[0].stats.get("reading_ease.output")
    if expected is None:
        assert stat is None
    else:
        assert stat.stddev == pytest.approx(expected)
