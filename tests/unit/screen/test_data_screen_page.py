"""The Data Screen's page: key columns, pass or fail, pass rates, the side panel and annotating from it."""

import re

import pytest
from django.core.cache import cache
from django.http import QueryDict
from django.urls import reverse

from properties.models import PromptProperty, PropertyValue
from properties.quality import criteria, pass_rates
from properties.screen import datascreen
from properties.screen.page import session_key
from properties.templatetags.evalsite import short_id
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory
from tests.unit.screen.test_datascreen import add_value

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def user():
    return UserFactory()


@pytest.fixture
def run(user):
    """A RAG run: grounded 0.9, 0.2, n/a (no documents), error; toxicity on every row."""
    project = ProjectFactory(
        owner=user,
        template="rag",
        enabled_properties=["grounded_in_context", "toxicity", "sentiment"],
        key_properties=["grounded_in_context", "toxicity"],
    )
    run = RunFactory(project=project, name="v1")
    rows = [("r1", 0.9, 0.1), ("r2", 0.2, 0.7), ("r3", None, 0.2), ("r4", "error", 0.1)]
    for uid, grounded, toxicity in rows:
        interaction = InteractionFactory(run=run, user_interaction_id=uid)
        if grounded == "error":
            add_value(interaction, "grounded_in_context", status="error")
        elif grounded is None:
            value = add_value(interaction, "grounded_in_context", status="not_applicable")
            value.details = {"not_applicable": "no retrieved documents to check against"}
            value.save()
        else:
            add_value(interaction, "grounded_in_context", value=grounded)
        add_value(interaction, "toxicity", value=toxicity)
        add_value(interaction, "sentiment", value=0.3)
    return run


@pytest.fixture
def client_in(client, user):
    client.force_login(user)
    return client


def uids(client, run, **params):
    page = client.get(reverse("properties:run-detail", args=[run.pk]), params).content.decode()
    return re.findall(r'class="open-interaction interaction-id" title="([^"]+)"', page)


def test_one_helper_decides_what_is_not_applicable(run):
    na = PropertyValue.objects.get(interaction__user_interaction_id="r3", property_name="grounded_in_context")
    error = PropertyValue.objects.get(interaction__user_interaction_id="r4", property_name="grounded_in_context")
    assert criteria.is_not_applicable(na) and not criteria.is_not_applicable(error)
    assert criteria.not_applicable_reason(na) == "no retrieved documents to check against"
    assert list(PropertyValue.objects.filter(criteria.not_applicable_q())) == [na]
    judged = criteria.criterion_for(run.project, "grounded_in_context")
    assert [criteria.verdict(v, judged) for v in (na, error)] == ["n/a", "error"]


def test_criteria_have_documented_defaults_and_project_overrides(run):
    assert criteria.default_for("toxicity").passes(0.49) and not criteria.default_for("toxicity").passes(0.5)
    assert criteria.default_for("grounded_in_context").passes(0.5)
    assert criteria.default_for("sentiment").passes(0.9) is None, "no direction: neither pass nor fail"
    assert criteria.default_for("invalid_links").passes(0.0) and not criteria.default_for("invalid_links").passes(0.25)
    run.project.pass_criteria = {"toxicity": {"threshold": 0.05}, "sentiment": {"direction": "higher", "threshold": 0}}
    assert not criteria.criterion_for(run.project, "toxicity").passes(0.1)
    assert criteria.criterion_for(run.project, "sentiment").passes(0.3)
    assert criteria.check_override({"direction": "up", "threshold": "x"}) == [
        "direction must be higher, lower or empty",
        "threshold must be a number",
    ]


def test_failing_passing_and_not_applicable_filters(client_in, run):
    assert uids(client_in, run, where="failing:grounded_in_context") == ["r2"]
    assert uids(client_in, run, where="passing:grounded_in_context") == ["r1"]
    assert uids(client_in, run, where="na:grounded_in_context") == ["r3"]
    assert uids(client_in, run, where=["failing:toxicity.output", "passing:grounded_in_context"]) == []
    run.project.pass_criteria = {"toxicity": {"threshold": 0.15}}
    run.project.save()
    assert uids(client_in, run, where="failing:toxicity.output") == ["r2", "r3"]
    page = client_in.get(reverse("properties:run-detail", args=[run.pk]), {"where": "failing:sentiment.output"})
    assert "sentiment.output neither passes nor fails" in page.content.decode()
    query = datascreen.ScreenQuery.from_params(QueryDict("where=failing:grounded_in_context"))
    assert str(query.expression) == "failing:grounded_in_context.output", "the property's own field"


