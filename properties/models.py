from __future__ import annotations

import hashlib
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.db import connections, models
from django.db.models import F, Q, Sum
from django.utils import timezone

from properties import provider_keys
from properties.scorers.base import Score, ScorerUnavailable, as_score
from properties.scorers.llm.client import MAX_MALFORMED_RETRIES, Budget, BudgetExhausted
from properties.scorers.llm.prompt_property import PromptJudge


class ProjectQuerySet(models.QuerySet):
    def visible_to(self, user) -> ProjectQuerySet:
        # A project being deleted (in batches, by a worker) is gone for its users at once.
        return self.filter(memberships__user=user, deleting=False).distinct()


class Project(models.Model):
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    # Names of the properties scored on upload; per-property configuration beside them.
    enabled_properties = models.JSONField(default=list, blank=True)
    property_config = models.JSONField(default=dict, blank=True)
    # The template the project started from (project_templates), and its key properties: the Data
    # Screen's default columns and the comparison's default properties.
    template = models.CharField(max_length=20, blank=True)
    key_properties = models.JSONField(default=list, blank=True)
    # Per property {"direction", "threshold", "tolerance"} over the documented defaults (criteria.py).
    pass_criteria = models.JSONField(default=dict, blank=True)
    # Auto-annotation rules as YAML; empty means the shipped default rules.
    annotation_rules = models.TextField(blank=True)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, through="Membership", related_name="projects")
    created_at = models.DateTimeField(default=timezone.now)
    # Set when a user deletes the project: hidden at once, its rows deleted in batches by a worker.
    deleting = models.BooleanField(default=False)

    objects = ProjectQuerySet.as_manager()

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name

    def add_member(self, user, role: str = "member") -> Membership:
        membership, _ = Membership.objects.get_or_create(project=self, user=user, defaults={"role": role})
        return membership

    def config_for(self, prop: str) -> dict:
        return dict(self.property_config.get(prop, {}))


class Membership(models.Model):
    class Role(models.TextChoices):
        OWNER = "owner"
        MEMBER = "member"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "user"], name="unique_membership")]

    def __str__(self) -> str:
        return f"{self.user} in {self.project} ({self.role})"


class RunQuerySet(models.QuerySet):
    def visible_to(self, user) -> RunQuerySet:
        return self.filter(project__in=Project.objects.visible_to(user), deleting=False)

    def live(self) -> RunQuerySet:
        return self.filter(deleting=False)


class Run(models.Model):
    class Environment(models.TextChoices):
        EVALUATION = "evaluation"
        PRODUCTION = "production"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="runs")
    name = models.CharField(max_length=200)
    environment = models.CharField(max_length=20, choices=Environment.choices, default=Environment.EVALUATION)
    description = models.TextField(blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    pinned = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)
    # Set when a user deletes the run: hidden at once, its rows deleted in batches by a worker.
    deleting = models.BooleanField(default=False)
    # Batches logged through the REST API: rows without an id there are named b<batch>-r<row>.
    api_batches = models.PositiveIntegerField(default=0)

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-pinned", "-created_at", "-pk"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="unique_run_name")]

    def __str__(self) -> str:
        return f"{self.project} / {self.name}"

    def latest_job(self) -> ScoringJob | None:
        return self.jobs.order_by("-created_at", "-pk").first()

    def next_api_batch(self) -> int:
        """A number for a batch logged through the API, never given twice (a conditional UPDATE)."""
        Run.objects.filter(pk=self.pk).update(api_batches=F("api_batches") + 1)
        self.refresh_from_db(fields=["api_batches"])
        return self.api_batches


class Annotation(models.TextChoices):
    GOOD = "good"
    BAD = "bad"
    UNKNOWN = "unknown"


class AnnotationSource(models.TextChoices):
    NONE = ""
    PERSON = "person"
    ESTIMATED = "estimated"


def input_hash(text: str) -> str:
    """Runs are matched on user_interaction_id, falling back to this hash of the input."""
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def new_interaction_id() -> str:
    return uuid.uuid4().hex


