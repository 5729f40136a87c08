"""Saved views: checked when saved, listed on every run of the project, applied by a plain URL, never
across projects."""

from urllib.parse import parse_qs, urlsplit

import pytest
from django.http import QueryDict
from django.urls import reverse

from properties.models import Membership, SavedView
from properties.screen import datascreen, saved_views
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory
from tests.unit.screen.test_datascreen import add_value

pytestmark = pytest.mark.django_db

HOSTILE_NAME = '<script>window.pwned=1</script> "quoted" & <b>bold</b>'


@pytest.fixture
def owner():
    return UserFactory(username="olga")


@pytest.fixture
def project(owner):
    return ProjectFactory(
        owner=owner, name="Support bot", enabled_properties=["toxicity", "word_count", "content_type"]
    )


@pytest.fixture
def runs(project):
    first, second = RunFactory(project=project, name="v1"), RunFactory(project=project, name="v2")
    for run in (first, second):
        for i, toxicity in enumerate([0.1, 0.7, 0.4]):
            interaction = InteractionFactory(run=run, user_interaction_id=f"{run.name}-row-{i}")
            add_value(interaction, "toxicity", value=toxicity)
            add_value(interaction, "word_count", value=10 - i)
    return first, second


def form_for(project, **fields):
    data = {"name": "Toxic answers", "where": "toxicity.output > 0.3", "columns": ["toxicity.output"], **fields}
    return saved_views.SavedViewForm(project, data)


def test_a_valid_view_is_saved_with_its_author_and_columns_in_order(project, owner):
    form = form_for(project, columns=["word_count.output", "toxicity.output"], sort="-toxicity.output")
    assert form.is_valid(), form.errors
    view = form.save(owner)
    assert (view.project, view.created_by, view.name) == (project, owner, "Toxic answers")
    assert view.columns == ["word_count.output", "toxicity.output"]
    assert (view.where, view.sort, view.search_in) == ("toxicity.output > 0.3", "-toxicity.output", "both")


def test_a_filter_that_does_not_parse_is_refused_with_its_column(project):
    form = form_for(project, where="toxicity.output >")
    assert not form.is_valid()
    assert form.problems() == (
        "Filter: column 18: the filter ends too early; expected a number, a quoted text or a word"
    )
    assert form.problems(by_name=True).startswith("where: column 18:")


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        (
            {"columns": ["toxicity.output", "groundedness.output"]},
            "Columns: groundedness.output is not a property of this project",
        ),
        ({"sort": "-relevance.output"}, "Sort: -relevance.output is not a column of this project"),
        ({"sort": "--toxicity.output"}, "Sort: --toxicity.output is not a column"),
        ({"name": ""}, "Name: This field is required."),
        ({"name": "x" * 101}, "Name: Ensure this value has at most 100 characters"),
        ({"annotation": "great"}, "Annotation: Select a valid choice."),
    ],
)
def test_each_problem_names_its_field(project, fields, problem):
    form = form_for(project, **fields)
    assert not form.is_valid()
    assert form.problems().startswith(problem)


def test_sort_takes_a_column_or_a_property_of_the_project_either_way(project):
    for sort in ("id", "-annotation", "user_interaction_id", "toxicity.input", "-word_count.output", ""):
        assert form_for(project, sort=sort).is_valid(), sort


def test_columns_may_be_those_of_any_run_of_the_project(project, runs):
    runs[1].jobs.create(properties=["sentiment"])
    assert "sentiment.output" in datascreen.project_addresses(project)
    assert form_for(project, columns=["sentiment.output"]).is_valid()
    assert not form_for(ProjectFactory(enabled_properties=["toxicity"]), columns=["sentiment.output"]).is_valid()


def test_a_name_is_unique_within_its_project_only(project, owner):
    first = form_for(project)
    assert first.is_valid()
    first.save(owner)
    again = form_for(project)
    assert not again.is_valid()
    assert again.problems() == "Name: the project already has a view named Toxic answers"
    other = ProjectFactory(enabled_properties=["toxicity"])
    assert form_for(other).is_valid()


