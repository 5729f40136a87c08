"""Operators' limits per project, in settings: interactions stored, rows per upload, jobs open at once.
Going past one is a message naming the limit and its setting, and nothing already stored is lost."""

from __future__ import annotations

import pytest
from django.urls import reverse

from properties.annotations import annotation
from properties.models import ApiToken, Interaction, ScoringJob
from properties.pipeline import limits, scoring
from properties.uploads import ingest
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory
from tests.unit.uploads.test_ingest import jsonl, run_ingest

pytestmark = pytest.mark.django_db


def rows(count: int, prefix: str = "r") -> str:
    return jsonl(*({"id": f"{prefix}{n}", "input": "q", "output": f"answer {n}"} for n in range(count)))


def test_an_upload_stops_at_the_rows_per_upload_limit_and_keeps_the_rows_before(settings):
    settings.EVALSITE_UPLOAD_MAX_ROWS = 3
    run = RunFactory()
    result = run_ingest(run, "rows.jsonl", rows(5))
    assert (result.accepted, run.interactions.count()) == (3, 3)
    assert result.fatal == (
        "line 4 is past the limit of 3 rows per upload (EVALSITE_UPLOAD_MAX_ROWS, set by the server's operator)"
    )


def test_a_project_at_its_interaction_limit_stores_no_more_and_loses_nothing(settings):
    settings.EVALSITE_PROJECT_MAX_INTERACTIONS = 4
    project = ProjectFactory(name="Support bot")
    InteractionFactory.create_batch(2, run=RunFactory(project=project))
    run = RunFactory(project=project)
    result = run_ingest(run, "rows.jsonl", rows(5))
    assert result.accepted == 2 and Interaction.objects.filter(run__project=project).count() == 4
    assert "line 3 would take project 'Support bot' past its limit of 4 interactions" in result.fatal
    assert "EVALSITE_PROJECT_MAX_INTERACTIONS" in result.fatal and "it held 2 before this upload" in result.fatal
    again = run_ingest(RunFactory(project=project), "more.jsonl", rows(1, "x"))
    assert again.accepted == 0 and again.fatal.startswith("line 1 would take project")
    assert Interaction.objects.filter(run__project=project).count() == 4


def test_the_api_batch_keeps_the_rows_before_the_limit_and_refuses_a_full_project(client, settings):
    settings.EVALSITE_PROJECT_MAX_INTERACTIONS = 2
    user = UserFactory()
    project = ProjectFactory()
    project.add_member(user, "owner")
    run = RunFactory(project=project)
    _, secret = ApiToken.issue(user, "tests")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    batch = {"interactions": [{"input": "q", "output": f"a{n}"} for n in range(3)]}
    response = client.post(f"/api/runs/{run.pk}/interactions", batch, content_type="application/json", **auth)
    body = response.json()
    assert response.status_code == 200 and body["accepted"] == 2
    assert body["errors"][0]["row"] is None and "EVALSITE_PROJECT_MAX_INTERACTIONS" in body["errors"][0]["reason"]
    full = client.post(f"/api/runs/{run.pk}/interactions", batch, content_type="application/json", **auth)
    assert full.status_code == 400 and "past its limit of 2 interactions" in full.json()["detail"]
    assert run.interactions.count() == 2


def test_jobs_open_at_once_are_limited_per_project(settings, client):
    settings.EVALSITE_PROJECT_MAX_OPEN_JOBS = 2
    user = UserFactory()
    project = ProjectFactory(name="Support bot", enabled_properties=["word_count"])
    project.add_member(user, "owner")
    run = RunFactory(project=project)
    scoring.start_job(run)
    annotation.plan_annotation(run)
    with pytest.raises(limits.JobLimitReached, match=r"has 2 jobs open.*EVALSITE_PROJECT_MAX_OPEN_JOBS = 2"):
        scoring.start_job(run)
    with pytest.raises(limits.JobLimitReached):
        annotation.plan_annotation(run)
    # Another project is not held back, and a finished job frees its place.
    scoring.start_job(RunFactory(project=ProjectFactory()))
    client.force_login(user)
    page = client.post(reverse("properties:run-rescore", args=[run.pk]), follow=True)
    assert "has 2 jobs open" in page.content.decode()
    _, secret = ApiToken.issue(user, "tests")
    api = client.post(
        f"/api/runs/{run.pk}/score", {}, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {secret}"
    )
    assert api.status_code == 429 and "EVALSITE_PROJECT_MAX_OPEN_JOBS" in api.json()["detail"]
    ScoringJob.objects.filter(run=run).update(status="done")
    assert scoring.start_job(run).status == "planning"


def test_an_upload_past_the_job_limit_stores_its_rows_and_says_they_were_not_scored(settings, tmp_path):
    settings.EVALSITE_PROJECT_MAX_OPEN_JOBS = 1
    project = ProjectFactory(enabled_properties=["word_count"])
    scoring.start_job(RunFactory(project=project))
    path = tmp_path / "rows.jsonl"
    path.write_text(rows(3))
    upload = ingest.ingest_path(project, "new run", path, start_scoring=True)
    assert upload.accepted == 3 and upload.run.interactions.count() == 3
    assert not upload.run.jobs.exists()
