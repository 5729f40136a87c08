"""The project pages: the list, a project, its properties and their settings, its rules, renaming and deleting it."""

from __future__ import annotations

import json
from urllib.parse import quote, urlencode

from django.contrib import messages
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from properties.annotations import agreement, agreement_chart, annotation, project_rules
from properties.compare import comparison
from properties.models import (
    Membership,
    Project,
    PropertyValue,
    ScoringChunk,
    ThresholdChange,
)
from properties.pipeline import deletion, workers
from properties.projects import project_templates, property_names
from properties.quality import agreement_stats, criteria, report_card, thresholds
from properties.scorers import registry
from properties.scorers.pii_risk import default_risk_factors
from properties.web.access import project_for
from properties.web.forms import (
    AgreementForm,
    ApplyThresholdForm,
    PassCriteriaForm,
    ProjectForm,
    PropertySettingsForm,
    RenameForm,
    RulesForm,
)


def project_list(request: HttpRequest) -> HttpResponse:
    form = ProjectForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        project = form.save()
        project.add_member(request.user, Membership.Role.OWNER)
        return redirect("properties:project-detail", pk=project.pk)
    live_runs = Count("runs", filter=Q(runs__deleting=False), distinct=True)
    projects = Project.objects.visible_to(request.user).annotate(run_count=live_runs)
    context = {"projects": projects, "form": form, "templates": project_templates.TEMPLATES.values()}
    return render(request, "properties/project_list.html", context)


def project_detail(request: HttpRequest, pk: int, settings_form: PropertySettingsForm | None = None) -> HttpResponse:
    project = project_for(request, pk)
    runs = list(project.runs.live())
    summaries = comparison.summarize_runs(runs)
    addresses = property_names.key_first(
        project, sorted({address for summary in summaries for address in summary.stats})
    )
    waiting = ScoringChunk.objects.open().filter(job__run__in=runs).values_list("queue", flat=True)
    initial = {"enabled": project.enabled_properties, "configuration": json.dumps(project.property_config, indent=2)}
    context = {
        "project": project,
        "summaries": summaries,
        "addresses": addresses,
        "names": property_names.names_for(project, addresses),
        "settings_form": settings_form or PropertySettingsForm(initial=initial, project=project),
        "catalogue": _catalogue(project),
        "template": project_templates.TEMPLATES.get(project.template),
        "prompt_properties": project.prompt_properties.all(),
        "risk_factors": _risk_factors(project),
        "uploads": project.uploads.all()[:10],
        "queue_problems": workers.queue_problems(waiting.distinct().order_by()),
        "rename_form": RenameForm(initial={"name": project.name}),
    }
    return render(request, "properties/project_detail.html", context)


def _catalogue(project: Project) -> list[tuple]:
    """Every property a project may score: (name, class, built-in, its criterion here, key)."""
    return [
        (name, cls, registry.is_builtin(name), criteria.criterion_for(project, name), name in project.key_properties)
        for name, cls in registry.all_scorers().items()
    ]


@require_POST
def project_properties(request: HttpRequest, pk: int) -> HttpResponse:
    project = project_for(request, pk)
    form = PropertySettingsForm(request.POST, project=project)
    if not form.is_valid():
        return project_detail(request, pk, settings_form=form)
    project.enabled_properties = form.cleaned_data["enabled"]
    project.property_config = form.cleaned_data["configuration"]
    project.save(update_fields=["enabled_properties", "property_config"])
    messages.success(request, "Properties saved. Rescore a run to compute new or changed ones.")
    return redirect("properties:project-detail", pk=project.pk)


def _property_of(request: HttpRequest, pk: int, name: str) -> Project:
    project = project_for(request, pk)
    if name not in project.enabled_properties and name not in registry.all_scorers():
        raise Http404("No such property.")
    return project


def property_settings(request: HttpRequest, pk: int, name: str) -> HttpResponse:
    """One property in a project: what it measures and how well (its report card), how it agrees
    with the team's labels on the runs chosen (`runs=`, `target_precision=`), its pass or fail, its
    tolerance in comparisons, and whether it is a key property."""
    project = _property_of(request, pk, name)
    criterion = criteria.criterion_for(project, name)
    initial = {**criterion.to_dict(), "key": name in project.key_properties}
    form = PassCriteriaForm(request.POST or None, initial=initial, name=name, criterion=criterion)
    if request.method == "POST" and form.is_valid():
        form.save(project, name, request.user)
        messages.success(request, f"{name} saved: {criteria.criterion_for(project, name).describe()}.")
        return redirect("properties:property-settings", pk=project.pk, name=name)
    context = {
        "project": project,
        "name": name,
        "form": form,
        "card": report_card.card_for(name, criterion),
        "model": PropertyValue.objects.filter(run__project=project, property_name=name)
        .exclude(model="")
        .values_list("model", flat=True)
        .first(),
        "default": criteria.default_for(name),
        "threshold_change": thresholds.latest_change(project, name),
        **_agreement_context(project, name, request.GET),
    }
    return render(request, "properties/property_settings.html", context)


