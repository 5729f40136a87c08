"""Django for in-process use: notebooks, scripts, the command line.

`setup()` configures Django with evalsite.settings when nothing has yet; the web server and the
workers configure it themselves and are left alone. `ensure_database()` creates the embedded
SQLite database's tables on first use, so that `TestSuite(...)` works in a fresh notebook.
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

_ENV_FILE = Path(__file__).resolve().parents[2] / ".env"
_database_checked = False


def setup() -> None:
    """Configure Django (settings and apps, no database access) if it is not configured yet."""
    from django.apps import apps

    if apps.ready:
        return
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    if not os.environ.get("SECRET_KEY") and not _env_file_sets_secret_key():
        # In-process use signs nothing that outlives the process (no sessions, no cookies), so a
        # per-process random key is safe here; the web server still refuses to start without one.
        os.environ["SECRET_KEY"] = secrets.token_urlsafe(50)
    import django

    django.setup()


def _env_file_sets_secret_key() -> bool:
    if not _ENV_FILE.is_file():
        return False
    return re.search(r"^\s*SECRET_KEY\s*=\s*\S", _ENV_FILE.read_text(), re.MULTILINE) is not None


def ensure_database() -> None:
    """Apply pending migrations to the embedded SQLite database; refuse to touch a server database.

    A PostgreSQL database is shared with the web app, whose operator migrates it on deploy.
    """
    global _database_checked
    if _database_checked:
        return
    setup()
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    if executor.migration_plan(executor.loader.graph.leaf_nodes()):
        if connection.vendor != "sqlite":
            raise RuntimeError("the database has unapplied migrations: run `python manage.py migrate` first")
        from django.core.management import call_command

        call_command("migrate", interactive=False, verbosity=0)
    _database_checked = True
