"""Saved views of the Data Screen: a project's named filters, columns and sort, applied to any of its runs."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.db import models
from django.utils import timezone

from properties.models.projects import Project


class SavedView(models.Model):
    """What the Data Screen's URL says, under a name the project's members share.

    The fields are the URL's parameters (where, annotation, source, q, in, errors, sort, col); they
    are checked against the filter language and the project's properties when the view is saved
    (properties.screen.saved_views), so that applying one never shows a filter error it did not have.
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="saved_views")
    name = models.CharField(max_length=100)
    where = models.TextField(blank=True)
    annotation = models.CharField(max_length=10, blank=True)
    source = models.CharField(max_length=10, blank=True)
    search = models.CharField(max_length=500, blank=True)
    search_in = models.CharField(max_length=10, default="both")
    errors_only = models.BooleanField(default=False)
    # Property addresses in the order the table shows them; empty: the project's key properties.
    columns = models.JSONField(default=list, blank=True)
    sort = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="saved_views"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="unique_saved_view_name")]

    def __str__(self) -> str:
        return f"{self.project} / {self.name}"

    def query_string(self) -> str:
        """The Data Screen's parameters for this view. `columns=1` makes the columns the run's choice
        (none: the key properties), as the columns form does."""
        pairs = [
            ("where", self.where),
            ("annotation", self.annotation),
            ("source", self.source),
            ("q", self.search),
            ("in", self.search_in if self.search else ""),
            ("errors", "1" if self.errors_only else ""),
            ("sort", self.sort),
            ("columns", "1"),
            *(("col", column) for column in self.columns),
        ]
        return urlencode([(name, value) for name, value in pairs if value])

    def deletable_by(self, user, project_owner: bool) -> bool:
        """By its author, or by an owner of the project (`project_owner`: Project.is_owner, asked once
        for a list of views)."""
        return project_owner or (self.created_by_id is not None and self.created_by_id == user.pk)
