"""Renaming and deleting projects and runs, and asking for a rescore, through the pages."""

import pytest
from django.urls import reverse

from properties.annotations import annotation
from properties.models import Interaction, Project, PropertyValue, Run, ScoringJob, Upload
from properties.pipeline import deletion, scoring
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def user():
    return UserFactory()


@pytest.fixture
def project(user):
    return ProjectFactory(owner=user, name="Support bot", enabled_properties=["word_count"])


@pytest.fixture
def logged_in(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def scored_run(project):
    run = RunFactory(project=project, name="baseline")
    InteractionFactory.create_batch(3, run=run, output="two words")
    job = scoring.plan_job(run)
    for chunk in job.chunks.filter(kind="score"):
        scoring.score_chunk(chunk.pk)
    annotation.annotate_by_person(run.interactions.first(), "good", "")
    return run


def test_a_project_and_a_run_are_renamed(logged_in, project, scored_run):
    response = logged_in.post(reverse("properties:project-rename", args=[project.pk]), {"name": "Support bot v2"})
    assert response.url == reverse("properties:project-detail", args=[project.pk])
    assert Project.objects.get().name == "Support bot v2"
    RunFactory(project=project, name="taken")
    taken = logged_in.post(reverse("properties:run-rename", args=[scored_run.pk]), {"name": "taken"}, follow=True)
    assert "already has a run named taken" in taken.content.decode()
    logged_in.post(reverse("properties:run-rename", args=[scored_run.pk]), {"name": "gpt-4o <b>"})
    page = logged_in.get(reverse("properties:run-detail", args=[scored_run.pk])).content.decode()
    assert "gpt-4o &lt;b&gt;" in page and "gpt-4o <b>" not in page


def test_the_confirmation_names_what_goes(logged_in, scored_run):
    page = logged_in.get(reverse("properties:run-delete", args=[scored_run.pk])).content.decode()
    assert "Delete the run baseline?" in page
    for count, what in [(3, "interactions"), (6, "property values"), (1, "annotation")]:
        assert f"<strong>{count}</strong> {what}" in page


def test_deleting_a_run_hides_it_at_once_cancels_its_chunks_and_a_worker_deletes_it(
    logged_in, project, scored_run, django_capture_on_commit_callbacks, memory_broker, monkeypatch
):
    pending = scoring.plan_job(scored_run, ["fails_on_boom"])
    InteractionFactory(run=scored_run)  # now 4 rows, deleted 3 per batch below
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in.post(reverse("properties:run-delete", args=[scored_run.pk]))
    assert response.url == reverse("properties:project-detail", args=[project.pk])
    assert logged_in.get(reverse("properties:run-detail", args=[scored_run.pk])).status_code == 404
    project_page = logged_in.get(response.url).content.decode()
    assert "Run baseline deleted." in project_page
    assert reverse("properties:run-detail", args=[scored_run.pk]) not in project_page
    pending.refresh_from_db()
    assert (pending.status, set(pending.chunks.filter(kind="score").values_list("state", flat=True))) == (
        "cancelled",
        {"cancelled"},
    )
    # The name is free at once.
    assert RunFactory(project=project, name="baseline")
    ((task, (job_id,)),) = memory_broker.take("cpu")
    assert task == "properties.delete_run"
    monkeypatch.setattr(deletion, "DELETE_BATCH", 3)  # four interactions: two batches
    deletion.delete_run(job_id)
    assert not Run.objects.filter(pk=scored_run.pk).exists()
    assert not Interaction.objects.filter(run_id=scored_run.pk).exists()
    assert not PropertyValue.objects.filter(run_id=scored_run.pk).exists()
    assert not ScoringJob.objects.filter(run_id=scored_run.pk).exists()


def test_deleting_a_project_deletes_its_runs_then_itself(
    logged_in, project, scored_run, django_capture_on_commit_callbacks, memory_broker
):
    page = logged_in.get(reverse("properties:project-delete", args=[project.pk])).content.decode()
    assert "<strong>1</strong> run" in page and "<strong>3</strong> interactions" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in.post(reverse("properties:project-delete", args=[project.pk]))
    assert response.url == reverse("properties:project-list")
    listing = logged_in.get(response.url).content.decode()
    assert "Project Support bot deleted." in listing
    assert reverse("properties:project-detail", args=[project.pk]) not in listing
    assert logged_in.get(reverse("properties:project-detail", args=[project.pk])).status_code == 404
    ((_, (job_id,)),) = memory_broker.take("cpu")
    deletion.delete_run(job_id)
    assert not Project.objects.exists() and not Interaction.objects.exists()


def test_deleting_an_empty_project_is_immediate(logged_in, user):
    project = ProjectFactory(owner=user)
    Upload.objects.create(project=project, original_name="x.csv", file="uploads/x.csv")
    logged_in.post(reverse("properties:project-delete", args=[project.pk]))
    assert not Project.objects.exists() and not Upload.objects.exists()


def test_a_rescore_request_costs_the_same_on_any_run_size(
    logged_in, project, django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    """Planning is a worker's: the request stores a job and its planning chunk, whatever the run's size."""
    small, large = RunFactory(project=project), RunFactory(project=project)
    InteractionFactory(run=small)
    Interaction.objects.bulk_create(
        Interaction(run=large, user_interaction_id=str(i), output="x") for i in range(20_000)
    )
    for run in (small, large):
        with django_assert_max_num_queries(12), django_capture_on_commit_callbacks():
            response = logged_in.post(reverse("properties:run-rescore", args=[run.pk]))
        assert response.status_code == 302
        job = run.latest_job()
        assert (job.status, job.chunks.count()) == ("planning", 1)
    page = logged_in.get(reverse("properties:run-detail", args=[large.pk])).content.decode()
    assert "Planning: a worker is listing what to score" in page
