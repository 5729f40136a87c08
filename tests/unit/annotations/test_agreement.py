"""A property against the team's labels over a project's runs: the figures on a labelled set worked
out by hand, people's labels apart from the rules', the property's page, and applying the suggested
threshold (who and when recorded; pass rates and filters follow)."""

from __future__ import annotations

import re

import pytest
from django.http import QueryDict
from django.urls import reverse

from properties.annotations import agreement, agreement_chart
from properties.models import ThresholdChange
from properties.quality import criteria, pass_rates
from properties.scorers import registry
from properties.scorers.base import Scorer
from properties.screen import datascreen
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory
from tests.unit.screen.test_datascreen import add_value

pytestmark = pytest.mark.django_db

# Six copies of eight interactions. Good: 0.3, 0.6, 0.8, 0.9; bad: 0.1, 0.2, 0.4, 0.7.
# ROC-AUC 13/16 (no good value ties a bad one). At 0.5: 18 good pass, 6 bad pass, 6 good fail,
# 18 bad fail, balanced accuracy 0.75. At 0.7: 12, 6, 12, 18, balanced accuracy 0.625. The best
# splits (0.75) are written 0.25, 0.5 and 0.8.
GOOD_VALUES = [0.3, 0.6, 0.8, 0.9]
BAD_VALUES = [0.1, 0.2, 0.4, 0.7]
COPIES = 6


@pytest.fixture
def user():
    return UserFactory(username="rita")


@pytest.fixture
def project(user):
    return ProjectFactory(owner=user, enabled_properties=["grounded_in_context"])


def label(run, uid, value, annotation, source, prop="grounded_in_context", field="output", category=""):
    interaction = InteractionFactory(run=run, user_interaction_id=uid)
    interaction.annotation, interaction.annotation_source = annotation, source
    interaction.save()
    if value is not None or category:
        add_value(interaction, prop, field=field, value=value, label=category)
    return interaction


def labelled_runs(project, prop="grounded_in_context", field="output"):
    """Two runs sharing the copies; people's labels (Data Screen and uploaded), plus the rules'."""
    first, second = RunFactory(project=project, name="first"), RunFactory(project=project, name="second")
    for copy in range(COPIES):
        run = first if copy < 4 else second
        source = "person" if copy % 2 else ""
        for i, value in enumerate(GOOD_VALUES):
            label(run, f"g{copy}-{i}", value, "good", source, prop, field)
        for i, value in enumerate(BAD_VALUES):
            label(run, f"b{copy}-{i}", value, "bad", source, prop, field)
    # The rules' labels: 3 good on low values, 2 bad on high ones. They would lower the figures.
    for i in range(3):
        label(first, f"rule-good-{i}", 0.05, "good", "estimated", prop, field)
    for i in range(2):
        label(first, f"rule-bad-{i}", 0.95, "bad", "estimated", prop, field)
    label(first, "no-value", None, "good", "person", prop, field)
    label(first, "unlabelled", 0.5, "unknown", "", prop, field)
    return first, second


def test_figures_on_a_labelled_set_by_hand(project):
    first, second = labelled_runs(project)
    measured = agreement.measure(project, "grounded_in_context", [first, second])
    assert measured.address == "grounded_in_context.output"
    assert measured.sources == {
        "person": {"good": 13, "bad": 12},  # three odd copies of 4 + the one without a value
        "uploaded": {"good": 12, "bad": 12},
        "rules": {"good": 3, "bad": 2},
    }
    assert (measured.good, measured.bad, measured.without_value) == (24, 24, 1)
    figures = measured.figures
    assert figures.roc_auc == pytest.approx(13 / 16)
    assert figures.interval[0] < 13 / 16 < figures.interval[1]
    current = figures.current
    assert (current.threshold, current.passed_good, current.passed_bad, current.failed_good, current.failed_bad) == (
        0.5,
        18,
        6,
        6,
        18,
    )
    assert current.balanced_accuracy == pytest.approx(0.75)
    assert figures.suggestion.threshold == 0.5, "of three equal splits, the one nearest the current threshold"
    # Verdicts contradicting labels, run by run: 12 per 4 copies, 6 per 2 copies.
    assert measured.disagreements == {first.pk: 8, second.pk: 4}
    only_second = agreement.measure(project, "grounded_in_context", [second])
    assert (only_second.good, only_second.bad) == (8, 8)
    assert only_second.needed == {"good": 12, "bad": 12} and only_second.figures is None