class Interaction(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="interactions")
    user_interaction_id = models.CharField(max_length=255, default=new_interaction_id)
    input = models.TextField(blank=True)
    information_retrieval = models.JSONField(default=list, blank=True)
    full_prompt = models.TextField(blank=True)
    history = models.TextField(blank=True)
    output = models.TextField()
    expected_output = models.TextField(blank=True)
    annotation = models.CharField(max_length=10, choices=Annotation.choices, default=Annotation.UNKNOWN)
    annotation_reason = models.TextField(blank=True)
    annotation_source = models.CharField(max_length=10, choices=AnnotationSource.choices, blank=True)
    # What the auto-annotation rules said, kept when a person overrides it, to measure agreement.
    estimated_annotation = models.CharField(max_length=10, choices=Annotation.choices, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    input_hash = models.CharField(max_length=32, blank=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["run", "user_interaction_id"], name="unique_interaction_id_in_run")
        ]
        indexes = [
            models.Index(fields=["run", "annotation"], name="interaction_run_annotation"),
            # The run's score reads this index alone (annotation.run_scores): 57 -> 30 ms at 100k on SQLite.
            models.Index(
                fields=["run", "annotation", "annotation_source", "estimated_annotation"],
                name="interaction_run_score",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.run_id}/{self.user_interaction_id}"

    def save(self, *args, **kwargs) -> None:
        self.input_hash = input_hash(self.input)
        super().save(*args, **kwargs)

    def annotate(self, annotation: str, reason: str = "", *, by_person: bool = True) -> None:
        self.annotation = annotation
        self.annotation_reason = reason
        self.annotation_source = AnnotationSource.PERSON if by_person else AnnotationSource.ESTIMATED
        self.save(update_fields=["annotation", "annotation_reason", "annotation_source"])

    def field_text(self, field: str) -> str:
        """The text a per-field scorer reads: the named field, or the output for the interaction."""
        return self.input if field == "input" else self.output


class PropertyValueQuerySet(models.QuerySet):
    def current(self, prop: str, version_key: str, model: str) -> PropertyValueQuerySet:
        """Values the current scorer computed: a number or category, or that the property does not apply."""
        settled = [PropertyValue.Status.OK, PropertyValue.Status.NOT_APPLICABLE]
        return self.filter(property_name=prop, scorer_version=version_key, model=model, status__in=settled)


class PropertyValue(models.Model):
    class Field(models.TextChoices):
        INPUT = "input"
        OUTPUT = "output"
        INTERACTION = "interaction"

    class Status(models.TextChoices):
        OK = "ok"
        ERROR = "error"
        # The property's required input is absent (no documents, no reference): neither an error
        # nor a zero, and left out of summaries.
        NOT_APPLICABLE = "not_applicable", "not applicable"

    interaction = models.ForeignKey(Interaction, on_delete=models.CASCADE, related_name="property_values")
    # Denormalised from the interaction so that "run X, property P between a and b" is one index range.
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="property_values")
    property_name = models.CharField(max_length=100)
    field = models.CharField(max_length=12, choices=Field.choices)
    value = models.FloatField(null=True, blank=True)
    label = models.CharField(max_length=200, blank=True)
    spans = models.JSONField(default=list, blank=True)
    details = models.JSONField(default=dict, blank=True)
    scorer_version = models.CharField(max_length=64)
    model = models.CharField(max_length=500, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OK)
    error = models.TextField(blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    objects = PropertyValueQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["interaction", "property_name", "field"], name="unique_value_per_interaction_field"
            )
        ]
        indexes = [
            # The interaction id ends each index so that filtering and sorting a run by a property
            # read the index alone (bench/data_screen.py: a range filter on 100k values went from
            # 190 ms to 15 ms on SQLite).
            models.Index(fields=["run", "property_name", "field", "value", "interaction"], name="value_run_prop_range"),
            models.Index(fields=["run", "property_name", "field", "label", "interaction"], name="value_run_prop_label"),
            models.Index(fields=["run", "status"], name="value_run_status"),
        ]

    def __str__(self) -> str:
        return f"{self.property_name}.{self.field}={self.value if self.label == '' else self.label}"

    @property
    def address(self) -> str:
        """`toxicity.output` for per-field values, `grounded_in_context` for interaction-wide ones."""
        if self.field == self.Field.INTERACTION:
            return self.property_name
        return f"{self.property_name}.{self.field}"


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
            updates["last_error"] = error
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
            status=self.Status.FAILED, failure=reason, finished_at=timezone.now()
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
        ScoringJob.objects.filter(pk=self.pk, failure="").update(failure=reason)
        self.record_chunk(done=0, failed=chunk.items, error=reason)

    def note(self, text: str) -> None:
        ScoringJob.objects.filter(pk=self.pk).update(notice=f"{timezone.now():%H:%M:%S} {text}")


