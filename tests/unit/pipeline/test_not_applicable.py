"""Not applicable is a state: a property whose required field is absent stores "not applicable"
with its reason, through the real scoring path, and every surface says so (issue: behaviour
suites). Summaries leave it out; progress counts it apart from failures; exports write n/a and the reason, not an empty
cell; the API answers null with the reason; the Data Screen shows "n/a" and filters on it."""

import csv
import io
import json

import pytest
from django.urls import reverse

from properties.api.runs import run_summary
from properties.models import ApiToken, PropertyValue
from properties.pipeline import scoring
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory

pytestmark = pytest.mark.django_db

QUESTION = "What is the warranty period of the X200 router?"
ANSWER = "The X200 router has a two-year warranty."
DOCUMENT = "The X200 router comes with a two-year limited warranty covering hardware faults."

# Each property whose required field can be absent, and an interaction without it.
WITHOUT = {
    "no documents": {"input": QUESTION, "output": ANSWER, "information_retrieval": [], "expected_output": ANSWER},
    "no reference": {"input": QUESTION, "output": ANSWER, "information_retrieval": [DOCUMENT], "expected_output": ""},
    "no input": {"input": "", "output": ANSWER, "information_retrieval": [DOCUMENT], "expected_output": ANSWER},
    # A summary's source is the retrieved documents, else the input.
    "no source": {"input": "", "output": ANSWER, "information_retrieval": [], "expected_output": ANSWER},
}
CASES = [
    ("grounded_in_context", "no documents"),
    ("hallucination_free", "no documents"),
    ("retrieval_relevance", "no documents"),
    ("context_relevancy", "no documents"),
    ("coverage", "no source"),
    ("summarization", "no source"),
    ("context_entity_recall", "no source"),
    ("embedding_similarity", "no reference"),
    ("relevance", "no input"),
    ("retrieval_relevance", "no input"),
    ("context_relevancy", "no input"),
    # Per-field properties: the empty input has no reading ease or sentiment; the output has.
    ("reading_ease", "no input"),
    ("sentiment", "no input"),
]
# The field that lacks its text, for properties scored per field.
LACKING_FIELD = {"reading_ease": "input", "sentiment": "input"}


def scored_run(prop: str, missing: str, owner=None):
    """A run of two interactions, one with every field and one without `missing`, fully scored."""
    run = RunFactory(project=ProjectFactory(owner=owner or UserFactory(), enabled_properties=[prop]))
    InteractionFactory(
        run=run,
        user_interaction_id="complete",
        input=QUESTION,
        output=ANSWER,
        information_retrieval=[DOCUMENT],
        expected_output=ANSWER,
    )
    InteractionFactory(run=run, user_interaction_id="lacking", **WITHOUT[missing])
    job = scoring.plan_job(run)
    for chunk in job.chunks.filter(kind="score"):
        scoring.score_chunk(chunk.pk)
    job.refresh_from_db()
    return run, job


@pytest.mark.parametrize(("prop", "missing"), CASES, ids=[f"{p}-{m.replace(' ', '-')}" for p, m in CASES])
def test_a_missing_required_field_is_stored_as_not_applicable_with_its_reason(prop, missing):
    run, job = scored_run(prop, missing)
    values = PropertyValue.objects.filter(run=run, property_name=prop)
    if prop in LACKING_FIELD:
        values = values.filter(field=LACKING_FIELD[prop])
    lacking = values.get(interaction__user_interaction_id="lacking")
    assert lacking.status == PropertyValue.Status.NOT_APPLICABLE, (lacking.status, lacking.error, lacking.value)
    assert lacking.value is None and lacking.label == "" and lacking.error == ""
    assert lacking.details["not_applicable"], "the reason is stored"
    complete = values.get(interaction__user_interaction_id="complete")
    assert complete.status == PropertyValue.Status.OK, (complete.status, complete.error, complete.details)
    # Progress counts it apart from failures, and the job is done, not failed. It counts
    # (interaction, property) items: one whose output was scored is not "not applicable".
    items_not_applicable = 0 if prop in LACKING_FIELD else 1
    assert (job.status, job.failed, job.not_applicable, job.percent) == ("done", 0, items_not_applicable, 100)
    summary = run_summary(run)["properties"][complete.address]
    assert (summary["count"], summary["errors"], summary["not_applicable"]) == (1, 0, 1)
    assert summary["mean"] == pytest.approx(complete.value)


