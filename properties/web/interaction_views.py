"""One interaction in the side panel, and annotating it."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from properties.annotations import annotation
from properties.models import (
    Interaction,
    Project,
)
from properties.screen import interaction_panel
from properties.screen import page as screen
from properties.screen.forms import AnnotationForm


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
