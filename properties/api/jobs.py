"""Routes of scoring jobs: starting one, reading one."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from ninja import Router, Status

from properties.api.access import ApiError, run_for
from properties.api.projects import known_properties
from properties.api.schemas import ERRORS, JobOut, ScoreIn
from properties.models import (
    Run,
    ScoringJob,
)
from properties.pipeline import limits, scoring

router = Router()


@router.post("/runs/{run_id}/score", response={202: JobOut, **ERRORS}, tags=["scoring"])
def start_scoring(request: HttpRequest, run_id: int, payload: ScoreIn | None = None) -> Any:
    run = run_for(request, run_id)
    names = payload.properties if payload is not None and payload.properties is not None else None
    # Planned by a worker: the job answers "planning", with its total once its chunks exist.
    try:
        job = scoring.start_job(run, known_properties(names, run.project) if names is not None else None)
    except limits.JobLimitReached as exc:
        raise ApiError(429, str(exc)) from None
    return Status(202, job)


@router.get("/jobs/{job_id}", response={200: JobOut, **ERRORS}, tags=["scoring"])
def get_job(request: HttpRequest, job_id: int) -> Any:
    return get_object_or_404(ScoringJob.objects.filter(run__in=Run.objects.visible_to(request.auth)), pk=job_id)
