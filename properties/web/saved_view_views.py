"""Saved views of the Data Screen: saving a run's current view under a name, opening one on a run
(`?view=<id>`, the link to share), deleting one."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from properties.models import Run
from properties.screen import datascreen, saved_views
from properties.web.access import run_for

# What the save form posts beside the view's fields: left out of the address it goes back to.
NOT_THE_QUERY = ("csrfmiddlewaretoken", "name", "col")


def open_saved_view(request: HttpRequest, run: Run) -> HttpResponse:
    """`?view=<id>` on a run's page: the address of the view's filter, search, sort and columns on this
    run. A view of another project, or one deleted since its link was shared, is not applied, and the
    page says so (the same words for both: another project's views are not this user's to learn)."""
    wanted = request.GET.get("view", "")[:20]
    view = run.project.saved_views.filter(pk=wanted).first() if wanted.isascii() and wanted.isdigit() else None
    url = reverse("properties:run-detail", args=[run.pk])
    if view is None:
        messages.error(request, f"This project has no saved view {wanted}; it may have been deleted.")
        return redirect(url)
    addresses = datascreen.property_addresses(run)
    missing = [column for column in view.columns if column not in addresses]
    if missing:
        messages.info(request, f"Not scored on this run, so not shown: {', '.join(missing)}.")
    return redirect(f"{url}?{view.query_string()}")


@require_POST
def saved_view_create(request: HttpRequest, pk: int) -> HttpResponse:
    """Save the view the run's screen shows (its form posts the current query) for the whole project."""
    run = run_for(request, pk)
    form = saved_views.SavedViewForm(run.project, saved_views.form_data(request.POST))
    view = form.save(request.user) if form.is_valid() else None
    url = reverse("properties:run-detail", args=[run.pk])
    if view is None:
        messages.error(request, f"The view is not saved. {form.problems()}")
        query = request.POST.copy()
        for name in NOT_THE_QUERY:
            query.pop(name, None)
        return redirect(f"{url}?{query.urlencode()}")
    messages.success(request, f"View {view.name} saved: open it on any run of {run.project.name} from Saved views.")
    return redirect(f"{url}?{view.query_string()}")


@require_POST
def saved_view_delete(request: HttpRequest, pk: int, view_pk: int) -> HttpResponse:
    run = run_for(request, pk)
    view = get_object_or_404(run.project.saved_views, pk=view_pk)
    if not view.deletable_by(request.user, run.project.is_owner(request.user)):
        raise PermissionDenied("Only the view's author or an owner of the project can delete it.")
    view.delete()
    messages.success(request, f"View {view.name} deleted.")
    return redirect("properties:run-detail", pk=run.pk)
