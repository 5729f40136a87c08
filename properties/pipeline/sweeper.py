"""The sweeper: sends again the chunks lost with their worker, and ends jobs that cannot finish.

Celery beat runs it every EVALSITE_SWEEP_INTERVAL_S seconds (properties.tasks.sweep_pipeline_task).
Each sweep first releases the score chunks waiting their turn (properties.pipeline.dispatch),
which also sends those the broker refused. An open chunk is lost when
  - it is not a score chunk and the broker has not accepted its task EVALSITE_SEND_GRACE_S
    seconds after it was stored (score chunks wait in the database for their turn),
  - its latest attempt raised (a bug, a database that stayed locked through the retries),
  - the worker that began it has sent no heartbeat for EVALSITE_WORKER_STALE_S seconds,
  - it began longer ago than its time limit plus EVALSITE_SWEEP_MARGIN_S, or
  - it was sent before a live worker of its queue began to sit idle, and that worker has received
    nothing for EVALSITE_IDLE_WITNESS_S seconds since: the chunk is no longer in the queue (a worker
    killed with it reserved took it along, and the SQLite broker never gives it back).
A lost chunk is sent again; after EVALSITE_CHUNK_MAX_ATTEMPTS sends it is given up: its items count
as failed and its job ends failed with the reason. Chunks are idempotent, so a chunk sent again
while its first task still runs somewhere changes no value and counts its items once.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from properties.models import ScoringChunk, ScoringJob, WorkerHeartbeat
from properties.pipeline import dispatch, workers
from properties.scorers.registry import QUEUES

logger = logging.getLogger(__name__)

# Chunks whose task walks a whole run, under EVALSITE_RUN_TASK_TIME_LIMIT (properties.tasks.RUN_WIDE).
RUN_WIDE_KINDS = (ScoringChunk.Kind.PLAN, ScoringChunk.Kind.DELETE)
# Runs whose statistics a sweep sends to be kept, at most: a database upgraded from before they were
# kept has every run's to keep, and each is a read of all its values (about 0.2 s a property for
# 100,000 on PostgreSQL), so they are spread over sweeps rather than queued at once.
KEEP_STATISTICS_PER_SWEEP = 10
# Heartbeats of workers gone this long are deleted: the pages only say "last seen" for recent ones.
FORGET_WORKERS_AFTER = timedelta(days=7)


@dataclass
class SweepReport:
    released: int = 0
    resent: list[int] = field(default_factory=list)
    given_up: list[int] = field(default_factory=list)
    jobs_closed: list[int] = field(default_factory=list)
    # Runs whose statistics for comparisons were sent to be kept.
    statistics_sent: list[int] = field(default_factory=list)


def sweep(now: datetime | None = None) -> SweepReport:
    now = now or timezone.now()
    report = SweepReport()
    for queue in QUEUES:
        report.released += dispatch.release(queue)
    lost = lost_chunks(now)
    by_job: dict[int, list[tuple[ScoringChunk, str]]] = defaultdict(list)
    for chunk, reason in lost.values():
        by_job[chunk.job_id].append((chunk, reason))
    for job_id, chunks in by_job.items():
        resend_or_give_up(job_id, chunks, report)
    close_jobs_without_work(now, report)
    report.statistics_sent = keep_missing_statistics(now)
    WorkerHeartbeat.objects.filter(last_seen__lt=now - FORGET_WORKERS_AFTER).delete()
    if report.resent or report.given_up or report.jobs_closed:
        logger.warning(
            "sweep: sent %d chunk(s) again, gave up %d, closed %d job(s)",
            len(report.resent),
            len(report.given_up),
            len(report.jobs_closed),
        )
    return report


def lost_chunks(now: datetime) -> dict[int, tuple[ScoringChunk, str]]:
    """Open chunks that no worker will finish, with the reason, by id (the first reason found)."""
    open_chunks = ScoringChunk.objects.open().defer("interaction_ids")
    lost: dict[int, tuple[ScoringChunk, str]] = {}

    def add(chunks, reason) -> None:
        for chunk in chunks:
            lost.setdefault(chunk.pk, (chunk, reason(chunk) if callable(reason) else reason))

    grace = timedelta(seconds=settings.EVALSITE_SEND_GRACE_S)
    unsent = open_chunks.filter(sent_at__isnull=True, created_at__lt=now - grace).exclude(kind=ScoringChunk.Kind.SCORE)
    add(unsent, "the broker had not accepted its task")
    add(open_chunks.filter(failed_at__isnull=False), _raised)
    alive = workers.alive_workers(now)
    stale = now - timedelta(seconds=settings.EVALSITE_WORKER_STALE_S)
    orphaned = open_chunks.filter(started_at__lt=stale).exclude(worker__in=[worker.worker for worker in alive])
    add(orphaned, lambda chunk: f"its worker {chunk.worker or '(unknown)'} stopped sending heartbeats")
    add(open_chunks.filter(_past_time_limit(now)), "it did not finish within its time limit")
    for queue, idle_since, worker in _idle_witnesses(alive):
        unseen = open_chunks.filter(queue=queue, started_at__isnull=True, sent_at__lt=idle_since)
        add(unseen, f"it was no longer in the `{queue}` queue: worker {worker} sat idle")
    return lost


def _raised(chunk: ScoringChunk) -> str:
    return f"its task raised {chunk.last_error}"


def _past_time_limit(now: datetime) -> Q:
    margin = settings.EVALSITE_SWEEP_MARGIN_S
    run_wide_limit = timedelta(seconds=settings.EVALSITE_RUN_TASK_TIME_LIMIT + margin)
    task_limit = timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + margin)
    run_wide = Q(kind__in=RUN_WIDE_KINDS)
    return (run_wide & Q(started_at__lt=now - run_wide_limit)) | (~run_wide & Q(started_at__lt=now - task_limit))


def _idle_witnesses(alive: list[WorkerHeartbeat]) -> list[tuple[str, datetime, str]]:
    """(queue, idle since, worker): the latest moment each queue was seen empty by an idle worker."""
    window = timedelta(seconds=settings.EVALSITE_IDLE_WITNESS_S)
    latest: dict[str, tuple[datetime, str]] = {}
    for worker in alive:
        if worker.idle_since is None or worker.last_seen - worker.idle_since < window:
            continue
        for queue in worker.queues:
            if queue not in latest or latest[queue][0] < worker.idle_since:
                latest[queue] = (worker.idle_since, worker.worker)
    return [(queue, since, worker) for queue, (since, worker) in latest.items()]


def resend_or_give_up(job_id: int, chunks: list[tuple[ScoringChunk, str]], report: SweepReport) -> None:
    to_send: list[int] = []
    reasons: set[str] = set()
    for chunk, reason in chunks:
        attempts = ScoringChunk.objects.filter(pk=chunk.pk).values_list("attempts", flat=True).first()
        if attempts is None:
            continue
        if attempts >= settings.EVALSITE_CHUNK_MAX_ATTEMPTS:
            if give_up(chunk, attempts, reason):
                report.given_up.append(chunk.pk)
            continue
        # Claimed on the state this sweep read, so two sweeps at once send it once.
        claimed = ScoringChunk.objects.open().filter(pk=chunk.pk, attempts=attempts, sent_at=chunk.sent_at)
        if chunk.sent_at is None:
            claimed = ScoringChunk.objects.open().filter(pk=chunk.pk, attempts=attempts, sent_at__isnull=True)
        if claimed.update(started_at=None, worker="", failed_at=None, last_error=reason) == 1:
            to_send.append(chunk.pk)
            reasons.add(reason)
    if to_send:
        sent = dispatch.send(to_send)
        report.resent.extend(to_send[:sent])
        ScoringJob(pk=job_id).note(f"Sent {sent} chunk(s) again: {'; '.join(sorted(reasons))}.")


def give_up(chunk: ScoringChunk, attempts: int, reason: str) -> bool:
    failed = ScoringChunk.objects.open().filter(pk=chunk.pk)
    if failed.update(state=ScoringChunk.State.FAILED, finished_at=timezone.now(), last_error=reason) != 1:
        return False
    job = ScoringJob.objects.get(pk=chunk.job_id)
    chunk = ScoringChunk.objects.get(pk=chunk.pk)
    why = f"{chunk.describe()} was sent {attempts} times and never finished; the last time {reason}"
    if chunk.kind == ScoringChunk.Kind.SCORE:
        job.give_up(chunk, why)
    else:
        job.fail(why)
    logger.error("job %s: %s", job.pk, why)
    return True


def close_jobs_without_work(now: datetime, report: SweepReport) -> None:
    """Unfinished jobs with nothing left to run: closed now, failed if items were never counted."""
    grace = timedelta(seconds=settings.EVALSITE_SEND_GRACE_S)
    idle = (
        ScoringJob.objects.exclude(status__in=ScoringJob.FINISHED)
        .filter(created_at__lt=now - grace)
        .exclude(chunks__state=ScoringChunk.State.OPEN)
    )
    for job in idle:
        job.close_if_complete()
        if not job.is_finished:
            missing = job.total - job.processed
            job.fail(f"{missing} item(s) were never processed and nothing is left to process them; start it again")
        report.jobs_closed.append(job.pk)


def keep_missing_statistics(now: datetime) -> list[int]:
    """Send the statistics of runs whose latest scoring job ended EVALSITE_SEND_GRACE_S ago or more
    without them kept (properties.quality.value_summaries) to be kept, KEEP_STATISTICS_PER_SWEEP runs
    at most, the latest ended first: the job's end sends them, but a broker may refuse that task,
    and runs scored before statistics were kept have none. Without them, a comparison that holds
    the run reads every value of it (1.8 s for 10 runs of 100,000). Returns the runs' ids."""
    grace = timedelta(seconds=settings.EVALSITE_SEND_GRACE_S)
    scoring = ScoringJob.objects.filter(kind=ScoringJob.Kind.SCORING)
    later = scoring.filter(run=OuterRef("run")).filter(
        Q(created_at__gt=OuterRef("created_at")) | Q(created_at=OuterRef("created_at"), pk__gt=OuterRef("pk"))
    )
    before = now - grace
    ended = (
        scoring.filter(status__in=ScoringJob.FINISHED, statistics_kept_at__isnull=True, run__deleting=False)
        .filter(Q(finished_at__lt=before) | Q(finished_at__isnull=True, created_at__lt=before))
        .exclude(Exists(later))
        .order_by(F("finished_at").desc(nulls_last=True), "-pk")
    )
    run_ids = list(ended.values_list("run_id", flat=True)[:KEEP_STATISTICS_PER_SWEEP])
    for run_id in run_ids:
        dispatch.keep_summaries_on_commit(run_id, warm=False)
    if run_ids:
        logger.info("sweep: sent %d run(s)' statistics to be kept", len(run_ids))
    return run_ids
