"""Routes of a property in a project: its agreement with the team's labels, and setting its threshold."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Field as NinjaField
from ninja import Query, Router, Schema

from properties.annotations import agreement
from properties.api.access import ApiError, project_for
from properties.api.schemas import ERRORS, AgreementOut, ThresholdIn
from properties.models import Project, ThresholdChange
from properties.quality import agreement_stats, criteria, thresholds
from properties.scorers import registry

router = Router()


class AgreementQuery(Schema):
    runs: list[int] = NinjaField([], description="Run ids of the project; all its runs if omitted.")
    target_precision: float | None = NinjaField(
        None, gt=0, le=1, description="Suggest the threshold that fails the most bad at this precision or more."
    )


def _property(project: Project, name: str) -> str:
    known = set(registry.all_scorers()) | set(project.enabled_properties)
    known |= set(project.prompt_properties.values_list("property_name", flat=True))
    if name not in known:
        raise ApiError(404, f"no property {name!r} in this project")
    return name


def agreement_out(project: Project, name: str, measured: agreement.PropertyAgreement) -> dict[str, Any]:
    figures = measured.figures
    suggestion = figures.suggestion if figures else None
    change = thresholds.latest_change(project, name)
    return {
        "property": name,
        "address": measured.address,
        "runs": [run.pk for run in measured.runs],
        "direction": measured.direction or measured.criterion.direction,
        "direction_inferred": measured.direction_inferred,
        "threshold": measured.criterion.threshold if measured.criterion.judges else None,
        "sources": measured.sources,
        "good": measured.good,
        "bad": measured.bad,
        "without_value": measured.without_value,
        "minimum_per_label": agreement_stats.MIN_PER_LABEL,
        "needed": measured.needed,
        "roc_auc": figures.roc_auc if figures else None,
        "roc_auc_interval": list(figures.interval) if figures else None,
        "current": figures.current.as_dict() if figures and figures.current else None,
        "suggested": {
            **suggestion.confusion.as_dict(),
            "goal": suggestion.goal,
            "target_precision": suggestion.target_precision,
        }
        if suggestion
        else None,
        "by_label": [vars(row) for row in measured.labels] if measured.categorical and measured.enough else None,
        "disagreements": {str(run_id): n for run_id, n in measured.disagreements.items()},
        "threshold_change": _change_out(change) if change else None,
    }


def _change_out(change: ThresholdChange) -> dict[str, Any]:
    fields = ("threshold", "direction", "previous_threshold", "set_at", "how", "note")
    return {**{f: getattr(change, f) for f in fields}, "set_by": change.set_by.username if change.set_by else None}


@router.get(
    "/projects/{project_id}/properties/{name}/agreement", response={200: AgreementOut, **ERRORS}, tags=["properties"]
)
def get_agreement(request: HttpRequest, project_id: int, name: str, query: Query[AgreementQuery]) -> Any:
    """How the property agrees with people's good/bad labels on the project's runs (or those chosen)."""
    project = project_for(request, project_id)
    runs = agreement.runs_of(project, query.runs)
    if len(runs) < len(set(query.runs)):
        raise ApiError(404, "runs: some of these runs are not in this project")
    measured = agreement.measure(project, _property(project, name), runs, query.target_precision)
    return agreement_out(project, name, measured)


@router.post(
    "/projects/{project_id}/properties/{name}/threshold", response={200: AgreementOut, **ERRORS}, tags=["properties"]
)
def set_threshold(request: HttpRequest, project_id: int, name: str, payload: ThresholdIn) -> Any:
    """Set the property's threshold (the suggested one, or any), recorded with the token's user and
    the time; answers the agreement at the new threshold on all the project's runs."""
    project = project_for(request, project_id)
    _property(project, name)
    before = criteria.criterion_for(project, name)
    direction = payload.direction or before.direction
    if not direction:
        raise ApiError(400, f"direction: {name} has no direction yet; send higher or lower with the threshold")
    if problem := criteria.threshold_problem(name, before, payload.threshold):
        raise ApiError(400, f"threshold: {problem}")
    thresholds.save_criterion(
        project,
        name,
        direction=direction,
        threshold=payload.threshold,
        tolerance=before.tolerance,
        user=request.auth,
        how=ThresholdChange.How.API,
    )
    return agreement_out(project, name, agreement.measure(project, name, agreement.runs_of(project)))
