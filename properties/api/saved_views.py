"""Routes of a project's saved views of the Data Screen: listing, creating (checked as the page
checks them) and deleting them. `view=` on a run's interactions applies one (interactions.py)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from ninja import Router, Status

from properties.api.access import ApiError, project_for
from properties.api.schemas import ERRORS, ErrorOut, SavedViewIn, SavedViewOut
from properties.models import SavedView
from properties.screen import saved_views

router = Router()


@router.get("/projects/{project_id}/views", response={200: list[SavedViewOut], **ERRORS}, tags=["saved views"])
def list_saved_views(request: HttpRequest, project_id: int) -> Any:
    return project_for(request, project_id).saved_views.select_related("created_by")


@router.post(
    "/projects/{project_id}/views", response={201: SavedViewOut, 409: ErrorOut, **ERRORS}, tags=["saved views"]
)
def create_saved_view(request: HttpRequest, project_id: int, payload: SavedViewIn) -> Any:
    """Save a view for the whole project; a filter that does not parse, a column or sort that is not
    a property of the project is a 400 naming the field, a name the project has a 409."""
    project = project_for(request, project_id)
    form = saved_views.SavedViewForm(project, payload.dict())
    view = form.save(request.auth) if form.is_valid() else None
    if view is None:
        status = 409 if list(form.errors) == ["name"] and form.has_error("name", saved_views.NAME_TAKEN) else 400
        return Status(status, {"detail": form.problems(by_name=True)})
    return Status(201, view)


@router.get("/projects/{project_id}/views/{view_id}", response={200: SavedViewOut, **ERRORS}, tags=["saved views"])
def get_saved_view(request: HttpRequest, project_id: int, view_id: int) -> Any:
    return get_object_or_404(project_for(request, project_id).saved_views, pk=view_id)


@router.delete(
    "/projects/{project_id}/views/{view_id}", response={204: None, 403: ErrorOut, **ERRORS}, tags=["saved views"]
)
def delete_saved_view(request: HttpRequest, project_id: int, view_id: int) -> Any:
    """By its author or an owner of the project (403 for the other members)."""
    project = project_for(request, project_id)
    view: SavedView = get_object_or_404(project.saved_views, pk=view_id)
    if not view.deletable_by(request.auth, project.is_owner(request.auth)):
        raise ApiError(403, "only the view's author or an owner of the project can delete it")
    view.delete()
    return Status(204, None)
