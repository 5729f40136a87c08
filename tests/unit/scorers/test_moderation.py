"""openai_moderation against the local server speaking OpenAI's POST /v1/moderations."""

from __future__ import annotations

import json

import pytest

from properties.models import PropertyValue
from properties.pipeline import scoring
from properties.scorers import openai_moderation as moderation
from properties.scorers import registry
from properties.scorers.base import ScorerUnavailable
from properties.scorers.openai_moderation import OpenAIModeration
from properties.web.forms import store_project_key
from tests.factories import InteractionFactory, ProjectFactory, RunFactory

# The local OpenAI-protocol server's fixtures: server, provider, base_url.
pytest_plugins = ["tests.unit.llm_server"]

KEY = "sk-test-MODERATION0123456789ab"


def scorer(base_url: str, **options) -> OpenAIModeration:
    return OpenAIModeration(base_url=base_url, api_key=KEY, timeout=5, **options)


def test_flagged_and_not_flagged(provider, base_url):
    provider.script({})
    flagged, fine = scorer(base_url).run_batch(["I will kill you", "Have a nice day"])
    assert (flagged.value, flagged.label) == (0.9, "flagged")
    assert flagged.details["flagged"] is True and flagged.details["categories"] == {"violence": True}
    assert flagged.details["category_scores"]["violence"] == 0.9
    assert (fine.value, fine.label) == (0.01, "ok")
    assert fine.details["flagged"] is False and fine.details["categories"] == {}
    assert provider.paths == ["/v1/moderations"]
    assert provider.requests[0] == {"model": "omni-moderation-latest", "input": ["I will kill you", "Have a nice day"]}
    assert provider.headers[0]["authorization"] == f"Bearer {KEY}"


def test_texts_are_sent_in_batches(provider, base_url):
    provider.script({})
    texts = [f"text {i}" for i in range(moderation.MODERATION_BATCH + 3)]
    scores = scorer(base_url).run_batch(texts)
    assert len(scores) == len(texts) and all(score.ok for score in scores)
    assert [len(request["input"]) for request in provider.requests] == [moderation.MODERATION_BATCH, 3]


def test_a_server_error_is_retried(provider, base_url, monkeypatch):
    provider.script({"status": 503}, {})
    [score] = scorer(base_url).run_batch(["you idiot"])
    assert score.ok and score.details["categories"] == {"harassment": True}
    assert len(provider.requests) == 2


def test_a_refused_key_is_an_error_without_the_key(provider, base_url):
    provider.script({"status": 401, "message": f"Incorrect API key provided: {KEY}"})
    [score] = scorer(base_url).run_batch(["hello"])
    assert not score.ok and "HTTP 401" in score.error and KEY not in score.error
    assert len(provider.requests) == 1


def test_without_a_key_it_names_the_property_and_the_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ScorerUnavailable, match="openai_moderation needs an OpenAI API key: set OPENAI_API_KEY"):
        OpenAIModeration().run_batch(["hello"])


def test_the_environment_key_goes_to_a_base_url_only_when_named_for_it(provider, base_url, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    provider.script({})
    with pytest.raises(ScorerUnavailable, match="needs an OpenAI API key"):
        OpenAIModeration(base_url=base_url).run_batch(["hello"])
    assert provider.headers == []
    [score] = OpenAIModeration(base_url=base_url, api_key_variable="OPENAI_API_KEY").run_batch(["hello"])
    assert score.ok and provider.headers[0]["authorization"] == f"Bearer {KEY}"


def test_a_base_url_the_operator_does_not_allow_is_never_contacted(provider, base_url, settings):
    settings.EVALSITE_LLM_BASE_URLS = []
    with pytest.raises(ScorerUnavailable, match="not allowed by the operator"):
        scorer(base_url).run_batch(["hello"])
    assert provider.requests == [] and provider.headers == []


def test_a_budget_stops_requests(provider, base_url):
    provider.script({})
    scores = scorer(base_url, budget={"max_calls": 1}).run_batch(["a"] * (moderation.MODERATION_BATCH + 1))
    assert all(score.ok for score in scores[:-1])
    assert scores[-1].error.startswith("budget exhausted")


def test_registered_on_the_llm_queue():
    cls = registry.get("openai_moderation")
    assert cls is OpenAIModeration and cls.queue == "llm" and cls.fields == ("input", "output")


@pytest.mark.django_db
def test_in_the_pipeline_without_a_key_every_value_is_an_error_naming_the_fix(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    run = RunFactory(project=ProjectFactory(enabled_properties=["openai_moderation"]))
    InteractionFactory.create_batch(2, run=run)
    for chunk in scoring.plan_job(run).chunks.all():
        scoring.score_chunk(chunk.pk)
    errors = set(PropertyValue.objects.filter(run=run).values_list("status", "error"))
    [(status, error)] = errors
    assert status == "error" and "'openai_moderation'" in error and "OPENAI_API_KEY" in error


@pytest.mark.django_db
def test_in_the_pipeline_values_per_field_and_usage(provider, base_url):
    provider.script({})
    project = ProjectFactory(enabled_properties=["openai_moderation"])
    project.property_config = {"openai_moderation": {"base_url": base_url, "api_key_name": "moderation"}}
    project.save()
    store_project_key(project, "moderation", KEY)
    run = RunFactory(project=project)
    InteractionFactory(run=run, input="you idiot", output="Sorry to hear that.")
    for chunk in scoring.plan_job(run).chunks.all():
        scoring.score_chunk(chunk.pk)
    labels = dict(PropertyValue.objects.filter(run=run).values_list("field", "label"))
    assert labels == {"input": "flagged", "output": "ok"}
    assert KEY not in json.dumps(list(PropertyValue.objects.values("details", "error")))
    usage = run.llm_usage.get()
    assert (usage.property_name, usage.calls, usage.tokens, usage.cost_usd) == ("openai_moderation", 2, 0, 0.0)
