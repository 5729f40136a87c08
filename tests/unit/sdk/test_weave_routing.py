"""Weave's scorer names run on an LLM when a model is named, on the local model otherwise."""

from __future__ import annotations

import pytest

from properties.pipeline import scoring
from properties.scorers import registry
from properties.scorers.context_entity_recall import ContextEntityRecall
from properties.scorers.context_relevancy import ContextRelevancy
from properties.scorers.llm.judges import LLMContextEntityRecall, LLMContextRelevancy, LLMSummarization
from properties.scorers.moderation import Moderation
from properties.scorers.openai_moderation import OpenAIModeration
from properties.scorers.summarization import Summarization
from tests.factories import ProjectFactory

ROUTED = [
    (Summarization, LLMSummarization),
    (ContextEntityRecall, LLMContextEntityRecall),
    (ContextRelevancy, LLMContextRelevancy),
    (Moderation, OpenAIModeration),
]


@pytest.mark.parametrize(("local", "judge"), ROUTED)
def test_without_a_model_the_local_scorer_runs(local, judge):
    scorer = local()
    assert type(scorer) is local and scorer.queue == "models"


@pytest.mark.parametrize(("local", "judge"), ROUTED)
def test_a_model_id_builds_the_llm_judge_with_the_weave_options(local, judge):
    scorer = local(model_id="ollama/llama3.1", timeout=5.0)
    assert type(scorer) is judge
    assert scorer.model_id() == "ollama/llama3.1" and scorer.timeout == 5.0 and scorer.queue == "llm"


def test_an_openai_compatible_base_url_alone_also_routes_to_the_judge():
    scorer = Summarization(base_url="http://127.0.0.1:8080/v1")
    assert type(scorer) is LLMSummarization and scorer.base_url == "http://127.0.0.1:8080/v1"


def test_the_configuration_round_trips_through_the_registry():
    judged = registry.get("summarization").from_dict({"model_id": "openai/gpt-4o"})
    assert type(judged) is LLMSummarization
    assert type(registry.get("summarization").from_dict(judged.to_dict())) is LLMSummarization


@pytest.mark.django_db
def test_the_pipeline_queues_a_judged_weave_name_on_the_llm_queue_and_records_the_model():
    project = ProjectFactory(
        enabled_properties=["context_relevancy"],
        property_config={"context_relevancy": {"model_id": "openai/gpt-4o-mini"}},
    )
    setup = scoring.build_scorer(project, "context_relevancy")
    assert (setup.queue, setup.model, setup.error) == ("llm", "openai/gpt-4o-mini", "")
    local = scoring.build_scorer(ProjectFactory(enabled_properties=["context_relevancy"]), "context_relevancy")
    assert local.queue == "models" and local.model != "openai/gpt-4o-mini"


def test_options_the_judge_does_not_take_are_refused_with_a_model_id():
    with pytest.raises(TypeError, match="no_such_option"):
        ContextEntityRecall(model_id="openai/gpt-4o", no_such_option=1)