@pytest.fixture
def na_run():
    user = UserFactory()
    run, job = scored_run("retrieval_relevance", "no documents", owner=user)
    return user, run, job


def test_progress_says_how_many_do_not_apply(client, na_run):
    user, run, job = na_run
    client.force_login(user)
    page = client.get(reverse("properties:job-progress", args=[job.pk])).content.decode()
    assert "1 not applicable" in page and "failed" not in page


def test_exports_write_not_applicable_with_the_reason(client, na_run):
    user, run, _ = na_run
    client.force_login(user)
    response = client.get(reverse("properties:run-export", args=[run.pk, "csv"]))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    by_id = {row["user_interaction_id"]: row for row in rows}
    assert (
        by_id["lacking"]["retrieval_relevance"].startswith("n/a: ")
        and "documents" in by_id["lacking"]["retrieval_relevance"]
    )
    assert by_id["lacking"]["retrieval_relevance verdict"] == "n/a"
    assert float(by_id["complete"]["retrieval_relevance"]) > 0
    response = client.get(reverse("properties:run-export", args=[run.pk, "json"]))
    records = {r["user_interaction_id"]: r for r in _json_records(response)}
    lacking = records["lacking"]["properties"]["retrieval_relevance"]
    assert lacking["value"] is None and lacking["status"] == "not_applicable" and "documents" in lacking["reason"]


def _json_records(response) -> list[dict]:
    text = b"".join(response.streaming_content).decode()
    parsed = json.loads(text) if text.lstrip().startswith("[") else [json.loads(line) for line in text.splitlines()]
    return parsed


def test_the_api_answers_null_with_the_reason(client, na_run):
    user, run, job = na_run
    _, secret = ApiToken.issue(user, "not applicable")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    items = client.get(f"/api/runs/{run.pk}/interactions", **auth).json()["items"]
    by_id = {item["user_interaction_id"]: item for item in items}
    assert by_id["lacking"]["properties"]["retrieval_relevance"] is None
    assert "documents" in by_id["lacking"]["not_applicable"]["retrieval_relevance"]
    assert by_id["complete"]["not_applicable"] == {}
    summary = client.get(f"/api/runs/{run.pk}/summary", **auth).json()["properties"]["retrieval_relevance"]
    assert (summary["count"], summary["errors"], summary["not_applicable"]) == (1, 0, 1)
    job_out = client.get(f"/api/jobs/{job.pk}", **auth).json()
    assert (job_out["failed"], job_out["not_applicable"]) == (0, 1)


def test_the_data_screen_shows_na_with_its_reason_and_filters_on_it(client, na_run):
    user, run, _ = na_run
    client.force_login(user)
    url = reverse("properties:run-detail", args=[run.pk])
    page = client.get(url, {"columns": "retrieval_relevance"}).content.decode()
    assert 'class="verdict na"' in page
    assert "no retrieved documents" in page, "the reason is the cell's title"
    only_na = client.get(url, {"where": "na:retrieval_relevance"}).content.decode()
    assert 'title="lacking"' in only_na and 'title="complete"' not in only_na


def test_the_criteria_name_the_models_status():
    from properties.quality import criteria

    assert criteria.NOT_APPLICABLE == PropertyValue.Status.NOT_APPLICABLE


def test_a_value_returned_with_a_not_applicable_reason_is_not_stored_as_a_number():
    """A team's scorer may return a default value beside its reason: the value is not stored, so the
    comparison's histograms and the filters, which read any stored number as scored, leave it out."""
    from properties.compare import comparison
    from properties.quality import criteria
    from properties.scorers.base import Score

    run = RunFactory(project=ProjectFactory(enabled_properties=["word_count"]))
    scored, lacking = (InteractionFactory(run=run, output=text) for text in ("three words here", ""))
    setup = scoring.build_scorer(run.project, "word_count")
    scoring.store_values(
        run.pk,
        setup,
        {
            (scored.pk, "output"): Score(3.0),
            (lacking.pk, "output"): Score(0.0, "none", not_applicable_reason="the output is empty"),
        },
    )
    stored = PropertyValue.objects.get(interaction=lacking, property_name="word_count", field="output")
    assert (stored.status, stored.value, stored.label) == (PropertyValue.Status.NOT_APPLICABLE, None, "")
    assert stored.details == {"not_applicable": "the output is empty"}
    criterion = criteria.criterion_for(run.project, "word_count")
    assert comparison.compare_property([run], "word_count.output", criterion).stats[run.pk].count == 1
