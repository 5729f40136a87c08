"""Every placeholder and example the UI shows works: read from the templates and forms, then run.

A new placeholder or "e.g." in a form's help, or a JSON example in a template, fails the first
test until it is given a runner below.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django import forms as django_forms
from django.urls import reverse

from properties.models import ApiToken, Interaction, PropertyValue
from properties.screen import forms as screen_forms
from properties.web import forms
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"
PLACEHOLDER = re.compile(r'placeholder="([^"]+)"')
EXAMPLE = re.compile(r"e\.g\. (.+?)\.?$")
CODE_JSON = re.compile(r'<code>(\{".*?\})</code>')


def template_texts() -> list[str]:
    return [path.read_text() for path in sorted(TEMPLATES.rglob("*.html"))]


def form_classes() -> list[type[django_forms.BaseForm]]:
    return [
        value
        for module in (forms, screen_forms)
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, django_forms.BaseForm) and value.__module__ == module.__name__
    ]


def form_texts() -> tuple[list[str], list[str]]:
    """(placeholders, help texts) of every field the forms modules declare."""
    placeholders, helps = [], []
    for form in form_classes():
        fields = dict(form.base_fields)
        for field in fields.values():
            if "placeholder" in field.widget.attrs:
                placeholders.append(field.widget.attrs["placeholder"])
            helps.append(str(field.help_text))
        helps.extend(str(text) for text in getattr(getattr(form, "Meta", None), "help_texts", {}).values())
    return placeholders, helps


def found_examples() -> set[str]:
    placeholders, helps = form_texts()
    found = set(placeholders)
    for text in template_texts():
        found.update(PLACEHOLDER.findall(text))
        found.update(CODE_JSON.findall(text))
    for help_text in helps:
        found.update(match.group(1) for match in (EXAMPLE.search(help_text),) if match)
    return found


@pytest.fixture
def user():
    return UserFactory()


@pytest.fixture
def logged_in(client, user):
    client.force_login(user)
    return client


def run_filters(example: str, logged_in, user) -> None:
    properties = ["toxicity", "content_type", "grounded_in_context"]
    run = RunFactory(project=ProjectFactory(owner=user, enabled_properties=properties))
    for output, toxicity, kind, grounded in [("SELECT 1", 0.9, "sql", 0.2), ("hello", 0.1, "other", 0.9)]:
        interaction = InteractionFactory(run=run, output=output)
        for field, value in [("input", 0.0), ("output", toxicity)]:
            PropertyValue.objects.create(
                interaction=interaction, run=run, property_name="toxicity", field=field, value=value, scorer_version="1"
            )
        PropertyValue.objects.create(
            interaction=interaction,
            run=run,
            property_name="content_type",
            field="output",
            label=kind,
            scorer_version="1",
        )
        PropertyValue.objects.create(
            interaction=interaction,
            run=run,
            property_name="grounded_in_context",
            field="output",
            value=grounded,
            scorer_version="1",
        )
    page = logged_in.get(reverse("properties:run-detail", args=[run.pk]), {"where": example})
    text = page.content.decode()
    assert 'class="error-text"' not in text, text[text.find("error-text") - 200 :][:600]
    assert page.context["page"].paginator.count == 1


def create_token(name: str, logged_in, user) -> None:
    page = logged_in.post(reverse("tokens:token-list"), {"name": name}, follow=True).content.decode()
    assert name in page
    token = ApiToken.objects.get(user=user, name=name)
    secret = page.split("<pre><code>")[1].split("</code>")[0]
    assert token.key_prefix == secret[:12]
    # The page's own instruction: "send it as Authorization: Bearer <token>".
    assert logged_in.get("/api/projects", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 200


def annotate_with_reason(reason: str, logged_in, user) -> None:
    interaction = InteractionFactory(run=RunFactory(project=ProjectFactory(owner=user)))
    logged_in.post(
        reverse("properties:interaction-annotate", args=[interaction.pk]), {"annotation": "bad", "reason": reason}
    )
    assert Interaction.objects.get(pk=interaction.pk).annotation_reason == reason


def property_configuration(example: str, logged_in, user) -> None:
    project = ProjectFactory(owner=user)
    form = forms.PropertySettingsForm({"enabled": ["word_count"], "configuration": example}, project=project)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["configuration"] == json.loads(example)


def model_ids(example: str, logged_in, user) -> None:
    project = ProjectFactory(owner=user)
    for model_id in re.findall(r'"([^"]+)"', example):
        data = {
            "name": f"Judge {model_id}",
            "template": "Is this polite? {output}",
            "output_type": "score",
            "model_id": model_id,
        }
        form = forms.PromptPropertyForm(data, project=project)
        assert form.is_valid(), (model_id, form.errors)


def key_name(example: str, logged_in, user) -> None:
    form = forms.ProjectKeyForm({"name": example, "key": "sk-test"})
    assert form.is_valid(), form.errors


RUNNERS = {
    "toxicity.output > 0.5 AND (content_type = sql OR failing:grounded_in_context)": run_filters,
    "CI pipeline": create_token,
    "Why? (optional)": annotate_with_reason,
    '{"invalid_links": {"timeout": 3}}': property_configuration,
    '{"pii_risk": {"risk_factors": {"person_name": 0.3}}}': property_configuration,
    '"openai/gpt-4o-mini" or "ollama/llama3.1"': model_ids,
    "team-openai": key_name,
}


def test_every_placeholder_and_example_has_a_runner():
    assert found_examples() == set(RUNNERS)


@pytest.mark.django_db
@pytest.mark.parametrize("example", sorted(RUNNERS))
def test_the_example_works(example, logged_in, user):
    RUNNERS[example](example, logged_in, user)
