from django.urls import path

from properties.web import (
    compare_views,
    interaction_views,
    project_views,
    prompt_views,
    run_views,
    saved_view_views,
    upload_views,
)

app_name = "properties"
urlpatterns = [
    path("", project_views.project_list, name="project-list"),
    path("projects/<int:pk>/", project_views.project_detail, name="project-detail"),
    path("projects/<int:pk>/properties/", project_views.project_properties, name="project-properties"),
    path("projects/<int:pk>/rename/", project_views.project_rename, name="project-rename"),
    path("projects/<int:pk>/delete/", project_views.project_delete, name="project-delete"),
    path("projects/<int:pk>/rules/", project_views.project_rules_page, name="project-rules"),
    path("projects/<int:pk>/properties/<str:name>/", project_views.property_settings, name="property-settings"),
    path(
        "projects/<int:pk>/properties/<str:name>/apply-threshold/",
        project_views.property_apply_threshold,
        name="property-apply-threshold",
    ),
    path("projects/<int:pk>/prompt-properties/new/", prompt_views.prompt_property_edit, name="prompt-property-create"),
    path("projects/<int:pk>/prompt-previews/<int:preview_pk>/", prompt_views.prompt_preview, name="prompt-preview"),
    path("projects/<int:pk>/keys/", prompt_views.project_keys, name="project-keys"),
    path("projects/<int:pk>/keys/<int:key_pk>/delete/", prompt_views.project_key_delete, name="project-key-delete"),
    path(
        "projects/<int:pk>/prompt-properties/<int:prompt_pk>/",
        prompt_views.prompt_property_edit,
        name="prompt-property-edit",
    ),
    path(
        "projects/<int:pk>/prompt-properties/<int:prompt_pk>/delete/",
        prompt_views.prompt_property_delete,
        name="prompt-property-delete",
    ),
    path("projects/<int:pk>/upload/", upload_views.upload_create, name="upload-create"),
    path("projects/<int:pk>/compare/", compare_views.project_compare, name="project-compare"),
    path("projects/<int:pk>/compare/export.<str:file_format>", compare_views.compare_export, name="compare-export"),
    path("uploads/<int:pk>/", upload_views.upload_detail, name="upload-detail"),
    path("uploads/<int:pk>/mapping/", upload_views.upload_mapping, name="upload-mapping"),
    path("uploads/<int:pk>/resume/", upload_views.upload_resume, name="upload-resume"),
    path("runs/<int:pk>/", run_views.run_detail, name="run-detail"),
    path("runs/<int:pk>/rescore/", run_views.run_rescore, name="run-rescore"),
    path("runs/<int:pk>/annotate/", run_views.run_annotate, name="run-annotate"),
    path("runs/<int:pk>/pin/", run_views.run_pin, name="run-pin"),
    path("runs/<int:pk>/rename/", run_views.run_rename, name="run-rename"),
    path("runs/<int:pk>/delete/", run_views.run_delete, name="run-delete"),
    path("runs/<int:pk>/export.<str:file_format>", run_views.run_export, name="run-export"),
    path("runs/<int:pk>/saved-views/", saved_view_views.saved_view_create, name="saved-view-create"),
    path(
        "runs/<int:pk>/saved-views/<int:view_pk>/delete/",
        saved_view_views.saved_view_delete,
        name="saved-view-delete",
    ),
    path("jobs/<int:pk>/progress/", run_views.job_progress, name="job-progress"),
    path("runs/<int:pk>/progress/", run_views.run_progress, name="run-progress"),
    path("interactions/<int:pk>/", interaction_views.interaction_detail, name="interaction-detail"),
    path("interactions/<int:pk>/annotate/", interaction_views.interaction_annotate, name="interaction-annotate"),
]
