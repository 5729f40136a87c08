"""A run's progress is the run's: every job counted (scoring, rescoring, rules), the time left from
the measured rate, and what a waiting run waits behind; the run page and the API say the same."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from properties.models import ApiToken, ScoringChunk, ScoringJob
from properties.pipeline import progress
from tests.factories import ProjectFactory, RunFactory, UserFactory

pytestmark = pytest.mark.django_db


def job(run, kind="scoring", status="done", total=0, done=0, failed=0, not_applicable=0, ago=60.0) -> ScoringJob:
    created = timezone.now() - timedelta(seconds=ago)
    return ScoringJob.objects.create(
        run=run,
        kind=kind,
        status=status,
        total=total,
        done=done,
        failed=failed,
        not_applicable=not_applicable,
        created_at=created,
        finished_at=created if status == "done" else None,
    )


def chunk(job, queue="models", sent=True, started_ago=None, finished_ago=None, state="open") -> ScoringChunk:
    now = timezone.now()
    return job.chunks.create(
        kind="score",
        queue=queue,
        properties=["toxicity"],
        interaction_ids=[1, 2],
        state=state,
        sent_at=now if sent else None,
        started_at=None if started_ago is None else now - timedelta(seconds=started_ago),
        finished_at=None if finished_ago is None else now - timedelta(seconds=finished_ago),
    )


def test_a_rescore_with_nothing_stale_does_not_hide_the_runs_scoring():
    run = RunFactory()
    job(run, total=60, done=58, failed=2, not_applicable=5, ago=120)
    job(run, total=0, ago=10)  # Rescore stale values: nothing was stale
    found = progress.run_progress(run)
    assert (found.total, found.done, found.failed, found.left, found.percent) == (60, 58, 2, 0, 100)
    assert (found.jobs, found.open_jobs, found.status, found.is_finished) == (2, 0, "done", True)


def test_rules_are_counted_apart_from_the_values():
    run = RunFactory()
    job(run, total=60, done=60, ago=120)
    job(run, kind="annotation", total=30, done=30, ago=10)
    found = progress.run_progress(run)
    assert found.scoring["total"] == 60 and found.rules == {"total": 30, "done": 30, "failed": 0, "not_applicable": 0}


def test_time_left_comes_from_the_rate_measured_on_the_open_jobs():
    run = RunFactory()
    running = job(run, status="running", total=100, done=40, failed=10, ago=30)
    chunk(running, started_ago=20, finished_ago=1, state="done")
    found = progress.run_progress(run)
    # 50 items in 20 s: 50 left take about 20 s.
    assert found.left == 50 and found.seconds_left == pytest.approx(20, abs=1.5)
    assert found.status == "running" and found.waiting_behind is None
    assert found.time_left == "about 20 seconds"


def test_a_waiting_run_says_what_it_waits_behind_and_for_about_how_long():
    other = job(RunFactory(project=ProjectFactory()), status="running", total=1000, done=100, ago=300)
    for _ in range(3):
        chunk(other, started_ago=5)  # in flight on `models`
    for finished in range(12):  # the queue finished 12 chunks in the last minute and a bit
        chunk(other, started_ago=70, finished_ago=finished * 5, state="done")
    run = RunFactory()
    waiting = job(run, status="pending", total=100, ago=5)
    chunk(waiting, sent=False)
    found = progress.run_progress(run)
    behind = found.waiting_behind
    assert (behind.chunks, behind.jobs, behind.projects) == (3, 1, 1)
    # 12 chunks in about 70 s: 3 chunks ahead take about 20 s.
    assert behind.seconds == pytest.approx(17.5, abs=3)
    assert str(behind) == "after 1 job of another project, about 20 seconds"
    assert found.seconds_left is None, "no rate of its own yet"


def test_the_page_and_the_api_say_the_same(client):
    user = UserFactory()
    project = ProjectFactory(enabled_properties=["word_count"])
    project.add_member(user, "owner")
    run = RunFactory(project=project)
    job(run, total=60, done=58, failed=2, ago=120)
    job(run, total=0, ago=10)
    client.force_login(user)
    page = client.get(reverse("properties:run-progress", args=[run.pk]), HTTP_HX_REQUEST="true")
    assert page.status_code == 286, "finished: htmx stops polling"
    text = page.content.decode()
    assert "60 of 60 values · 2 failed" in text and "Done" in text and "2 jobs" in text and "<html" not in text
    detail = client.get(reverse("properties:run-detail", args=[run.pk])).content.decode()
    assert "60 of 60 values" in detail
    _, secret = ApiToken.issue(user, "tests")
    api = client.get(f"/api/runs/{run.pk}/progress", HTTP_AUTHORIZATION=f"Bearer {secret}").json()
    assert api == {**progress.run_progress(run).as_dict()}
    assert (api["total"], api["done"], api["failed"], api["left"], api["jobs"]) == (60, 58, 2, 0, 2)


def test_in_words():
    assert [progress.in_words(s) for s in (3, 41, 150, 7200)] == [
        "a few seconds",
        "about 40 seconds",
        "about 2 minutes",
        "about 2 hours",
    ]
