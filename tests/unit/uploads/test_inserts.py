"""properties.uploads.inserts: COPY (PostgreSQL) and executemany (SQLite) store exactly what the ORM stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from django.db import IntegrityError, connection, transaction

from properties.models import Interaction, input_hash
from properties.uploads import inserts
from tests.factories import RunFactory

pytestmark = pytest.mark.django_db

COLUMNS = [
    field.attname for field in Interaction._meta.concrete_fields if not field.primary_key and field.name != "run"
]


CREATED = datetime(2025, 1, 2, 3, 4, 5, 6, tzinfo=UTC)


def interactions(run) -> list[Interaction]:
    tricky = 'tab\there, newline\nthere, backslash \\N, quote " and ümlaut 名前 😀'
    return [
        Interaction(
            run_id=run.pk,
            user_interaction_id="a",
            input=tricky,
            input_hash=input_hash(tricky),
            output="\\.",  # COPY's end-of-data marker in text format, as data
            information_retrieval=["doc one", tricky, ""],
            metadata={"nested": {"list": [1, 2.5, None, True, "x"]}, "empty": {}, "text": tricky},
            annotation="good",
            started_at=datetime(2024, 5, 1, 12, 0, 0, 123456, tzinfo=UTC),
            finished_at=datetime(2024, 5, 1, 14, 0, tzinfo=timezone(timedelta(hours=2))),
            created_at=CREATED,
        ),
        Interaction(run_id=run.pk, user_interaction_id="b", output="plain", created_at=CREATED),
    ]


def stored(run) -> list[tuple]:
    return list(run.interactions.order_by("user_interaction_id").values_list(*COLUMNS))


def test_rows_read_back_exactly_as_the_orm_stores_them():
    fast, orm = RunFactory(), RunFactory()
    with transaction.atomic():
        inserts.insert_interactions(interactions(fast))
    Interaction.objects.bulk_create(interactions(orm))
    assert stored(fast) == stored(orm)
    row = fast.interactions.get(user_interaction_id="a")
    assert row.finished_at == datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    assert row.metadata["nested"]["list"] == [1, 2.5, None, True, "x"]
    assert Interaction.objects.filter(run=fast, metadata__nested__list__4="x").count() == 1, "JSON is queryable"


def test_a_duplicate_id_fails_the_batch_with_djangos_integrity_error():
    run = RunFactory()
    with transaction.atomic():
        inserts.insert_interactions(interactions(run)[:1])
    with pytest.raises(IntegrityError), transaction.atomic():
        inserts.insert_interactions(interactions(run))
    assert run.interactions.count() == 1, "nothing of the failed batch is stored"


def test_the_fast_path_is_the_one_this_database_takes(monkeypatch):
    used = []
    for name in ("_copy", "_execute_many"):
        original = getattr(inserts, name)
        monkeypatch.setattr(
            inserts, name, lambda rows, name=name, original=original: used.append(name) or original(rows)
        )
    with transaction.atomic():
        inserts.insert_interactions(interactions(RunFactory()))
    assert used == [{"postgresql": "_copy", "sqlite": "_execute_many"}[connection.vendor]]
