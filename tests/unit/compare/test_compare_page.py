"""The comparison page: chosen properties, statistics per run, clipped intervals, tolerance, no data."""

import json
import re

import pytest
from django.urls import reverse

from properties.annotations import annotation
from properties.compare import charts, comparison, matching
from properties.models import PropertyValue, ScoringJob
from properties.quality import criteria
from properties.tasks import keep_run_summaries_task
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory
from tests.unit.screen.test_datascreen import add_value

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(client):
    user = UserFactory()
    client.force_login(user)
    project = ProjectFactory(
        owner=user, enabled_properties=["toxicity", "grounded_in_context"], key_properties=["grounded_in_context"]
    )
    runs = [RunFactory(project=project, name=f"v{n}") for n in range(3)]
    grounded = {0: [0.0, 0.0, 1.0, 0.2], 1: [0.0, 0.0, 1.0, 0.205], 2: [0.9, 0.8, 1.0, 0.6]}
    for n, run in enumerate(runs):
        for i, number in enumerate(grounded[n]):
            interaction = InteractionFactory(run=run, user_interaction_id=f"q{i}", input=f"q{i}")
            add_value(interaction, "grounded_in_context", value=number)
    return project, runs


def figure(page: str, figure_id: str) -> dict:
    return json.loads(re.search(rf'<script id="{figure_id}" type="application/json">(.*?)</script>', page, re.S)[1])


def test_the_key_properties_are_compared_by_default_and_others_on_request(client, setup):
    project, runs = setup
    url = reverse("properties:project-compare", args=[project.pk])
    ids = {"runs": [run.pk for run in runs]}
    page = client.get(url, ids).content.decode()
    assert re.findall(r'class="property-card" data-address="([^"]+)"', page) == ["grounded_in_context.output"]
    chosen = client.get(url, {**ids, "prop": ["toxicity.output", "grounded_in_context.output"]}).content.decode()
    assert re.findall(r'class="property-card" data-address="([^"]+)"', chosen) == [
        "grounded_in_context.output",
        "toxicity.output",
    ], "the key properties first, in the project's order, as on the Data Screen"
    assert '<h2 id="card-1" title="grounded_in_context.output">Grounded in Context <span' in chosen
    # Toxicity has no value in any run: one line says so, and no empty chart is drawn.
    assert "no data" in chosen and 'id="chart-1-summary"' not in chosen and 'id="chart-1-distribution"' not in chosen
    assert re.search(r'data-testid="no-chart">No run has a Toxicity \(output\) value yet', chosen)
    distribution = figure(chosen, "chart-0-distribution")
    assert distribution["layout"]["title"]["text"] == "Grounded in Context: distribution"
    assert distribution["layout"]["xaxis"]["title"]["text"] == "Grounded in Context"
    assert re.findall(r'data-testid="pass-rate">([^<]+)<', page) == ["25%", "25%", "100%"]
    trend = figure(page, "chart-0-trend")
    assert trend["data"][0]["y"] == [0.25, 0.25, 1.0], "pass rate over runs, oldest first"
    two = client.get(url, {"runs": [runs[0].pk, runs[1].pk]}).content.decode()
    assert 'id="chart-0-trend"' not in two, "a trend needs more than two runs"


def test_no_annotation_score_chart_is_drawn_before_any_run_has_labels(
    client, setup, django_capture_on_commit_callbacks
):
    """Once the page opened on an empty "Annotation score - No data" chart filling the first screen."""
    project, runs = setup
    url = reverse("properties:project-compare", args=[project.pk])
    page = client.get(url, {"runs": [run.pk for run in runs]}).content.decode()
    assert 'id="chart-score"' not in page
    assert "No interaction of these runs is labelled good or bad yet" in page
    # As the Data Screen labels one: the run's kept score is forgotten once the label is stored.
    with django_capture_on_commit_callbacks(execute=True):
        annotation.annotate_by_person(runs[1].interactions.first(), "good", "")
    page = client.get(url, {"runs": [run.pk for run in runs]}).content.decode()
    assert 'id="chart-score"' in page and "labelled good or bad yet" not in page