def test_a_target_precision(project):
    first, second = labelled_runs(project)
    measured = agreement.measure(project, "grounded_in_context", [first, second], target_precision=1.0)
    # Failing below 0.25 fails only bad interactions (0.1 and 0.2): half the bad ones.
    suggestion = measured.figures.suggestion
    assert (suggestion.threshold, suggestion.confusion.failed_bad, suggestion.confusion.failed_good) == (0.25, 12, 0)


def test_a_label_property_shows_each_label(client, user, project):
    run = RunFactory(project=project)
    for i in range(30):
        label(run, f"sql-{i}", None, "bad" if i < 24 else "good", "person", "content_type", category="sql")
    for i in range(20):
        label(run, f"text-{i}", None, "good", "", "content_type", category="text")
    label(run, "rule", None, "bad", "estimated", "content_type", category="text")
    measured = agreement.measure(project, "content_type", [run])
    assert measured.categorical and measured.figures is None
    assert [(row.label, row.good, row.bad) for row in measured.labels] == [("sql", 6, 24), ("text", 20, 0)]
    client.force_login(user)
    page = client.get(reverse("properties:property-settings", args=[project.pk, "content_type"])).content.decode()
    table = page.split('data-testid="agreement-labels"')[1].split("</table>")[0]
    assert re.search(r"<td>sql</td><td class=\"num\">6</td><td class=\"num\">24</td><td class=\"num\">20%</td>", table)
    assert "Apply threshold" not in page


class Politeness(Scorer):
    """A team's own scorer, with no direction until the project gives it one."""

    @staticmethod
    def name() -> str:
        return "politeness"

    @staticmethod
    def requires_reference() -> bool:
        return False

    fields = ("interaction",)

    def run_batch(self, candidate_batch, reference_batch=None, input_text_batch=None, context_batch=None):
        return [float("please" in text) for text in candidate_batch]


def test_custom_scorers_and_prompt_properties(project):
    with registry.temporarily(Politeness):
        first, second = labelled_runs(project, "politeness", "interaction")
        measured = agreement.measure(project, "politeness", [first, second])
    # No direction: the labels point to higher is better, and the suggestion carries it.
    assert (measured.address, measured.direction, measured.direction_inferred) == ("politeness", "higher", True)
    assert measured.figures.current is None and measured.figures.suggestion.threshold == 0.25
    first, second = labelled_runs(ProjectFactory(), "prompt_is_polite", "interaction")
    measured = agreement.measure(first.project, "prompt_is_polite", [first, second])
    assert (measured.direction, measured.figures.current.threshold) == ("higher", 0.5)


def test_an_llm_judged_property_with_verdicts_of_one_and_zero(project):
    # LLM Hallucination Free writes 1 (true) or 0 (false). Good: 16 ones, 4 zeros; bad: 5 ones, 15
    # zeros. ROC-AUC counts ties as half: (16*15 + (16*5 + 4*15) / 2) / 400 = 0.775. At its default
    # 0.5: 16 good pass, 4 fail, 5 bad pass, 15 fail, balanced accuracy (0.8 + 0.75) / 2 = 0.775.
    run = RunFactory(project=project)
    for i in range(20):
        value = 1.0 if i < 16 else 0.0
        label(run, f"g{i}", value, "good", "person", "llm_hallucination_free", category=str(bool(value)).lower())
    for i in range(20):
        value = 1.0 if i < 5 else 0.0
        label(run, f"b{i}", value, "bad", "person", "llm_hallucination_free", category=str(bool(value)).lower())
    measured = agreement.measure(project, "llm_hallucination_free", [run])
    assert not measured.categorical and (measured.good, measured.bad) == (20, 20)
    assert measured.figures.roc_auc == pytest.approx(0.775)
    current = measured.figures.current
    assert (current.threshold, current.balanced_accuracy) == (0.5, pytest.approx(0.775))
    assert measured.disagreements == {run.pk: 9}


def test_the_page_shows_how_many_labels_are_needed(client, user, project):
    run = RunFactory(project=project)
    for i in range(5):
        label(run, f"g{i}", 0.9, "good", "person")
    label(run, "rule", 0.9, "bad", "estimated")
    client.force_login(user)
    page = client.get(reverse("properties:property-settings", args=[project.pk, "grounded_in_context"]))
    text = page.content.decode()
    assert "15 more good and 20 more bad" in text
    assert "Left out: 1 labels by the annotation rules" in text
    assert "ROC-AUC" not in text.split('id="agreement"')[1].split("In this project")[0]


