"""Exports are sent many rows a chunk, and every row arrives whole whatever the chunk size."""

import csv
import io
import json

import pytest
from django.urls import reverse

from properties import export
from properties.uploads import inserts
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory
from tests.unit.screen.test_datascreen import add_value

pytestmark = pytest.mark.django_db

ROWS = 40


@pytest.fixture
def client_in(client):
    user = UserFactory()
    run = RunFactory(project=ProjectFactory(owner=user))
    for i in range(ROWS):
        interaction = InteractionFactory(run=run, user_interaction_id=f"row-{i:02d}", output=f"=answer, {i}\nline two")
        add_value(interaction, "toxicity", value=i / ROWS).__class__.objects.filter(interaction=interaction).update(
            spans=[{"field": "output", "start": 1, "end": 7, "label": "insult"}], details={"kept": i}
        )
    client.force_login(user)
    client.run = run
    return client


@pytest.mark.parametrize("file_format", ["csv", "json"])
def test_an_export_streams_in_chunks_of_many_rows(client_in, monkeypatch, file_format):
    monkeypatch.setattr(export, "STREAM_CHUNK_CHARS", 2000)
    response = client_in.get(reverse("properties:run-export", args=[client_in.run.pk, file_format]))
    chunks = list(response.streaming_content)
    assert 3 < len(chunks) < ROWS, "several chunks, each of several rows"
    body = b"".join(chunks).decode()
    if file_format == "csv":
        rows = list(csv.DictReader(io.StringIO(body)))
        ids = [row["user_interaction_id"] for row in rows]
        assert rows[5]["output"] == "'=answer, 5\nline two", "formulas neutralised, cells with newlines whole"
        assert json.loads(rows[5]["toxicity.output evidence"])[0]["text"] == "answer"
    else:
        records = json.loads(body)
        ids = [record["user_interaction_id"] for record in records]
        assert records[5]["properties"]["toxicity.output"]["evidence"][0]["text"] == "answer"
    assert ids == [f"row-{i:02d}" for i in range(ROWS)]


def test_empty_spans_and_details_read_as_fresh_empty_values():
    spans, details = export._decoded("[]", []), export._decoded("{}", {})
    assert (spans, details) == ([], {}) and spans is not export._decoded("[]", [])
    assert export._decoded('[{"start": 1}]', []) == [{"start": 1}] and export._decoded(None, {}) == {}


# JSON fields as users send them: what json.dumps writes back unchanged and what it does not
# (numbers with decimals or exponents, text outside ASCII, escapes, DEL, key order, nesting).
JSON_FIELDS = [
    {"source": "web", "turns": 3, "ok": True, "missing": None},
    {"zeta": 1, "a": [1, 2, {"b": "c"}], "ab": -7, "big": 123456789012345678901234567890},
    {"price": 1.50, "rate": 0.1, "tiny": 1e-07, "huge": 1e22, "whole": 3.0, "negative": -0.25},
    {"text": 'quote " backslash \\ slash / tab \t newline \n bell \x07 del \x7f', "v": "v2.0 build 3e1"},
    {"city": "Zürich", "sign": "€", "emoji": "✓"},
    {"nested": {"deep": [[], {}, [[]], ""]}, "empty": {}},
]
DOCUMENT_FIELDS = [["The refund window is 30 days.", {"text": "Plan 2.5 costs $9.99", "id": 7}], [{"text": "café"}]]


def test_json_fields_are_written_as_json_dumps_writes_them():
    run = RunFactory()
    # Stored both ways interactions are: saved by the ORM, and inserted as an upload inserts them.
    uploaded = []
    for metadata, documents in zip(JSON_FIELDS, DOCUMENT_FIELDS * 3, strict=True):
        InteractionFactory(run=run, metadata=metadata, information_retrieval=documents)
        uploaded.append(InteractionFactory.build(run=run, metadata=metadata, information_retrieval=documents))
    inserts.insert_interactions(uploaded)
    # The stored text as the export reads it (properties.export._AS_TEXT: a cast to text).
    stored = export.Interaction.objects.filter(run=run).annotate(
        metadata_text=export.Cast("metadata", export.TextField()),
        documents_text=export.Cast("information_retrieval", export.TextField()),
    )
    texts = [text for pair in stored.values_list("metadata_text", "documents_text") for text in pair]
    assert len(texts) == 4 * len(JSON_FIELDS)
    for text in texts:
        assert export._json_cell(text) == json.dumps(json.loads(text)), text


# Numbers whose text PostgreSQL and Python's repr write apart (whole, large, tiny, not
# finite), and ones they write alike; negative ones stay numbers, not text taken for a formula.
# (SQLite stores -0.0 as 0.)
NUMBERS = [3.0, -0.5, -1e-05, 1e15, 1234567890123456.7, 1e16, 1e22, 5e-324, 1e-05, 0.0001, 0.1, 1 / 3, 2.5e-07]


def test_a_csv_writes_each_number_as_python_writes_it(client):
    user = UserFactory()
    run = RunFactory(project=ProjectFactory(owner=user))
    numbers = [*NUMBERS, float("inf"), float("-inf")]
    for i, number in enumerate(numbers):
        add_value(InteractionFactory(run=run, user_interaction_id=f"row-{i:02d}"), "toxicity", value=number)
    client.force_login(user)
    body = b"".join(client.get(reverse("properties:run-export", args=[run.pk, "csv"])).streaming_content)
    cells = [row["toxicity.output"] for row in csv.DictReader(io.StringIO(body.decode()))]
    assert cells == [repr(number) for number in numbers]


def test_a_filtered_views_ids_are_read_without_jit(client_in, monkeypatch):
    """The ids of a view in any order but the whole run's are read in one statement whose cost passes
    PostgreSQL's JIT threshold on a large run; it runs with JIT off, and the setting ends with it."""
    from django.db import connection

    from properties.screen.datascreen import ScreenQuery
    from properties.screen.rows import ScreenRows

    if connection.vendor != "postgresql":
        pytest.skip("JIT is PostgreSQL's")

    def jit_now() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('jit')")
            return cursor.fetchone()[0]

    read_with: list[str] = []
    ids = ScreenRows.ids.fget

    def noted_ids(rows: ScreenRows) -> list[int]:
        read_with.append(jit_now())
        return ids(rows)

    monkeypatch.setattr(ScreenRows, "ids", property(noted_ids))
    query = ScreenQuery()
    query.set_filter(["toxicity.output > 0.5"])
    before = jit_now()
    pages = list(export.view_pages(client_in.run, query))
    assert read_with == ["off"]
    assert sum(len(page) for page in pages) == ROWS // 2 - 1  # values 0.525 to 0.975
    assert jit_now() == before
