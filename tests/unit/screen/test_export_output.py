"""Exports write what they wrote before the values were pivoted by the database, byte for byte.

export_golden.json holds the exports of the project below as the export wrote them when it read each
value as a row and regrouped them in Python (commit 7a95618, the same bytes on SQLite and PostgreSQL).
The project has what an export must get right: a filter and a sort, spans on the output, the input
and a document, details, labels, a value without a number, a property with no pass criterion, not
applicable and failed values, a property an interaction has no value for, metadata and documents,
timestamps, text a spreadsheet would run, newlines and characters outside ASCII.

To rewrite the golden file after a deliberate change of the format:
    EVALSITE_WRITE_EXPORT_GOLDEN=1 .venv/bin/pytest tests/unit/screen/test_export_output.py
"""

import datetime
import json
import os
from pathlib import Path

import pytest
from django.urls import reverse

from properties import export
from properties.models import PropertyValue
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory

pytestmark = pytest.mark.django_db

GOLDEN = Path(__file__).with_name("export_golden.json")
VIEWS = {
    "whole run": {},
    "filtered": {"where": "failing:toxicity.output OR content_type = sql"},
    "filtered and sorted": {"where": "NOT toxicity.output < 0.05", "sort": "-toxicity.output"},
    "annotation and search": {"annotation": "bad", "q": "refund"},
    "sorted by a column": {"sort": "-user_interaction_id"},
}
DOCUMENTS = ["The refund window is 30 days.", {"text": "Café crème costs €3 — ✓ paid."}]
# Keys in jsonb's order (shorter first), so that SQLite and PostgreSQL store the same order.
METADATA = {"a": 1, "b": "x", "ab": [1, 2.5, None], "nested": {"k": "é"}}
UTC = datetime.UTC


def _value(interaction, prop, field="output", **stored) -> None:
    PropertyValue.objects.create(
        interaction=interaction, run=interaction.run, property_name=prop, field=field, scorer_version="1:x", **stored
    )


def _build(user):
    project = ProjectFactory(owner=user, pass_criteria={"relevance": {"direction": "higher", "threshold": 0.25}})
    run = RunFactory(project=project)
    texts = [
        ("How do I get a refund?", "=SUM(A1) You get a refund\nwithin 30 days.", "bad"),
        ("Où est mon colis ?", "Votre colis arrive — bientôt ✓", "good"),
        ("-1 or +1?", "@mention: the refund is +1", "bad"),
        ("Plain question", 'Plain answer, with a comma and "quotes".', "unknown"),
        ("No values here", "Nothing scored.", "good"),
    ]
    interactions = [
        InteractionFactory(
            run=run,
            user_interaction_id=f"row-{i}" if i != 2 else "=row-2",
            input=question,
            output=answer,
            annotation=annotation,
            annotation_reason="looks wrong" if annotation == "bad" else "",
            information_retrieval=DOCUMENTS if i % 2 == 0 else [],
            metadata=METADATA if i != 3 else {},
            expected_output="Refunds take 30 days." if i == 0 else "",
            started_at=datetime.datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC) if i < 2 else None,
            finished_at=datetime.datetime(2026, 1, 2, 3, 4, 6, tzinfo=UTC) if i == 0 else None,
        )
        for i, (question, answer, annotation) in enumerate(texts)
    ]
    first, second, third, fourth, _ = interactions
    spans = [
        {"field": "output", "start": 9, "end": 24, "label": "insult", "score": 0.875, "note": "rude"},
        {"field": "input", "start": 0, "end": 3, "label": None, "score": None, "note": "é"},
        {"field": "information_retrieval[1]", "start": 0, "end": 10, "label": "doc", "score": 1, "note": ""},
        {"field": "information_retrieval[7]", "start": 0, "end": 4},
        {"field": "output", "start": "x", "end": 2},
    ]
    _value(first, "toxicity", value=0.7123456789012345, spans=spans, details={"sentences": 2})
    _value(second, "toxicity", value=0.1, details={"note": "ünïcode"})
    _value(third, "toxicity", value=1 / 3)
    _value(fourth, "toxicity", status="error", error="the model timed out")
    _value(first, "toxicity", field="input", value=0.0)
    _value(second, "toxicity", field="input", value=1e-07)
    _value(first, "content_type", label="sql")
    _value(second, "content_type", label="=formula")
    _value(third, "content_type", label="prose", value=2.0)
    for interaction, relevance in ((first, 0.25), (second, 0.2499999), (third, None)):
        _value(interaction, "relevance", field="interaction", value=relevance)
    _value(
        first,
        "retrieval_relevance",
        field="interaction",
        status="not_applicable",
        details={"not_applicable": "no documents"},
    )
    _value(second, "retrieval_relevance", field="interaction", status="not_applicable", details={})
    _value(
        third,
        "retrieval_relevance",
        field="interaction",
        value=0.9,
        spans=[{"field": "information_retrieval[0]", "start": 4, "end": 10}],
    )
    _value(fourth, "sentiment", value=-0.5, label="")
    return run


