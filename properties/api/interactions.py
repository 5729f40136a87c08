"""Routes of a run's interactions: logging them in batches, listing them with filters."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.db.models import Exists, OuterRef, QuerySet
from django.http import HttpRequest
from ninja import Query, Router

from properties.api.access import ApiError, run_for
from properties.api.schemas import ERRORS, InteractionFilters, InteractionOut, InteractionPage, InteractionsIn, LogOut
from properties.models import (
    Interaction,
    PropertyValue,
)
from properties.quality import criteria
from properties.screen import datascreen
from properties.uploads import ingest

router = Router()


FILTER = re.compile(
    r"^\s*([a-z][a-z0-9_]*)(?:\.(input|output))?\s*(<=|>=|==|!=|<|>|=)\s*(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s*$"
)


LOOKUPS = {"<": "lt", "<=": "lte", ">": "gt", ">=": "gte", "=": "exact", "==": "exact"}


def filter_interactions(interactions: QuerySet[Interaction], filters: list[str]) -> QuerySet[Interaction]:
    """Keep interactions whose value satisfies every `name[.field] OP number` filter."""
    for text in filters:
        match = FILTER.match(text)
        if match is None:
            raise ApiError(
                400, f"bad filter {text!r}: write property[.input|.output] OP number, e.g. toxicity.output<0.1"
            )
        name, field, op, number = match.groups()
        if not field:
            try:
                name, field = datascreen.split_address(name)
            except datascreen.FilterError as exc:
                raise ApiError(400, f"bad filter {text!r}: {exc}") from None
        values = PropertyValue.objects.filter(interaction=OuterRef("pk"), property_name=name, field=field, status="ok")
        if op == "!=":
            values = values.exclude(value=float(number)).filter(value__isnull=False)
        else:
            values = values.filter(**{f"value__{LOOKUPS[op]}": float(number)})
        interactions = interactions.filter(Exists(values))
    return interactions


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
    interactions = filter_interactions(run_for(request, run_id).interactions.all(), filters.filter)
    if filters.annotation:
        interactions = interactions.filter(annotation=filters.annotation)
    page = interactions.order_by("pk").prefetch_related("property_values")[
        filters.offset : filters.offset + filters.limit
    ]
    return {"count": interactions.count(), "items": [interaction_out(i) for i in page]}