def test_intervals_are_clipped_to_the_property_range(setup):
    project, runs = setup
    (compared,) = comparison.compare_properties(runs, ["grounded_in_context.output"], project)
    low, high = compared.interval(runs[0].pk)
    assert low == 0.0 and high < 1.0, "a 0-1 property never shows an interval below 0"
    stat = compared.stats[runs[0].pk]
    assert stat.count == 4 and stat.mean == pytest.approx(0.3) and stat.passing == 1
    assert sum(stat.counts) == 4 and stat.counts[0] == 2 and stat.counts[-1] == 1
    colours = charts.run_colours(runs)
    summary = charts.summary_figure(compared, runs, colours)
    bars = summary["data"][0]
    assert bars["y"][0] - bars["error_y"]["arrayminus"][0] == pytest.approx(0.0)
    assert colours[runs[0].pk] == charts.BASELINE and len(set(colours.values())) == 3


def test_distributions_are_side_by_side_in_the_legends_colours():
    run_ids = list(range(1, 7))

    class FakeRun:
        def __init__(self, pk):
            self.pk, self.name = pk, f"run {pk}"

    runs = [FakeRun(pk) for pk in run_ids]
    compared = comparison.PropertyComparison("x", criteria.GOOD_HIGH, [0.0, 0.5, 1.0])
    for pk in run_ids:
        compared.stats[pk] = comparison.RunStat(2, 0.5, 0.1, 1, [1, 1])
    colours = charts.run_colours(runs)
    few = charts.distribution_figure(compared, runs[:3], colours)
    assert few["layout"]["barmode"] == "group" and {t["type"] for t in few["data"]} == {"bar"}
    assert [t["marker"]["color"] for t in few["data"]] == [colours[pk] for pk in run_ids[:3]]
    many = charts.distribution_figure(compared, runs, colours)
    assert {t["type"] for t in many["data"]} == {"scatter"}, "outlines, never blended overlapping bars"


def test_the_row_by_row_fragment_leaves_out_changes_below_the_tolerance(client, setup):
    project, runs = setup
    url = reverse("properties:project-compare", args=[project.pk])
    params = {"runs": [runs[0].pk, runs[1].pk], "property": "grounded_in_context.output"}
    body = client.get(url, params, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="row-diff").content.decode()
    assert "<html" not in body
    assert "4 matched" in body and "0 changed by 0.01 or more" in body and "4 within the tolerance" in body
    project.pass_criteria = {"grounded_in_context": {"tolerance": 0.001}}
    project.save()
    body = client.get(url, params, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="row-diff").content.decode()
    assert "1 changed by 0.001 or more" in body and "improved" in body
    rows = matching.changed_pairs(runs[0], runs[2], "grounded_in_context.output", 0.01)
    deltas = [round(b - a, 3) for _, _, a, b in rows.pairs]
    assert deltas == [0.9, 0.8, 0.4], "largest change first"


def test_the_row_by_row_changes_are_kept_until_a_run_is_scored_again(client, setup):
    project, runs = setup
    url = reverse("properties:project-compare", args=[project.pk])
    params = {"runs": [runs[0].pk, runs[1].pk], "property": "grounded_in_context.output"}

    def fragment() -> str:
        return client.get(url, params, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="row-diff").content.decode()

    assert "0 changed by 0.01 or more" in fragment()
    PropertyValue.objects.filter(interaction__run=runs[1], interaction__user_interaction_id="q0").update(value=0.7)
    assert "0 changed by 0.01 or more" in fragment(), "values written without a job show within CACHE_SECONDS"
    job = ScoringJob.objects.create(run=runs[1], properties=["grounded_in_context"], status="running", total=4)
    assert "1 changed by 0.01 or more" in fragment(), "a new job is a new scoring state"
    PropertyValue.objects.filter(interaction__run=runs[1], interaction__user_interaction_id="q1").update(value=0.9)
    assert "1 changed by 0.01 or more" in fragment()
    ScoringJob.objects.filter(pk=job.pk).update(done=4)
    assert "2 changed by 0.01 or more" in fragment(), "a job's progress is a new scoring state"


