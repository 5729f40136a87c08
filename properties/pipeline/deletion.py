"""Deleting runs and projects: hidden at once, their rows deleted in batches by a worker.

A deleted run's unfinished jobs are cancelled (a worker that takes one of their chunks returns at
once), the run is hidden and renamed out of the way (its name can be used again at once), and a
deletion job on the pipeline deletes its values and interactions in batches, then the run. A
deleted project is hidden, and each of its runs deleted the same way; the last one deletes it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Q

from properties.models import Annotation, Interaction, Project, PropertyValue, Run, ScoringChunk, ScoringJob, Upload
from properties.pipeline import dispatch

# Interactions per transaction, with their values (a run scored with the 16 default properties
# holds about 30 values an interaction): small enough that SQLite's write lock is held for a
# fraction of a second at a time, so uploads and workers writing beside the deletion are not kept
# waiting.
DELETE_BATCH = 200


@dataclass(frozen=True)
class Contents:
    """What deleting a run or project deletes, counted for its confirmation page."""

    runs: int
    interactions: int
    values: int
    annotations: int
    uploads: int


def contents(runs: list[Run], uploads: int) -> Contents:
    interactions = Interaction.objects.filter(run__in=runs).aggregate(
        n=Count("pk"), annotated=Count("pk", filter=~Q(annotation=Annotation.UNKNOWN))
    )
    values = PropertyValue.objects.filter(run__in=runs).count()
    return Contents(len(runs), interactions["n"], values, interactions["annotated"], uploads)


def run_contents(run: Run) -> Contents:
    return contents([run], run.uploads.count())


def project_contents(project: Project) -> Contents:
    return contents(list(project.runs.live()), project.uploads.count())


def delete_run_later(run: Run) -> None:
    """Hide the run now and hand the deletion of its rows to a worker once this commits."""
    with transaction.atomic():
        # Out of the way of a new run of the same name (names are unique in a project).
        Run.objects.filter(pk=run.pk).update(deleting=True, name=f"{run.name[:150]} (deleted #{run.pk})")
        for job in run.jobs.exclude(status__in=ScoringJob.FINISHED):
            job.cancel("the run was deleted")
        job = ScoringJob.objects.create(run=run, kind=ScoringJob.Kind.DELETION, status=ScoringJob.Status.RUNNING)
        dispatch.send_on_commit([job.chunks.create(kind=ScoringChunk.Kind.DELETE, queue="cpu")])


def delete_project_later(project: Project) -> None:
    with transaction.atomic():
        Project.objects.filter(pk=project.pk).update(deleting=True)
        runs = list(project.runs.live())
        for run in runs:
            delete_run_later(run)
        if not project.runs.exists():
            _delete_project(project)


def delete_run(job_id: int) -> None:
    """The deletion job's task: interactions with their values, in batches; then the run. Safe to
    repeat."""
    job = ScoringJob.objects.select_related("run__project").filter(pk=job_id).first()
    if job is None:
        return
    run = job.run
    delete_interactions(run)
    for upload in run.uploads.all():
        _delete_upload(upload)
    project = run.project
    run.delete()  # its jobs, chunks (this job's too) and LLM usage
    if project.deleting and not project.runs.exists():
        _delete_project(project)


def delete_interactions(run: Run) -> int:
    """The run's interactions and their values, DELETE_BATCH interactions at a time, in id order.

    Each batch is the next range of the (run, id) index, and its values are found by the interaction
    ids that begin their unique index. Asking for "any DELETE_BATCH values of the run" instead let
    PostgreSQL pick a sequential scan for a run that is a large share of the table (it expects them
    soon): for the newest run, whose rows lie at the table's end, every batch read all other runs'
    values first, 2 s a batch for a run of 100,000 after 900,000 others (750 batches), where an
    index range takes milliseconds."""
    deleted, last = 0, 0
    interactions = Interaction.objects.filter(run=run).order_by("pk").values_list("pk", flat=True)
    while ids := list(interactions.filter(pk__gt=last)[:DELETE_BATCH]):
        with transaction.atomic():
            PropertyValue.objects.filter(interaction_id__in=ids).delete()
            deleted += Interaction.objects.filter(pk__in=ids).delete()[0]
        last = ids[-1]
    return deleted


def _delete_project(project: Project) -> None:
    for upload in project.uploads.all():
        _delete_upload(upload)
    project.delete()


def _delete_upload(upload: Upload) -> None:
    if upload.file:
        upload.file.delete(save=False)
    upload.delete()
