"""Uploaded files and what became of them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from properties.models.projects import Project, Run


def upload_path(upload: Upload, filename: str) -> str:
    return f"uploads/{upload.project_id}/{timezone.now():%Y%m%d%H%M%S}-{filename}"


class Upload(models.Model):
    class Status(models.TextChoices):
        STORED = "stored"
        # Rows are being stored, a batch at a time; `lines_done` says how far. An import whose
        # process died stays here: past INTERRUPTED_AFTER without progress it is interrupted.
        IMPORTING = "importing"
        INGESTED = "ingested"
        FAILED = "failed"

    # No batch stored for this long: the process importing it is gone (a batch takes about a second).
    INTERRUPTED_AFTER = timedelta(minutes=2)

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="uploads")
    # The run is created when the first rows are stored, so a file refused whole creates none.
    run = models.ForeignKey(Run, on_delete=models.SET_NULL, null=True, blank=True, related_name="uploads")
    run_name = models.CharField(max_length=200, blank=True)
    environment = models.CharField(max_length=20, choices=Run.Environment.choices, default=Run.Environment.EVALUATION)
    file = models.FileField(upload_to=upload_path, max_length=500)
    original_name = models.CharField(max_length=255)
    # sha256 of the file: the same file uploaded again into the same run is refused unless asked for.
    content_hash = models.CharField(max_length=64, blank=True, db_index=True)
    file_format = models.CharField(max_length=10, blank=True)
    column_mapping = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.STORED)
    accepted = models.PositiveIntegerField(default=0)
    rejected = models.PositiveIntegerField(default=0)
    # [{"line": 3, "field": "output", "reason": "..."}]; a file-level problem has line null.
    row_errors = models.JSONField(default=list, blank=True)
    # The last line of the file whose fate is stored (its row and every row before it: kept, or
    # rejected and counted), committed with the batch it ends: Resume reads on from the next line.
    lines_done = models.PositiveIntegerField(default=0)
    progress_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.original_name} ({self.status})"

    @property
    def interrupted(self) -> bool:
        """An import that stopped half-way (its process died) and can be resumed."""
        if self.status != self.Status.IMPORTING:
            return False
        return self.progress_at is None or timezone.now() - self.progress_at > self.INTERRUPTED_AFTER

    @property
    def refused(self) -> str:
        """Why the whole file was refused, or "" when its rows were read."""
        first = self.row_errors[0] if self.row_errors else None
        return first["reason"] if first and first.get("line") is None else ""

    @property
    def row_problems(self) -> list[dict[str, Any]]:
        """The rejected rows, without the file-level refusal."""
        return [error for error in self.row_errors if error.get("line") is not None]

    def row_id(self, line: int) -> str:
        """The stable id of a row that has none in the file: this upload's number and the row's line."""
        return f"u{self.pk}-r{line}"
