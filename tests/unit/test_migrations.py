"""The models and the migrations agree: a change to a model ships with its migration."""

import io

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_is_missing_a_migration() -> None:
    out = io.StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exit_:  # --check exits 1 when a migration would be written
        pytest.fail(f"models changed without a migration (exit {exit_.code}):\n{out.getvalue()}")
