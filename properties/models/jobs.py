"""Scoring jobs, the chunks they are sent in, and the heartbeats of the workers that run them."""

from __future__ import annotations

from django.db import models
from django.db.models import F
from django.utils import timezone

from properties import provider_keys
from properties.models.projects import Run


class ScoringJob(models.Model):
    class Kind(models.TextChoices):
        SCORING = "scoring"
        ANNOTATION = "annotation", "Annotation rules"
        # Deleting a run, in batches, after the user confirmed; the run is hidden meanwhile.
        DELETION = "deletion"

    class Status(models.TextChoices):
        # A worker is creating the job's chunks; the request that asked for the job only stored it.
        PLANNING = "planning"
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        # Some chunk was tried EVALSITE_CHUNK_MAX_ATTEMPTS times and never finished: `failure` says why.
        FAILED = "failed"
        CANCELLED = "cancelled"

    FINISHED = (Status.DONE, Status.FAILED, Status.CANCELLED)

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="jobs")
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.SCORING)
    properties = models.JSONField(default=list)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    # Counted in (interaction, property) items; done + failed reaches total when the job ends.
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    # Of `done`, the items the property does not apply to (no documents, no reference): not failures.
    not_applicable = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    # Why the job failed or was cancelled, in words; empty for a job that is done.
    failure = models.TextField(blank=True)
    # The pipeline's latest word on the job (chunks sent again after their worker was lost, a
    # broker that refused a task), shown beside its progress.
    notice = models.TextField(blank=True)
    # When the run's statistics for comparisons were kept as of this job's values
    # (properties.quality.value_summaries); null until then, and again once values change after it.
    # The sweeper has them kept for a run whose latest job ended without them.
    statistics_kept_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"job {self.pk} for {self.run} ({self.status})"

    @property
    def processed(self) -> int:
        return self.done + self.failed

    @property
    def percent(self) -> int:
        if self.total == 0:
            return 0 if self.status == self.Status.PLANNING else 100
        return min(100, int(100 * self.processed / self.total))

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED

    def waiting_queues(self) -> list[str]:
        """The queues this job's open chunks wait on."""
        return list(self.chunks.open().values_list("queue", flat=True).distinct().order_by())

    def record_chunk(self, done: int, failed: int, error: str = "", not_applicable: int = 0) -> None:
        """Add a finished chunk's counts in one UPDATE, then close the job if it is complete."""
        updates = {"done": F("done") + done, "failed": F("failed") + failed}
        if not_applicable:
            updates["not_applicable"] = F("not_applicable") + not_applicable
        if error:
            updates["last_error"] = provider_keys.scrub(error)
        ScoringJob.objects.filter(pk=self.pk).update(**updates)
        ScoringJob.objects.filter(pk=self.pk, status=self.Status.PENDING).update(status=self.Status.RUNNING)
        ScoringJob.objects.filter(pk=self.pk, started_at__isnull=True).update(started_at=timezone.now())
        self.close_if_complete()

    def finish_planning(self) -> None:
        """Planning is over: every chunk exists. The job may already be complete (nothing was stale)."""
        planning = ScoringJob.objects.filter(pk=self.pk, status=self.Status.PLANNING)
        planning.filter(started_at__isnull=False).update(status=self.Status.RUNNING)
        planning.update(status=self.Status.PENDING)
        self.close_if_complete()

    def close_if_complete(self) -> None:
        """End the job once every item is counted: failed when a chunk was given up, else done."""
        now = timezone.now()
        complete = ScoringJob.objects.filter(
            pk=self.pk, status__in=[self.Status.PENDING, self.Status.RUNNING], done__gte=F("total") - F("failed")
        )
        complete.exclude(failure="").update(status=self.Status.FAILED, finished_at=now)
        complete.filter(failure="").update(status=self.Status.DONE, finished_at=now)
        self.refresh_from_db()

    def fail(self, reason: str) -> None:
        """End the job as failed now (its planning was given up): nothing more will be done."""
        ScoringJob.objects.filter(pk=self.pk).exclude(status__in=self.FINISHED).update(
            status=self.Status.FAILED, failure=provider_keys.scrub(reason), finished_at=timezone.now()
        )
        self.chunks.filter(state=ScoringChunk.State.OPEN).update(
            state=ScoringChunk.State.CANCELLED, finished_at=timezone.now()
        )
        self.refresh_from_db()

    def cancel(self, reason: str) -> None:
        """Stop the job: its open chunks are cancelled, so a worker that takes one returns at once."""
        now = timezone.now()
        ScoringJob.objects.filter(pk=self.pk).exclude(status__in=self.FINISHED).update(
            status=self.Status.CANCELLED, failure=reason, finished_at=now
        )
        self.chunks.filter(state=ScoringChunk.State.OPEN).update(state=ScoringChunk.State.CANCELLED, finished_at=now)

    def give_up(self, chunk: ScoringChunk, reason: str) -> None:
        """Count a chunk that never finished as failed items; the job ends failed, with the reason."""
        ScoringJob.objects.filter(pk=self.pk, failure="").update(failure=provider_keys.scrub(reason))
        self.record_chunk(done=0, failed=chunk.items, error=reason)

    def note(self, text: str) -> None:
        ScoringJob.objects.filter(pk=self.pk).update(notice=f"{timezone.now():%H:%M:%S} {provider_keys.scrub(text)}")


