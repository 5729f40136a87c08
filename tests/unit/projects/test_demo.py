import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command
from django.test import RequestFactory

from properties.demo import DEMO_USERNAME, create_demo
from properties.pipeline import scoring

pytestmark = pytest.mark.django_db


def test_demo_is_created_once_with_a_fresh_password_and_a_planned_job():
    password, project = create_demo()
    assert password and len(password) >= 12
    login = RequestFactory().post("/accounts/login/")
    assert authenticate(login, username=DEMO_USERNAME, password=password) is not None
    run = project.runs.get()
    assert run.interactions.count() == 50
    assert run.uploads.get().rejected == 0
    # Enough labels uploaded with the data for a property's agreement with them (20 of each) to show,
    # on the interactions with documents too, which the retrieval properties need.
    with_documents = run.interactions.labelled_by_people().exclude(information_retrieval=[])
    assert with_documents.filter(annotation="good").count() >= 20
    assert with_documents.filter(annotation="bad").count() >= 20
    job = run.latest_job()
    assert job.status == "planning", "a worker plans the demo's job, as a user's"
    scoring.plan_chunks(job.chunks.get(kind="plan").pk)
    job.refresh_from_db()
    assert job.total == 50 * len(project.enabled_properties)
    again_password, again_project = create_demo()
    assert again_password is None and again_project == project


def test_two_demos_never_share_a_password():
    first, _ = create_demo()
    from django.contrib.auth import get_user_model

    get_user_model().objects.filter(username=DEMO_USERNAME).delete()
    second, _ = create_demo()
    assert first != second


def test_seed_demo_prints_the_password_only_the_first_time(capsys):
    call_command("seed_demo")
    assert "password:" in capsys.readouterr().out
    call_command("seed_demo")
    assert "password:" not in capsys.readouterr().out
