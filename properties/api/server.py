"""The API itself: token authentication with its limits, JSON parsing within limits, the vendored
docs, the error answers, and the router of each resource."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from ninja import NinjaAPI
from ninja.openapi.docs import Swagger
from ninja.parser import Parser
from ninja.security import HttpBearer

from properties.api import agreement, interactions, jobs, projects, runs, saved_views
from properties.api.access import ApiError
from properties.models import (
    ApiToken,
)
from properties.screen import filters
from properties.uploads import json_reading

RATE_WINDOW_SECONDS = 60


def check_limits(request: HttpRequest, token: ApiToken) -> None:
    """413 for a body over EVALSITE_API_MAX_BODY_BYTES, 429 past EVALSITE_API_RATE_LIMIT a minute."""
    limit = settings.EVALSITE_API_MAX_BODY_BYTES
    length = int(request.META.get("CONTENT_LENGTH") or 0)
    if length > limit:
        raise ApiError(413, f"the request body is {length} bytes, over the limit of {limit} bytes")
    now = time.time()
    key = f"evalsite:api-rate:{token.pk}:{int(now // RATE_WINDOW_SECONDS)}"
    cache.add(key, 0, timeout=RATE_WINDOW_SECONDS + 1)
    if cache.incr(key) > settings.EVALSITE_API_RATE_LIMIT:
        retry_after = str(RATE_WINDOW_SECONDS - int(now) % RATE_WINDOW_SECONDS)
        detail = f"rate limit of {settings.EVALSITE_API_RATE_LIMIT} requests per minute reached"
        raise ApiError(429, detail, {"Retry-After": retry_after})


class TokenAuth(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> Any:
        api_token = ApiToken.authenticate(token)
        if api_token is None:
            return None
        check_limits(request, api_token)
        ApiToken.objects.filter(pk=api_token.pk).update(last_used_at=timezone.now())
        return api_token.user


class CappedJsonParser(Parser):
    """Bodies read as uploaded JSON files are: a value nested too deep or a number out of range
    becomes a marker that rejects its row, naming the field, instead of failing the whole batch
    (json.loads would recurse past Python's limit and give a server error)."""

    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        # A batch's rows sit two levels down ({"interactions": [row]}): their own nesting is capped
        # like a file row's.
        return json_reading.loads(request.body.decode("utf-8"), max_nesting=json_reading.MAX_NESTING + 2)


class EvalsiteAPI(NinjaAPI):
    def get_openapi_operation_id(self, operation: Any) -> str:
        # The ids the schema has always had, whichever router's module holds the view.
        return f"properties_api_{operation.view_func.__name__}"


class VendoredSwagger(Swagger):
    """Swagger UI from static/vendor/swagger-ui, so the docs work offline and load nothing from a CDN."""

    def render_page(self, request: HttpRequest, api: NinjaAPI, **kwargs: Any) -> HttpResponse:
        # validatorUrl None: the UI would otherwise send the schema to validator.swagger.io.
        swagger_settings = {**self.settings, "url": self.get_openapi_url(api, kwargs), "validatorUrl": None}
        return render(request, "properties/api_docs.html", {"api": api, "swagger_settings": swagger_settings})


api = EvalsiteAPI(
    title="Evalsite API",
    version="1",
    auth=TokenAuth(),
    urls_namespace="api",
    docs=VendoredSwagger(),
    docs_decorator=login_required,
    parser=CappedJsonParser(),
)


@api.exception_handler(ApiError)
def api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
    response = api.create_response(request, {"detail": exc.detail}, status=exc.status)
    for name, value in exc.headers.items():
        response[name] = value
    return response


@api.exception_handler(TooManyFieldsSent)
def too_many_fields(request: HttpRequest, exc: TooManyFieldsSent) -> HttpResponse:
    limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
    detail = f"the request has more than {limit} parameters; a filter takes at most {filters.MAX_CONDITIONS} terms"
    return api.create_response(request, {"detail": detail}, status=400)


@api.exception_handler(RequestDataTooBig)
def body_too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return api.create_response(request, {"detail": f"the request body is over {limit} bytes"}, status=413)


for resource in (projects, runs, interactions, jobs, agreement, saved_views):
    api.add_router("", resource.router)


def urls() -> tuple[list[Any], str, str]:
    """The API's URL patterns, exempt from LoginRequiredMiddleware: a token, not a session, logs in.
    The schema and docs views keep their own login_required (the API's docs_decorator)."""
    from django.contrib.auth.decorators import login_not_required

    patterns, app_name, namespace = api.urls
    for pattern in patterns:
        pattern.callback = login_not_required(pattern.callback)
    return patterns, app_name, namespace
