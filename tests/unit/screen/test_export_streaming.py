"""Exports are sent many rows a chunk, and every row arrives whole whatever the chunk size."""

import csv
import io
import json

import pytest
from django.urls import reverse

from properties import export
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