class ScoringChunkQuerySet(models.QuerySet):
    def open(self) -> ScoringChunkQuerySet:
        return self.filter(state=ScoringChunk.State.OPEN)


class ScoringChunk(models.Model):
    """One task's share of a job: planning it, properties over a list of interactions, or its rules.

    A score chunk carries every property of one queue that is stale for the same interactions, so
    that one worker process reads each text once for all of them (runtime/memo.py keeps what the
    models made of a text); values, staleness and idempotency stay per property.

    A chunk records when it was handed to the broker and when and where a worker began it, so that
    the sweeper (properties.sweeper) can send again a chunk lost with its worker. Finishing a chunk is
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
            failed_at=timezone.now(), last_error=error[:2000]
        )

    def claim_finish(self) -> bool:
        finished = ScoringChunk.objects.filter(pk=self.pk, state=self.State.OPEN)
        return finished.update(state=self.State.DONE, finished_at=timezone.now()) == 1


class WorkerHeartbeat(models.Model):
    """A Celery worker's latest heartbeat, written by a thread of its main process (properties.workers).

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


def upload_path(upload: Upload, filename: str) -> str:
    return f"uploads/{upload.project_id}/{timezone.now():%Y%m%d%H%M%S}-{filename}"


class Upload(models.Model):
    class Status(models.TextChoices):
        STORED = "stored"
        INGESTED = "ingested"
        FAILED = "failed"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="uploads")
    # The run is created when the first rows are stored, so a file refused whole creates none.
    run = models.ForeignKey(Run, on_delete=models.SET_NULL, null=True, blank=True, related_name="uploads")
    run_name = models.CharField(max_length=200, blank=True)
    environment = models.CharField(max_length=20, choices=Run.Environment.choices, default=Run.Environment.EVALUATION)
    file = models.FileField(upload_to=upload_path, max_length=500)
    original_name = models.CharField(max_length=255)
    # sha256 of the file: the same file uploaded again into the same run is refused unless asked for.
    content_hash = models.CharField(max_length=64, blank=True, db_index=True)
    file_format = models.CharField(max_length=10, blank=True)
    column_mapping = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.STORED)
    accepted = models.PositiveIntegerField(default=0)
    rejected = models.PositiveIntegerField(default=0)
    # [{"line": 3, "field": "output", "reason": "..."}]; a file-level problem has line null.
    row_errors = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.original_name} ({self.status})"

    @property
    def refused(self) -> str:
        """Why the whole file was refused, or "" when its rows were read."""
        first = self.row_errors[0] if self.row_errors else None
        return first["reason"] if first and first.get("line") is None else ""

    @property
    def row_problems(self) -> list[dict[str, Any]]:
        """The rejected rows, without the file-level refusal."""
        return [error for error in self.row_errors if error.get("line") is not None]

    def row_id(self, line: int) -> str:
        """The stable id of a row that has none in the file: this upload's number and the row's line."""
        return f"u{self.pk}-r{line}"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class ApiTokenQuerySet(models.QuerySet):
    def active(self) -> ApiTokenQuerySet:
        return self.filter(revoked_at__isnull=True)