def test_the_url_of_a_view_holds_every_part_of_it(project, owner):
    view = SavedView(
        project=project,
        where='text ~ "a & b"',
        annotation="bad",
        source="person",
        search="refund",
        search_in="output",
        errors_only=True,
        columns=["toxicity.output", "word_count.output"],
        sort="-toxicity.output",
    )
    query = datascreen.ScreenQuery.from_params(QueryDict(view.query_string()))
    assert (query.where, query.annotation, query.source, query.search, query.search_in, query.errors_only) == (
        'text ~ "a & b"',
        "bad",
        "person",
        "refund",
        "output",
        True,
    )
    assert (query.sort, query.columns) == ("-toxicity.output", ["toxicity.output", "word_count.output"])


@pytest.fixture
def client_in(client, owner):
    client.force_login(owner)
    return client


def save_from(client, run, **fields):
    data = {"name": "Toxic answers", "where": "toxicity.output > 0.3", "col": ["word_count.output", "toxicity.output"]}
    return client.post(reverse("properties:saved-view-create", args=[run.pk]), {**data, **fields})


def test_saving_from_the_screen_then_opening_the_view_on_another_run(client_in, runs):
    first, second = runs
    response = save_from(client_in, first, sort="-toxicity.output")
    view = SavedView.objects.get()
    assert response.status_code == 302 and response.url.startswith(reverse("properties:run-detail", args=[first.pk]))
    opened = client_in.get(reverse("properties:run-detail", args=[second.pk]), {"view": view.pk})
    assert opened.status_code == 302
    url = urlsplit(opened.url)
    assert url.path == reverse("properties:run-detail", args=[second.pk])
    params = parse_qs(url.query)
    assert params["where"] == ["toxicity.output > 0.3"]
    assert params["col"] == ["word_count.output", "toxicity.output"]
    assert params["sort"] == ["-toxicity.output"]
    page = client_in.get(opened.url)
    body = page.content.decode()
    assert [row.interaction.user_interaction_id for row in page.context["rows"]] == ["v2-row-1", "v2-row-2"]
    # Shown in the screen's one order: key properties first (toxicity is one), then the others.
    assert page.context["columns"] == ["toxicity.output", "word_count.output"]
    assert page.context["shown_view"] == view
    assert f"?view={view.pk}" in body and 'data-testid="shown-view"' in body
    # The columns stay the run's choice afterwards, as the columns form keeps them.
    assert client_in.get(reverse("properties:run-detail", args=[second.pk])).context["columns"] == [
        "toxicity.output",
        "word_count.output",
    ]


def test_a_colleague_in_the_project_opens_the_same_view(client, runs, project, owner):
    view = SavedView.objects.create(project=project, name="Wordy", where="word_count.output >= 9", created_by=owner)
    colleague = UserFactory(username="colleague")
    project.add_member(colleague)
    client.force_login(colleague)
    opened = client.get(reverse("properties:run-detail", args=[runs[0].pk]), {"view": view.pk}, follow=True)
    assert [row.interaction.user_interaction_id for row in opened.context["rows"]] == ["v1-row-0", "v1-row-1"]
    assert opened.context["shown_view"] == view