def _agreement_context(project: Project, name: str, params) -> dict:
    form = AgreementForm(params if params else None, project=project)
    chosen = form.cleaned_data if form.is_bound and form.is_valid() else {}
    runs = list(chosen.get("runs") or agreement.runs_of(project))
    measured = agreement.measure(project, name, runs, chosen.get("target_precision"))
    figure = None
    if not measured.categorical and measured.good + measured.bad:
        suggestion = measured.figures.suggestion if measured.figures else None
        figure = agreement_chart.distribution_figure(
            str(property_names.names_for(project, [measured.address])[measured.address]),
            measured.good_values,
            measured.bad_values,
            measured.criterion,
            measured.criterion.threshold if measured.criterion.judges else None,
            suggestion.threshold if suggestion else None,
        )
    disagreements = [
        (run, measured.disagreements[run.pk], f"where={quote('disagrees:' + measured.address)}")
        for run in runs
        if measured.disagreements.get(run.pk)
    ]
    return {
        "agreement_form": form,
        "agreement": measured,
        "agreement_figure": figure,
        "agreement_query": _agreement_query(form, chosen),
        "disagreements": disagreements,
        "agreement_minimum": agreement_stats.MIN_PER_LABEL,
        "agreement_resamples": agreement_stats.BOOTSTRAP_RESAMPLES,
    }


def _agreement_query(form: AgreementForm, chosen: dict) -> str:
    """The runs and target of the agreement shown, to come back to them after applying."""
    pairs = [("runs", run.pk) for run in chosen.get("runs") or []]
    if chosen.get("target_precision") is not None:
        pairs.append(("target_precision", chosen["target_precision"]))
    return urlencode(pairs)


@require_POST
def property_apply_threshold(request: HttpRequest, pk: int, name: str) -> HttpResponse:
    """Apply the suggested threshold in one click: measured again, applied only if it is still the
    one the page showed, and recorded with who applied it and on what."""
    project = _property_of(request, pk, name)
    form = ApplyThresholdForm(request.POST, project=project)
    if not form.is_valid():
        problems = "; ".join(f"{field}: {' '.join(errors)}" for field, errors in form.errors.items())
        messages.error(request, f"The threshold was not applied ({problems}).")
        return redirect("properties:property-settings", pk=project.pk, name=name)
    data = form.cleaned_data
    back = reverse("properties:property-settings", args=[project.pk, name]) + "?" + _agreement_query(form, data)
    runs = list(data["runs"] or agreement.runs_of(project))
    measured = agreement.measure(project, name, runs, data["target_precision"])
    suggestion = measured.figures.suggestion if measured.figures else None
    if suggestion is None or (suggestion.threshold, measured.direction) != (data["threshold"], data["direction"]):
        messages.error(request, "The labels or values changed since the page was shown: here is the suggestion now.")
        return redirect(back)
    thresholds.save_criterion(
        project,
        name,
        direction=measured.direction,
        threshold=suggestion.threshold,
        tolerance=measured.criterion.tolerance,
        user=request.user,
        how=ThresholdChange.How.SUGGESTED,
        note=agreement.describe_suggestion(measured),
    )
    criterion = criteria.criterion_for(project, name)
    messages.success(request, f"{name}: {criterion.describe()}. Pass rates and filters use it from now on.")
    return redirect(back)


def _risk_factors(project: Project) -> list[tuple[str, str, float, str, bool]]:
    """PII Risk's factor table as this project scores it: (type, name, risk, detected by, overridden)."""
    overrides = project.config_for("pii_risk").get("risk_factors", {})
    return [
        (kind, row["name"], float(overrides.get(kind, row["risk"])), row.get("detected_by", ""), kind in overrides)
        for kind, row in default_risk_factors().items()
    ]


def project_rules_page(request: HttpRequest, pk: int) -> HttpResponse:
    """Edit the auto-annotation rules: checked, with line numbers, against the project's properties;
    *Preview* counts what they would label on a run (nothing saved), *Save* stores them."""
    project = project_for(request, pk)
    form = RulesForm(request.POST or None, initial={"rules": project_rules.rules_text(project)}, project=project)
    previewing = "preview" in request.POST
    properties = project_rules.project_properties(project)
    context = {"project": project, "form": form, "preview": None, "properties": properties}
    if request.method == "POST" and form.is_valid():
        if not previewing:
            project.annotation_rules = form.cleaned_data["rules"]
            project.save(update_fields=["annotation_rules"])
            messages.success(request, "Rules saved. Run them on a run to update its estimated annotations.")
            return redirect("properties:project-detail", pk=project.pk)
        if form.cleaned_data["run"] is not None:
            context["preview"] = annotation.preview_rules(form.blocks, form.cleaned_data["run"])
    template = "properties/project_rules.html"
    if request.htmx and previewing:
        template += "#rules-outcome"
    return render(request, template, context)


@require_POST
def project_rename(request: HttpRequest, pk: int) -> HttpResponse:
    project = project_for(request, pk)
    form = RenameForm(request.POST)
    if form.is_valid():
        project.name = form.cleaned_data["name"].strip()
        project.save(update_fields=["name"])
        messages.success(request, f"Project renamed {project.name}.")
    else:
        messages.error(request, "A project needs a name of at most 200 characters.")
    return redirect("properties:project-detail", pk=project.pk)


def project_delete(request: HttpRequest, pk: int) -> HttpResponse:
    """Confirm, naming what goes; then the project is hidden and a worker deletes its rows."""
    project = project_for(request, pk)
    if request.method == "POST":
        deletion.delete_project_later(project)
        messages.success(request, f"Project {project.name} deleted.")
        return redirect("properties:project-list")
    context = {"what": "project", "name": project.name, "contents": deletion.project_contents(project)}
    context["cancel_url"] = reverse("properties:project-detail", args=[project.pk])
    return render(request, "properties/delete_confirm.html", context)
