"""`/healthz` for operators and orchestrators: no login, nothing secret, 200 or 503 with the reasons."""

from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from properties.pipeline import health


@login_not_required
@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    found = health.check()
    return JsonResponse(found.as_dict(), status=200 if found.ok else 503)
