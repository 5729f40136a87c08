"""`/healthz`: no login, the database, the broker and each queue's workers, 200 or 503 with reasons,
and nothing secret in the answer."""

from __future__ import annotations

import pytest
from django.conf import settings

from properties.models import ScoringChunk, ScoringJob
from tests.conftest import celery_broker
from tests.factories import RunFactory
from tests.unit.pipeline.test_workers import beat

pytestmark = pytest.mark.django_db


def waiting_chunk(queue: str) -> ScoringChunk:
    job = ScoringJob.objects.create(run=RunFactory(), properties=["toxicity"], status=ScoringJob.Status.PENDING)
    return job.chunks.create(kind=ScoringChunk.Kind.SCORE, queue=queue, properties=["toxicity"], interaction_ids=[1])


def test_healthy_without_a_login_each_queue_counted_by_heartbeat(client, memory_broker):
    beat("celery@a/1-x", ["cpu", "llm"], seen_ago=2)
    beat("celery@b/2-y", ["models"], seen_ago=200)  # silent for long: gone
    response = client.get("/healthz")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ok" and body["reasons"] == []
    assert body["checks"]["database"]["ok"] and body["checks"]["broker"]["ok"]
    queues = body["checks"]["queues"]
    assert queues["cpu"]["workers"] == 1 and queues["llm"]["workers"] == 1
    # No live worker takes `models`, but nothing waits there: reported, not a failure.
    assert queues["models"] == {"workers": 0, "processes": 0, "waiting_chunks": 0, "last_heartbeat_s": None}
    assert response["Cache-Control"].startswith("max-age=0")


def test_work_waiting_on_a_queue_no_live_worker_takes_is_unavailable(client, memory_broker):
    beat("celery@a/1-x", ["cpu"], seen_ago=2)
    beat("celery@b/2-y", ["models"], seen_ago=200)
    waiting_chunk("models")
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["queues"]["models"]["waiting_chunks"] == 1
    assert len(body["reasons"]) == 1 and body["reasons"][0].startswith("No worker is taking `models` work: last seen")
    # A live worker on that queue makes it healthy again.
    beat("celery@c/3-z", ["models"], seen_ago=1)
    assert client.get("/healthz").status_code == 200


def test_a_broker_that_cannot_be_reached_is_unavailable_and_its_url_is_not_shown(client):
    url = "redis://:hunter2-broker-password@127.0.0.1:1/0"
    with celery_broker(url):
        response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["checks"]["broker"] == {"ok": False, "error": "OperationalError"}
    assert body["reasons"] == ["broker: cannot be reached (OperationalError)"]
    text = response.content.decode()
    for secret in ("hunter2", "127.0.0.1:1", settings.SECRET_KEY, str(settings.DATABASES["default"]["NAME"])):
        assert secret not in text


def test_only_get(client, memory_broker):
    assert client.post("/healthz").status_code == 405
