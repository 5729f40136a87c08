"""A run's progress: every job of the run counted together, the time left, and what it waits behind.

A run gets jobs over its life: its scoring, each *Rescore stale values*, each application of the
annotation rules. Its progress adds them up (items are (interaction, property) values for scoring
jobs, interactions for rules), says what is done, failed, not applicable and left, estimates the
time left from the rate measured on its open jobs, and, while none of its chunks has started, what
it waits behind: the chunks of other runs in flight on its queues, at the rate those queues finish
chunks now. The run page and the API (`GET /api/runs/{id}/progress`) show the same figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Min
from django.utils import timezone

from properties.models import Run, ScoringChunk, ScoringJob
from properties.pipeline import workers

# Chunks finished within this window give a queue's current rate.
RATE_WINDOW = timedelta(minutes=2)
COUNTED_KINDS = (ScoringJob.Kind.SCORING, ScoringJob.Kind.ANNOTATION)


@dataclass(frozen=True)
class WaitingBehind:
    chunks: int
    jobs: int
    projects: int
    seconds: float | None

    def __str__(self) -> str:
        jobs = f"{self.jobs} job{'s' if self.jobs != 1 else ''}"
        whose = "another project" if self.projects == 1 else f"{self.projects} other projects"
        if self.jobs == 0:
            return "waiting for a worker to take its first chunk"
        wait = f", {in_words(self.seconds)}" if self.seconds is not None else ""
        return f"after {jobs} of {whose}{wait}"


@dataclass
class RunProgress:
    total: int = 0
    done: int = 0
    failed: int = 0
    not_applicable: int = 0
    jobs: int = 0
    open_jobs: int = 0
    status: str = ""
    planning: bool = False
    seconds_left: float | None = None
    waiting_behind: WaitingBehind | None = None
    by_kind: dict[str, dict[str, int]] = field(default_factory=dict)
    # Jobs whose failure, notice or last error the page shows: the open ones, else the latest.
    shown_jobs: list[ScoringJob] = field(default_factory=list)
    queue_problems: list[Any] = field(default_factory=list)

    @property
    def left(self) -> int:
        return max(0, self.total - self.done - self.failed)

    @property
    def percent(self) -> int:
        if self.total == 0:
            return 0 if self.planning else 100
        return min(100, int(100 * (self.done + self.failed) / self.total))

    @property
    def is_finished(self) -> bool:
        return self.open_jobs == 0

    @property
    def scoring(self) -> dict[str, int]:
        return self.by_kind.get(ScoringJob.Kind.SCORING, {})

    @property
    def rules(self) -> dict[str, int]:
        return self.by_kind.get(ScoringJob.Kind.ANNOTATION, {})

    @property
    def time_left(self) -> str:
        return "" if self.seconds_left is None else in_words(self.seconds_left)

    def as_dict(self) -> dict[str, Any]:
        waiting = self.waiting_behind
        return {
            "status": self.status,
            "total": self.total,
            "done": self.done,
            "failed": self.failed,
            "not_applicable": self.not_applicable,
            "left": self.left,
            "percent": self.percent,
            "jobs": self.jobs,
            "open_jobs": self.open_jobs,
            "seconds_left": None if self.seconds_left is None else round(self.seconds_left, 1),
            "waiting_behind": None
            if waiting is None
            else {
                "chunks": waiting.chunks,
                "jobs": waiting.jobs,
                "projects": waiting.projects,
                "seconds": None if waiting.seconds is None else round(waiting.seconds, 1),
                "text": str(waiting),
            },
            "by_kind": self.by_kind,
        }


def run_progress(run: Run, now: datetime | None = None) -> RunProgress:
    now = now or timezone.now()
    jobs = list(run.jobs.filter(kind__in=COUNTED_KINDS).order_by("created_at", "pk"))
    progress = RunProgress(jobs=len(jobs))
    for job in jobs:
        kind = progress.by_kind.setdefault(job.kind, {"total": 0, "done": 0, "failed": 0, "not_applicable": 0})
        for name in ("total", "done", "failed", "not_applicable"):
            kind[name] += getattr(job, name)
            setattr(progress, name, getattr(progress, name) + getattr(job, name))
    open_jobs = [job for job in jobs if not job.is_finished]
    progress.open_jobs = len(open_jobs)
    progress.planning = any(job.status == ScoringJob.Status.PLANNING for job in open_jobs)
    progress.status = _status(jobs, open_jobs)
    progress.shown_jobs = open_jobs or jobs[-1:]
    if open_jobs:
        waiting_queues = {queue for job in open_jobs for queue in job.waiting_queues()}
        progress.queue_problems = workers.queue_problems(waiting_queues)
        progress.seconds_left = _seconds_left(open_jobs, now)
        if not ScoringChunk.objects.filter(job__in=open_jobs, started_at__isnull=False).exists():
            progress.waiting_behind = waiting_behind(run, open_jobs, now)
    return progress


def _status(jobs: list[ScoringJob], open_jobs: list[ScoringJob]) -> str:
    if not jobs:
        return "none"
    if open_jobs:
        statuses = {job.status for job in open_jobs}
        for status in (ScoringJob.Status.RUNNING, ScoringJob.Status.PLANNING, ScoringJob.Status.PENDING):
            if status in statuses:
                return status
    return jobs[-1].status


def _seconds_left(open_jobs: list[ScoringJob], now: datetime) -> float | None:
    """Items left over the items per second measured since the open jobs' first chunk began."""
    began = ScoringChunk.objects.filter(job__in=open_jobs, started_at__isnull=False).aggregate(first=Min("started_at"))[
        "first"
    ]
    processed = sum(job.processed for job in open_jobs)
    left = sum(max(0, job.total - job.processed) for job in open_jobs)
    if began is None or processed == 0 or any(job.status == ScoringJob.Status.PLANNING for job in open_jobs):
        return None
    elapsed = max((now - began).total_seconds(), 0.001)
    return left / (processed / elapsed)


