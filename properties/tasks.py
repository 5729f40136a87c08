from celery import shared_task
from celery.contrib.django.task import DjangoTask
from django.conf import settings
from django.db import OperationalError

# The project's Celery app (its broker from Django's settings) must be the current app before these
# tasks are sent; the `evalsite` package imports it only on demand.
from evalsite.celery import app as _app  # noqa: F401
from properties.annotations import annotation
from properties.compare import compare_page, comparison
from properties.models import Run, ScoringChunk
from properties.pipeline import deletion, dispatch, previews, scoring, sweeper, workers
from properties.quality import value_summaries


class ChunkTask(DjangoTask):
    """A task that runs one chunk (its `chunk_kind`): records where it began, and that it raised.

    The sweeper sends a chunk again when its attempt raised or its worker was lost; what the task
    itself retries is only the narrow tuple below.
    """

    chunk_kind = ScoringChunk.Kind.SCORE

    def before_start(self, task_id, args, kwargs) -> None:
        dispatch.mark_started(self.chunk_kind, args[0], workers.current_worker() or self.request.hostname or "")

    def on_failure(self, exc, task_id, args, kwargs, einfo) -> None:
        dispatch.record_failure(self.chunk_kind, args[0], exc)


# Retry only on OperationalError: SQLite's "database is locked" under concurrent writers, or a
# dropped PostgreSQL connection. Scorer failures are stored as error values, never retried.
PIPELINE_TASK = {
    "base": ChunkTask,
    "ignore_result": True,
    "acks_late": True,
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "retry_jitter": True,
    "max_retries": 5,
}


@shared_task(name="properties.score_chunk", **PIPELINE_TASK)
def score_chunk_task(chunk_id: int) -> None:
    scoring.score_chunk(chunk_id)


# Planning and deleting walk a whole run (a million rows take minutes): a time limit of their own.
RUN_WIDE = {
    "soft_time_limit": settings.EVALSITE_RUN_TASK_TIME_LIMIT - 30,
    "time_limit": settings.EVALSITE_RUN_TASK_TIME_LIMIT,
    **PIPELINE_TASK,
}


@shared_task(name="properties.plan_job", chunk_kind=ScoringChunk.Kind.PLAN, **RUN_WIDE)
def plan_job_task(job_id: int) -> None:
    plan = dispatch.chunk_of(ScoringChunk.Kind.PLAN, job_id)
    if plan is not None:
        scoring.plan_chunks(plan.pk)


@shared_task(name="properties.annotate_run", chunk_kind=ScoringChunk.Kind.ANNOTATE, **PIPELINE_TASK)
def annotate_run_task(job_id: int, after: int = 0) -> None:
    annotation.run_annotation_job(job_id, after)


# A preview is a person waiting on a page: no retries, the page says what went wrong.
@shared_task(name="properties.preview_prompt", ignore_result=True, acks_late=True)
def preview_prompt_task(preview_id: int) -> None:
    previews.run_preview(preview_id)


# Sent by Celery beat; a sweep that waited past the next one is dropped (expires in the schedule).
@shared_task(name="properties.sweep_pipeline", ignore_result=True)
def sweep_pipeline_task() -> None:
    sweeper.sweep()


@shared_task(name="properties.delete_run", chunk_kind=ScoringChunk.Kind.DELETE, **RUN_WIDE)
def delete_run_task(job_id: int) -> None:
    deletion.delete_run(job_id)


# Sent when a scoring job ends, and by the sweeper for a run whose latest job ended without its
# statistics kept; best effort (a comparison computes what was not kept or cached), so no retries.
# `warm`: also match the run with the run before it, which the sweeper's late keeping skips (the
# cache it fills is for the visit right after a scoring).
@shared_task(name="properties.keep_run_summaries", ignore_result=True, acks_late=True)
def keep_run_summaries_task(run_id: int, warm: bool = True) -> None:
    run = Run.objects.select_related("project").filter(pk=run_id).first()
    if run is not None:
        job = value_summaries.latest_scoring_job(run)
        value_summaries.mark_kept(job, properties_kept=bool(comparison.keep_run_summaries(run)))
        if warm:
            compare_page.warm_row_diff(run)
