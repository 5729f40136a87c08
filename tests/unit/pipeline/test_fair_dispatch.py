"""Fair scheduling: score chunks wait in the database and are released to the broker a window at a
time, the next one from the project with the fewest in flight, so a small job of one project never
waits behind every chunk of another project's large job."""

from __future__ import annotations

import pytest

from properties.models import ScoringChunk, ScoringJob
from properties.pipeline import dispatch, scoring, sweeper
from tests.factories import InteractionFactory, ProjectFactory, RunFactory
from tests.unit.pipeline.test_workers import beat

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def window_of_two(settings):
    settings.EVALSITE_DISPATCH_WINDOW = 2


def planned_job(interactions: int, callbacks, chunk_size: int = 1) -> ScoringJob:
    run = RunFactory(project=ProjectFactory(enabled_properties=["word_count"]))
    InteractionFactory.create_batch(interactions, run=run, output="three words here")
    job = ScoringJob.objects.create(run=run, properties=["word_count"], status=ScoringJob.Status.PLANNING)
    plan = job.chunks.create(kind=ScoringChunk.Kind.PLAN, queue="cpu")
    with callbacks(execute=True):
        scoring.plan_chunks(plan.pk)
    return job


def sent_chunk_ids(broker) -> list[int]:
    return [args[0] for name, args in broker.take("cpu") if name == "properties.score_chunk"]


def test_a_large_job_sends_only_its_window_and_a_later_small_job_goes_next(
    memory_broker, django_capture_on_commit_callbacks, settings
):
    settings.EVALSITE_CHUNK_SIZE = 1  # a chunk per interaction
    large = planned_job(10, django_capture_on_commit_callbacks)
    first = sent_chunk_ids(memory_broker)
    assert len(first) == 2 and set(first) <= set(large.chunks.values_list("pk", flat=True))
    assert large.chunks.filter(kind="score", sent_at__isnull=True).count() == 8, "the rest wait in the database"
    small = planned_job(2, django_capture_on_commit_callbacks)
    assert sent_chunk_ids(memory_broker) == [], "the window is full"
    # A chunk of the large job finishes: its place goes to the project with none in flight.
    scoring.score_chunk(first[0])
    released = sent_chunk_ids(memory_broker)
    assert released == [small.chunks.filter(kind="score").order_by("pk").first().pk]
    # Next, each project has one in flight: the oldest waiting chunk goes, the large job's.
    scoring.score_chunk(first[1])
    assert sent_chunk_ids(memory_broker)[0] in set(large.chunks.values_list("pk", flat=True))


def test_the_window_grows_with_the_pool_processes_that_take_the_queue(memory_broker):
    assert dispatch.window("cpu") == 2
    beat("celery@a/1-x", ["cpu", "llm"], seen_ago=1)
    from properties.models import WorkerHeartbeat

    WorkerHeartbeat.objects.update(concurrency=3)
    assert dispatch.window("cpu") == 6 and dispatch.window("models") == 2


def test_the_sweeper_releases_waiting_chunks_and_does_not_count_them_lost(
    memory_broker, django_capture_on_commit_callbacks, settings
):
    from datetime import timedelta

    from django.utils import timezone

    settings.EVALSITE_CHUNK_SIZE = 1
    job = planned_job(5, django_capture_on_commit_callbacks)
    flying = sent_chunk_ids(memory_broker)
    for pk in flying:
        scoring.score_chunk(pk)  # each releases the next
    memory_broker.take("cpu")
    ScoringChunk.objects.filter(job=job, sent_at__isnull=True).update(created_at=timezone.now() - timedelta(hours=1))
    ScoringChunk.objects.filter(job=job, state="open").update(sent_at=None)  # as if the broker refused them
    report = sweeper.sweep()
    assert report.released == 2 and report.resent == []
    assert len(sent_chunk_ids(memory_broker)) == 2


def test_a_refused_send_leaves_the_chunk_waiting_for_the_next_release(
    memory_broker, django_capture_on_commit_callbacks, settings, monkeypatch
):
    from kombu.exceptions import OperationalError

    settings.EVALSITE_CHUNK_SIZE = 1

    def refuse(chunk):
        raise OperationalError("database is locked")

    monkeypatch.setattr(dispatch, "publish", refuse)
    job = planned_job(3, django_capture_on_commit_callbacks)
    waiting = job.chunks.filter(kind="score", sent_at__isnull=True)
    assert waiting.count() == 3 and set(waiting.values_list("attempts", flat=True)) == {0}
    monkeypatch.undo()
    assert dispatch.release("cpu") == 2


def test_inline_tasks_score_a_job_of_many_chunks_without_nesting(settings, django_capture_on_commit_callbacks):
    from evalsite.celery import app

    settings.EVALSITE_CHUNK_SIZE = 1
    previous, app.conf.task_always_eager = app.conf.task_always_eager, True
    try:
        job = planned_job(150, django_capture_on_commit_callbacks)
    finally:
        app.conf.task_always_eager = previous
    job.refresh_from_db()
    assert (job.status, job.done) == ("done", 150)