def waiting_behind(run: Run, open_jobs: list[ScoringJob], now: datetime) -> WaitingBehind:
    """The chunks of other runs in flight on the queues this run's chunks wait on, and how long the
    queues take to finish that many at their current rate."""
    queues = set(
        ScoringChunk.objects.open().filter(job__in=open_jobs).values_list("queue", flat=True).distinct().order_by()
    )
    ahead = (
        ScoringChunk.objects.open()
        .filter(kind=ScoringChunk.Kind.SCORE, queue__in=queues, sent_at__isnull=False)
        .exclude(job__run=run)
    )
    counts = ahead.aggregate(
        chunks=Count("pk"), jobs=Count("job", distinct=True), projects=Count("job__run__project", distinct=True)
    )
    seconds = 0.0
    for queue in queues:
        in_queue = ahead.filter(queue=queue).count()
        if not in_queue:
            continue
        rate = queue_rate(queue, now)
        if rate is None:
            seconds = None
            break
        seconds = max(seconds, in_queue / rate)
    return WaitingBehind(counts["chunks"], counts["jobs"], counts["projects"], seconds)


def queue_rate(queue: str, now: datetime) -> float | None:
    """Score chunks per second the queue finished in the last RATE_WINDOW, or None when none did."""
    recent = ScoringChunk.objects.filter(
        kind=ScoringChunk.Kind.SCORE, queue=queue, state=ScoringChunk.State.DONE, finished_at__gte=now - RATE_WINDOW
    ).aggregate(n=Count("pk"), first=Min("started_at"))
    if not recent["n"] or recent["first"] is None:
        return None
    span = max((now - max(recent["first"], now - RATE_WINDOW)).total_seconds(), 1.0)
    return recent["n"] / span


def in_words(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 10:
        return "a few seconds"
    if seconds < 90:
        return f"about {round(seconds / 10) * 10} seconds"
    if seconds < 90 * 60:
        minutes = round(seconds / 60)
        return f"about {minutes} minute{'s' if minutes != 1 else ''}"
    hours = round(seconds / 3600, 1)
    return f"about {hours:g} hours"
