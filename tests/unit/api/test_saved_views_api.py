"""The REST API's saved views: listed, created and deleted per project, checked as the page checks
them, and applied to a run's interactions with `view=`."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from properties.models import ApiToken, SavedView
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory
from tests.unit.screen.test_datascreen import add_value

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    cache.clear()
    yield
    cache.clear()


def auth_of(user) -> dict[str, str]:
    _, secret = ApiToken.issue(user, "tests")
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


@pytest.fixture
def owner():
    return UserFactory(username="olga")


@pytest.fixture
def project(owner):
    return ProjectFactory(owner=owner, enabled_properties=["toxicity", "word_count"])


@pytest.fixture
def run(project):
    run = RunFactory(project=project)
    for i, toxicity in enumerate([0.1, 0.7, 0.4, 0.9]):
        interaction = InteractionFactory(run=run, user_interaction_id=f"row-{i}", annotation="bad" if i % 2 else "good")
        add_value(interaction, "toxicity", value=toxicity)
    return run


def create(client, project, auth, **fields):
    body = {"name": "Toxic", "where": "toxicity.output > 0.3", "columns": ["toxicity.output"], **fields}
    return client.post(f"/api/projects/{project.pk}/views", body, content_type="application/json", **auth)


def test_create_list_get_and_delete_a_view(client, project, owner):
    auth = auth_of(owner)
    response = create(client, project, auth, sort="-toxicity.output", columns=["word_count.output", "toxicity.output"])
    assert response.status_code == 201, response.content
    created = response.json()
    assert created["name"] == "Toxic" and created["created_by"] == "olga"
    assert created["columns"] == ["word_count.output", "toxicity.output"]
    assert (created["where"], created["sort"], created["search_in"]) == (
        "toxicity.output > 0.3",
        "-toxicity.output",
        "both",
    )
    listed = client.get(f"/api/projects/{project.pk}/views", **auth).json()
    assert [view["id"] for view in listed] == [created["id"]]
    assert client.get(f"/api/projects/{project.pk}/views/{created['id']}", **auth).json() == created
    assert client.delete(f"/api/projects/{project.pk}/views/{created['id']}", **auth).status_code == 204
    assert not SavedView.objects.exists()


@pytest.mark.parametrize(
    ("fields", "detail"),
    [
        ({"where": "toxicity.output >"}, "where: column 18: the filter ends too early"),
        ({"columns": ["nope.output"]}, "columns: nope.output is not a property of this project"),
        ({"sort": "relevance"}, "sort: relevance is not a column of this project"),
        ({"name": " "}, "name: This field is required."),
        ({"search_in": "title"}, "search_in: Select a valid choice."),
    ],
)
def test_a_bad_view_is_a_400_naming_the_field(client, project, owner, fields, detail):
    response = create(client, project, auth_of(owner), **fields)
    assert response.status_code == 400
    assert response.json()["detail"].startswith(detail)
    assert not SavedView.objects.exists()


def test_a_taken_name_is_a_409(client, project, owner):
    auth = auth_of(owner)
    assert create(client, project, auth).status_code == 201
    response = create(client, project, auth, name=" Toxic ")
    assert response.status_code == 409
    assert response.json() == {"detail": "name: the project already has a view named Toxic"}


def test_other_users_projects_and_views_are_404(client, project, owner, run):
    view = SavedView.objects.create(project=project, name="Toxic", where="toxicity.output > 0.3", created_by=owner)
    stranger = auth_of(UserFactory(username="stranger"))
    assert client.get(f"/api/projects/{project.pk}/views", **stranger).status_code == 404
    assert create(client, project, stranger).status_code == 404
    assert client.delete(f"/api/projects/{project.pk}/views/{view.pk}", **stranger).status_code == 404
    # Their own project does not reach it either, by its id.
    theirs = ProjectFactory(owner=UserFactory(username="stranger"))
    assert client.get(f"/api/projects/{theirs.pk}/views/{view.pk}", **stranger).status_code == 404
    their_run = RunFactory(project=theirs)
    response = client.get(f"/api/runs/{their_run.pk}/interactions", {"view": view.pk}, **stranger)
    assert response.status_code == 404
    assert SavedView.objects.filter(pk=view.pk).exists()


def test_only_the_author_or_an_owner_deletes(client, project, owner):
    author, member = UserFactory(username="author"), UserFactory(username="member")
    project.add_member(author)
    project.add_member(member)
    view = SavedView.objects.create(project=project, name="Mine", created_by=author)
    url = f"/api/projects/{project.pk}/views/{view.pk}"
    response = client.delete(url, **auth_of(member))
    assert response.status_code == 403
    assert response.json() == {"detail": "only the view's author or an owner of the project can delete it"}
    assert client.delete(url, **auth_of(author)).status_code == 204
    again = SavedView.objects.create(project=project, name="Mine", created_by=author)
    assert client.delete(f"/api/projects/{project.pk}/views/{again.pk}", **auth_of(owner)).status_code == 204


def test_interactions_of_a_view_in_its_order_narrowed_by_filter(client, project, owner, run):
    auth = auth_of(owner)
    view = create(client, project, auth, sort="-toxicity.output").json()
    url = f"/api/runs/{run.pk}/interactions"
    ids = [item["user_interaction_id"] for item in client.get(url, {"view": view["id"]}, **auth).json()["items"]]
    assert ids == ["row-3", "row-1", "row-2"]
    narrowed = client.get(url, {"view": view["id"], "filter": "toxicity.output < 0.8"}, **auth).json()
    assert [item["user_interaction_id"] for item in narrowed["items"]] == ["row-1", "row-2"]
    good = client.get(url, {"view": view["id"], "annotation": "good"}, **auth).json()
    assert [item["user_interaction_id"] for item in good["items"]] == ["row-2"]
    assert client.get(url, {"view": 10**9}, **auth).status_code == 404


def test_an_annotation_that_contradicts_the_view_is_a_400(client, project, owner, run):
    auth = auth_of(owner)
    view = create(client, project, auth, annotation="bad").json()
    response = client.get(f"/api/runs/{run.pk}/interactions", {"view": view["id"], "annotation": "good"}, **auth)
    assert response.status_code == 400
    assert response.json() == {"detail": "annotation=good contradicts the view's annotation bad"}
