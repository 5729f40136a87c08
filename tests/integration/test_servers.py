"""The throwaway servers of tests/servers.py start, answer and stop."""

import socket

import pytest
import redis

from tests import servers


def test_free_port_is_bindable():
    port = servers.free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


def test_binary_missing_names_the_binary():
    assert servers.binary_missing("python3") is None
    assert "no-such-binary-here" in servers.binary_missing("no-such-binary-here")


def test_skip_or_fail_skips_outside_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="redis-server not found"):
        servers.skip_or_fail("redis-server not found")


def test_skip_or_fail_fails_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="redis-server not found"):
        servers.skip_or_fail("redis-server not found")


@pytest.mark.integration
def test_redis_server_answers_then_stops():
    servers.require_binaries("redis-server")
    with servers.redis_server() as url:
        assert url.startswith("redis://127.0.0.1:")
        assert redis.Redis.from_url(url).ping()
    assert not servers.redis_answers(url)


@pytest.mark.integration
def test_postgres_server_answers_then_stops():
    servers.require_binaries("initdb", "pg_ctl")
    with servers.postgres_server() as url:
        assert url.startswith("postgres://postgres@127.0.0.1:")
        assert servers.postgres_answers(url)
    assert not servers.postgres_answers(url)


@pytest.mark.integration
def test_celery_worker_becomes_ready_and_stops_cleanly(tmp_path):
    servers.require_binaries("redis-server")
    with servers.redis_server() as url:
        env = {"CELERY_BROKER_URL": url, "SECRET_KEY": "x", "EVALSITE_DATA_DIR": str(tmp_path)}
        with servers.celery_worker(env, concurrency=1) as worker:
            assert worker.process.poll() is None
            assert "ready." in worker.log()
    assert worker.process.returncode == 0, worker.log()[-4000:]
    assert "Traceback" not in worker.log()
