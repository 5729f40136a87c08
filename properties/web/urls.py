from django.urls import path

from properties.web import views

app_name = "properties"
urlpatterns = [
    path("", views.project_list, name="project-list"),
    path("projects/<int:pk>/", views.project_detail, name="project-detail"),
    path("projects/<int:pk>/properties/", views.project_properties, name="project-properties"),
    path("projects/<int:pk>/rename/", views.project_rename, name="project-rename"),
    path("projects/<int:pk>/delete/", views.project_delete, name="project-delete"),
    path("projects/<int:pk>/rules/", views.project_rules, name="project-rules"),
    path("projects/<int:pk>/properties/<str:name>/", views.property_settings, name="property-settings"),
    path("projects/<int:pk>/prompt-properties/new/", views.prompt_property_edit, name="prompt-property-create"),
    path("projects/<int:pk>/prompt-previews/<int:preview_pk>/", views.prompt_preview, name="prompt-preview"),
    path("projects/<int:pk>/keys/", views.project_keys, name="project-keys"),
    path("projects/<int:pk>/keys/<int:key_pk>/delete/", views.project_key_delete, name="project-key-delete"),
    path(
        "projects/<int:pk>/prompt-properties/<int:prompt_pk>/", views.prompt_property_edit, name="prompt-property-edit"
    ),
    path(
        "projects/<int:pk>/prompt-properties/<int:prompt_pk>/delete/",
        views.prompt_property_delete,
        name="prompt-property-delete",
    ),
    path("projects/<int:pk>/upload/", views.upload_create, name="upload-create"),
    path("projects/<int:pk>/compare/", views.project_compare, name="project-compare"),
    path("projects/<int:pk>/compare/export.<str:file_format>", views.compare_export, name="compare-export"),
    path("uploads/<int:pk>/", views.upload_detail, name="upload-detail"),
    path("uploads/<int:pk>/mapping/", views.upload_mapping, name="upload-mapping"),
    path("uploads/<int:pk>/resume/", views.upload_resume, name="upload-resume"),
    path("runs/<int:pk>/", views.run_detail, name="run-detail"),
    path("runs/<int:pk>/rescore/", views.run_rescore, name="run-rescore"),
    path("runs/<int:pk>/annotate/", views.run_annotate, name="run-annotate"),
    path("runs/<int:pk>/pin/", views.run_pin, name="run-pin"),
    path("runs/<int:pk>/rename/", views.run_rename, name="run-rename"),
    path("runs/<int:pk>/delete/", views.run_delete, name="run-delete"),
    path("runs/<int:pk>/export.<str:file_format>", views.run_export, name="run-export"),
    path("jobs/<int:pk>/progress/", views.job_progress, name="job-progress"),
    path("runs/<int:pk>/progress/", views.run_progress, name="run-progress"),
    path("interactions/<int:pk>/", views.interaction_detail, name="interaction-detail"),
    path("interactions/<int:pk>/annotate/", views.interaction_annotate, name="interaction-annotate"),
]
