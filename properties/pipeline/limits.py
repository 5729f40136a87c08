"""Operators' limits per project: how many of its jobs may be open at once.

Limits are settings (the operator's), never a project's configuration (its users'). Going past one
is a message that names the limit and its setting; nothing already stored is touched. The limits
on stored interactions and on rows per upload are applied where rows are written
(properties.uploads.ingest).
"""

from __future__ import annotations

from django.conf import settings

from properties.models import Project, ScoringJob

# Deleting a run is the server's own work, not counted against the project.
LIMITED_KINDS = (ScoringJob.Kind.SCORING, ScoringJob.Kind.ANNOTATION)


class JobLimitReached(Exception):
    """The project has as many open jobs as the operator allows."""


def check_open_jobs(project: Project) -> None:
    limit = settings.EVALSITE_PROJECT_MAX_OPEN_JOBS
    open_jobs = (
        ScoringJob.objects.filter(run__project=project, kind__in=LIMITED_KINDS)
        .exclude(status__in=ScoringJob.FINISHED)
        .count()
    )
    if open_jobs >= limit:
        raise JobLimitReached(
            f"Project {project.name!r} has {open_jobs} jobs open, the most this server allows at once "
            f"(EVALSITE_PROJECT_MAX_OPEN_JOBS = {limit}, set by its operator). Nothing was started; "
            "start it again when one of them has ended."
        )