def test_key_properties_are_the_default_columns_and_a_choice_is_remembered(client_in, run):
    url = reverse("properties:run-detail", args=[run.pk])
    headers = lambda body: re.findall(r'data-sort="([^"]+)"', body)  # noqa: E731
    assert headers(client_in.get(url).content.decode()) == ["grounded_in_context.output", "toxicity.output"]
    client_in.get(url, {"columns": "1", "col": ["sentiment.output", "toxicity.output"]})
    assert headers(client_in.get(url).content.decode()) == ["toxicity.output", "sentiment.output"], "key ones first"
    other_run = RunFactory(project=run.project)
    other = client_in.get(reverse("properties:run-detail", args=[other_run.pk])).content.decode()
    assert headers(other) == ["grounded_in_context.output", "toxicity.output"], "remembered per run"
    client_in.get(url, {"columns": "1"})
    assert headers(client_in.get(url).content.decode()) == ["grounded_in_context.output", "toxicity.output"]


def test_columns_keep_the_project_order_after_apply_never_alphabetical(client_in, run):
    """The picker sends its ticked boxes; applying them, in any order, keeps the key properties' order."""
    run.project.key_properties = ["toxicity", "grounded_in_context"]
    run.project.save()
    url = reverse("properties:run-detail", args=[run.pk])
    headers = lambda body: re.findall(r'data-sort="([^"]+)"', body)  # noqa: E731
    assert headers(client_in.get(url).content.decode()) == ["toxicity.output", "grounded_in_context.output"]
    applied = {"columns": "1", "col": ["grounded_in_context.output", "toxicity.output"]}
    assert headers(client_in.get(url, applied).content.decode()) == ["toxicity.output", "grounded_in_context.output"]
    assert client_in.session[session_key(run)] == ["toxicity.output", "grounded_in_context.output"]
    body = client_in.get(url).content.decode()
    assert headers(body) == ["toxicity.output", "grounded_in_context.output"], "remembered in that order"
    picker = re.findall(r'type="checkbox" name="col" value="([^"]+)"', body)
    assert picker == [
        *["toxicity.input", "toxicity.output", "grounded_in_context.output"],
        *["sentiment.input", "sentiment.output"],
    ]


def test_headers_picker_and_pass_rates_show_display_names_and_the_filter_help_both(client_in, run):
    body = client_in.get(reverse("properties:run-detail", args=[run.pk])).content.decode()
    header = re.search(r'<th scope="col" class="num property" title="([^"]+)"><a [^>]*>([^<]+)</a>', body)
    assert header.groups() == ("Grounded in Context — grounded_in_context.output", "Grounded in Context")
    assert 'value="toxicity.output" checked> Toxicity (output) <span class="chip key">' in body, "two fields: which"
    assert "Grounded in Context — <code>grounded_in_context.output</code>" in body
    url = reverse("properties:run-detail", args=[run.pk])
    rates = client_in.get(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="pass-rates").content.decode()
    assert '<span class="rate-name">Grounded in Context</span>' in rates
    assert ">grounded_in_context.output<" not in rates


def test_cells_say_pass_fail_na_and_error_with_the_reason(client_in, run):
    body = client_in.get(reverse("properties:run-detail", args=[run.pk])).content.decode()
    assert body.count('<span class="verdict pass">') == 3 + 1, "toxicity passes on three rows of four, grounded on one"
    assert body.count('<span class="verdict fail">') == 2
    assert 'title="no retrieved documents to check against"><span class="verdict na">n/a</span>' in body
    assert 'title="it broke"><span class="verdict error">' in body


def test_pass_rates_load_as_a_fragment_and_are_cached(client_in, run):
    url = reverse("properties:run-detail", args=[run.pk])
    body = client_in.get(url).content.decode()
    assert 'id="pass-rates"' in body and 'hx-trigger="load"' in body and "Counting pass rates" in body
    fragment = client_in.get(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="pass-rates").content.decode()
    assert "<html" not in fragment
    grounded = re.search(r'data-address="grounded_in_context.output".*?</a>', fragment, re.S).group(0)
    assert "50%" in grounded and "1 pass, 1 fail" in grounded and "1 n/a" in grounded and "1 error" in grounded
    # r1 passes both key properties; r2 fails both; r3 passes toxicity (grounded n/a); r4 passes toxicity.
    assert re.search(r'data-testid="overall-pass-rate">75%<', fragment)
    assert "3 of 4 interactions pass all" in fragment
    assert 'data-testid="overall-pass-rate"' in client_in.get(url).content.decode(), "cached: shown at once"


