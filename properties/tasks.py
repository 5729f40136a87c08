from celery import shared_task
from django.db import OperationalError

from properties import annotation, previews, scoring

# Retry only on OperationalError: SQLite's "database is locked" under concurrent writers, or a
# dropped PostgreSQL connection. Scorer failures are stored as error values, never retried.
PIPELINE_TASK = {
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


@shared_task(name="properties.annotate_run", **PIPELINE_TASK)
def annotate_run_task(job_id: int) -> None:
    annotation.run_annotation_job(job_id)


# A preview is a person waiting on a page: no retries, the page says what went wrong.
@shared_task(name="properties.preview_prompt", ignore_result=True, acks_late=True)
def preview_prompt_task(preview_id: int) -> None:
    previews.run_preview(preview_id)
