"""Inserting a batch of new interactions at the speed each database takes them.

bulk_create builds one INSERT per ~55 rows on SQLite (999 parameters a statement) and converts
every field of every row in Python; at 100,000 rows that was most of an upload's time. Here
PostgreSQL receives the rows through COPY (psycopg 3's `cursor.copy`), SQLite through one
prepared INSERT run by `executemany`, and any other database through bulk_create. The caller
holds the transaction; a row the database refuses (a duplicate id stored by a concurrent upload)
fails the whole batch, as it does for bulk_create, and the caller then stores the rows one by one.

Text and key columns are passed as they are (the row builder made them `str` and `int`); JSON and
date columns go through the database's adapters that Django's fields use, so that they are stored
exactly as the ORM stores them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from functools import partial
from typing import Any

from django.db import connection
from django.db.models import Field
from psycopg import sql

from properties.models import Interaction


@functools.cache
def _fields() -> tuple[Field, ...]:
    return tuple(field for field in Interaction._meta.concrete_fields if not field.primary_key)


# Columns whose values the row builder already made what the database takes (`str`, `int`).
_AS_IS = {"CharField", "TextField", "ForeignKey"}


def _row_maker() -> Callable[[Interaction], list[Any]]:
    """A function from an interaction to its column values for this database.

    Dates and JSON go through the database's adapters (connection.ops), which Django's fields call
    once a value is prepared: the builder's datetimes are always aware and its JSON plain, so the
    fields' own preparation (naive-datetime warnings, custom encoders) has nothing to do; that
    skipped half of the insert's time. Any other column goes through its field's full conversion.
    """
    ops = connection.ops
    adapters: dict[str, Callable[[Any], Any]] = {
        "DateTimeField": ops.adapt_datetimefield_value,
        "JSONField": lambda value: ops.adapt_json_value(value, None),
    }
    converters = []
    for field in _fields():
        kind = field.get_internal_type()
        if kind in _AS_IS:
            converters.append((field.attname, None))
        else:
            converters.append(
                (field.attname, adapters.get(kind) or partial(field.get_db_prep_save, connection=connection))
            )

    def row(interaction: Interaction) -> list[Any]:
        values = interaction.__dict__
        return [
            values[attname] if adapt is None or values[attname] is None else adapt(values[attname])
            for attname, adapt in converters
        ]

    return row


def _column_names() -> list[str]:
    return [field.column for field in _fields()]


def insert_interactions(interactions: list[Interaction]) -> None:
    """Insert unsaved interactions in the caller's transaction; their pk stays unset."""
    if not interactions:
        return
    if connection.vendor == "postgresql":
        _copy(interactions)
    elif connection.vendor == "sqlite":
        _execute_many(interactions)
    else:
        Interaction.objects.bulk_create(interactions)


def _copy(interactions: list[Interaction]) -> None:
    row = _row_maker()
    statement = sql.SQL("COPY {table} ({columns}) FROM STDIN").format(
        table=sql.Identifier(Interaction._meta.db_table),
        columns=sql.SQL(", ").join(sql.Identifier(column) for column in _column_names()),
    )
    # The raw psycopg cursor: its errors are turned into Django's (IntegrityError, DataError) here,
    # as the ORM's own queries are, so that the caller's fallback catches them.
    with connection.cursor() as cursor, connection.wrap_database_errors, cursor.cursor.copy(statement) as copy:
        for interaction in interactions:
            copy.write_row(row(interaction))


def _execute_many(interactions: list[Interaction]) -> None:
    row = _row_maker()
    quote = connection.ops.quote_name
    columns = _column_names()
    statement = (
        f"INSERT INTO {quote(Interaction._meta.db_table)} ({', '.join(map(quote, columns))}) "
        f"VALUES ({', '.join(['%s'] * len(columns))})"
    )
    with connection.cursor() as cursor:
        cursor.executemany(statement, [row(interaction) for interaction in interactions])
