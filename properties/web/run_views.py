"""A run's pages: the Data Screen, its progress, rescoring, rules, export, pinning, renaming and deleting."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseStopPolling, push_url

from properties import export
from properties.annotations import annotation, rules
from properties.models import (
    Run,
    RunLLMUsage,
    ScoringJob,
)
from properties.pipeline import deletion, limits, progress, scoring
from properties.screen import datascreen, saved_views
from properties.screen import page as screen
from properties.web import saved_view_views
from properties.web.access import run_for
from properties.web.forms import (
    RenameForm,
)


@require_POST
def run_pin(request: HttpRequest, pk: int) -> HttpResponse:
    run = run_for(request, pk)
    run.pinned = not run.pinned
    run.save(update_fields=["pinned"])
    return redirect("properties:project-detail", pk=run.project_id)


@require_POST
def run_annotate(request: HttpRequest, pk: int) -> HttpResponse:
    run = run_for(request, pk)
    try:
        annotation.rules_for(run)
    except rules.RulesError as exc:
        messages.error(request, f"The project's annotation rules are invalid: {exc}")
        return redirect("properties:run-detail", pk=run.pk)
    try:
        annotation.plan_annotation(run)
    except limits.JobLimitReached as exc:
        messages.error(request, str(exc))
        return redirect("properties:run-detail", pk=run.pk)
    messages.info(request, "Applying the annotation rules to this run.")
    return redirect("properties:run-detail", pk=run.pk)


EXPORT_FORMATS = ("csv", "json")


def run_export(request: HttpRequest, pk: int, file_format: str) -> HttpResponse:
    """The Data Screen's view (its URL's filter, search and sort) as a file, streamed."""
    run = run_for(request, pk)
    if file_format not in EXPORT_FORMATS:
        raise Http404("Export as .csv or .json.")
    query = datascreen.ScreenQuery.from_params(request.GET)
    if query.error:
        message = f"The filter is not applied, so nothing is exported: {query.error}"
        return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
    if file_format == "csv":
        stream, content_type = export.csv_stream(export.run_csv_rows(run, query), neutralised=True), "text/csv"
    else:
        stream, content_type = export.json_stream(export.run_records(run, query)), "application/json"
    response = StreamingHttpResponse(export.for_server(request, stream), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="run-{run.pk}.{file_format}"'
    return response


# The Data Screen's fragments by the id of the element htmx swaps; the layout (table and panel
# together) is swapped when j or k goes past the end of a page.
SCREEN_PARTIALS = {"screen": "screen", "detail-pane": "panel", "pass-rates": "pass-rates", "screen-layout": "layout"}


def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The Data Screen: the run's interactions, filtered, sorted and paged on the server; `i=<id>`
    opens one in the side panel, `highlight=<address>` marks a property's evidence there, and
    `view=<id>` opens a saved view of the project."""
    run = run_for(request, pk)
    if "view" in request.GET:
        return saved_view_views.open_saved_view(request, run)
    template = "properties/run_detail.html"
    partial = SCREEN_PARTIALS.get(request.htmx.target or "") if request.htmx else None
    if partial == "pass-rates":
        return render(request, template + "#pass-rates", screen.rates_context(run, request.GET))
    size, score = annotation.kept_run_score(run)
    context = screen.screen_context(run, request.GET, request.session, size)
    context.update(score=score, llm_totals=RunLLMUsage.totals(run), llm_usage=run.llm_usage.all())
    context.update(saved_views.screen_views(run, request.user, context))
    response = render(request, template + (f"#{partial}" if partial else ""), context)
    if partial == "layout":  # another page of the table: the address bar follows
        push_url(response, request.get_full_path())
    return response


@require_POST
def run_rescore(request: HttpRequest, pk: int) -> HttpResponse:
    run = run_for(request, pk)
    try:
        scoring.start_job(run)
    except limits.JobLimitReached as exc:
        messages.error(request, str(exc))
        return redirect("properties:run-detail", pk=run.pk)
    messages.info(request, "Rescoring: a worker is listing the stale or missing values, then scores them.")
    return redirect("properties:run-detail", pk=run.pk)


def job_progress(request: HttpRequest, pk: int) -> HttpResponse:
    job = get_object_or_404(ScoringJob, pk=pk, run__in=Run.objects.visible_to(request.user))
    response = render(request, "properties/_job_progress.html", {"job": job})
    if request.htmx and job.is_finished:
        # 286 tells htmx to stop polling; the finished bar is still swapped in.
        return HttpResponseStopPolling(response.content)
    return response


def run_progress(request: HttpRequest, pk: int) -> HttpResponse:
    run = run_for(request, pk)
    found = progress.run_progress(run)
    response = render(request, "properties/_run_progress.html", {"run": run, "progress": found})
    if request.htmx and found.is_finished:
        return HttpResponseStopPolling(response.content)
    return response


@require_POST
def run_rename(request: HttpRequest, pk: int) -> HttpResponse:
    run = run_for(request, pk)
    form = RenameForm(request.POST)
    name = form.cleaned_data["name"].strip() if form.is_valid() else ""
    if not name:
        messages.error(request, "A run needs a name of at most 200 characters.")
    elif run.project.runs.filter(name=name).exclude(pk=run.pk).exists():
        messages.error(request, f"The project already has a run named {name}.")
    else:
        run.name = name
        run.save(update_fields=["name"])
        messages.success(request, f"Run renamed {name}.")
    return redirect("properties:run-detail", pk=run.pk)


def run_delete(request: HttpRequest, pk: int) -> HttpResponse:
    """Confirm, naming what goes; then the run is hidden, its pending chunks cancelled, its rows deleted."""
    run = run_for(request, pk)
    if request.method == "POST":
        deletion.delete_run_later(run)
        messages.success(request, f"Run {run.name} deleted.")
        return redirect("properties:project-detail", pk=run.project_id)
    context = {"what": "run", "name": run.name, "contents": deletion.run_contents(run)}
    context["cancel_url"] = reverse("properties:run-detail", args=[run.pk])
    return render(request, "properties/delete_confirm.html", context)
