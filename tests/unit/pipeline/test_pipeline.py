"""The pipeline's bookkeeping: planning on a worker, chunks sent after commit, and the sweeper.

Messages go to kombu's in-memory broker (a real transport) and are read back from it; time is
moved by giving the sweeper a `now` and writing heartbeats as a worker would.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from properties.models import PropertyValue, ScoringChunk, ScoringJob, WorkerHeartbeat
from properties.pipeline import dispatch, scoring, sweeper
from properties.tasks import plan_job_task, score_chunk_task
from tests import servers
from tests.conftest import celery_broker
from tests.factories import InteractionFactory, ProjectFactory, RunFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def run():
    run = RunFactory(project=ProjectFactory(enabled_properties=["word_count", "fails_on_boom"]))
    InteractionFactory.create_batch(5, run=run, output="three words here")
    return run


def started_job(run, callbacks) -> ScoringJob:
    with callbacks(execute=True):
        return scoring.start_job(run)


def score_chunks(job: ScoringJob) -> None:
    for chunk in job.chunks.filter(kind="score"):
        scoring.score_chunk(chunk.pk)


def test_the_request_stores_the_job_and_hands_one_planning_task_to_a_worker(
    run, memory_broker, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    # The open jobs counted against the operator's limit, the job, its plan chunk: a few queries whatever the size.
    with django_assert_max_num_queries(5), django_capture_on_commit_callbacks() as callbacks:
        job = scoring.start_job(run)
    assert (job.status, job.total, job.percent) == ("planning", 0, 0)
    assert memory_broker.take("cpu") == [], "nothing is sent before the transaction commits"
    for callback in callbacks:
        callback()
    assert memory_broker.take("cpu") == [("properties.plan_job", (job.pk,))]
    plan = job.chunks.get()
    assert (plan.kind, plan.attempts, plan.sent_at is not None) == ("plan", 1, True)


def test_the_worker_plans_and_sends_each_property_chunks(run, memory_broker, django_capture_on_commit_callbacks):
    job = started_job(run, django_capture_on_commit_callbacks)
    memory_broker.take("cpu")
    with django_capture_on_commit_callbacks(execute=True):
        plan_job_task(job.pk)
    job.refresh_from_db()
    assert (job.status, job.total) == ("pending", 5 + 5)
    sent = memory_broker.take("cpu")
    chunks = job.chunks.filter(kind="score")
    assert sorted(sent) == sorted(("properties.score_chunk", (chunk.pk,)) for chunk in chunks)
    assert job.chunks.get(kind="plan").state == "done"
    score_chunks(job)
    job.refresh_from_db()
    assert (job.status, job.done, job.failed) == ("done", 10, 0)


def test_a_plan_sent_twice_plans_each_property_once(run):
    job = scoring.plan_job(run)
    plan = job.chunks.get(kind="plan")
    ScoringChunk.objects.filter(pk=plan.pk).update(state="open", finished_at=None)
    ScoringJob.objects.filter(pk=job.pk).update(status="planning")
    scoring.plan_chunks(plan.pk)
    job.refresh_from_db()
    assert list(job.chunks.filter(kind="score").values_list("properties", flat=True)) == [
        ["word_count", "fails_on_boom"]
    ]
    assert (job.status, job.total) == ("pending", 10)


def test_a_chunk_carries_every_stale_property_of_its_queue_for_the_same_interactions(run, settings):
    settings.EVALSITE_CHUNK_SIZE = 4  # items: two interactions of two properties
    first, *rest = run.interactions.order_by("pk")
    job = scoring.plan_job(run, ["word_count"])
    for chunk in job.chunks.filter(kind="score"):
        scoring.score_chunk(chunk.pk)
    PropertyValue.objects.filter(interaction=first, property_name="word_count").delete()
    job = scoring.plan_job(run)
    chunks = [(c.properties, c.interaction_ids, c.items) for c in job.chunks.filter(kind="score")]
    # Only the first interaction lacks word_count: it rides with fails_on_boom; the rest need that alone.
    ids = [i.pk for i in rest]
    assert chunks == [
        (["word_count", "fails_on_boom"], [first.pk], 2),
        (["fails_on_boom"], ids[:4], 4),
    ]
    assert job.total == 6
    for chunk in job.chunks.filter(kind="score"):
        scoring.score_chunk(chunk.pk)
    job.refresh_from_db()
    assert (job.status, job.done, job.failed) == ("done", 6, 0)
    assert PropertyValue.objects.filter(run=run).count() == 5 * 3  # word_count on two fields


@pytest.fixture
def two_queue_run():
    run = RunFactory(project=ProjectFactory(enabled_properties=["word_count", "word_count_on_models"]))
    InteractionFactory.create_batch(5, run=run, output="three words here")
    return run


def test_each_queue_gets_its_own_chunks(two_queue_run):
    job = scoring.plan_job(two_queue_run)
    chunks = job.chunks.filter(kind="score")
    assert sorted((c.queue, c.properties) for c in chunks) == [
        ("cpu", ["word_count"]),
        ("models", ["word_count_on_models"]),
    ]


def test_a_planner_lost_after_one_queue_is_continued_not_repeated(two_queue_run):
    run = two_queue_run
    job, plan = scoring._new_job(run, None)
    scoring._plan_queue(job, [scoring.build_scorer(run.project, "word_count")])  # then the worker died
    scoring.plan_chunks(plan.pk)
    job.refresh_from_db()
    assert sorted(job.chunks.filter(kind="score").values_list("properties", flat=True)) == [
        ["word_count"],
        ["word_count_on_models"],
    ]
    assert job.total == 10


def test_chunks_finishing_while_planning_go_on_do_not_end_the_job(two_queue_run):
    run = two_queue_run
    job, plan = scoring._new_job(run, None)
    scoring._plan_queue(job, [scoring.build_scorer(run.project, "word_count")])
    score_chunks(job)
    job.refresh_from_db()
    assert (job.status, job.done, job.total) == ("planning", 5, 5), "more properties are still to be planned"
    scoring.plan_chunks(plan.pk)
    job.refresh_from_db()
    assert (job.status, job.total) == ("running", 10)


def test_a_job_with_nothing_stale_is_done_once_planned(run):
    scoring.plan_job(run)  # values for everything
    score_chunks(run.jobs.get())
    again = scoring.plan_job(run)
    assert (again.status, again.total, again.percent) == ("done", 0, 100)


def test_a_broker_that_refuses_fails_nothing_and_the_sweeper_sends_later(
    run, memory_broker, django_capture_on_commit_callbacks
):
    with celery_broker(f"redis://127.0.0.1:{servers.free_port()}/0"):  # nothing listens there
        job = started_job(run, django_capture_on_commit_callbacks)
    plan = job.chunks.get()
    job.refresh_from_db()
    assert (plan.sent_at, plan.attempts) == (None, 0)
    assert "The broker did not accept 1 task" in job.notice
    assert sweeper.sweep().resent == [], "within the grace period the sender may still be at it"
    report = sweeper.sweep(now=timezone.now() + timedelta(minutes=5))
    assert report.resent == [plan.pk]
    assert memory_broker.take("cpu") == [("properties.plan_job", (job.pk,))]


def test_a_publish_that_breaks_inside_kombu_fails_nothing_either(run, monkeypatch, django_capture_on_commit_callbacks):
    # What kombu's SQLAlchemy transport raised on a channel it closed while its SQLite file was locked.
    def broken(chunk):
        raise AttributeError("'NoneType' object has no attribute 'client'")

    monkeypatch.setattr(dispatch, "publish", broken)
    job = started_job(run, django_capture_on_commit_callbacks)
    plan = job.chunks.get()
    job.refresh_from_db()
    assert (plan.sent_at, plan.attempts) == (None, 0)
    assert "The broker did not accept 1 task(s) (AttributeError: " in job.notice


def heartbeat(worker: str, queues=("cpu",), seen_ago: float = 0, idle_for: float | None = None, now=None):
    now = now or timezone.now()
    last_seen = now - timedelta(seconds=seen_ago)
    idle_since = None if idle_for is None else last_seen - timedelta(seconds=idle_for)
    return WorkerHeartbeat.objects.create(
        worker=worker, hostname="h", pid=1, queues=list(queues), last_seen=last_seen, idle_since=idle_since
    )


@pytest.fixture
def sent_chunk(run, memory_broker):
    job = scoring.plan_job(run, ["word_count"])
    chunk = job.chunks.get(kind="score")
    dispatch.send([chunk.pk])
    memory_broker.take("cpu")
    chunk.refresh_from_db()
    return chunk


def test_a_chunk_begun_by_a_worker_that_stopped_beating_is_sent_again(sent_chunk, memory_broker):
    now = timezone.now() + timedelta(minutes=2)
    sent_chunk.mark_started("celery@a/1-dead")
    heartbeat("celery@a/1-dead", seen_ago=90, now=now)
    report = sweeper.sweep(now=now)
    assert report.resent == [sent_chunk.pk]
    assert memory_broker.take("cpu") == [("properties.score_chunk", (sent_chunk.pk,))]
    sent_chunk.refresh_from_db()
    assert (sent_chunk.attempts, sent_chunk.started_at, sent_chunk.worker) == (2, None, "")
    assert "celery@a/1-dead stopped sending heartbeats" in sent_chunk.job.__class__.objects.get().notice


def test_a_chunk_begun_by_a_live_worker_is_left_alone(sent_chunk, memory_broker):
    sent_chunk.mark_started("celery@a/2-alive")
    now = timezone.now() + timedelta(seconds=40)
    heartbeat("celery@a/2-alive", now=now)
    assert sweeper.sweep(now=now).resent == []
    assert memory_broker.take("cpu") == []


def test_a_chunk_past_its_time_limit_is_sent_again(sent_chunk, settings):
    sent_chunk.mark_started("celery@a/2-alive")
    later = timezone.now() + timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + settings.EVALSITE_SWEEP_MARGIN_S + 1)
    heartbeat("celery@a/2-alive", now=later)
    assert sweeper.sweep(now=later).resent == [sent_chunk.pk]


def test_a_chunk_sent_before_an_idle_worker_received_nothing_is_no_longer_queued(sent_chunk, settings):
    now = timezone.now() + timedelta(seconds=60)
    window = settings.EVALSITE_IDLE_WITNESS_S
    # Idle since before the chunk was sent: the chunk may still be on its way.
    heartbeat("celery@b/1-x", seen_ago=0, idle_for=70 + window, now=now)
    assert sweeper.sweep(now=now).resent == []
    # Idle since after it was sent, for long enough: it is not in the queue any more.
    WorkerHeartbeat.objects.update(idle_since=now - timedelta(seconds=window + 1))
    assert sweeper.sweep(now=now).resent == [sent_chunk.pk]


def test_an_idle_worker_of_another_queue_says_nothing(sent_chunk):
    now = timezone.now() + timedelta(seconds=60)
    heartbeat("celery@m/1-x", queues=("models",), idle_for=30, now=now)
    assert sweeper.sweep(now=now).resent == []


def test_an_attempt_that_raised_is_sent_again_at_the_next_sweep(sent_chunk):
    # Through Celery's tracer, as a worker runs it: the task records the failure on its chunk.
    ScoringChunk.objects.filter(pk=sent_chunk.pk).update(interaction_ids=["not an id"])
    result = score_chunk_task.apply(args=(sent_chunk.pk,))
    assert result.failed()
    sent_chunk.refresh_from_db()
    assert sent_chunk.failed_at is not None and sent_chunk.last_error.startswith("ValueError")
    assert sweeper.sweep().resent == [sent_chunk.pk]


def test_a_chunk_that_never_finishes_is_given_up_and_its_job_fails_with_the_reason(sent_chunk, settings):
    settings.EVALSITE_CHUNK_MAX_ATTEMPTS = 2
    now = timezone.now()
    reports = []
    for _ in range(2):  # sent once already: sent again, then given up
        now += timedelta(minutes=2)
        ScoringChunk.objects.filter(pk=sent_chunk.pk).update(started_at=now - timedelta(minutes=1), worker="gone")
        reports.append(sweeper.sweep(now=now))
    assert [(report.resent, report.given_up) for report in reports] == [([sent_chunk.pk], []), ([], [sent_chunk.pk])]
    job = ScoringJob.objects.get()
    assert (job.status, job.done, job.failed, job.total) == ("failed", 0, 5, 5)
    assert job.failure.startswith("word_count on 5 interactions was sent 2 times and never finished")
    assert "stopped sending heartbeats" in job.failure
    assert ScoringChunk.objects.get(pk=sent_chunk.pk).state == "failed"


def test_a_plan_that_never_finishes_fails_its_job(run, settings, memory_broker):
    settings.EVALSITE_CHUNK_MAX_ATTEMPTS = 1
    job, plan = scoring._new_job(run, None)
    dispatch.send([plan.pk])
    plan.mark_started("gone")
    sweeper.sweep(now=timezone.now() + timedelta(minutes=5))
    job.refresh_from_db()
    assert job.status == "failed" and job.failure.startswith("planning the job was sent 1 times")


def test_two_sweeps_at_once_send_a_lost_chunk_once(sent_chunk, memory_broker):
    now = timezone.now() + timedelta(minutes=2)
    sent_chunk.mark_started("gone")
    lost = sweeper.lost_chunks(now)
    first, second = sweeper.SweepReport(), sweeper.SweepReport()
    sweeper.resend_or_give_up(sent_chunk.job_id, list(lost.values()), first)
    sweeper.resend_or_give_up(sent_chunk.job_id, list(lost.values()), second)
    assert (first.resent, second.resent) == ([sent_chunk.pk], [])
    assert len(memory_broker.take("cpu")) == 1


def test_a_job_left_without_work_is_closed_never_running_for_good(run):
    job = ScoringJob.objects.create(run=run, status="running", total=5, done=3)
    report = sweeper.sweep(now=timezone.now() + timedelta(minutes=5))
    job.refresh_from_db()
    assert report.jobs_closed == [job.pk]
    assert job.status == "failed" and "2 item(s) were never processed" in job.failure


def test_a_cancelled_chunk_is_not_scored(run):
    job = scoring.plan_job(run, ["word_count"])
    job.cancel("the run was deleted")
    score_chunks(job)
    job.refresh_from_db()
    assert (job.status, job.failure) == ("cancelled", "the run was deleted")
    assert not PropertyValue.objects.exists()
    assert set(job.chunks.values_list("state", flat=True)) == {"done", "cancelled"}  # plan done, score cancelled


def test_the_task_records_where_it_began(sent_chunk):
    score_chunk_task.apply(args=(sent_chunk.pk,))
    sent_chunk.refresh_from_db()
    assert sent_chunk.state == "done" and sent_chunk.started_at is not None