def test_a_view_of_another_project_is_not_applied_nor_named(client_in, runs, owner):
    other = ProjectFactory(owner=owner, enabled_properties=["toxicity"])
    theirs = SavedView.objects.create(project=other, name="Secret plans", where="toxicity.output > 0.9")
    response = client_in.get(reverse("properties:run-detail", args=[runs[0].pk]), {"view": theirs.pk}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("properties:run-detail", args=[runs[0].pk])
    body = response.content.decode()
    assert f"This project has no saved view {theirs.pk}; it may have been deleted." in body
    assert "Secret plans" not in body and response.context["query"].where == ""
    assert (
        client_in.get(reverse("properties:run-detail", args=[runs[0].pk]), {"view": "x<b>"}, follow=True).status_code
        == 200
    )


def test_a_user_outside_the_project_gets_a_404(client, runs, project, owner):
    view = SavedView.objects.create(project=project, name="Wordy", where="word_count.output >= 9", created_by=owner)
    client.force_login(UserFactory(username="stranger"))
    assert client.get(reverse("properties:run-detail", args=[runs[0].pk]), {"view": view.pk}).status_code == 404
    assert save_from(client, runs[0]).status_code == 404
    delete = reverse("properties:saved-view-delete", args=[runs[0].pk, view.pk])
    assert client.post(delete).status_code == 404
    assert SavedView.objects.filter(pk=view.pk).exists()


def test_a_view_that_does_not_validate_is_not_saved_and_the_screen_keeps_its_query(client_in, runs):
    response = save_from(client_in, runs[0], where="toxicity.output >", sort="-toxicity.output")
    assert not SavedView.objects.exists()
    params = parse_qs(urlsplit(response.url).query)
    assert params == {"where": ["toxicity.output >"], "sort": ["-toxicity.output"]}
    page = client_in.get(response.url).content.decode()
    assert "The view is not saved. Filter: column 18: the filter ends too early" in page


def test_names_are_escaped_in_the_list_and_in_messages(client_in, runs):
    save_from(client_in, runs[0], name=HOSTILE_NAME)
    page = client_in.get(reverse("properties:run-detail", args=[runs[1].pk])).content.decode()
    assert "<script>window.pwned" not in page and "<b>bold</b>" not in page
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in page


def test_the_author_or_a_project_owner_deletes_a_view_others_cannot(client, runs, project, owner):
    author, member = UserFactory(username="author"), UserFactory(username="member")
    project.add_member(author)
    project.add_member(member)
    view = SavedView.objects.create(project=project, name="Mine", created_by=author)
    delete = reverse("properties:saved-view-delete", args=[runs[0].pk, view.pk])
    client.force_login(member)
    page = client.get(reverse("properties:run-detail", args=[runs[0].pk])).content.decode()
    assert delete not in page
    assert client.post(delete).status_code == 403
    assert client.get(delete).status_code == 405
    client.force_login(author)
    assert delete in client.get(reverse("properties:run-detail", args=[runs[0].pk])).content.decode()
    assert client.post(delete).status_code == 302
    assert not SavedView.objects.exists()
    again = SavedView.objects.create(project=project, name="Mine", created_by=author)
    client.force_login(owner)
    assert Membership.objects.get(project=project, user=owner).role == "owner"
    assert client.post(reverse("properties:saved-view-delete", args=[runs[0].pk, again.pk])).status_code == 302
    assert not SavedView.objects.exists()


def test_a_view_id_of_another_project_cannot_be_deleted_through_this_run(client_in, runs, owner):
    theirs = SavedView.objects.create(project=ProjectFactory(owner=owner), name="Theirs", created_by=owner)
    assert client_in.post(reverse("properties:saved-view-delete", args=[runs[0].pk, theirs.pk])).status_code == 404


def test_a_column_the_run_does_not_have_is_left_out_and_said(client_in, runs, project, owner):
    runs[1].jobs.create(properties=["sentiment"])
    view = SavedView.objects.create(project=project, name="Mood", columns=["sentiment.output", "toxicity.output"])
    response = client_in.get(reverse("properties:run-detail", args=[runs[0].pk]), {"view": view.pk}, follow=True)
    assert "Not scored on this run, so not shown: sentiment.output." in response.content.decode()
    assert response.context["columns"] == ["toxicity.output"]
    assert response.context["shown_view"] == view


def test_the_save_form_follows_the_filter_applied_by_htmx(client_in, runs):
    url = reverse("properties:run-detail", args=[runs[0].pk])
    fragment = client_in.get(url, {"where": "toxicity.output<0.2"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="screen")
    body = fragment.content.decode()
    assert "<html" not in body and 'id="saved-views"' in body
    save_form = body[body.index('class="save-view"') :]
    assert '<input type="hidden" name="where" value="toxicity.output&lt;0.2">' in save_form


def test_a_broken_filter_cannot_be_saved_from_the_page(client_in, runs):
    page = client_in.get(reverse("properties:run-detail", args=[runs[0].pk]), {"where": "toxicity.output >"})
    body = page.content.decode()
    assert "Fix the filter to save this view." in body and 'class="save-view"' not in body
