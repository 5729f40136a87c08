"""What a token may reach: its projects and runs, and the JSON error every refusal answers."""

from __future__ import annotations

from django.http import HttpRequest
from django.shortcuts import get_object_or_404

from properties.models import (
    Project,
    Run,
)


class ApiError(Exception):
    def __init__(self, status: int, detail: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status, self.detail, self.headers = status, detail, headers or {}


def project_for(request: HttpRequest, pk: int) -> Project:
    # Another user's project is a 404: its existence is not theirs to learn.
    return get_object_or_404(Project.objects.visible_to(request.auth), pk=pk)


def run_for(request: HttpRequest, pk: int) -> Run:
    return get_object_or_404(Run.objects.visible_to(request.auth), pk=pk)
