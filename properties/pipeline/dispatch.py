"""Handing chunks to the broker, fairly between projects, and what a worker records on a chunk.

Score chunks wait in the database and are released to the broker a few at a time: each queue
holds at most its *window* of score chunks in flight (sent, not finished), and the next one
released is the oldest waiting chunk of the project with the fewest in flight. The broker's
queues are first in, first out, so sending a 10,000-interaction job's 400 chunks at once would
make every job planned after it wait for all of them; released in turn, a small job of another
project waits behind at most a window's worth of chunks (docs/scaling.md, "Fair scheduling").
A chunk is released when it is planned, when another chunk of its queue finishes, and at each
sweep (properties.pipeline.sweeper), which also covers a broker that refused a send.

Other chunks (planning a job, applying rules, deleting a run) are sent once the transaction
that stored them commits. Its row says when the broker
accepted its task (`sent_at`, null until then), when and which worker began it, and whether the
latest attempt raised: the sweeper (properties.pipeline.sweeper) reads these to send a lost chunk again.
A broker that refuses a task (down, or its SQLite file locked) never fails the request or task
that sent it: the chunk stays unsent, the job says so, and the sweeper sends it later.
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Min
from django.utils import timezone

from properties.models import ScoringChunk, ScoringJob

logger = logging.getLogger(__name__)
_inline = threading.local()

# What a failed publish raises: kombu's OperationalError when the broker refuses, but also whatever its
# retry path raises on a channel it closed meanwhile (kombu's SQLAlchemy transport, its SQLite file
# locked for seconds, answers AttributeError: 'NoneType' object has no attribute 'client'). Either
# way the task never reached the broker: the chunk stays unsent, the job says why, the sweeper sends
# it again. Nothing that sends a chunk fails for it (an upload's rows are already stored).
PUBLISH_FAILURES = (Exception,)

# Chunks marked sent per UPDATE before their tasks are published: a failed publish un-marks the
# rest of the batch only, and a large plan (5,000 chunks a property on a million rows) is not
# one long UPDATE.
SEND_BATCH = 100


def release_on_commit(queue: str) -> None:
    transaction.on_commit(lambda: release(queue))


def release(queue: str) -> int:
    """Send the queue's waiting score chunks in turn until its window is full; returns how many
    the broker accepted."""
    from evalsite.celery import app

    if app.conf.task_always_eager:
        # Tasks run inline as they are sent (scripts, some tests): all at once, and a chunk that
        # finishes inside this loop releases nothing more, or each chunk would nest in the last.
        if getattr(_inline, "releasing", False):
            return 0
        _inline.releasing = True
        try:
            return send(list(_waiting(queue).values_list("pk", flat=True)))
        finally:
            _inline.releasing = False
    room = window(queue) - _in_flight(queue).count()
    sent = 0
    while room > 0:
        chunk = next_in_turn(queue)
        if chunk is None:
            break
        claimed = ScoringChunk.objects.open().filter(pk=chunk.pk, sent_at__isnull=True)
        if claimed.update(sent_at=timezone.now(), attempts=F("attempts") + 1) != 1:
            continue  # another worker released it meanwhile
        try:
            publish(chunk)
        except PUBLISH_FAILURES as exc:
            _unsend([chunk], exc)
            break
        sent += 1
        room -= 1
    return sent


def window(queue: str) -> int:
    """Score chunks a queue may hold in flight: twice the live pool processes that take it (one
    running and one waiting each), and never fewer than EVALSITE_DISPATCH_WINDOW."""
    from properties.pipeline import workers

    processes = sum(worker.concurrency for worker in workers.alive_workers() if queue in worker.queues)
    return max(settings.EVALSITE_DISPATCH_WINDOW, 2 * processes)


def next_in_turn(queue: str) -> ScoringChunk | None:
    """The oldest waiting chunk of the project with the fewest chunks in flight on this queue
    (ties: the project whose oldest waiting chunk is oldest)."""
    heads = _waiting(queue).values("job__run__project_id").annotate(first=Min("pk")).order_by()
    if not heads:
        return None
    in_flight = dict(
        _in_flight(queue)
        .values("job__run__project_id")
        .annotate(n=Count("pk"))
        .order_by()
        .values_list("job__run__project_id", "n")
    )
    head = min(heads, key=lambda row: (in_flight.get(row["job__run__project_id"], 0), row["first"]))
    return ScoringChunk.objects.only("pk", "job_id", "kind", "queue").get(pk=head["first"])


def _waiting(queue: str):
    return ScoringChunk.objects.open().filter(kind=ScoringChunk.Kind.SCORE, queue=queue, sent_at__isnull=True)


def _in_flight(queue: str):
    return ScoringChunk.objects.open().filter(kind=ScoringChunk.Kind.SCORE, queue=queue, sent_at__isnull=False)


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
            except PUBLISH_FAILURES as exc:
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


def keep_summaries_on_commit(run_id: int, warm: bool = True) -> None:
    """Once the transaction that ended a scoring job commits, have a worker keep the run's statistics
    for comparisons (properties.quality.value_summaries), so that the first comparison after a
    scoring reads them rather than every value. Nothing depends on it: a broker that refuses the task
    only means that the first comparison computes them, or the sweeper has them kept later."""
    from properties import tasks

    def send() -> None:
        try:
            tasks.keep_run_summaries_task.apply_async(args=(run_id,), kwargs={"warm": warm}, queue="cpu")
        except PUBLISH_FAILURES as exc:
            logger.warning("the broker refused to keep run %d's statistics (%s)", run_id, exc)

    transaction.on_commit(send)


def continue_annotation(job_id: int, after: int) -> None:
    """Send the rest of a job's annotation (the interactions past `after`) as a new task: the one
    that calls this has used its time budget. The chunk counts as sent again, not begun."""
    from properties import tasks

    ScoringChunk.objects.open().filter(job_id=job_id, kind=ScoringChunk.Kind.ANNOTATE).update(
        sent_at=timezone.now(), started_at=None, worker=""
    )
    tasks.annotate_run_task.apply_async(args=(job_id, after), queue="cpu")


def _unsend(chunks: list[ScoringChunk], exc: Exception) -> None:
    # Not an attempt: the chunk never reached a worker, so it must not count towards giving up.
    ScoringChunk.objects.filter(pk__in=[chunk.pk for chunk in chunks]).update(sent_at=None, attempts=F("attempts") - 1)
    logger.warning("the broker refused %d tasks (%s); the sweeper will send them again", len(chunks), exc, exc_info=exc)
    for job_id in {chunk.job_id for chunk in chunks}:
        ScoringJob(pk=job_id).note(
            f"The broker did not accept {len(chunks)} task(s) ({type(exc).__name__}: {exc}); "
            "they will be sent again within a minute."
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
