"""Inserting a batch of new interactions at the speed each database takes them.

bulk_create builds one INSERT per ~55 rows on SQLite (999 parameters a statement) and converts
every field of every row in Python; at 100,000 rows that was most of an upload's time. Here
PostgreSQL receives the rows through COPY (psycopg 3's `cursor.copy`), SQLite through one
prepared INSERT run by `executemany`, and any other database through bulk_create. The caller
holds the transaction; a row the database refuses (a duplicate id stored by a concurrent upload)
fails the whole batch, as it does for bulk_create, and the caller then stores the rows one by one.

A row is an InteractionRow: the interaction's columns as the upload's row builder made them, text
as `str`, JSON as its text (serialised once, by the builder), times as aware datetimes. Building a
model instance per row cost more than the insert itself (Model.__init__ and the fields' conversions,
bench/ingest.py); an instance is made only where one is wanted (the CLI scores them).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any, NamedTuple

from django.db import connection
from django.utils import timezone
from psycopg import sql

from properties.models import Interaction

# One encoder for every row: json.dumps with options builds a new one per call. Characters are
# kept as they are, not escaped as \uXXXX: the upload's checks read this text (properties.uploads.ingest),
# and both databases read it the same. NaN and infinities, which JSON lacks, raise ValueError.
_JSON_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)


def dump_json(value: Any) -> str:
    """JSON text as the columns store it."""
    return _JSON_ENCODER.encode(value)


class InteractionRow(NamedTuple):
    """One new interaction, column by column; `created_at` None is the time of the insert."""

    run_id: int | None
    user_interaction_id: str
    input: str
    information_retrieval: str  # JSON text of a list of documents
    full_prompt: str
    history: str
    output: str
    expected_output: str
    annotation: str
    annotation_reason: str
    annotation_source: str
    estimated_annotation: str
    metadata: str  # JSON text of an object
    input_hash: str
    started_at: datetime | None
    finished_at: datetime | None
    created_at: datetime | None = None

    @classmethod
    def from_interaction(cls, interaction: Interaction) -> InteractionRow:
        values = {name: getattr(interaction, name) for name in cls._fields}
        for name in _JSON_COLUMNS:
            values[name] = dump_json(values[name])
        return cls(**values)

    def to_interaction(self) -> Interaction:
        """An unsaved model instance, for code that scores rows without storing them (the CLI)."""
        values = self._asdict()
        for name in _JSON_COLUMNS:
            values[name] = json.loads(values[name])
        if values["created_at"] is None:
            values["created_at"] = timezone.now()
        return Interaction(**values)


_JSON_COLUMNS = ("information_retrieval", "metadata")
_DATETIME_COLUMNS = tuple(InteractionRow._fields.index(name) for name in ("started_at", "finished_at"))
_CREATED_AT = InteractionRow._fields.index("created_at")


@functools.cache
def _column_names() -> tuple[str, ...]:
    """The table's columns in the row's order; a column the row lacks is a mistake caught here."""
    columns = {field.attname: field.column for field in Interaction._meta.concrete_fields if not field.primary_key}
    if set(columns) != set(InteractionRow._fields):
        raise RuntimeError(f"InteractionRow does not match the Interaction model: {sorted(columns)}")
    return tuple(columns[name] for name in InteractionRow._fields)


def insert_rows(rows: list[InteractionRow]) -> None:
    """Insert new interactions in the caller's transaction."""
    if not rows:
        return
    if connection.vendor == "postgresql":
        _copy(rows)
    elif connection.vendor == "sqlite":
        _execute_many(rows)
    else:
        Interaction.objects.bulk_create([row.to_interaction() for row in rows])


def insert_interactions(interactions: list[Interaction]) -> None:
    """Insert unsaved model instances (the benches build theirs); their pk stays unset."""
    insert_rows([InteractionRow.from_interaction(interaction) for interaction in interactions])


def _database_values(rows: list[InteractionRow], adapt_datetime: Callable[[datetime], Any]) -> list[tuple]:
    """The rows as the driver takes them: datetimes through the database's adapter (the one
    Django's DateTimeField calls), a missing created_at filled with one time for the batch."""
    now = adapt_datetime(timezone.now())
    values = []
    for row in rows:
        converted = list(row)
        for index in _DATETIME_COLUMNS:
            if converted[index] is not None:
                converted[index] = adapt_datetime(converted[index])
        created = converted[_CREATED_AT]
        converted[_CREATED_AT] = now if created is None else adapt_datetime(created)
        values.append(tuple(converted))
    return values


def _copy(rows: list[InteractionRow]) -> None:
    statement = sql.SQL("COPY {table} ({columns}) FROM STDIN").format(
        table=sql.Identifier(Interaction._meta.db_table),
        columns=sql.SQL(", ").join(sql.Identifier(column) for column in _column_names()),
    )
    # psycopg writes datetimes itself (Django's adapter returns them as they are) and the JSON
    # text as text, which the jsonb column parses.
    values = _database_values(rows, connection.ops.adapt_datetimefield_value)
    # The raw psycopg cursor: its errors are turned into Django's (IntegrityError, DataError) here,
    # as the ORM's own queries are, so that the caller's fallback catches them.
    with connection.cursor() as cursor, connection.wrap_database_errors, cursor.cursor.copy(statement) as copy:
        for row in values:
            copy.write_row(row)


def _execute_many(rows: list[InteractionRow]) -> None:
    quote = connection.ops.quote_name
    columns = _column_names()
    statement = (
        f"INSERT INTO {quote(Interaction._meta.db_table)} ({', '.join(map(quote, columns))}) "
        f"VALUES ({', '.join(['%s'] * len(columns))})"
    )
    with connection.cursor() as cursor:
        cursor.executemany(statement, _database_values(rows, connection.ops.adapt_datetimefield_value))


def stored_ids(run_id: int, user_interaction_ids: list[str]) -> list[tuple[str, int]]:
    """(user_interaction_id, pk) of the interactions of the run that have one of these ids.

    One query on the unique (run, user_interaction_id) index, in SQL: the ORM prepared each id of the
    IN list on its own, 7 microseconds an id on SQLite (900 ids), and on PostgreSQL psycopg then
    quoted each into the query text, 9 an id; here 0.5 and 2, PostgreSQL taking the ids as one
    array. The caller keeps the list under SQLite's 999 parameters.
    """
    if not user_interaction_ids:
        return []
    quote = connection.ops.quote_name
    if connection.vendor == "postgresql":
        matching, parameters = "= ANY(%s)", [run_id, list(user_interaction_ids)]
    else:
        matching = f"IN ({', '.join(['%s'] * len(user_interaction_ids))})"
        parameters = [run_id, *user_interaction_ids]
    # No ORDER BY: sorting on pk would make SQLite walk the run_id index over every row of the run
    # instead of probing the unique (run, id) index.
    statement = (
        f"SELECT {quote('user_interaction_id')}, {quote('id')} FROM {quote(Interaction._meta.db_table)} "
        f"WHERE {quote('run_id')} = %s AND {quote('user_interaction_id')} {matching}"
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, parameters)
        return cursor.fetchall()
