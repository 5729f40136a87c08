from __future__ import annotations

import json

from django.conf import settings
from django.contrib import messages
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse, QueryDict, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseStopPolling

from properties import export
from properties.annotations import annotation, rules
from properties.compare import compare_page, comparison
from properties.models import (
    Interaction,
    Membership,
    Project,
    PromptPreview,
    PromptProperty,
    PropertyValue,
    Run,
    RunLLMUsage,
    ScoringChunk,
    ScoringJob,
    Upload,
)
from properties.pipeline import deletion, limits, previews, progress, scoring, workers
from properties.projects import project_templates
from properties.quality import criteria, report_card
from properties.scorers import registry
from properties.scorers.pii_risk import default_risk_factors
from properties.screen import interaction_panel
from properties.screen import page as screen
from properties.screen.forms import AnnotationForm
from properties.uploads import ingest
from properties.web.forms import (
    ColumnMappingForm,
    PassCriteriaForm,
    ProjectForm,
    ProjectKeyForm,
    PromptPropertyForm,
    PropertySettingsForm,
    RenameForm,
    RulesForm,
    UploadForm,
    store_project_key,
)


def _project_for(request: HttpRequest, pk: int) -> Project:
    # Another user's project is a 404, not a 403: its existence is not theirs to learn.
    return get_object_or_404(Project.objects.visible_to(request.user), pk=pk)


def _run_for(request: HttpRequest, pk: int) -> Run:
    return get_object_or_404(Run.objects.visible_to(request.user), pk=pk)


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
    project = _project_for(request, pk)
    runs = list(project.runs.live())
    summaries = comparison.summarize_runs(runs)
    addresses = sorted({address for summary in summaries for address in summary.stats})
    waiting = ScoringChunk.objects.open().filter(job__run__in=runs).values_list("queue", flat=True)
    initial = {"enabled": project.enabled_properties, "configuration": json.dumps(project.property_config, indent=2)}
    context = {
        "project": project,
        "summaries": summaries,
        "addresses": addresses,
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
    project = _project_for(request, pk)
    form = PropertySettingsForm(request.POST, project=project)
    if not form.is_valid():
        return project_detail(request, pk, settings_form=form)
    project.enabled_properties = form.cleaned_data["enabled"]
    project.property_config = form.cleaned_data["configuration"]
    project.save(update_fields=["enabled_properties", "property_config"])
    messages.success(request, "Properties saved. Rescore a run to compute new or changed ones.")
    return redirect("properties:project-detail", pk=project.pk)


def property_settings(request: HttpRequest, pk: int, name: str) -> HttpResponse:
    """One property in a project: what it measures and how well (its report card), its pass or fail,
    its tolerance in comparisons, and whether it is a key property."""
    project = _project_for(request, pk)
    if name not in project.enabled_properties and name not in registry.all_scorers():
        raise Http404("No such property.")
    criterion = criteria.criterion_for(project, name)
    initial = {**criterion.to_dict(), "key": name in project.key_properties}
    form = PassCriteriaForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        form.save(project, name)
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
    }
    return render(request, "properties/property_settings.html", context)


def prompt_property_edit(request: HttpRequest, pk: int, prompt_pk: int | None = None) -> HttpResponse:
    """Create or edit a prompt property; the Preview button has a worker judge the unsaved form on
    five interactions, and the page polls for the verdicts."""
    project = _project_for(request, pk)
    prompt = get_object_or_404(project.prompt_properties, pk=prompt_pk) if prompt_pk else PromptProperty()
    form = PromptPropertyForm(request.POST or None, instance=prompt, project=project, user=request.user)
    context = {"project": project, "prompt": prompt, "form": form, "preview": None}
    if request.method == "POST" and form.is_valid():
        if "preview" not in request.POST:
            return _save_prompt_property(request, project, form)
        unsaved = form.save(commit=False)
        context["preview"] = previews.start_preview(project, request.user, unsaved, form.cleaned_data["new_api_key"])
        if not request.htmx:  # a plain form post: redirected, so that a reload starts no second preview
            return redirect("properties:prompt-preview", pk=project.pk, preview_pk=context["preview"].pk)
    template = "properties/prompt_property_edit.html"
    if request.htmx and "preview" in request.POST:
        template += "#preview"
    return render(request, template, context)


