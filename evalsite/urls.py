from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from properties import api
from properties.web.health import healthz

urlpatterns = [
    # Browsers ask for /favicon.ico whatever the page says (the API docs, a JSON response).
    path("favicon.ico", login_not_required(RedirectView.as_view(url=static("favicon.svg"), permanent=True))),
    # For operators and orchestrators (docker-compose's healthcheck): database, broker, workers.
    path("healthz", healthz, name="healthz"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/", api.urls()),
    path("settings/api-tokens/", include("properties.web.token_urls")),
    path("", include("properties.web.urls")),
]
