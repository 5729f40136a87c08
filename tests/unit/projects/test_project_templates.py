"""Projects start from a template: its properties are scored, its key ones are shown first."""

import pytest
from django.urls import reverse

from properties.demo import create_demo
from properties.models import ApiToken, Project
from properties.projects import project_templates
from properties.scorers import registry
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

RAG = [
    "grounded_in_context",
    "retrieval_relevance",
    "context_relevancy",
    "relevance",
    "information_density",
    "pii_risk",
    "avoided_answer",
    "toxicity",
]


def test_every_template_names_registered_properties_and_key_ones_among_them():
    known = registry.all_scorers()
    for template in project_templates.TEMPLATES.values():
        assert set(template.properties) <= set(known), template.slug
        assert set(template.key_properties) <= set(template.properties), template.slug
    assert list(project_templates.get("rag").properties) == RAG
    assert set(project_templates.get("summarisation").properties) == {
        "coverage",
        "summarization",
        "grounded_in_context",
        "compression_ratio",
        "fluency",
    }
    assert set(project_templates.get("structured").properties) == {"valid_json", "valid_xml", "schema", "content_type"}
    assert project_templates.get("nonsense").slug == "custom"


def test_a_project_created_in_the_browser_starts_from_its_template(client):
    user = UserFactory()
    client.force_login(user)
    page = client.get(reverse("properties:project-list")).content.decode()
    assert 'value="rag"' in page and "retrieval_relevance" in page and "Structured output" in page
    client.post(reverse("properties:project-list"), {"name": "Docs bot", "template": "rag"})
    project = Project.objects.get(name="Docs bot")
    assert (project.template, project.enabled_properties) == ("rag", RAG)
    assert project.key_properties[:2] == ["grounded_in_context", "retrieval_relevance"]
    client.post(reverse("properties:project-list"), {"name": "Anything"})
    custom = Project.objects.get(name="Anything")
    assert (custom.template, custom.enabled_properties, custom.key_properties) == (
        "custom",
        project_templates.default_properties(),
        [],
    )


def test_a_project_created_through_the_api_starts_from_its_template(client):
    _, secret = ApiToken.issue(UserFactory(), "t")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}", "content_type": "application/json"}
    body = client.post("/api/projects", {"name": "Summaries", "template": "summarisation"}, **auth).json()
    assert body["template"] == "summarisation" and "coverage" in body["enabled_properties"]
    assert body["key_properties"][0] == "coverage"
    chosen = client.post("/api/projects", {"name": "Own", "template": "rag", "properties": ["word_count"]}, **auth)
    assert chosen.json()["enabled_properties"] == ["word_count"] and chosen.json()["template"] == "rag"
    assert client.post("/api/projects", {"name": "Bad", "template": "poetry"}, **auth).status_code == 422


def test_the_demo_project_is_a_rag_project():
    _, project = create_demo()
    assert project.template == "rag" and project.enabled_properties == RAG
    assert "retrieval_relevance" in project.key_properties


def test_a_property_page_shows_its_report_card_and_saves_its_pass_criteria(client, tmp_path, monkeypatch):
    from properties.quality import report_card

    user = UserFactory()
    client.force_login(user)
    client.post(reverse("properties:project-list"), {"name": "Docs bot", "template": "rag"})
    project = Project.objects.get(name="Docs bot")
    card = tmp_path / "card.json"
    report_card.write_behaviour({"toxicity": (40, 41)}, card, models={"toxicity": "minilm@1234+toxicity-head@99"})
    quality = {"file": "toxicity_davidson.jsonl", "property": "toxicity", "rows": 200, "roc_auc": 0.99312}
    quality |= {"balanced_accuracy": 0.96, "threshold": 0.5, "target": 0.95, "model": "minilm@1234"}
    report_card.write_quality([quality], card)
    report_card.write_generated({"toxicity": {"development": (290, 305), "held-out": (147, 160)}}, card)
    monkeypatch.setattr(report_card, "PATH", card)
    url = reverse("properties:property-settings", args=[project.pk, "toxicity"])
    page = client.get(url).content.decode()
    assert "40 of 41 cases pass (98%)" in page and "0.993" in page and "0.95 met" in page
    assert "held-out templates: 147 of 160 cases pass (92%)" in page, "beside the public ROC-AUC"
    assert "development templates: 290 of 305 (95%)" in page
    assert "lower is better; passes below 0.5" in page
    assert "<code>minilm@1234+toxicity-head@99</code>" in page, "the packaged model the figures were measured with"
    assert (
        "not measured"
        in client.get(reverse("properties:property-settings", args=[project.pk, "pii_risk"])).content.decode()
    )
    saved = client.post(url, {"direction": "lower", "threshold": "0.2", "tolerance": "0.05", "key": "on"})
    assert saved.status_code == 302
    project.refresh_from_db()
    assert project.pass_criteria["toxicity"] == {"direction": "lower", "threshold": 0.2, "tolerance": 0.05}
    assert project.key_properties[-1] == "toxicity"
    assert "passes below 0.2" in client.get(url).content.decode()
    client.post(url, {"direction": "lower", "threshold": "0.2", "tolerance": "0.05"})
    project.refresh_from_db()
    assert "toxicity" not in project.key_properties
    refused = client.post(url, {"direction": "higher", "threshold": ""})
    assert "a direction needs a threshold" in refused.content.decode()
    detail = client.get(reverse("properties:project-detail", args=[project.pk])).content.decode()
    assert url in detail and "RAG question answering" in detail


def test_the_report_card_file_the_repository_keeps_has_behaviour_pass_rates():
    from properties.quality import report_card

    card = report_card.card_for("retrieval_relevance")
    assert card.behaviour is not None and card.behaviour.cases >= 10
    assert report_card.card_for("no_such_property").measured is False


def test_the_operators_default_properties_are_what_the_demo_scores(settings):
    settings.EVALSITE_DEFAULT_PROPERTIES = ["word_count", "sentiment"]
    _, project = create_demo()
    assert project.template == "rag" and project.enabled_properties == ["word_count", "sentiment"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("prop", "threshold", "saved"),
    [("toxicity", "2", False), ("toxicity", "-1", False), ("toxicity", "1", True), ("reading_ease", "-40", True)],
)
def test_a_threshold_outside_the_propertys_range_is_refused_naming_it(client, prop, threshold, saved):
    """Once a threshold of 2 or -1 on a 0-1 property was saved without a word."""
    user = UserFactory()
    client.force_login(user)
    project = ProjectFactory(owner=user, enabled_properties=[prop])
    url = reverse("properties:property-settings", args=[project.pk, prop])
    response = client.post(url, {"direction": "lower", "threshold": threshold, "tolerance": "0.01"})
    project.refresh_from_db()
    assert (response.status_code == 302) is saved
    assert (prop in project.pass_criteria) is saved
    if not saved:
        page = response.content.decode()
        assert f"{threshold} is outside {prop}&#x27;s range (0 to 1): every value would pass or fail" in page
