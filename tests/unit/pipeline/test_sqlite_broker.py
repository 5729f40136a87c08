"""The embedded broker: kombu's SQLAlchemy transport over SQLite, polled every EVALSITE_BROKER_POLL_S."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

# In a process of its own: settings read the broker URL once, at start.
PROBE = """
import json, django
django.setup()
from evalsite.celery import app
with app.connection_for_write() as connection:
    transport = connection.transport
    queue = connection.SimpleQueue("probe")
    queue.put({"hello": "worker"})
    received = queue.get(timeout=5).payload
    queue.close()
print(json.dumps([type(transport).__module__, transport.polling_interval, received]))
"""


def probe(tmp_path, interval: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "evalsite.settings",
        "CELERY_BROKER_URL": f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}",
        "EVALSITE_BROKER_POLL_S": interval,
        "EVALSITE_DATA_DIR": str(tmp_path),
    }
    return subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def test_a_sqlite_broker_is_polled_as_the_setting_says_and_carries_messages(tmp_path):
    done = probe(tmp_path, "0.3")
    assert done.returncode == 0, done.stderr
    module, interval, received = json.loads(done.stdout.strip().splitlines()[-1])
    assert module == "properties.pipeline.sqlite_broker" and interval == 0.3
    assert received == {"hello": "worker"}


def test_a_polling_interval_of_zero_is_refused_at_start(tmp_path):
    """0 would poll without pause: a busy core for each idle worker."""
    done = probe(tmp_path, "0")
    assert done.returncode != 0 and "EVALSITE_BROKER_POLL_S must be 0.01 to 60 seconds, not 0.0" in done.stderr


def test_a_redis_deployment_does_not_load_the_sqlite_broker_s_transport(tmp_path):
    """Its transport imports SQLAlchemy (about 18 MB in each process), which Redis does without."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "evalsite.settings",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
        "EVALSITE_DATA_DIR": str(tmp_path),
    }
    code = "import sys, django\ndjango.setup()\nimport evalsite.celery\nprint('sqlalchemy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"