def test_a_property_of_labels_is_compared_by_the_share_of_each_label(client, setup):
    project, runs = setup
    project.enabled_properties = [*project.enabled_properties, "content_type"]
    project.save()
    labels = {0: ["json", "json", "sql", "other"], 1: ["json", "sql", "sql", "sql"], 2: []}
    for n, run in enumerate(runs):
        for i, label in enumerate(labels[n]):
            add_value(run.interactions.get(user_interaction_id=f"q{i}"), "content_type", label=label)
    add_value(runs[2].interactions.get(user_interaction_id="q0"), "content_type", status="error")  # no label
    (compared,) = comparison.compare_properties(runs, ["content_type.output"], project)
    assert compared.categorical and compared.labels == ["sql", "json", "other"], "most frequent first"
    assert compared.label_shares(runs[1].pk) == [("sql", 0.75), ("json", 0.25), ("other", 0.0)]
    assert compared.stats[runs[0].pk].count == 4 and runs[2].pk not in compared.stats

    url = reverse("properties:project-compare", args=[project.pk])
    page = client.get(url, {"runs": [run.pk for run in runs], "prop": "content_type.output"}).content.decode()
    shares = re.findall(r'data-testid="label-shares">([^<]+)<', page)
    assert shares == ["sql 25% · json 50% · other 25%", "sql 75% · json 25% · other 0%"]
    assert "labels: sql, json, other" in page and "range -∞" not in page
    bars = figure(page, "chart-0-distribution")
    assert [trace["x"] for trace in bars["data"]] == [["sql", "json", "other"]] * 2
    assert bars["data"][1]["y"] == [0.75, 0.25, 0.0] and bars["data"][1]["customdata"] == [3, 1, 0]
    assert 'id="chart-0-summary"' not in page and 'id="chart-0-trend"' not in page, "labels have no mean"


HOSTILE_NAME = '<a href="https://evil.example/phish">Baseline</a>'


def _strings(data) -> list[str]:
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for value in data.values() for s in _strings(value)]
    if isinstance(data, list):
        return [s for value in data for s in _strings(value)]
    return []


@pytest.mark.django_db
def test_no_html_from_a_run_name_or_a_label_reaches_plotly():
    """plotly.js renders links and bold in names, labels and hovers: a run named like a link became
    four live links in the charts. Every label is escaped text, drawn as the characters typed."""
    from django.http import QueryDict

    from properties.compare import compare_page

    project = ProjectFactory(enabled_properties=["toxicity", "content_type"])
    runs = [RunFactory(project=project, name=HOSTILE_NAME), RunFactory(project=project, name="<b>bold</b> run")]
    runs.append(RunFactory(project=project, name="third"))
    for run in runs:
        for row, value in (("q1", 0.2), ("q2", 0.7)):
            interaction = InteractionFactory(run=run, user_interaction_id=row)
            add_value(interaction, "toxicity", value=value)
            add_value(interaction, "content_type", value=None, label="<i>sql</i>")
    params = QueryDict("prop=toxicity.output&prop=content_type.output")
    context = compare_page.page_context(project, runs, params)
    figures = [figure for card in context["cards"] for _, figure in card.figures] + [context["score_figure"]]
    assert len(figures) >= 4
    texts = [text for figure in figures for text in _strings(figure)]
    assert any('&lt;a href="https://evil.example/phish"&gt;Baseline&lt;/a&gt;' in text for text in texts)
    assert any("&lt;i&gt;sql&lt;/i&gt;" in text for text in texts)
    for text in texts:
        for tag in ("<a", "<b>", "<i>"):
            assert tag not in text, text


def test_a_scoring_jobs_end_has_the_row_by_row_changes_against_the_run_before_ready(client, setup, monkeypatch):
    project, runs = setup
    keep_run_summaries_task(runs[2].pk)  # what the end of runs[2]'s scoring job sends
    monkeypatch.setattr(matching, "changed_pairs", lambda *args: pytest.fail("the fragment matched the runs again"))
    monkeypatch.setattr(comparison, "changed_pairs", matching.changed_pairs)
    url = reverse("properties:project-compare", args=[project.pk])
    # The fragment opens on the project's key property, as the page loads it.
    params = {"runs": [runs[1].pk, runs[2].pk]}
    body = client.get(url, params, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="row-diff").content.decode()
    assert "4 matched" in body and "3 changed by 0.01 or more" in body


def test_the_first_run_of_a_project_has_no_row_by_row_changes_to_ready(setup, monkeypatch):
    project, runs = setup
    matched = []
    monkeypatch.setattr(comparison, "changed_pairs", lambda *args: matched.append(args))
    keep_run_summaries_task(runs[0].pk)
    keep_run_summaries_task(runs[1].pk)
    assert [(a.pk, b.pk) for a, b, *_ in matched] == [(runs[0].pk, runs[1].pk)]
