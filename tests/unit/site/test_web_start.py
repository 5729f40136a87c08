"""What the web server's application loads as it starts, and what it leaves out."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

# In a process of its own: this test session has imported everything already.
PROBE = """
import json, sys
import {module}
print(json.dumps(["properties.tasks" in sys.modules, "evalsite.celery" in sys.modules]))
"""


def loaded_after_importing(module: str, tmp_path: Path) -> list[bool]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "evalsite.settings", "EVALSITE_DATA_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_web_server_loads_the_tasks_as_it_starts_not_at_the_first_upload(tmp_path):
    """The first job after a start does not wait for Celery's import (about half a second) before its
    planning task is sent."""
    assert loaded_after_importing("evalsite.asgi", tmp_path) == [True, True]


def test_the_python_api_still_goes_without_celery(tmp_path):
    assert loaded_after_importing("evalsite", tmp_path) == [False, False]