class ApiToken(models.Model):
    """A REST API token. Only its sha256 is stored: the token itself is shown once, at creation."""

    PREFIX = "evs_"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    key_hash = models.CharField(max_length=64, unique=True)
    # The first characters, so that a user can tell tokens apart without the secret.
    key_prefix = models.CharField(max_length=12)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.key_prefix}...)"

    @classmethod
    def issue(cls, user, name: str) -> tuple[ApiToken, str]:
        """A new token and its secret, which is not kept anywhere else."""
        import secrets

        secret = cls.PREFIX + secrets.token_urlsafe(32)
        token = cls.objects.create(user=user, name=name, key_hash=hash_token(secret), key_prefix=secret[:12])
        return token, secret

    @classmethod
    def authenticate(cls, secret: str) -> ApiToken | None:
        token = cls.objects.active().select_related("user").filter(key_hash=hash_token(secret)).first()
        if token is None or not token.user.is_active:
            return None
        return token

    def revoke(self) -> None:
        self.revoked_at = timezone.now()
        self.save(update_fields=["revoked_at"])

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class TestSuite(models.Model):
    """A project used as an Arthur Bench test suite: fixed inputs and references, fixed scorers.

    `cases` is [{"id", "input", "reference"}] in suite order; `scoring_methods` is
    [{"name", "config"}] as they were when the suite was created, to warn when they change.
    """

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="test_suite")
    name = models.CharField(max_length=200, unique=True)
    cases = models.JSONField(default=list)
    scoring_methods = models.JSONField(default=list)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ProjectKey(models.Model):
    """A provider key a user entered for a project: encrypted at rest (provider_keys), never shown
    back, not even in part, and decrypted only where a call is made. Judges name it in their
    configuration (`api_key_name`), prompt properties pick it on their page."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="provider_keys")
    name = models.CharField(max_length=100)
    encrypted = models.TextField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="unique_project_key_name")]

    def __str__(self) -> str:
        return self.name

    def set_key(self, key: str) -> None:
        self.encrypted = provider_keys.encrypt(key)

    def key(self) -> str:
        return provider_keys.decrypt(self.encrypted)


class PromptProperty(models.Model):
    """A property a user wrote as a prompt; scored as `prompt_<slug>` on the `llm` queue like any other.

    The key is never shown back nor stored with values: it is a project key (`project_key`), or an
    environment variable of the workers from the operator's allow-list (`api_key_variable`), or, with
    neither and no base URL, the provider's usual variable (OPENAI_API_KEY, ...) if allowed.
    """

    PREFIX = "prompt_"
    PREVIEW_ITEMS = 5
    # A preview is judged by a worker on the llm queue while the page waits: short requests, and a
    # limit on the whole batch.
    PREVIEW_TIMEOUT_S = 20.0
    PREVIEW_DEADLINE_S = 30.0

    class OutputType(models.TextChoices):
        SCORE = "score", "Score from 0 to 1"
        CATEGORY = "category", "Category from a list"
        BOOLEAN = "boolean", "True or false"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="prompt_properties")
    name = models.CharField(max_length=100)
    # Fixed at creation: stored values are addressed by it.
    property_name = models.CharField(max_length=100)
    template = models.TextField()
    model_id = models.CharField(max_length=200)
    base_url = models.CharField(max_length=500, blank=True)
    api_key_variable = models.CharField(max_length=100, blank=True)
    project_key = models.ForeignKey(ProjectKey, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    output_type = models.CharField(max_length=10, choices=OutputType.choices, default=OutputType.SCORE)
    categories = models.JSONField(default=list, blank=True)
    # The run's budget for this property; null is no limit.
    max_calls = models.PositiveIntegerField(null=True, blank=True)
    max_tokens = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [models.UniqueConstraint(fields=["project", "property_name"], name="unique_prompt_property_name")]

    def __str__(self) -> str:
        return f"{self.name} ({self.property_name})"

    def key_hint(self) -> str:
        """Where the key comes from, in words; never any part of the key."""
        if self.project_key_id:
            return f"the project key \u201c{self.project_key}\u201d"
        if self.api_key_variable:
            return f"${self.api_key_variable} in the workers' environment"
        if self.base_url:
            return "no key (none is sent to a base URL unless one is chosen)"
        return "the provider's usual environment variable, if the operator allows it"

    def spec(self) -> dict[str, Any]:
        """The judge's definition as plain data: what a preview sends to the worker (no key)."""
        return {
            "property_name": self.property_name or PromptProperty.PREFIX + "preview",
            "template": self.template,
            "output_type": self.output_type,
            "categories": list(self.categories),
            "model_id": self.model_id,
            "base_url": self.base_url,
            "api_key_variable": self.api_key_variable,
            "project_key_id": self.project_key_id,
            "max_calls": self.max_calls,
            "max_tokens": self.max_tokens,
        }

    def scorer(self, api_key: str | None = None, **options: Any) -> PromptJudge:
        """The judge; the project key is decrypted here, in the process that makes the calls."""
        if api_key is None and self.project_key_id:
            stored = ProjectKey.objects.filter(pk=self.project_key_id).first()
            if stored is None:
                raise ScorerUnavailable(f"{self.name}: its project key was deleted; choose another key")
            api_key = stored.key()
        return PromptJudge(
            property_name=self.property_name,
            template=self.template,
            output_type=self.output_type,
            categories=list(self.categories),
            model_id=self.model_id,
            base_url=self.base_url or None,
            api_key=api_key,
            api_key_variable=self.api_key_variable or None,
            budget={"max_calls": self.max_calls, "max_tokens": self.max_tokens},
            **options,
        )

    def preview(self, interactions: list[Interaction], api_key: str | None = None) -> list[Score]:
        """Judge a few interactions now, as the edit page's Preview does, with a budget of its own."""
        scorer = self.scorer(
            api_key,
            timeout=self.PREVIEW_TIMEOUT_S,
            deadline_s=self.PREVIEW_DEADLINE_S,
            max_concurrency=max(1, len(interactions)),
        )
        # Each item may be asked again after a malformed reply; never more calls than that.
        scorer.budget = Budget(max_calls=len(interactions) * (MAX_MALFORMED_RETRIES + 1))
        results = scorer.run_batch(
            [interaction.output for interaction in interactions],
            [interaction.expected_output for interaction in interactions],
            [interaction.input for interaction in interactions],
            [interaction.information_retrieval for interaction in interactions],
        )
        return [as_score(result) for result in results]