def prompt_preview(request: HttpRequest, pk: int, preview_pk: int) -> HttpResponse:
    """A preview's state: polled by the edit page until a worker has judged it."""
    project = _project_for(request, pk)
    preview = get_object_or_404(PromptPreview, project=project, created_by=request.user, pk=preview_pk)
    context = {"project": project, "preview": preview}
    if request.htmx:
        return render(request, "properties/prompt_property_edit.html#preview", context)
    return render(request, "properties/prompt_preview.html", context)


def project_keys(request: HttpRequest, pk: int) -> HttpResponse:
    """The project's provider keys: names and dates only; a key is never shown back."""
    project = _project_for(request, pk)
    form = ProjectKeyForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        name = form.cleaned_data["name"]
        replaced = project.provider_keys.filter(name=name).exists()
        store_project_key(project, name, form.cleaned_data["key"], request.user)
        messages.success(request, f"Key {name} {'replaced' if replaced else 'stored'}.")
        return redirect("properties:project-keys", pk=project.pk)
    context = {"project": project, "form": form, "keys": project.provider_keys.select_related("created_by")}
    return render(request, "properties/project_keys.html", context)


@require_POST
def project_key_delete(request: HttpRequest, pk: int, key_pk: int) -> HttpResponse:
    project = _project_for(request, pk)
    key = get_object_or_404(project.provider_keys, pk=key_pk)
    key.delete()
    messages.success(request, f"Key {key.name} deleted; properties that used it have no key now.")
    return redirect("properties:project-keys", pk=project.pk)


def _save_prompt_property(request: HttpRequest, project: Project, form: PromptPropertyForm) -> HttpResponse:
    prompt = form.save()
    if prompt.property_name not in project.enabled_properties:
        project.enabled_properties = [*project.enabled_properties, prompt.property_name]
        project.save(update_fields=["enabled_properties"])
    messages.success(request, f"{prompt.name} saved. Rescore a run to compute it.")
    return redirect("properties:project-detail", pk=project.pk)


@require_POST
def prompt_property_delete(request: HttpRequest, pk: int, prompt_pk: int) -> HttpResponse:
    project = _project_for(request, pk)
    prompt = get_object_or_404(project.prompt_properties, pk=prompt_pk)
    PropertyValue.objects.filter(run__project=project, property_name=prompt.property_name).delete()
    project.enabled_properties = [name for name in project.enabled_properties if name != prompt.property_name]
    project.save(update_fields=["enabled_properties"])
    prompt.delete()
    messages.success(request, f"{prompt.name} and its values were deleted.")
    return redirect("properties:project-detail", pk=project.pk)


def _risk_factors(project: Project) -> list[tuple[str, str, float, str, bool]]:
    """PII Risk's factor table as this project scores it: (type, name, risk, detected by, overridden)."""
    overrides = project.config_for("pii_risk").get("risk_factors", {})
    return [
        (kind, row["name"], float(overrides.get(kind, row["risk"])), row.get("detected_by", ""), kind in overrides)
        for kind, row in default_risk_factors().items()
    ]


def project_rules(request: HttpRequest, pk: int) -> HttpResponse:
    """Edit the auto-annotation rules; they are validated, with line numbers, before saving."""
    project = _project_for(request, pk)
    initial = project.annotation_rules or rules.default_rules_text()
    form = RulesForm(request.POST or None, initial={"rules": initial})
    if request.method == "POST" and form.is_valid():
        project.annotation_rules = form.cleaned_data["rules"]
        project.save(update_fields=["annotation_rules"])
        messages.success(request, "Rules saved. Run them on a run to update its estimated annotations.")
        return redirect("properties:project-detail", pk=project.pk)
    return render(request, "properties/project_rules.html", {"project": project, "form": form})


def project_compare(request: HttpRequest, pk: int) -> HttpResponse:
    """Runs compared on the chosen properties (`prop=`, the key ones by default); with two runs, the
    row-by-row changes load as a fragment (htmx target `row-diff`, `property=` picks the property)."""
    project = _project_for(request, pk)
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


