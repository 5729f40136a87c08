"""Routes of projects and of their runs."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router, Status

from properties.api.access import ApiError, project_for
from properties.api.schemas import (
    ERRORS,
    ErrorOut,
    PassCriterionIn,
    PassCriterionOut,
    ProjectIn,
    ProjectOut,
    RunIn,
    RunOut,
)
from properties.models import (
    Membership,
    Project,
    Run,
    ThresholdChange,
)
from properties.projects import project_templates
from properties.quality import criteria, thresholds
from properties.scorers import registry

router = Router()


def known_properties(names: list[str], project: Project | None = None) -> list[str]:
    """Built-in and plugin properties, plus the project's own prompt properties."""
    known = list(registry.all_scorers())
    if project is not None:
        known += list(project.prompt_properties.values_list("property_name", flat=True))
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ApiError(400, f"unknown properties: {', '.join(unknown)}; known: {', '.join(known)}")
    return names


@router.get("/projects", response={200: list[ProjectOut], **ERRORS}, tags=["projects"])
def list_projects(request: HttpRequest) -> Any:
    return Project.objects.visible_to(request.auth)


@router.post("/projects", response={201: ProjectOut, **ERRORS}, tags=["projects"])
def create_project(request: HttpRequest, payload: ProjectIn) -> Any:
    project = Project(name=payload.name, description=payload.description)
    project_templates.apply(project, payload.template)
    if payload.properties is not None:
        project.enabled_properties = known_properties(payload.properties)
    project.save()
    project.add_member(request.auth, Membership.Role.OWNER)
    return Status(201, project)


@router.get("/projects/{project_id}", response={200: ProjectOut, **ERRORS}, tags=["projects"])
def get_project(request: HttpRequest, project_id: int) -> Any:
    return project_for(request, project_id)


@router.get("/projects/{project_id}/runs", response={200: list[RunOut], **ERRORS}, tags=["runs"])
def list_runs(request: HttpRequest, project_id: int) -> Any:
    return project_for(request, project_id).runs.live()


@router.post("/projects/{project_id}/runs", response={201: RunOut, 409: ErrorOut, **ERRORS}, tags=["runs"])
def create_run(request: HttpRequest, project_id: int, payload: RunIn) -> Any:
    project = project_for(request, project_id)
    if project.runs.filter(name=payload.name).exists():
        return Status(409, {"detail": f"the project already has a run named {payload.name!r}"})
    return Status(201, Run.objects.create(project=project, **payload.dict()))


@router.put(
    "/projects/{project_id}/properties/{name}",
    response={200: PassCriterionOut, **ERRORS},
    tags=["projects"],
)
def set_pass_criterion(request: HttpRequest, project_id: int, name: str, payload: PassCriterionIn) -> Any:
    """A property's pass or fail in the project, as its settings page sets it: a threshold outside the
    property's range is refused (400), naming it."""
    project = project_for(request, project_id)
    known_properties([name], project)
    criterion = criteria.criterion_for(project, name)
    if payload.direction and payload.threshold is None:
        raise ApiError(400, f"{name}: a direction needs a threshold")
    problem = criteria.threshold_problem(name, criterion, payload.threshold)
    if problem:
        raise ApiError(400, f"threshold: {problem}")
    thresholds.save_criterion(
        project,
        name,
        direction=payload.direction,
        threshold=payload.threshold,
        tolerance=payload.tolerance,
        user=request.auth,
        how=ThresholdChange.How.API,
        key=payload.key,
    )
    saved = criteria.criterion_for(project, name)
    return {
        "property": name,
        **saved.to_dict(),
        "low": saved.low,
        "high": saved.high,
        "key": name in project.key_properties,
        "describe": saved.describe(),
    }