class ScoringChunkQuerySet(models.QuerySet):
    def open(self) -> ScoringChunkQuerySet:
        return self.filter(state=ScoringChunk.State.OPEN)


class ScoringChunk(models.Model):
    """One task's share of a job: planning it, properties over a list of interactions, or its rules.

    A score chunk carries every property of one queue that is stale for the same interactions, so
    that one worker process reads each text once for all of them (runtime/memo.py keeps what the
    models made of a text); values, staleness and idempotency stay per property.

    A chunk records when it was handed to the broker and when and where a worker began it, so that
    the sweeper (properties.pipeline.sweeper) can send again a chunk lost with its worker. Finishing a chunk is
    a conditional UPDATE, so a chunk sent twice rescores (an idempotent upsert) but never counts its
    items twice.
    """

    class Kind(models.TextChoices):
        PLAN = "plan"  # create the job's score chunks
        SCORE = "score"  # score `properties` over `interaction_ids`
        ANNOTATE = "annotate"  # apply the project's annotation rules to the run
        DELETE = "delete"  # delete the run's rows in batches, then the run

    class State(models.TextChoices):
        OPEN = "open"
        DONE = "done"
        # Sent EVALSITE_CHUNK_MAX_ATTEMPTS times and never finished: its items count as failed.
        FAILED = "failed"
        CANCELLED = "cancelled"

    job = models.ForeignKey(ScoringJob, on_delete=models.CASCADE, related_name="chunks")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.SCORE)
    # The properties a score chunk scores, in the order they run; each item is (interaction, property).
    properties = models.JSONField(default=list)
    interaction_ids = models.JSONField(default=list)
    queue = models.CharField(max_length=20, default="cpu")
    state = models.CharField(max_length=10, choices=State.choices, default=State.OPEN)
    created_at = models.DateTimeField(default=timezone.now)
    # When the broker last accepted its task (null: never yet), and when and which worker began it.
    sent_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True)
    # Times its task was handed to the broker.
    attempts = models.PositiveSmallIntegerField(default=0)
    # Set when the latest attempt raised: the sweeper sends it again at its next pass.
    failed_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = ScoringChunkQuerySet.as_manager()

    class Meta:
        ordering = ["pk"]
        indexes = [
            models.Index(fields=["state", "queue"], name="chunk_state_queue"),
            models.Index(fields=["job", "state"], name="chunk_job_state"),
        ]

    def __str__(self) -> str:
        if self.kind != self.Kind.SCORE:
            return f"{self.kind} chunk {self.pk} of job {self.job_id}"
        return f"chunk {self.pk} of job {self.job_id}: {', '.join(self.properties)} x {len(self.interaction_ids)}"

    def describe(self) -> str:
        """The chunk in a user's words, for job failures."""
        if self.kind == self.Kind.PLAN:
            return "planning the job"
        if self.kind == self.Kind.ANNOTATE:
            return "applying the annotation rules"
        if self.kind == self.Kind.DELETE:
            return "deleting the run"
        return f"{', '.join(self.properties)} on {len(self.interaction_ids)} interactions"

    @property
    def items(self) -> int:
        """What the chunk counts for in its job: one item per (interaction, property)."""
        return len(self.interaction_ids) * max(1, len(self.properties))

    def mark_started(self, worker: str) -> bool:
        """Record which worker began the chunk; False when it is finished or cancelled (nothing to do)."""
        began = ScoringChunk.objects.filter(pk=self.pk, state=self.State.OPEN)
        return began.update(started_at=timezone.now(), worker=worker[:200], failed_at=None) == 1

    def record_failed_attempt(self, error: str) -> None:
        ScoringChunk.objects.filter(pk=self.pk, state=self.State.OPEN).update(
            failed_at=timezone.now(), last_error=provider_keys.scrub(error)[:2000]
        )

    def claim_finish(self) -> bool:
        finished = ScoringChunk.objects.filter(pk=self.pk, state=self.State.OPEN)
        return finished.update(state=self.State.DONE, finished_at=timezone.now()) == 1


class WorkerHeartbeat(models.Model):
    """A Celery worker's latest heartbeat, written by a thread of its main process (properties.pipeline.workers).

    The pages read these rows to say when no worker takes a queue's work; the sweeper reads them to
    find chunks begun by a worker that is gone, or never taken while a worker sat idle.
    """

    worker = models.CharField(max_length=200, unique=True)
    hostname = models.CharField(max_length=200)
    pid = models.PositiveIntegerField()
    queues = models.JSONField(default=list)
    concurrency = models.PositiveSmallIntegerField(default=1)
    started_at = models.DateTimeField(default=timezone.now)
    last_seen = models.DateTimeField(default=timezone.now)
    # Since when the worker has held no task and received none (null while it has work): a chunk
    # sent before that on one of its queues can no longer be in the queue.
    idle_since = models.DateTimeField(null=True, blank=True)
    stopped_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["hostname", "pk"]

    def __str__(self) -> str:
        return f"{self.worker} ({', '.join(self.queues)})"
