"""The comparison of runs and its export."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render

from properties import export
from properties.compare import compare_page
from properties.models import (
    Project,
    Run,
)
from properties.web.access import project_for
from properties.web.run_views import EXPORT_FORMATS


def project_compare(request: HttpRequest, pk: int) -> HttpResponse:
    """Runs compared on the chosen properties (`prop=`, the key ones by default); with two runs, the
    row-by-row changes load as a fragment (htmx target `row-diff`, `property=` picks the property)."""
    project = project_for(request, pk)
    runs = _chosen_runs(request, project)
    if request.htmx and request.htmx.target == "row-diff" and len(runs) == 2:
        context = compare_page.row_diff_context(project, runs, request.GET)
        return render(request, "properties/project_compare.html#row-diff", context)
    context = compare_page.page_context(project, runs, request.GET)
    return render(request, "properties/project_compare.html", context)


def _chosen_runs(request: HttpRequest, project: Project) -> list[Run]:
    ids = [int(i) for i in request.GET.getlist("runs") if i.isdigit()]
    runs = list(project.runs.live().filter(pk__in=ids))
    if len(runs) < 2:
        raise Http404("Choose two or more runs of this project to compare.")
    # Oldest first: the baseline on the left, the candidate on the right.
    return sorted(runs, key=lambda run: (run.created_at, run.pk))


def compare_export(request: HttpRequest, pk: int, file_format: str) -> StreamingHttpResponse:
    project = project_for(request, pk)
    runs = _chosen_runs(request, project)
    if file_format not in EXPORT_FORMATS:
        raise Http404("Export as .csv or .json.")
    if len(runs) != 2:
        raise Http404("A comparison export needs exactly two runs.")
    if file_format == "csv":
        stream, content_type = export.csv_stream(export.comparison_csv_rows(*runs)), "text/csv"
    else:
        stream, content_type = export.json_stream(export.comparison_records(*runs)), "application/json"
    response = StreamingHttpResponse(export.for_server(request, stream), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="compare-{runs[0].pk}-{runs[1].pk}.{file_format}"'
    return response
