"""On PostgreSQL the database writes each row's CSV line: the same bytes as Python's cells and csv writer.

Each interaction below holds one thing the SQL must write as Python does (or hand back to Python, a
NULL line): floats of every form, text a spreadsheet would run, quotes, commas and newlines,
characters outside ASCII, JSON documents and metadata, spans of every shape, details, timestamps.
Every line the database wrote is compared with the line Python writes for the same row, and the
rows the SQL is meant to write itself must not have been handed back.
"""

import datetime
import math

import pytest
from django.db import connection
from django.db.models import JSONField, Value

from properties import export
from properties.models import PropertyValue
from properties.quality import criteria
from properties.screen.datascreen import property_addresses
from tests.factories import InteractionFactory, ProjectFactory, RunFactory

pytestmark = pytest.mark.django_db

UTC = datetime.UTC
FLOATS = [0.0, -0.0, 1.0, -2.5, 0.1 + 0.2, 1 / 3, 1e-05, 0.0001, 123456789012345.0, 1e16, 1.5e300, 2.5e-320]
FLOATS += [math.nan, math.inf, -math.inf, 0.7123456789012345, 99999999999999.98]
TEXTS = ["plain", "=SUM(A1)", "+1", "-1", "@me", "\ttab", "\rcr", 'say "hi"', "a,b", "two\nlines", "é ✓ — 😀", ""]
SPANS = [
    {"field": "output", "start": 0, "end": 4, "label": "insult", "score": 0.875, "note": 'rude "very"'},
    {"field": "input", "start": -3, "end": 100, "label": None, "score": 1, "note": "é\n\x01"},
    {"field": "information_retrieval[1]", "start": 2, "end": 1},
    {"field": "information_retrieval[0]", "start": 0, "end": 5, "score": 1e-05},
    {"field": "information_retrieval[9]", "start": 0, "end": 4},
    {"field": "", "start": 1.0, "end": 2},
    {"start": 0, "end": 3, "score": -0.0},
    {"field": "metadata", "start": 0, "end": 3},
    {"field": "started_at", "start": 0, "end": 3, "label": True},
]
# Rows the SQL hands back to Python by design (see _sql_float, _sql_json_cell, _sql_evidence).
HANDED_BACK = [
    {"value": 1e15},
    {"value": 5e15},
    {"metadata": {"temperature": 0.7}},
    {"metadata": {"name": "Zoë"}},
    {"information_retrieval": ["Café"]},
    {"spans": [{"field": "output", "start": True, "end": 2}]},
    {"spans": [{"field": "output", "start": 0, "end": 2, "label": {"a": 1}}]},
    {"spans": [{"field": "information_retrieval[0]", "start": 0, "end": 2}], "information_retrieval": [3]},
    {"spans": [{"field": 7, "start": 0, "end": 2}]},
    {"status": "not_applicable", "details": {"not_applicable": 3}},
]


def _written_by_sql() -> list[dict]:
    cases = [{"value": number} for number in FLOATS]
    cases += [{"text": text} for text in TEXTS]
    cases += [{"label": text} for text in TEXTS if text]
    cases += [{"spans": [span]} for span in SPANS] + [{"spans": SPANS}, {"spans": []}, {"spans": None}]
    cases += [
        {"status": "error", "error": "=boom, it failed"},
        {"status": "not_applicable", "details": {"not_applicable": "no documents"}},
        {"status": "not_applicable", "details": {}},
        {"status": "not_applicable", "details": {"not_applicable": ""}},
        {"status": "not_applicable", "details": None},
        {"metadata": {"b": "x", "a": [1, -2, None, True], "nested": {"k": 'q"\\'}}},
        {"information_retrieval": ["-first, doc", {"text": "second doc"}, {"content": 3, "page_content": "third"}]},
        {"started": datetime.datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)},
        {"started": datetime.datetime(999, 12, 31, 23, 59, 59, tzinfo=UTC)},
        {"value": None},
    ]
    return cases


def _build(cases: list[dict]):
    run = RunFactory(project=ProjectFactory(pass_criteria={"toxicity": {"direction": "lower", "threshold": 0.5}}))
    ids = []
    for i, case in enumerate(cases):
        text = case.get("text", "x")
        interaction = InteractionFactory(
            run=run,
            user_interaction_id=text if "text" in case else f"row-{i}",
            input=f"{text} question?",
            output=f"The answer {text}, said twice: {text}",
            annotation_reason=text,
            information_retrieval=case.get("information_retrieval", ["doc zero", {"text": "doc one"}]),
            metadata=case.get("metadata", {}),
            started_at=case.get("started"),
        )
        stored = {"status": case.get("status", "ok"), "error": case.get("error", "")}
        stored |= {"value": case.get("value", 0.25), "label": case.get("label", ""), "details": case.get("details")}
        PropertyValue.objects.create(
            interaction=interaction,
            run=run,
            property_name="toxicity",
            field="output",
            scorer_version="1:x",
            # None as JSON's null, not SQL's NULL (the column holds no NULL).
            spans=case.get("spans", []) if case.get("spans", []) is not None else Value(None, JSONField()),
            **{key: value for key, value in stored.items() if value is not None or key == "value"},
        )
        PropertyValue.objects.create(
            interaction=interaction, run=run, property_name="content_type", field="output", label="prose"
        )
        ids.append(interaction.pk)
    return run, ids


def _lines(run, ids) -> tuple[dict, dict]:
    """The lines PostgreSQL wrote (None where handed back) and those Python writes, by id."""
    addresses = property_addresses(run, exhaustive=True)
    queries = export._pivot_queries(addresses, criteria.criteria_for(run.project, addresses), export.CSV_COLUMNS)
    reader = export.PageReader(queries)
    by_sql = reader.lines(ids, export._sql_line(len(addresses)))
    by_python = {row[0]: "".join(export.csv_stream([export._csv_cells(row)])) for row in reader.rows(ids)}
    return by_sql, by_python


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the database writes the lines on PostgreSQL only")
def test_postgresql_writes_the_lines_python_writes():
    cases = _written_by_sql()
    run, ids = _build(cases + HANDED_BACK)
    by_sql, by_python = _lines(run, ids)
    assert by_sql.keys() == by_python.keys() == set(ids)
    for pk, case in zip(ids, cases + HANDED_BACK, strict=True):
        if by_sql[pk] is not None:
            assert by_sql[pk] == by_python[pk], case
    assert [case for pk, case in zip(ids, cases, strict=False) if by_sql[pk] is None] == []
    assert [case for pk, case in zip(ids[len(cases) :], HANDED_BACK, strict=True) if by_sql[pk] is not None] == []
