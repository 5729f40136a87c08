"""The per-run budget of LLM-judged properties, kept in the database, and the usage shown per run."""

from __future__ import annotations

import json

import pytest
from django.template.defaultfilters import floatformat
from django.urls import reverse

from properties.models import PromptProperty, PropertyValue, RunLLMUsage
from properties.pipeline import scoring
from properties.web.forms import store_project_key
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory

# The local OpenAI-protocol server's fixtures: server, provider, base_url.
pytest_plugins = ["tests.unit.llm_server"]

KEY = "sk-test-BUDGETKEY0123456789abcd"
VERDICT = json.dumps({"reasoning": "fine", "score": 0.5})


@pytest.fixture
def user():
    return UserFactory()


def make_run(user, base_url: str, interactions: int = 5, **limits):
    project = ProjectFactory(owner=user)
    prompt = PromptProperty.objects.create(
        project=project,
        name="Polite",
        property_name="prompt_polite",
        template="Is it polite? {output}",
        # A model litellm has a price for, so that the cost is summed too.
        model_id="openai/gpt-4o",
        base_url=base_url,
        project_key=store_project_key(project, "judge", KEY),
        **limits,
    )
    project.enabled_properties = [prompt.property_name]
    project.save()
    run = RunFactory(project=project)
    InteractionFactory.create_batch(interactions, run=run)
    return run


def score_run(run) -> None:
    for chunk in scoring.plan_job(run).chunks.all():
        scoring.score_chunk(chunk.pk)


# Pool threads reserve calls on their own connections: they must see committed rows.
@pytest.mark.django_db(transaction=True)
def test_the_run_budget_stops_a_run_across_chunks(user, provider, base_url, settings):
    settings.EVALSITE_CHUNK_SIZE = 2
    provider.script(VERDICT)
    run = make_run(user, base_url, max_calls=3)
    score_run(run)
    values = list(PropertyValue.objects.filter(run=run).order_by("interaction_id"))
    assert [v.status for v in values].count("ok") == 3
    errors = [v.error for v in values if v.status == "error"]
    assert errors == ["budget exhausted: this run used 3 of max_calls=3 calls"] * 2
    assert len(provider.requests) == 3
    usage = RunLLMUsage.objects.get(run=run)
    assert (usage.calls, usage.tokens, usage.unpriced_calls) == (3, 360, 0) and usage.cost_usd > 0
    job = run.jobs.get()
    assert (job.done, job.failed) == (3, 2)


@pytest.mark.django_db(transaction=True)
def test_a_token_budget_is_shared_by_the_run(user, provider, base_url, settings):
    settings.EVALSITE_CHUNK_SIZE = 1
    provider.script(VERDICT)
    run = make_run(user, base_url, interactions=4, max_tokens=250)
    score_run(run)
    statuses = list(PropertyValue.objects.filter(run=run).order_by("interaction_id").values_list("status", flat=True))
    # 120 tokens a call: the third call starts at 240 < 250 and may go past it; the fourth may not.
    assert statuses == ["ok", "ok", "ok", "error"]
    assert RunLLMUsage.objects.get(run=run).tokens == 360


@pytest.mark.django_db
def test_without_limits_usage_is_summed_per_run_and_shown_on_the_run_page(client, user, provider, base_url, settings):
    settings.EVALSITE_CHUNK_SIZE = 2
    provider.script(VERDICT)
    run = make_run(user, base_url, interactions=5)
    score_run(run)
    totals = RunLLMUsage.totals(run)
    assert (totals["calls"], totals["tokens"]) == (5, 600)
    per_value = PropertyValue.objects.filter(run=run).values_list("details", flat=True)
    assert totals["cost_usd"] == pytest.approx(sum(details["cost_usd"] for details in per_value))
    client.force_login(user)
    page = client.get(reverse("properties:run-detail", args=[run.pk])).content.decode()
    assert '<span data-testid="llm-calls">5</span>' in page
    assert '<span data-testid="llm-tokens">600</span>' in page
    assert f'<span data-testid="llm-cost">${floatformat(totals["cost_usd"], 4)}</span>' in page
    assert KEY not in page


@pytest.mark.django_db(transaction=True)
def test_rescoring_after_the_budget_is_raised_computes_what_was_refused(user, provider, base_url, settings):
    provider.script(VERDICT)
    run = make_run(user, base_url, interactions=3, max_calls=0)
    score_run(run)
    errors = set(PropertyValue.objects.filter(run=run).values_list("status", "error"))
    assert errors == {("error", "budget exhausted: this run used 0 of max_calls=0 calls")}
    assert provider.requests == []
    PromptProperty.objects.filter(project=run.project).update(max_calls=None)
    score_run(run)
    assert set(PropertyValue.objects.filter(run=run).values_list("status", flat=True)) == {"ok"}


@pytest.mark.django_db
def test_a_call_is_reserved_only_while_the_budget_allows():
    run = RunFactory()
    usage = RunLLMUsage.objects.create(run=run, property_name="llm_hallucination_free", calls=2)
    assert usage.try_reserve_call(max_calls=3, max_tokens=None)
    assert not usage.try_reserve_call(max_calls=3, max_tokens=None)
    usage.add(tokens=500)
    assert not usage.try_reserve_call(max_calls=None, max_tokens=500)
    assert usage.try_reserve_call(max_calls=None, max_tokens=None)
    usage.refresh_from_db()
    assert (usage.calls, usage.tokens) == (4, 500)


@pytest.mark.django_db(transaction=True)
def test_a_configured_judge_spends_the_run_budget(user, provider, base_url, settings):
    """The registered judges' `budget` option is a run's budget too, not a chunk's."""
    settings.EVALSITE_CHUNK_SIZE = 1
    provider.script(json.dumps({"reasoning": "ok", "has_hallucination": False}))
    project = ProjectFactory(owner=user, enabled_properties=["llm_hallucination_free"])
    project.property_config = {
        "llm_hallucination_free": {"model_id": "openai/judge-model", "base_url": base_url, "budget": {"max_calls": 2}}
    }
    project.save()
    run = RunFactory(project=project)
    InteractionFactory.create_batch(3, run=run)
    score_run(run)
    statuses = sorted(PropertyValue.objects.filter(run=run).values_list("status", flat=True))
    assert statuses == ["error", "ok", "ok"]
    usage = RunLLMUsage.objects.get(run=run, property_name="llm_hallucination_free")
    assert (usage.calls, usage.unpriced_calls) == (2, 2)
