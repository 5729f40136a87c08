"""Uploading a file: the form, the column mapping, the outcome, and resuming an interrupted import."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import filesizeformat
from django.views.decorators.http import require_POST

from properties.models import (
    Project,
    Upload,
)
from properties.uploads import ingest
from properties.web.access import project_for
from properties.web.forms import (
    ColumnMappingForm,
    UploadForm,
)


def upload_create(request: HttpRequest, pk: int) -> HttpResponse:
    """Store an upload for the mapping step; a file refused whole, or sent again, stores nothing."""
    project = project_for(request, pk)
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
