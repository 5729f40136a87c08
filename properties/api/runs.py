"""Routes of a run: it, its summary and its progress."""

from __future__ import annotations

from typing import Any

from django.db.models import Avg, Count, Q
from django.http import HttpRequest
from ninja import Router

from properties.api.access import run_for
from properties.api.schemas import ERRORS, RunOut, RunProgressOut, SummaryOut
from properties.models import (
    Run,
    RunLLMUsage,
)
from properties.pipeline import progress

router = Router()


def run_summary(run: Run) -> dict[str, Any]:
    rows = run.property_values.values("property_name", "field").annotate(
        count=Count("id", filter=Q(status="ok")),
        errors=Count("id", filter=Q(status="error")),
        not_applicable=Count("id", filter=Q(status="not_applicable")),
        mean=Avg("value"),
    )
    properties = {
        (r["property_name"] if r["field"] == "interaction" else f"{r['property_name']}.{r['field']}"): {
            "count": r["count"],
            "errors": r["errors"],
            "not_applicable": r["not_applicable"],
            "mean": r["mean"],
        }
        for r in rows.order_by("property_name", "field")
    }
    annotations = dict.fromkeys(("good", "bad", "unknown"), 0)
    for row in run.interactions.values("annotation").annotate(n=Count("id")).order_by():
        annotations[row["annotation"]] = row["n"]
    return {
        "run_id": run.pk,
        "interactions": run.interactions.count(),
        "properties": properties,
        "annotations": annotations,
        "llm_usage": RunLLMUsage.totals(run),
    }


@router.get("/runs/{run_id}", response={200: RunOut, **ERRORS}, tags=["runs"])
def get_run(request: HttpRequest, run_id: int) -> Any:
    return run_for(request, run_id)


@router.get("/runs/{run_id}/summary", response={200: SummaryOut, **ERRORS}, tags=["runs"])
def get_summary(request: HttpRequest, run_id: int) -> Any:
    return run_summary(run_for(request, run_id))


@router.get("/runs/{run_id}/progress", response={200: RunProgressOut, **ERRORS}, tags=["scoring"])
def get_progress(request: HttpRequest, run_id: int) -> Any:
    """Every job of the run counted together (scoring, rescoring, rules), as the run page shows it."""
    return progress.run_progress(run_for(request, run_id)).as_dict()
