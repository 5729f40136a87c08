"""Prompt properties (edit, preview, delete) and the project's provider keys."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from properties.models import (
    Project,
    PromptPreview,
    PromptProperty,
    PropertyValue,
)
from properties.pipeline import previews
from properties.quality import value_summaries
from properties.web.access import project_for
from properties.web.forms import (
    ProjectKeyForm,
    PromptPropertyForm,
    store_project_key,
)


def prompt_property_edit(request: HttpRequest, pk: int, prompt_pk: int | None = None) -> HttpResponse:
    """Create or edit a prompt property; the Preview button has a worker judge the unsaved form on
    five interactions, and the page polls for the verdicts."""
    project = project_for(request, pk)
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
    project = project_for(request, pk)
    preview = get_object_or_404(PromptPreview, project=project, created_by=request.user, pk=preview_pk)
    context = {"project": project, "preview": preview}
    if request.htmx:
        return render(request, "properties/prompt_property_edit.html#preview", context)
    return render(request, "properties/prompt_preview.html", context)


def project_keys(request: HttpRequest, pk: int) -> HttpResponse:
    """The project's provider keys: names and dates only; a key is never shown back."""
    project = project_for(request, pk)
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
    project = project_for(request, pk)
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
    project = project_for(request, pk)
    prompt = get_object_or_404(project.prompt_properties, pk=prompt_pk)
    PropertyValue.objects.filter(run__project=project, property_name=prompt.property_name).delete()
    value_summaries.forget_everywhere(project.runs.all(), prompt.property_name)
    project.enabled_properties = [name for name in project.enabled_properties if name != prompt.property_name]
    project.save(update_fields=["enabled_properties"])
    prompt.delete()
    messages.success(request, f"{prompt.name} and its values were deleted.")
    return redirect("properties:project-detail", pk=project.pk)
