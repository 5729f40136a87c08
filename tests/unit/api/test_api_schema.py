"""Schemathesis: generated requests against the served OpenAPI schema, in-process over WSGI.

Bounded (a few examples per operation) so that it runs in seconds; it checks that no request
gives a server error and that every response matches the schema (status codes, bodies).
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core.cache import cache
from django.core.management.color import no_style
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, connection
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from properties.api import api
from properties.models import ApiToken, Interaction, Project, PropertyValue, Run, ScoringJob
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory


@pytest.fixture
def _keep_test_connection(db):
    # As Django's test client does: a request must not close the test's connection, which holds
    # the test's transaction.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def auth_headers(db, settings) -> dict[str, str]:
    settings.EVALSITE_API_RATE_LIMIT = 100_000
    settings.EVALSITE_API_MAX_BATCH = 20
    cache.clear()
    user = UserFactory(username="schemathesis")
    run = RunFactory(pk=1, project=ProjectFactory(pk=1, owner=user))
    interaction: Interaction = InteractionFactory(run=run)
    PropertyValue.objects.create(
        interaction=interaction, run=run, property_name="word_count", field="output", value=3, scorer_version="1"
    )
    ScoringJob.objects.create(pk=1, run=run)
    # Rows made with explicit ids leave PostgreSQL's sequences behind: the next project the API
    # creates would take id 1 again. Move them past the rows (SQLite needs nothing).
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), [Project, Run, ScoringJob]):
            cursor.execute(statement)
    _, secret = ApiToken.issue(user, "schemathesis")
    return {"Authorization": f"Bearer {secret}"}


# Loaded at collection (pytest-django has configured Django by then); the schema needs no database.
# Built in process: /api/openapi.json needs a logged-in session, and these calls use a token.
schema = schemathesis.openapi.from_dict(api.get_openapi_schema())
schema.app = get_wsgi_application()


@schema.parametrize()
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_schema(case, _keep_test_connection, auth_headers):
    # Not positive_data_acceptance: property names come from the plugin registry at run time and
    # rows are validated one by one (with per-row errors), which a static schema cannot express.
    case.call_and_validate(headers=auth_headers, excluded_checks=[positive_data_acceptance])
