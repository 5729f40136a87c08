"""Drop the indexes Django gave PropertyValue's two foreign keys.

The unique (interaction, property_name, field) constraint begins with the interaction and the
(run, ...) indexes begin with the run, so every lookup by either key (cascading deletes included)
is served without them, and each was one more index written per value scored.

Only the indexes are dropped: a plain AlterField would rebuild the whole table on SQLite (its
schema editor remakes a table for any change of a column), copying every value of a large database.
"""

import django.db.models.deletion
from django.db import migrations, models

COLUMNS = ("interaction_id", "run_id")


def _single_column_indexes(schema_editor, table: str, column: str) -> list[str]:
    with schema_editor.connection.cursor() as cursor:
        constraints = schema_editor.connection.introspection.get_constraints(cursor, table)
    return [
        name
        for name, found in constraints.items()
        if found["index"] and found["columns"] == [column] and not found["unique"] and not found["primary_key"]
    ]


def drop_key_indexes(apps, schema_editor) -> None:
    table = apps.get_model("properties", "PropertyValue")._meta.db_table
    for column in COLUMNS:
        for name in _single_column_indexes(schema_editor, table, column):
            schema_editor.execute(f"DROP INDEX {schema_editor.quote_name(name)}")


def create_key_indexes(apps, schema_editor) -> None:
    model = apps.get_model("properties", "PropertyValue")
    for column in COLUMNS:
        if not _single_column_indexes(schema_editor, model._meta.db_table, column):
            name = schema_editor._create_index_name(model._meta.db_table, [column])
            schema_editor.execute(
                f"CREATE INDEX {schema_editor.quote_name(name)} "
                f"ON {schema_editor.quote_name(model._meta.db_table)} ({schema_editor.quote_name(column)})"
            )


class Migration(migrations.Migration):
    dependencies = [
        ("properties", "0017_value_label_statistics"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(drop_key_indexes, create_key_indexes)],
            state_operations=[
                migrations.AlterField(
                    model_name="propertyvalue",
                    name="interaction",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="property_values",
                        to="properties.interaction",
                    ),
                ),
                migrations.AlterField(
                    model_name="propertyvalue",
                    name="run",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="property_values",
                        to="properties.run",
                    ),
                ),
            ],
        ),
    ]
