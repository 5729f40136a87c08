"""Index the interactions by (run, id) in place of Django's index on the run alone.

A run's pages walk its interactions in id order; with this index its first and last id are one
probe each (InteractionQuerySet.of_run), and the (run) index it replaces is its prefix. The old index
is dropped by name rather than by altering the column: SQLite's schema editor remakes a table for any
change of a column, copying every interaction of a large database.
"""

import django.db.models.deletion
from django.db import migrations, models

COLUMN = "run_id"


def _run_indexes(schema_editor, table: str) -> list[str]:
    with schema_editor.connection.cursor() as cursor:
        constraints = schema_editor.connection.introspection.get_constraints(cursor, table)
    return [
        name
        for name, found in constraints.items()
        if found["index"] and found["columns"] == [COLUMN] and not found["unique"] and not found["primary_key"]
    ]


def drop_run_index(apps, schema_editor) -> None:
    table = apps.get_model("properties", "Interaction")._meta.db_table
    for name in _run_indexes(schema_editor, table):
        schema_editor.execute(f"DROP INDEX {schema_editor.quote_name(name)}")


def create_run_index(apps, schema_editor) -> None:
    table = apps.get_model("properties", "Interaction")._meta.db_table
    if not _run_indexes(schema_editor, table):
        name = schema_editor._create_index_name(table, [COLUMN])
        schema_editor.execute(
            f"CREATE INDEX {schema_editor.quote_name(name)} "
            f"ON {schema_editor.quote_name(table)} ({schema_editor.quote_name(COLUMN)})"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("properties", "0018_lean_value_indexes"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="interaction",
            index=models.Index(fields=["run", "id"], name="interaction_run_order"),
        ),
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(drop_run_index, create_run_index)],
            state_operations=[
                migrations.AlterField(
                    model_name="interaction",
                    name="run",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="interactions",
                        to="properties.run",
                    ),
                ),
            ],
        ),
    ]
