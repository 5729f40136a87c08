import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from properties.models import Interaction, Project, Run, Upload
from properties.pipeline import scoring
from properties.projects import project_templates
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def user():
    return UserFactory()


@pytest.fixture
def project(user):
    project = ProjectFactory(enabled_properties=["word_count"])
    project.add_member(user, "owner")
    return project


@pytest.fixture
def logged_in(client, user):
    client.force_login(user)
    return client


def test_every_page_requires_login(client, project):
    run = RunFactory(project=project)
    for url in [
        reverse("properties:project-list"),
        reverse("properties:project-detail", args=[project.pk]),
        reverse("properties:run-detail", args=[run.pk]),
        reverse("properties:upload-create", args=[project.pk]),
    ]:
        response = client.get(url)
        assert response.status_code == 302
        assert response.url.startswith(reverse("login"))


def test_a_user_sees_only_their_projects(logged_in, project):
    other = ProjectFactory(name="Someone else's")
    other.add_member(UserFactory(), "owner")
    page = logged_in.get(reverse("properties:project-list")).content.decode()
    assert project.name in page
    assert "Someone else" not in page
    assert logged_in.get(reverse("properties:project-detail", args=[other.pk])).status_code == 404
    other_run = RunFactory(project=other)
    assert logged_in.get(reverse("properties:run-detail", args=[other_run.pk])).status_code == 404
    assert logged_in.post(reverse("properties:run-rescore", args=[other_run.pk])).status_code == 404


def test_forms_and_htmx_posts_need_the_csrf_token(user, project):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    run = RunFactory(project=project)
    assert client.post(reverse("properties:run-rescore", args=[run.pk])).status_code == 403
    assert client.post(reverse("properties:project-list"), {"name": "x"}, HTTP_HX_REQUEST="true").status_code == 403
    page = client.get(reverse("properties:run-detail", args=[run.pk])).content.decode()
    assert 'hx-headers=\'{"x-csrftoken": "' in page


def test_creating_a_project_makes_the_creator_its_owner(logged_in, user):
    response = logged_in.post(reverse("properties:project-list"), {"name": "Chatbot", "description": ""})
    project = Project.objects.get(name="Chatbot")
    assert response.url == reverse("properties:project-detail", args=[project.pk])
    assert project.memberships.get().user == user
    assert project.enabled_properties == project_templates.default_properties()


def test_upload_map_and_import_reports_the_bad_row(logged_in, project):
    data = b"question,answer\nWhat is 2+2?,Four\nNo answer here,\nCapital of France?,Paris\n"
    response = logged_in.post(
        reverse("properties:upload-create", args=[project.pk]),
        {"run_name": "v1", "environment": "evaluation", "file": SimpleUploadedFile("rows.csv", data)},
    )
    upload = Upload.objects.get()
    assert response.url == reverse("properties:upload-mapping", args=[upload.pk])
    mapping_page = logged_in.get(response.url).content.decode()
    assert "question" in mapping_page and "answer" in mapping_page
    response = logged_in.post(response.url, {"input": "question", "output": "answer"})
    assert response.url == reverse("properties:upload-detail", args=[upload.pk])
    upload.refresh_from_db()
    assert (upload.accepted, upload.rejected) == (2, 1)
    page = logged_in.get(response.url).content.decode()
    assert "output" in page and "3" in page
    run = Run.objects.get(name="v1")
    job = run.latest_job()
    assert job.status == "planning", "a worker plans the job, not the request"
    scoring.plan_chunks(job.chunks.get(kind="plan").pk)
    job.refresh_from_db()
    assert job.total == 2
    assert Interaction.objects.filter(run=run).count() == 2


def test_upload_over_the_limit_is_refused(logged_in, project, settings):
    settings.EVALSITE_UPLOAD_MAX_BYTES = 10
    response = logged_in.post(
        reverse("properties:upload-create", args=[project.pk]),
        {"run_name": "v1", "environment": "evaluation", "file": SimpleUploadedFile("rows.csv", b"a,b\n" * 10)},
    )
    assert response.status_code == 200
    assert "the upload limit is 10" in response.content.decode()
    assert not Upload.objects.exists()


def test_progress_fragment_polls_until_the_job_is_done(logged_in, project):
    run = RunFactory(project=project)
    InteractionFactory(run=run, output="a b")
    job = scoring.plan_job(run)
    url = reverse("properties:job-progress", args=[job.pk])
    response = logged_in.get(url, HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body
    assert 'hx-trigger="every 1s"' in body and "0%" in body
    scoring.score_chunk(job.chunks.get(kind="score").pk)
    response = logged_in.get(url, HTTP_HX_REQUEST="true")
    assert response.status_code == 286
    assert "100%" in response.content.decode()
    assert "hx-trigger" not in response.content.decode()


def test_interaction_text_is_escaped(logged_in, project):
    run = RunFactory(project=project)
    interaction = InteractionFactory(run=run, output='<script>alert("x")</script> &amp; <b onmouseover="x()">')
    page = logged_in.get(reverse("properties:interaction-detail", args=[interaction.pk])).content.decode()
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp;amp;" in page