def _exports(client, run) -> dict[str, str]:
    found = {}
    for name, params in VIEWS.items():
        for file_format in ("csv", "json"):
            response = client.get(reverse("properties:run-export", args=[run.pk, file_format]), params)
            assert response.status_code == 200, (name, file_format)
            found[f"{name}, {file_format}"] = b"".join(response.streaming_content).decode()
    return found


# Pages of 2 interactions (a last page of 1) read in queries of 2 properties: pages of other lengths
# reuse none of a query compiled for one length, and a project with more properties than SQLite
# joins in one query is read in several queries a page.
@pytest.mark.parametrize("joins_per_query, page", [(export.JOINS_PER_QUERY, export.EXPORT_PAGE), (2, 2)])
def test_exports_write_what_they_wrote_before(client, monkeypatch, joins_per_query, page):
    monkeypatch.setattr(export, "JOINS_PER_QUERY", joins_per_query)
    monkeypatch.setattr(export, "EXPORT_PAGE", page)
    user = UserFactory()
    run = _build(user)
    client.force_login(user)
    found = _exports(client, run)
    if os.environ.get("EVALSITE_WRITE_EXPORT_GOLDEN"):
        GOLDEN.write_text(json.dumps(found, ensure_ascii=False, indent=1) + "\n")
    expected = json.loads(GOLDEN.read_text())
    assert found.keys() == expected.keys()
    for case, body in expected.items():
        assert found[case] == body, case


# The same exports with the pages read ahead on a second connection (properties.read_ahead), which
# sees committed rows only: the test commits them.
# Pages of 2 (3 pages a whole run) read by 1 to 3 connections in turns: a last round that not every
# connection has a page of, and connections that have no page at all.
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("page, readers", [(export.EXPORT_PAGE, 1), (export.EXPORT_PAGE, 2), (2, 1), (2, 2), (2, 3)])
def test_exports_read_ahead_write_the_same_bytes(client, monkeypatch, page, readers):
    monkeypatch.setattr(export, "EXPORT_PAGE", page)
    monkeypatch.setattr(export, "READ_AHEAD_READERS", readers)
    monkeypatch.setattr(export, "READ_AHEAD_VENDORS", {"sqlite", "postgresql"})
    read = []
    monkeypatch.setattr(export.read_ahead, "read_ahead", _counted(export.read_ahead.read_ahead, read))
    user = UserFactory()
    run = _build(user)
    client.force_login(user)
    found = _exports(client, run)
    assert len(read) == len(VIEWS) * 2 * readers, "every export read ahead, on every connection"
    assert found == json.loads(GOLDEN.read_text())


def _counted(function, calls: list):
    def counted(*args, **kwargs):
        calls.append(args)
        return function(*args, **kwargs)

    return counted
