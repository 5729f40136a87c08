"""The "API tokens" page: create (the token is shown once), list, revoke."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from properties.models import ApiToken

NAME_MAX = ApiToken._meta.get_field("name").max_length


# The session key that carries a new token's secret across the redirect after its POST, once.
NEW_SECRET = "evalsite-new-token"


def token_list(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        name = request.POST.get("name", "").strip()[:NAME_MAX] or "API token"
        _, request.session[NEW_SECRET] = ApiToken.issue(request.user, name)
        # Redirected, so that a reload cannot create a second token; the page that follows reads
        # the secret once from the session and removes it.
        return redirect("tokens:token-list")
    new_secret = request.session.pop(NEW_SECRET, None)
    tokens = ApiToken.objects.filter(user=request.user)
    return render(request, "properties/token_list.html", {"tokens": tokens, "new_secret": new_secret})


@require_POST
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    token = get_object_or_404(ApiToken.objects.active(), pk=pk, user=request.user)
    token.revoke()
    messages.success(request, f"Token {token.name} revoked: requests with it are refused from now on.")
    return redirect("tokens:token-list")
