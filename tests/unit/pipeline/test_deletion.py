"""Deleting a run's rows: in batches of interactions, each an index range, their values with them."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from properties.models import Interaction, PropertyValue
from properties.pipeline import deletion
from tests.factories import InteractionFactory, RunFactory
from tests.unit.screen.test_datascreen import add_value

pytestmark = pytest.mark.django_db


def test_a_runs_interactions_and_values_go_in_batches_and_no_other_runs(monkeypatch):
    run, other = RunFactory(), RunFactory()
    for number in range(5):
        for owner in (run, other) if number < 2 else (run,):
            interaction = InteractionFactory(run=owner)
            add_value(interaction, "toxicity", value=0.1)
            add_value(interaction, "toxicity", field="input", value=0.2)
    monkeypatch.setattr(deletion, "DELETE_BATCH", 2)
    with CaptureQueriesContext(connection) as queries:
        assert deletion.delete_interactions(run) == 5
    assert not Interaction.objects.filter(run=run).exists() and not PropertyValue.objects.filter(run=run).exists()
    assert Interaction.objects.filter(run=other).count() == 2 and PropertyValue.objects.filter(run=other).count() == 4
    value_table = PropertyValue._meta.db_table
    touched = [q["sql"] for q in queries.captured_queries if f'FROM "{value_table}"' in q["sql"]]
    # The values are found by their interactions, never as "any values of the run" (a scan where
    # the run is a large share of the table).
    assert touched and all('"interaction_id" IN' in sql and '"run_id"' not in sql for sql in touched)
    batches = [q for q in queries.captured_queries if '"properties_interaction"."id" >' in q["sql"]]
    assert len(batches) == 4, "three batches of at most two, then one that finds none"
