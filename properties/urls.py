from django.urls import path

from properties import views

app_name = "properties"
urlpatterns = [
    path("", views.project_list, name="project-list"),
]