class PromptPreview(models.Model):
    """The edit page's Preview: an unsaved prompt property judged on a few interactions by a worker
    on the `llm` queue (never in the web process), while the page polls for the result."""

    class Status(models.TextChoices):
        WAITING = "waiting"
        DONE = "done"
        FAILED = "failed"

    # Past this, the page stops waiting and says that no worker took the preview.
    WORKER_WAIT_S = 60

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    spec = models.JSONField()
    # A key typed into the form for this preview only, encrypted, and erased once the worker used it.
    encrypted_key = models.TextField(blank=True)
    run = models.ForeignKey(Run, null=True, on_delete=models.CASCADE, related_name="+")
    interaction_ids = models.JSONField(default=list)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    # One {"ok", "value", "label", "reasoning", "error"} per interaction, in order.
    results = models.JSONField(default=list)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"preview of {self.spec.get('property_name', '?')} ({self.status})"

    def prompt(self) -> PromptProperty:
        spec = dict(self.spec)
        return PromptProperty(project=self.project, **spec)

    def waited_too_long(self) -> bool:
        return (
            self.status == self.Status.WAITING
            and (timezone.now() - self.created_at).total_seconds() > self.WORKER_WAIT_S
        )

    def rows(self) -> list[tuple[Interaction, dict[str, Any]]]:
        interactions = Interaction.objects.in_bulk(self.interaction_ids)
        return [
            (interactions[pk], result)
            for pk, result in zip(self.interaction_ids, self.results, strict=False)
            if pk in interactions
        ]


