"""Handing chunks to the broker, and what a worker records on a chunk as it runs it.

A chunk is sent once the transaction that stored it commits. Its row says when the broker
accepted its task (`sent_at`, null until then), when and which worker began it, and whether the
latest attempt raised: the sweeper (properties.pipeline.sweeper) reads these to send a lost chunk again.
A broker that refuses a task (down, or its SQLite file locked) never fails the request or task
that sent it: the chunk stays unsent, the job says so, and the sweeper sends it later.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerUnavailable

from properties.models import ScoringChunk, ScoringJob

logger = logging.getLogger(__name__)

# Chunks marked sent per UPDATE before their tasks are published: a failed publish un-marks the
# rest of the batch only, and a large plan (5,000 chunks a property on a million rows) is not
# one long UPDATE.
SEND_BATCH = 100


def send_on_commit(chunks: list[ScoringChunk]) -> None:
    ids = [chunk.pk for chunk in chunks]
    if ids:
        transaction.on_commit(lambda: send(ids))


def send(chunk_ids: list[int]) -> int:
    """Publish the tasks of these open chunks; returns how many the broker accepted."""
    sent = 0
    for start in range(0, len(chunk_ids), SEND_BATCH):
        ids = chunk_ids[start : start + SEND_BATCH]
        batch = list(ScoringChunk.objects.open().filter(pk__in=ids).only("pk", "job_id", "kind", "queue"))
        ScoringChunk.objects.filter(pk__in=[chunk.pk for chunk in batch]).update(
            sent_at=timezone.now(), attempts=F("attempts") + 1
        )
        for position, chunk in enumerate(batch):
            try:
                publish(chunk)
            except BrokerUnavailable as exc:
                _unsend(batch[position:], exc)
                return sent
            sent += 1
    return sent


def publish(chunk: ScoringChunk) -> None:
    from properties import tasks

    if chunk.kind == ScoringChunk.Kind.PLAN:
        tasks.plan_job_task.apply_async(args=(chunk.job_id,), queue=chunk.queue)
    elif chunk.kind == ScoringChunk.Kind.ANNOTATE:
        tasks.annotate_run_task.apply_async(args=(chunk.job_id,), queue=chunk.queue)
    elif chunk.kind == ScoringChunk.Kind.DELETE:
        tasks.delete_run_task.apply_async(args=(chunk.job_id,), queue=chunk.queue)
    else:
        tasks.score_chunk_task.apply_async(args=(chunk.pk,), queue=chunk.queue)


def _unsend(chunks: list[ScoringChunk], exc: Exception) -> None:
    # Not an attempt: the chunk never reached a worker, so it must not count towards giving up.
    ScoringChunk.objects.filter(pk__in=[chunk.pk for chunk in chunks]).update(sent_at=None, attempts=F("attempts") - 1)
    logger.warning("the broker refused %d tasks (%s); the sweeper will send them again", len(chunks), exc)
    for job_id in {chunk.job_id for chunk in chunks}:
        ScoringJob(pk=job_id).note(
            f"The broker did not accept {len(chunks)} task(s) ({exc}); they will be sent again within a minute."
        )


def chunk_of(kind: str, task_arg: int) -> ScoringChunk | None:
    """The chunk a task runs: score tasks take the chunk's id, job-wide tasks the job's."""
    if kind == ScoringChunk.Kind.SCORE:
        return ScoringChunk.objects.filter(pk=task_arg).first()
    return ScoringChunk.objects.filter(job_id=task_arg, kind=kind).first()


def mark_started(kind: str, task_arg: int, worker: str) -> None:
    chunk = chunk_of(kind, task_arg)
    if chunk is not None:
        chunk.mark_started(worker)


def record_failure(kind: str, task_arg: int, exc: BaseException) -> None:
    chunk = chunk_of(kind, task_arg)
    if chunk is not None:
        chunk.record_failed_attempt(f"{type(exc).__name__}: {exc}")
