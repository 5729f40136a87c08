"""Is this deployment able to take and finish work? The checks behind `/healthz`.

For operators and orchestrators: the database answers, the broker accepts a connection, and each
queue's workers are alive by their heartbeats. The server is unhealthy when the database or the
broker cannot be reached, or when work waits on a queue that no live worker takes (a job would
stall there). A queue with no worker and no work is reported, not counted against the server:
a deployment that scores no LLM-judged property needs no `llm` worker.

Nothing secret is shown: no URL, host or credential; an error is named by its class only, its
message goes to the log.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import Count
from django.utils import timezone

from properties.models import ScoringChunk
from properties.pipeline import workers
from properties.scorers.registry import QUEUES

logger = logging.getLogger(__name__)

# A health check answers quickly or says the broker is down: no retries.
BROKER_TIMEOUT_S = 3.0


@dataclass
class Health:
    checks: dict[str, Any] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.reasons

    def as_dict(self) -> dict[str, Any]:
        return {"status": "ok" if self.ok else "unavailable", "checks": self.checks, "reasons": self.reasons}


def check() -> Health:
    health = Health()
    health.checks["database"] = _timed(health, "database", _check_database)
    health.checks["broker"] = _timed(health, "broker", _check_broker)
    if health.checks["database"]["ok"]:
        health.checks["queues"] = _queues(health)
    return health


def _timed(health: Health, name: str, probe) -> dict[str, Any]:
    started = time.monotonic()
    try:
        probe()
    except Exception as exc:  # any failure of the probe is the answer, named by its class
        logger.warning("health check: %s failed: %s", name, exc)
        health.reasons.append(f"{name}: cannot be reached ({type(exc).__name__})")
        return {"ok": False, "error": type(exc).__name__}
    return {"ok": True, "seconds": round(time.monotonic() - started, 3)}


def _check_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def _check_broker() -> None:
    from evalsite.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=0, timeout=BROKER_TIMEOUT_S)
        # Opening a channel talks to the broker (Redis answers a PING; the SQL transport opens its
        # tables), which a lazy connection alone would not.
        conn.default_channel  # noqa: B018


def _queues(health: Health) -> dict[str, Any]:
    now = timezone.now()
    alive = workers.alive_workers(now)
    waiting = dict.fromkeys(QUEUES, 0)
    for row in ScoringChunk.objects.open().values("queue").annotate(chunks=Count("pk")).order_by():
        waiting[row["queue"]] = row["chunks"]
    queues = {}
    for queue, chunks in waiting.items():
        serving = [worker for worker in alive if queue in worker.queues]
        last_seen = max((worker.last_seen for worker in serving), default=None)
        queues[queue] = {
            "workers": len(serving),
            "processes": sum(worker.concurrency for worker in serving),
            "waiting_chunks": chunks,
            "last_heartbeat_s": None if last_seen is None else round((now - last_seen).total_seconds(), 1),
        }
        if chunks and not serving:
            health.reasons.extend(str(problem) for problem in workers.queue_problems([queue]))
    return queues
