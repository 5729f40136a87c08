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


def _single_column_indexes(columns: tuple[str, ...]) -> dict[str, list[str]]:
    from django.db import connection

    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, "properties_propertyvalue")
    return {
        name: found["columns"]
        for name, found in constraints.items()
        if found["index"] and not found["unique"] and not found["primary_key"] and tuple(found["columns"]) in columns
    }


@pytest.mark.django_db(transaction=True)
def test_property_values_keep_no_index_of_their_own_for_their_keys_and_the_migration_goes_back() -> None:
    import importlib

    from django.apps import apps
    from django.db import connection

    keys = (("interaction_id",), ("run_id",))
    assert _single_column_indexes(keys) == {}
    # What serves the lookups instead: the unique key begins with the interaction, the run's indexes with the run.
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, "properties_propertyvalue")
    assert constraints["unique_value_per_interaction_field"]["columns"][0] == "interaction_id"
    assert constraints["value_run_status"]["columns"][0] == "run_id"

    migration = importlib.import_module("properties.migrations.0018_lean_value_indexes")
    with connection.schema_editor() as editor:
        migration.create_key_indexes(apps, editor)
    assert sorted(_single_column_indexes(keys).values()) == [["interaction_id"], ["run_id"]]
    with connection.schema_editor() as editor:
        migration.drop_key_indexes(apps, editor)
    assert _single_column_indexes(keys) == {}


def _interaction_indexes() -> dict[str, list[str]]:
    from django.db import connection

    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, "properties_interaction")
    return {
        name: found["columns"]
        for name, found in constraints.items()
        if found["index"] and not found["unique"] and not found["primary_key"]
    }


@pytest.mark.django_db(transaction=True)
def test_interactions_are_indexed_by_run_and_id_instead_of_run_alone_and_the_migration_goes_back() -> None:
    import importlib

    from django.apps import apps
    from django.db import connection

    assert _interaction_indexes()["interaction_run_order"] == ["run_id", "id"]
    assert ["run_id"] not in _interaction_indexes().values()

    migration = importlib.import_module("properties.migrations.0019_interaction_run_order")
    with connection.schema_editor() as editor:
        migration.create_run_index(apps, editor)
    assert ["run_id"] in _interaction_indexes().values()
    with connection.schema_editor() as editor:
        migration.drop_run_index(apps, editor)
    assert ["run_id"] not in _interaction_indexes().values()
