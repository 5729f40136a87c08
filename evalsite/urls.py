from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from properties import api

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/", api.urls()),
    path("settings/api-tokens/", include("properties.token_urls")),
    path("", include("properties.urls")),
]
