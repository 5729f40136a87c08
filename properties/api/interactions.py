"""Routes of a run's interactions: logging them in batches, listing them with filters."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import prefetch_related_objects
from django.http import HttpRequest, QueryDict
from ninja import Query, Router

from properties.api.access import ApiError, run_for
from properties.api.schemas import ERRORS, InteractionFilters, InteractionOut, InteractionPage, InteractionsIn, LogOut
from properties.models import Interaction, Run
from properties.quality import criteria
from properties.screen import datascreen
from properties.screen.rows import ScreenRows
from properties.uploads import ingest

router = Router()


def filtered(run: Run, filters: InteractionFilters) -> ScreenRows:
    """The run's interactions that match the filters, in id order (or a saved view's): the Data
    Screen's query."""
    params = QueryDict(mutable=True)
    if filters.view is not None:
        view = run.project.saved_views.filter(pk=filters.view).first()
        if view is None:
            raise ApiError(404, f"the run's project has no saved view {filters.view}")
        params = QueryDict(view.query_string(), mutable=True)
    if filters.annotation:
        if params.get("annotation", filters.annotation) != filters.annotation:
            raise ApiError(
                400, f"annotation={filters.annotation} contradicts the view's annotation {params['annotation']}"
            )
        params["annotation"] = filters.annotation
    params.setlist("where", [*params.getlist("where"), *filters.filter])
    query = datascreen.ScreenQuery.from_params(params)
    if query.error:
        raise ApiError(400, f"bad filter {query.where!r}: {query.error}")
    return datascreen.filtered_interactions(run, query)


def interaction_out(interaction: Interaction) -> dict[str, Any]:
    values = {
        value.address: (value.value if value.label == "" or value.value is not None else value.label)
        if value.status == "ok"
        else None
        for value in interaction.property_values.all()
    }
    not_applicable = {
        value.address: criteria.not_applicable_reason(value)
        for value in interaction.property_values.all()
        if criteria.is_not_applicable(value)
    }
    own_fields = [f for f in InteractionOut.model_fields if f not in ("properties", "not_applicable")]
    return {
        **{f: getattr(interaction, f) for f in own_fields},
        "properties": values,
        "not_applicable": not_applicable,
    }


@router.post("/runs/{run_id}/interactions", response={200: LogOut, **ERRORS}, tags=["interactions"])
def log_interactions(request: HttpRequest, run_id: int, payload: InteractionsIn) -> Any:
    """Log a batch; each row is validated as in an upload, and rejected rows are listed."""
    run = run_for(request, run_id)
    limit = settings.EVALSITE_API_MAX_BATCH
    if len(payload.interactions) > limit:
        raise ApiError(413, f"a batch of {len(payload.interactions)} interactions is over the limit of {limit}")
    result = ingest.ingest_records(payload.interactions, run, payload.column_mapping)
    if result.fatal and result.accepted + result.rejected == 0:
        raise ApiError(400, result.fatal)
    errors = [{"row": e["line"], "field": e["field"], "reason": e["reason"]} for e in result.error_dicts()]
    return {"accepted": result.accepted, "rejected": result.rejected, "errors": errors}


@router.get("/runs/{run_id}/interactions", response={200: InteractionPage, **ERRORS}, tags=["interactions"])
def list_interactions(request: HttpRequest, run_id: int, filters: Query[InteractionFilters]) -> Any:
    interactions = filtered(run_for(request, run_id), filters)
    page = list(interactions[filters.offset : filters.offset + filters.limit])
    prefetch_related_objects(page, "property_values")
    return {"count": interactions.count_all(), "items": [interaction_out(i) for i in page]}
