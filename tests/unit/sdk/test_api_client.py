"""evalsite.client.Client against a live server."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from evalsite.client import Client, EvalsiteAPIError
from properties.models import ApiToken
from tests.factories import RunFactory, UserFactory


@pytest.fixture
def eager_celery():
    """Scoring tasks run inline on commit: nothing is published to a broker a later test uses."""
    from evalsite.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture
def client_for(live_server, eager_celery):
    cache.clear()
    user = UserFactory()
    _, secret = ApiToken.issue(user, "client")
    with Client(live_server.url, secret, batch_size=2) as client:
        yield client


def test_log_interactions_score_and_summarise(client_for):
    client = client_for
    project = client.create_project("Client project", properties=["word_count"])
    run = client.create_run(project["id"], "v1", environment="production")
    assert client.log_interaction(run["id"], input="hi", output="hello you")["accepted"] == 1
    rows = [{"input": "a", "output": "one two three"}, {"input": "b"}, {"output": "x", "annotation": "bad"}]
    result = client.log_batch_interactions(run["id"], rows)
    assert (result["accepted"], result["rejected"]) == (2, 1)
    assert result["errors"] == [{"row": 2, "field": "output", "reason": "required, but missing or empty"}]
    job = client.score(run["id"])
    assert (job["status"], job["properties"]) == ("planning", ["word_count"])
    finished = client.wait_for_job(job["id"], timeout=30, poll=0.1)
    assert (finished["status"], finished["done"], finished["total"]) == ("done", 3, 3)
    summary = client.summary(run["id"])
    assert summary["interactions"] == 3 and summary["annotations"]["bad"] == 1
    assert summary["properties"]["word_count.output"]["mean"] == 2.0  # 2, 3 and 1 words
    page = client.interactions(run["id"], filters=["word_count.output<2"])
    assert [item["output"] for item in page["items"]] == ["x"]


def test_errors_raise_with_the_status_and_detail(client_for, live_server):
    with pytest.raises(EvalsiteAPIError) as raised:
        client_for.summary(RunFactory().pk)
    assert raised.value.status_code == 404
    with Client(live_server.url, "evs_bad") as bad, pytest.raises(EvalsiteAPIError) as unauthorized:
        bad.projects()
    assert unauthorized.value.status_code == 401


def test_create_project_takes_a_template_as_the_api_does(client_for):
    project = client_for.create_project("RAG bot", template="rag")
    assert project["template"] == "rag"
    assert project["key_properties"][0] == "grounded_in_context"
    assert "fluency" not in project["enabled_properties"]
    with pytest.raises(EvalsiteAPIError) as raised:
        client_for.create_project("Unknown", template="nope")
    assert raised.value.status_code == 422
