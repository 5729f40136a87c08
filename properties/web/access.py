"""Which projects and runs a request may see: every page's first step."""

from __future__ import annotations

from django.http import HttpRequest
from django.shortcuts import get_object_or_404

from properties.models import (
    Project,
    Run,
)


def project_for(request: HttpRequest, pk: int) -> Project:
    # Another user's project is a 404, not a 403: its existence is not theirs to learn.
    return get_object_or_404(Project.objects.visible_to(request.user), pk=pk)


def run_for(request: HttpRequest, pk: int) -> Run:
    return get_object_or_404(Run.objects.visible_to(request.user), pk=pk)
