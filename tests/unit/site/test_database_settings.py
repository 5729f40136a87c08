"""The database connection's options that settings derive from DATABASE_URL (evalsite/settings.py)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def database_options(database_url: str) -> dict:
    """OPTIONS of the default database as settings build them for this URL, in a fresh interpreter
    (settings are read once per process)."""
    env = {**os.environ, "DATABASE_URL": database_url, "SECRET_KEY": "test-only", "DJANGO_SETTINGS_MODULE": ""}
    code = (
        "import json; from evalsite import settings; "
        "print(json.dumps(settings.DATABASES['default'].get('OPTIONS', {})))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_postgresql_connections_run_without_jit():
    assert database_options("postgres://user:secret@db.example:5432/evalsite")["options"] == "-c jit=off"


def test_an_operators_own_connection_options_are_kept():
    url = "postgres://user:secret@db.example:5432/evalsite?options=-c%20statement_timeout%3D5000"
    assert database_options(url)["options"] == "-c statement_timeout=5000 -c jit=off"


def test_an_operators_own_jit_choice_wins():
    assert database_options("postgres://user:secret@db.example:5432/evalsite?options=-c%20jit%3Don")["options"] == (
        "-c jit=on"
    )


def test_sqlite_is_untouched():
    assert "options" not in database_options("sqlite:////tmp/evalsite-settings-test.sqlite3")


def test_the_test_database_runs_without_jit(db):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("jit is PostgreSQL's")
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == "off"