def test_pass_rates_leave_out_not_applicable_values_and_errors(run):
    judged = criteria.criteria_for(run.project, ["grounded_in_context.output", "toxicity.output", "sentiment.output"])
    rates = pass_rates.compute(run, judged, ["grounded_in_context.output"])
    grounded = rates.for_address("grounded_in_context.output")
    assert (grounded.judged, grounded.passing, grounded.not_applicable, grounded.errors) == (2, 1, 1, 1)
    assert rates.for_address("sentiment.output").rate is None
    assert (rates.judged, rates.passing) == (2, 1)


def test_an_interaction_opens_in_the_panel_with_previous_and_next(client_in, run):
    url = reverse("properties:run-detail", args=[run.pk])
    ids = dict(run.interactions.values_list("user_interaction_id", "pk"))
    page = client_in.get(url, {"i": ids["r2"], "sort": "id"}).content.decode()
    assert f'id="row-{ids["r2"]}" data-interaction="{ids["r2"]}" class="selected"' in page
    assert re.search(r'<aside id="detail-pane" class="detail-pane" aria-label="Interaction">', page)
    assert f"i={ids['r1']}" in page and f"i={ids['r3']}" in page, "previous and next links"
    assert 'data-testid="position">2 of 4<' in page
    fragment = client_in.get(url, {"i": ids["r3"]}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="detail-pane")
    body = fragment.content.decode()
    assert "<html" not in body and f'data-interaction="{ids["r3"]}"' in body
    assert "no retrieved documents to check against" in body, "n/a shows its reason in the panel"
    closed = client_in.get(url).content.decode()
    assert 'aria-label="Interaction" hidden' in closed
    first = client_in.get(url, {"i": "first"}).content.decode()
    assert f'data-interaction="{ids["r1"]}"' in first


def test_annotating_from_the_panel_updates_the_row_and_the_score_out_of_band(client_in, run):
    interaction = run.interactions.get(user_interaction_id="r2")
    url = reverse("properties:interaction-annotate", args=[interaction.pk])
    screen = f"annotation=unknown&i={interaction.pk}"
    body = client_in.post(url, {"annotation": "bad", "reason": "", "screen": screen}, HTTP_HX_REQUEST="true")
    body = body.content.decode()
    assert '<aside id="detail-pane"' in body and "bad (person)" in body
    row = re.search(rf'<template><tr id="row-{interaction.pk}".*?</tr>\s*</template>', body, re.S).group(0)
    assert 'hx-swap-oob="true"' in row and ">bad</span>" in row, "the row left the filter but is updated in place"
    assert re.search(r'<span id="run-score-box" hx-swap-oob="true">Score <strong data-testid="run-score">0%', body)
    assert 'data-testid="bad-count">1<' in body


def test_readable_ids():
    assert short_id("3f2c9a7be1d04c6f9e8a7b6c5d4e3f21") == "3f2c9a7b"
    assert short_id("order-1234") == "order-1234"
    assert short_id("x" * 40) == "x" * 23 + "…"


def test_paging_with_next_links_to_the_interaction_by_its_id(client_in, run, monkeypatch):
    """Once the link past a page's end was `?i=first&page=2`: a place on a page, not an interaction."""
    monkeypatch.setattr(datascreen, "PAGE_SIZE", 2)
    url = reverse("properties:run-detail", args=[run.pk])
    ids = dict(run.interactions.values_list("user_interaction_id", "pk"))
    end_of_first = client_in.get(url, {"i": ids["r2"], "sort": "id"}).content.decode()
    link = re.search(r'<a href="\?([^"]+)" data-pane-next', end_of_first).group(1)
    assert "first" not in link and f"i={ids['r3']}" in link and "page=2" in link
    start_of_second = client_in.get(url, {"i": ids["r3"], "sort": "id", "page": "2"}).content.decode()
    link = re.search(r'<a href="\?([^"]+)" data-pane-previous', start_of_second).group(1)
    assert "last" not in link and f"i={ids['r2']}" in link and "page=1" in link


def test_a_prompt_property_goes_by_its_own_name_in_the_panel_and_the_picker(client_in, run):
    PromptProperty.objects.create(
        project=run.project, name="Polite & kind", property_name="prompt_polite", template="{output}", model_id="m"
    )
    run.project.enabled_properties = [*run.project.enabled_properties, "prompt_polite"]
    run.project.save()
    interaction = run.interactions.get(user_interaction_id="r1")
    add_value(interaction, "prompt_polite", field="interaction", value=0.8)
    url = reverse("properties:run-detail", args=[run.pk])
    body = client_in.get(url, {"i": interaction.pk}).content.decode()
    assert 'data-property="prompt_polite">Polite &amp; kind</a>' in body
    assert 'value="prompt_polite" > Polite &amp; kind</label>' in body
