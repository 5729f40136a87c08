"""Shared fixtures. Real servers (Redis, PostgreSQL, Celery workers) come from tests/servers.py.

EVALSITE_TEST_DATABASE=postgres runs the suite against a PostgreSQL server started here;
otherwise the test database is an SQLite file, so that worker processes can share it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from properties.scorers.registry import QUEUES
from tests import servers


@pytest.fixture(scope="session")
def django_db_modify_db_settings(tmp_path_factory) -> None:
    from django.conf import settings

    default = settings.DATABASES["default"]
    if default["ENGINE"].endswith("sqlite3"):
        # A file, not memory: worker processes and the live server share the test database.
        default.setdefault("TEST", {})["NAME"] = str(tmp_path_factory.mktemp("db") / "test.sqlite3")


def database_url_for_workers() -> str:
    """The URL of the test database as this process sees it, for worker processes."""
    from django.db import connection

    config = connection.settings_dict
    if config["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{Path(config['NAME']).resolve()}"
    return f"postgres://{config['USER']}:{config['PASSWORD'] or ''}@{config['HOST']}:{config['PORT']}/{config['NAME']}"


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    reason = servers.binary_missing("redis-server")
    if reason:
        servers.skip_or_fail(reason)
    with servers.redis_server() as url:
        yield url


@pytest.fixture
def broker_url(redis_url) -> Iterator[str]:
    """Point this process's Celery app at the test Redis for the length of a test."""
    with celery_broker(redis_url):
        yield redis_url


class QueueReader:
    """Reads back what waits on a queue of the broker this process's Celery app points at."""

    def __init__(self, app) -> None:
        self.app = app

    def take(self, queue: str) -> list[tuple[str, tuple]]:
        """(task name, args) of the messages waiting on `queue`, removed from it, oldest first."""
        taken = []
        with self.app.connection_for_read() as connection:
            simple = connection.SimpleQueue(queue, no_ack=True)
            try:
                while True:
                    try:
                        message = simple.get(block=False)
                    except simple.Empty:
                        return taken
                    taken.append((message.headers["task"], tuple(message.payload[0])))
            finally:
                simple.close()


@contextmanager
def celery_broker(url: str) -> Iterator[None]:
    """Point this process's Celery app at another broker for a block."""
    from evalsite.celery import app

    previous = app.conf.broker_url
    app.conf.broker_url = url
    app.close()
    # app.close() keeps the cached producer pool, still bound to the broker of whichever earlier
    # test published (or applied a task eagerly, which acquires a producer too).
    app.amqp._producer_pool = None
    try:
        yield
    finally:
        app.conf.broker_url = previous
        app.close()
        app.amqp._producer_pool = None


@pytest.fixture
def memory_broker() -> Iterator[QueueReader]:
    """kombu's in-memory transport: what this process publishes stays there for the test to read."""
    from evalsite.celery import app

    with celery_broker("memory://"):
        broker = QueueReader(app)
        for queue in QUEUES:  # nothing left over from an earlier test
            broker.take(queue)
        yield broker


@pytest.fixture
def worker_env(transactional_db, broker_url, tmp_path) -> dict[str, str]:
    return {
        "DATABASE_URL": database_url_for_workers(),
        "CELERY_BROKER_URL": broker_url,
        "EVALSITE_DATA_DIR": str(tmp_path / "worker-data"),
        "SECRET_KEY": "test-only-secret-key",
        "EVALSITE_SECRETS_KEY": os.environ["EVALSITE_SECRETS_KEY"],
    }


@pytest.fixture
def live_worker(worker_env) -> Iterator[servers.WorkerHandle]:
    with servers.celery_worker(worker_env) as worker:
        yield worker
