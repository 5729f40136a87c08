from django.urls import path

from properties.web import token_views

app_name = "tokens"
urlpatterns = [
    path("", token_views.token_list, name="token-list"),
    path("<int:pk>/revoke/", token_views.token_revoke, name="token-revoke"),
]
