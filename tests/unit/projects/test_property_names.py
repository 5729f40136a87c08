"""Display names of property addresses, and the order pages show them in."""

import pytest

from properties.models import PromptProperty
from properties.projects import property_names
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db


def test_display_names_say_the_field_only_where_a_property_has_several():
    project = ProjectFactory(key_properties=[])
    PromptProperty.objects.create(
        project=project, name="Polite <b>tone</b>", property_name="prompt_polite", template="{output}", model_id="m"
    )
    addresses = ["grounded_in_context.output", "toxicity.input", "retrieval_relevance", "prompt_polite", "gone.output"]
    names = property_names.names_for(project, addresses)
    assert [str(name) for name in names.values()] == [
        "Grounded in Context",
        "Toxicity (input)",
        "Retrieval Relevance",
        "Polite <b>tone</b>",  # the project's own name, escaped by the templates like any text
        "gone (output)",  # no longer installed: its stored name
    ]
    assert names["toxicity.input"].described == "Toxicity (input) — toxicity.input"


def test_key_properties_come_first_in_the_project_order_then_the_rest_alphabetically():
    project = ProjectFactory(key_properties=["toxicity", "avoided_answer"])
    addresses = ["avoided_answer.output", "fluency.output", "toxicity.output", "coverage.output", "toxicity.input"]
    assert property_names.key_first(project, addresses) == [
        *["toxicity.input", "toxicity.output", "avoided_answer.output"],
        *["coverage.output", "fluency.output"],
    ]


def test_a_project_without_key_properties_orders_by_the_templates_key_ones_it_scores():
    project = ProjectFactory(key_properties=[], enabled_properties=["relevance", "grounded_in_context", "fluency"])
    assert property_names.key_names(project) == ["grounded_in_context", "relevance", "fluency"]