class RunLLMUsage(models.Model):
    """What one LLM-judged property used on one run: calls (retries included), tokens and cost."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="llm_usage")
    property_name = models.CharField(max_length=100)
    calls = models.PositiveIntegerField(default=0)
    tokens = models.PositiveBigIntegerField(default=0)
    cost_usd = models.FloatField(default=0.0)
    # Calls litellm has no price for (local models): cost_usd leaves them out.
    unpriced_calls = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["property_name"]
        constraints = [models.UniqueConstraint(fields=["run", "property_name"], name="unique_llm_usage_per_run")]

    def __str__(self) -> str:
        return f"{self.property_name} on run {self.run_id}: {self.calls} calls, {self.tokens} tokens"

    @classmethod
    def totals(cls, run: Run) -> dict[str, Any]:
        """The run's summed usage over its LLM properties; calls 0 when none ran."""
        sums = cls.objects.filter(run=run).aggregate(
            calls=Sum("calls"), tokens=Sum("tokens"), cost_usd=Sum("cost_usd"), unpriced_calls=Sum("unpriced_calls")
        )
        return {key: value or 0 for key, value in sums.items()}

    def try_reserve_call(self, max_calls: int | None, max_tokens: int | None) -> bool:
        """Count one call if the budget allows it: a conditional UPDATE, so concurrent workers cannot overspend."""
        within = Q(pk=self.pk)
        if max_calls is not None:
            within &= Q(calls__lt=max_calls)
        if max_tokens is not None:
            within &= Q(tokens__lt=max_tokens)
        return RunLLMUsage.objects.filter(within).update(calls=F("calls") + 1) == 1

    def add(self, calls: int = 0, tokens: int = 0, cost_usd: float = 0.0, unpriced_calls: int = 0) -> None:
        RunLLMUsage.objects.filter(pk=self.pk).update(
            calls=F("calls") + calls,
            tokens=F("tokens") + tokens,
            cost_usd=F("cost_usd") + cost_usd,
            unpriced_calls=F("unpriced_calls") + unpriced_calls,
        )


class RunBudget(Budget):
    """A judge's budget for a whole run, shared by its chunks and workers through RunLLMUsage.

    With limits, every call is reserved in the database before it is made and its tokens added when it
    ends; without, nothing is written per call and flush() adds the chunk's usage once, at its end.
    """

    def __init__(self, usage: RunLLMUsage, limits: Budget) -> None:
        super().__init__(max_calls=limits.max_calls, max_tokens=limits.max_tokens)
        self.usage = usage
        self.owner = threading.current_thread()

    @classmethod
    def attach(cls, run_id: int, prop: str, scorer: Any) -> RunBudget | None:
        """Give an LLM judge the run's budget in place of its own; None for other scorers."""
        limits = getattr(scorer, "budget", None)
        if not isinstance(limits, Budget):
            return None
        usage, _ = RunLLMUsage.objects.get_or_create(run_id=run_id, property_name=prop)
        scorer.budget = budget = cls(usage, limits)
        return budget

    def reserve_call(self) -> None:
        if not self.limited:
            super().reserve_call()
            return
        with self.connection():
            if not self.usage.try_reserve_call(self.max_calls, self.max_tokens):
                self.usage.refresh_from_db(fields=["calls", "tokens"])
                raise BudgetExhausted(self.exhausted_message())
        with self._lock:
            self.calls += 1

    def exhausted_message(self) -> str:
        used = self.usage
        if self.max_calls is not None and used.calls >= self.max_calls:
            return f"budget exhausted: this run used {used.calls} of max_calls={self.max_calls} calls"
        return f"budget exhausted: this run used {used.tokens} of max_tokens={self.max_tokens} tokens"

    def record_usage(self, tokens: int, cost_usd: float | None) -> None:
        super().record_usage(tokens, cost_usd)
        if self.limited:
            with self.connection():
                self.usage.add(tokens=tokens, cost_usd=cost_usd or 0.0, unpriced_calls=int(cost_usd is None))

    def flush(self) -> None:
        if not self.limited and self.calls:
            self.usage.add(self.calls, self.tokens, self.cost_usd, self.unpriced_calls)

    @contextmanager
    def connection(self) -> Iterator[None]:
        """Judges call from a thread pool: a pool thread's own connection is closed after each use."""
        try:
            yield
        finally:
            if threading.current_thread() is not self.owner:
                connections.close_all()