@require_POST
def run_pin(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run_for(request, pk)
    run.pinned = not run.pinned
    run.save(update_fields=["pinned"])
    return redirect("properties:project-detail", pk=run.project_id)


@require_POST
def run_annotate(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run_for(request, pk)
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


def run_export(request: HttpRequest, pk: int, file_format: str) -> StreamingHttpResponse:
    run = _run_for(request, pk)
    if file_format not in EXPORT_FORMATS:
        raise Http404("Export as .csv or .json.")
    if file_format == "csv":
        stream, content_type = export.csv_stream(export.run_csv_rows(run)), "text/csv"
    else:
        stream, content_type = export.json_stream(export.run_records(run)), "application/json"
    response = StreamingHttpResponse(export.for_server(request, stream), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="run-{run.pk}.{file_format}"'
    return response


def compare_export(request: HttpRequest, pk: int, file_format: str) -> StreamingHttpResponse:
    project = _project_for(request, pk)
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


def upload_create(request: HttpRequest, pk: int) -> HttpResponse:
    """Store an upload for the mapping step; a file refused whole, or sent again, stores nothing."""
    project = _project_for(request, pk)
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        file, run_name = form.cleaned_data["file"], form.cleaned_data["run_name"]
        content_hash = ingest.file_hash(file)
        if _refuse_upload(form, project, file, content_hash) is None:
            upload = Upload.objects.create(
                project=project,
                run_name=run_name,
                environment=form.cleaned_data["environment"],
                file=file,
                original_name=file.name,
                content_hash=content_hash,
                created_by=request.user,
            )
            return redirect("properties:upload-mapping", pk=upload.pk)
    return render(request, "properties/upload_create.html", {"project": project, "form": form})


def _refuse_upload(form: UploadForm, project: Project, file, content_hash: str) -> str | None:
    """Why the file is refused (also added to the form), or None."""
    if file.size > settings.EVALSITE_UPLOAD_MAX_BYTES:
        limit, size = filesizeformat(settings.EVALSITE_UPLOAD_MAX_BYTES), filesizeformat(file.size)
        form.add_error("file", f"The file is {size}; the upload limit is {limit}.")
        return "too large"
    problem = ingest.preview_file(file, file.name).error
    if problem:
        form.add_error("file", f"The file was refused, and nothing was stored: {problem}.")
        return problem
    earlier = ingest.earlier_upload(project, form.cleaned_data["run_name"], content_hash)
    if earlier is not None and not form.cleaned_data["append_anyway"]:
        form.offer_append(earlier)
        return "uploaded before"
    return None


def upload_mapping(request: HttpRequest, pk: int) -> HttpResponse:
    upload = get_object_or_404(Upload, pk=pk, project__in=Project.objects.visible_to(request.user))
    if upload.status != Upload.Status.STORED:
        return redirect("properties:upload-detail", pk=upload.pk)
    with upload.file.open("rb") as fileobj:
        preview = ingest.preview_file(fileobj, upload.original_name)
    if preview.error:
        upload.status = Upload.Status.FAILED
        upload.row_errors = [{"line": None, "field": "", "reason": preview.error}]
        upload.save(update_fields=["status", "row_errors"])
        return redirect("properties:upload-detail", pk=upload.pk)
    form = ColumnMappingForm(request.POST or None, columns=preview.columns, suggested=preview.suggested_mapping)
    if request.method == "POST" and form.is_valid():
        result = ingest.ingest_upload(upload, form.mapping(), start_scoring=True)
        if result.scoring_refused:
            messages.error(request, f"The rows were stored but not scored: {result.scoring_refused}")
        return redirect("properties:upload-detail", pk=upload.pk)
    context = {"upload": upload, "preview": preview, "form": form}
    return render(request, "properties/upload_mapping.html", context)


@require_POST
def upload_resume(request: HttpRequest, pk: int) -> HttpResponse:
    """Complete an import that stopped half-way: it reads on from the line after the last batch stored."""
    upload = get_object_or_404(Upload, pk=pk, project__in=Project.objects.visible_to(request.user))
    if not ingest.claim_resume(upload):
        messages.info(request, "This upload is not interrupted: nothing to resume.")
        return redirect("properties:upload-detail", pk=upload.pk)
    result = ingest.ingest_upload(upload, start_scoring=True, resume=True)
    if result.scoring_refused:
        messages.error(request, f"The rows were stored but not scored: {result.scoring_refused}")
    return redirect("properties:upload-detail", pk=upload.pk)


def upload_detail(request: HttpRequest, pk: int) -> HttpResponse:
    upload = get_object_or_404(Upload, pk=pk, project__in=Project.objects.visible_to(request.user))
    job = upload.run.latest_job() if upload.run else None
    return render(request, "properties/upload_detail.html", {"upload": upload, "job": job})


# The Data Screen's fragments by the id of the element htmx swaps.
SCREEN_PARTIALS = {"screen": "screen", "detail-pane": "panel", "pass-rates": "pass-rates"}


def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The Data Screen: the run's interactions, filtered, sorted and paged on the server; `i=<id>`
    opens one in the side panel, `highlight=<address>` marks a property's evidence there."""
    run = _run_for(request, pk)
    template = "properties/run_detail.html"
    partial = SCREEN_PARTIALS.get(request.htmx.target or "") if request.htmx else None
    if partial == "pass-rates":
        return render(request, template + "#pass-rates", screen.rates_context(run, request.GET))
    context = screen.screen_context(run, request.GET, request.session)
    context.update(score=annotation.run_score(run), llm_totals=RunLLMUsage.totals(run), llm_usage=run.llm_usage.all())
    return render(request, template + (f"#{partial}" if partial else ""), context)


@require_POST
def run_rescore(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run_for(request, pk)
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
    run = _run_for(request, pk)
    found = progress.run_progress(run)
    response = render(request, "properties/_run_progress.html", {"run": run, "progress": found})
    if request.htmx and found.is_finished:
        return HttpResponseStopPolling(response.content)
    return response


def _interaction_for(request: HttpRequest, pk: int) -> Interaction:
    return get_object_or_404(
        Interaction.objects.select_related("run__project"),
        pk=pk,
        run__project__in=Project.objects.visible_to(request.user),
    )


def interaction_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """One interaction on a page of its own (links from comparisons); the same panel as the Data Screen's."""
    interaction = _interaction_for(request, pk)
    context = interaction_panel.panel_context(interaction, request.GET.get("highlight"))
    context.update(params=request.GET, panel=True, screen_query=None)
    template = "properties/interaction_detail.html"
    if request.htmx:
        template += "#panel"
    return render(request, template, context)


@require_POST
def interaction_annotate(request: HttpRequest, pk: int) -> HttpResponse:
    """A person's label. From the Data Screen's panel (htmx), the panel, its table row and the run's
    score are swapped in at once."""
    interaction = _interaction_for(request, pk)
    form = AnnotationForm(request.POST)
    if form.is_valid():
        annotation.annotate_by_person(interaction, form.cleaned_data["annotation"], form.cleaned_data["reason"])
    if not request.htmx:
        return redirect("properties:interaction-detail", pk=pk)
    if "screen" not in request.POST:  # the interaction's own page
        return interaction_detail(request, pk)
    params = QueryDict(request.POST.get("screen", ""))
    context = screen.annotated_context(interaction, params, request.session)
    context.update(score=annotation.run_score(interaction.run), oob=True)
    return render(request, "properties/run_detail.html#annotated", context)


@require_POST
def project_rename(request: HttpRequest, pk: int) -> HttpResponse:
    project = _project_for(request, pk)
    form = RenameForm(request.POST)
    if form.is_valid():
        project.name = form.cleaned_data["name"].strip()
        project.save(update_fields=["name"])
        messages.success(request, f"Project renamed {project.name}.")
    else:
        messages.error(request, "A project needs a name of at most 200 characters.")
    return redirect("properties:project-detail", pk=project.pk)


@require_POST
def run_rename(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run_for(request, pk)
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


def project_delete(request: HttpRequest, pk: int) -> HttpResponse:
    """Confirm, naming what goes; then the project is hidden and a worker deletes its rows."""
    project = _project_for(request, pk)
    if request.method == "POST":
        deletion.delete_project_later(project)
        messages.success(request, f"Project {project.name} deleted.")
        return redirect("properties:project-list")
    context = {"what": "project", "name": project.name, "contents": deletion.project_contents(project)}
    context["cancel_url"] = reverse("properties:project-detail", args=[project.pk])
    return render(request, "properties/delete_confirm.html", context)


def run_delete(request: HttpRequest, pk: int) -> HttpResponse:
    """Confirm, naming what goes; then the run is hidden, its pending chunks cancelled, its rows deleted."""
    run = _run_for(request, pk)
    if request.method == "POST":
        deletion.delete_run_later(run)
        messages.success(request, f"Run {run.name} deleted.")
        return redirect("properties:project-detail", pk=run.project_id)
    context = {"what": "run", "name": run.name, "contents": deletion.run_contents(run)}
    context["cancel_url"] = reverse("properties:run-detail", args=[run.pk])
    return render(request, "properties/delete_confirm.html", context)