def test_the_page_and_applying_the_suggestion(client, user, project):
    first, second = labelled_runs(project)
    project.pass_criteria = {"grounded_in_context": {"direction": "higher", "threshold": 0.7, "tolerance": 0.01}}
    project.save()
    client.force_login(user)
    url = reverse("properties:property-settings", args=[project.pk, "grounded_in_context"])
    text = client.get(url).content.decode()
    assert "<strong>0.813</strong>" in text  # ROC-AUC 0.8125
    assert "Apply threshold 0.8" in text
    assert 'id="agreement-chart"' in text
    assert f"/runs/{first.pk}/?where=disagrees%3Agrounded_in_context.output" in text
    assert "25 good and 24 bad (25 set in the Data Screen, 24 uploaded with the data)" in text
    assert "Left out: 5 labels by the annotation rules (3 good, 2 bad)" in text
    assert "1 labelled interaction without a value" in text
    rates = pass_rates.compute(first, criteria.criteria_for(project, ["grounded_in_context.output"]), [])
    # 32 copies, 5 rules' labels and the unlabelled one; 0.7, 0.8, 0.9 (x4) and 0.95 (x2) pass.
    assert (rates.rates[0].judged, rates.rates[0].passing) == (38, 14)

    apply = reverse("properties:property-apply-threshold", args=[project.pk, "grounded_in_context"])
    stale = client.post(apply, {"threshold": "0.5", "direction": "higher"}, follow=True)
    assert "changed since the page was shown" in stale.content.decode()
    assert criteria.criterion_for(project, "grounded_in_context").threshold == 0.7
    response = client.post(apply, {"threshold": "0.8", "direction": "higher"}, follow=True)
    assert "passes at 0.8 and above" in response.content.decode()
    project.refresh_from_db()
    assert criteria.criterion_for(project, "grounded_in_context").threshold == 0.8
    change = ThresholdChange.objects.get(project=project, how="suggested")
    assert (change.set_by, change.threshold, change.previous_threshold) == (user, 0.8, 0.7)
    assert "balanced accuracy 0.750 on 24 good and 24 bad labels by people (runs: first, second)" in change.note
    assert "Set by rita on" in response.content.decode()
    assert "The current threshold is the suggested one." in response.content.decode()
    # Pass rates and filters follow: 0.8, 0.9 (x4) and 0.95 (x2) pass now.
    rates = pass_rates.compute(first, criteria.criteria_for(project, ["grounded_in_context.output"]), [])
    assert rates.rates[0].passing == 10
    failing = datascreen.ScreenQuery.from_params(QueryDict("where=failing:grounded_in_context"))
    assert datascreen.filtered_interactions(first, failing).count() == 28


def test_the_page_names_a_bad_target_precision(client, user, project):
    client.force_login(user)
    url = reverse("properties:property-settings", args=[project.pk, "grounded_in_context"])
    page = client.get(url, {"target_precision": "2", "runs": "abc"}).content.decode()
    assert "Ensure this value is less than or equal to 1.0." in page
    assert "Enter a list of values." in page or "is not a valid value" in page


def test_applying_checks_its_input(client, user, project):
    client.force_login(user)
    apply = reverse("properties:property-apply-threshold", args=[project.pk, "grounded_in_context"])
    response = client.post(apply, {"threshold": "nan", "direction": "sideways"}, follow=True)
    text = response.content.decode()
    assert "threshold:" in text and "direction:" in text and "was not applied" in text
    other = UserFactory()
    client.force_login(other)
    assert client.post(apply, {"threshold": "0.5", "direction": "higher"}).status_code == 404


