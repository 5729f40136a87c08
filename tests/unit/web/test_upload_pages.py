"""Uploads through the pages: a file refused whole stores nothing, the result page counts what it
lists, the same file sent again is refused (unless appended anyway), rows get stable short ids."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from properties.models import Interaction, Run, Upload
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

ROWS = b"question,answer\nWhat is 2+2?,Four\nNo answer here,\nCapital of France?,Paris\n"


@pytest.fixture
def user():
    return UserFactory()


@pytest.fixture
def project(user):
    return ProjectFactory(owner=user, enabled_properties=["word_count"])


@pytest.fixture
def logged_in(client, user):
    client.force_login(user)
    return client


def upload(client, project, name: str, content: bytes, run_name: str = "v1", **extra):
    data = {"run_name": run_name, "environment": "evaluation", "file": SimpleUploadedFile(name, content), **extra}
    return client.post(reverse("properties:upload-create", args=[project.pk]), data)


def upload_and_map(client, project, content: bytes = ROWS, **extra):
    response = upload(client, project, "rows.csv", content, **extra)
    assert response.status_code == 302, response.content.decode()[-2000:]
    return client.post(response.url, {"input": "question", "output": "answer"})


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("binary.csv", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "not"),
        ("notes.txt", b"some notes\n", "unsupported file type &#x27;.txt&#x27;"),
        ("header-only.csv", b"question,answer\n", "the file contains no interactions"),
    ],
)
def test_a_file_refused_whole_creates_nothing(logged_in, project, name, content, reason):
    response = upload(logged_in, project, name, content)
    page = response.content.decode()
    assert response.status_code == 200
    assert "The file was refused, and nothing was stored" in page and reason in page
    assert not Run.objects.exists() and not Upload.objects.exists()


def test_an_empty_file_is_refused_by_the_form(logged_in, project):
    assert "The submitted file is empty." in upload(logged_in, project, "empty.csv", b"").content.decode()
    assert not Run.objects.exists() and not Upload.objects.exists()


def test_a_file_whose_rows_are_all_rejected_leaves_no_empty_run(logged_in, project):
    upload_and_map(logged_in, project, b"question,answer\nNo answer,\nNone either,\n")
    upload = Upload.objects.get()
    assert (upload.accepted, upload.rejected, upload.run) == (0, 2, None)
    assert not Run.objects.exists()
    page = logged_in.get(reverse("properties:upload-detail", args=[upload.pk])).content.decode()
    assert "0</strong> rows accepted" in page and "2</strong> rejected" in page


def test_the_result_page_counts_what_it_lists(logged_in, project):
    response = upload_and_map(logged_in, project)
    page = logged_in.get(response.url).content.decode()
    assert "2</strong> rows accepted" in page and "1</strong> rejected" in page
    assert page.count("<tr><td>3</td>") == 1, "one rejected row listed: line 3"
    assert "refused" not in page


def test_rows_without_an_id_get_the_upload_and_line_shown_in_full(logged_in, project):
    upload_and_map(logged_in, project)
    upload = Upload.objects.get()
    assert sorted(Interaction.objects.values_list("user_interaction_id", flat=True)) == [
        f"u{upload.pk}-r2",
        f"u{upload.pk}-r4",
    ]
    page = logged_in.get(reverse("properties:run-detail", args=[upload.run.pk])).content.decode()
    assert f">u{upload.pk}-r4</a>" in page


def test_the_same_file_again_is_refused_naming_the_upload_unless_appended_anyway(logged_in, project):
    upload_and_map(logged_in, project)
    first = Upload.objects.get()
    again = upload(logged_in, project, "copy.csv", ROWS)
    page = again.content.decode()
    assert again.status_code == 200
    assert f"This file is the same as rows.csv (upload {first.pk}," in page and "2 rows accepted" in page
    assert 'type="checkbox" name="append_anyway"' in page
    assert Upload.objects.count() == 1 and Interaction.objects.count() == 2
    # Into another run, the same file is welcome.
    assert upload(logged_in, project, "rows.csv", ROWS, run_name="v2").status_code == 302
    upload_and_map(logged_in, project, append_anyway="on")
    assert Interaction.objects.filter(run__name="v1").count() == 4, "appended, with ids of their own"


def test_the_mapping_button_names_the_run_typed_on_the_upload_form(logged_in, project):
    """Once it read `Import into run ""`: the run is created by the import, after this page."""
    response = upload(logged_in, project, "rows.csv", ROWS, run_name="release 2")
    page = logged_in.get(response.url).content.decode()
    assert "Import into run \u201crelease 2\u201d" in page


def test_the_duplicate_file_form_keeps_every_field_and_its_choices(logged_in, project):
    upload_and_map(logged_in, project)
    page = upload(logged_in, project, "copy.csv", ROWS, environment="production").content.decode()
    assert '<select name="environment"' in page and '<option value="production" selected>' in page
    assert 'name="run_name" value="v1"' in page