def test_the_api_reads_the_figures_and_sets_the_threshold(client, user, project):
    from properties.models import ApiToken

    first, second = labelled_runs(project)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(user, 'tests')[1]}"}
    url = f"/api/projects/{project.pk}/properties/grounded_in_context/agreement"
    body = client.get(url, **auth).json()
    assert (body["address"], body["direction"], body["threshold"], body["good"], body["bad"]) == (
        "grounded_in_context.output",
        "higher",
        0.5,
        24,
        24,
    )
    assert body["sources"]["rules"] == {"good": 3, "bad": 2}
    assert body["roc_auc"] == pytest.approx(13 / 16)
    assert body["roc_auc_interval"][0] < 13 / 16 < body["roc_auc_interval"][1]
    assert body["current"]["failed_bad"] == 18 and body["current"]["balanced_accuracy"] == pytest.approx(0.75)
    assert body["suggested"]["threshold"] == 0.5 and body["suggested"]["goal"] == "balanced_accuracy"
    assert body["disagreements"] == {str(first.pk): 8, str(second.pk): 4}
    one = client.get(url, {"runs": [second.pk], "target_precision": 1.0}, **auth).json()
    assert (one["runs"], one["needed"], one["roc_auc"], one["suggested"]) == (
        [second.pk],
        {"good": 12, "bad": 12},
        None,
        None,
    )
    precise = client.get(url, {"target_precision": 1.0}, **auth).json()
    assert (precise["suggested"]["threshold"], precise["suggested"]["goal"]) == (0.25, "precision")
    assert client.get(url, {"target_precision": 1.5}, **auth).status_code == 422
    assert client.get(url, {"runs": [RunFactory().pk]}, **auth).status_code == 404
    assert client.get(f"/api/projects/{project.pk}/properties/no_such/agreement", **auth).status_code == 404

    setting = f"/api/projects/{project.pk}/properties/grounded_in_context/threshold"
    response = client.post(setting, {"threshold": 0.25}, content_type="application/json", **auth)
    assert response.status_code == 200
    body = response.json()
    assert body["threshold"] == 0.25 and body["current"]["failed_good"] == 0
    assert (body["threshold_change"]["set_by"], body["threshold_change"]["how"]) == ("rita", "api")
    assert ThresholdChange.objects.get(how="api").previous_threshold == 0.5
    nan = client.post(setting, '{"threshold": NaN}', content_type="application/json", **auth)
    assert nan.status_code in (400, 422)
    unjudged = f"/api/projects/{project.pk}/properties/word_count/threshold"
    refused = client.post(unjudged, {"threshold": 3}, content_type="application/json", **auth)
    assert refused.status_code == 400 and refused.json()["detail"].startswith("direction:")


def test_the_chart_draws_good_and_bad_on_shared_bins_with_the_thresholds():
    criterion = criteria.default_for("grounded_in_context")
    figure = agreement_chart.distribution_figure(
        "grounded_in_context.output", [0.3, 0.62, 0.64], [0.1, 0.9], criterion, 0.5, 0.43
    )
    good, bad = figure["data"]
    assert (good["name"], bad["name"], sum(good["y"]), sum(bad["y"])) == ("good (3)", "bad (2)", 3, 2)
    assert good["x"] == bad["x"] and len(good["x"]) == agreement_chart.BINS
    assert bad["marker"]["pattern"]["shape"] == "/", "bad differs by hatching as well as colour"
    labels = [(note["text"], note["xanchor"]) for note in figure["layout"]["annotations"]]
    # The lower line is labelled on its left, the higher on its right: the labels never overlap.
    assert labels == [("suggested 0.43", "right"), ("threshold 0.5", "left")]
    same = agreement_chart.distribution_figure("x", [0.3], [0.1], criterion, 0.5, 0.5)
    assert [note["text"] for note in same["layout"]["annotations"]] == ["threshold 0.5 (suggested)"]
    hostile = agreement_chart.distribution_figure("<b>x</b>", [], [], criterion, None, None)
    assert hostile["layout"]["title"]["text"].startswith("&lt;b&gt;x&lt;/b&gt;")
    assert [note["text"] for note in hostile["layout"]["annotations"]] == ["No data"]


def test_the_form_records_who_changed_the_threshold(client, user, project):
    client.force_login(user)
    url = reverse("properties:property-settings", args=[project.pk, "grounded_in_context"])
    form = {"direction": "higher", "threshold": "0.7", "tolerance": "0.01"}
    client.post(url, form)
    change = ThresholdChange.objects.get()
    assert (change.set_by, change.how, change.threshold, change.previous_threshold) == (user, "form", 0.7, 0.5)
    client.post(url, {**form, "tolerance": "0.05"})  # the tolerance alone: no new change
    assert ThresholdChange.objects.count() == 1
    assert "on the property&#x27;s page (it was 0.5)." in client.get(url).content.decode()
