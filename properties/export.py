"""Runs and comparisons as CSV or JSON, streamed page by page so any run size fits in memory.

A run's export is the Data Screen's view: its filter, annotation, search and sort (a ScreenQuery),
every page of it, each property value with its pass or fail, its evidence spans and, where the
property does not apply, the reason.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass, fields
from typing import Any

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.db.models import QuerySet, TextField
from django.db.models.functions import Cast
from django.http import HttpRequest

from properties.compare.comparison import match_interactions
from properties.models import Interaction, PropertyValue, Run
from properties.quality import criteria
from properties.quality.criteria import Criterion
from properties.screen import datascreen
from properties.screen.datascreen import ScreenQuery, property_addresses, values_by_interaction
from properties.screen.interaction_panel import document_text

# Interactions per page: each page reads its interactions and all their values with their spans.
# bench/export.py: peak memory 26 MB above idle for 2,000 rows, 27 MB for 20,000 (~2,700 rows/s).
EXPORT_PAGE = 1000
# Chunks taken from the database per step when streaming under ASGI.
ASYNC_STEP = 16
# Characters per chunk sent: many rows a chunk, as a row a chunk cost the server a write per row.
STREAM_CHUNK_CHARS = 64 * 1024
FIELDS = [
    "user_interaction_id",
    "input",
    "information_retrieval",
    "full_prompt",
    "history",
    "output",
    "expected_output",
    "annotation",
    "annotation_reason",
    "annotation_source",
    "estimated_annotation",
    "metadata",
    "started_at",
    "finished_at",
]


def _pages(interactions: QuerySet[Interaction]) -> Iterator[list[Interaction]]:
    """The interactions in id order, a page at a time (keyset: each page is an index range)."""
    last = 0
    while True:
        page = list(interactions.filter(pk__gt=last).order_by("pk")[:EXPORT_PAGE])
        if not page:
            return
        yield page
        last = page[-1].pk


def view_pages(run: Run, query: ScreenQuery) -> Iterator[list[Interaction]]:
    """The interactions of a Data Screen view in its order, a page at a time.

    The whole run in id order is read page by page; any other view by its ordered ids (read once,
    an index-only query: 100,000 ids are a few megabytes), a page of interactions at a time.
    """
    view = datascreen.filtered_interactions(run, query)
    if isinstance(view, QuerySet) and query.sort in ("", "id"):
        yield from _pages(view)
        return
    ids = datascreen.ids_of(view.values_list("pk", flat=True)) if isinstance(view, QuerySet) else view.ids
    for start in range(0, len(ids), EXPORT_PAGE):
        chunk = ids[start : start + EXPORT_PAGE]
        found = Interaction.objects.in_bulk(chunk)
        yield [found[pk] for pk in chunk if pk in found]


@dataclass(slots=True)
class StoredValue:
    """A property value as an export reads it: the columns it writes, read as tuples. A PropertyValue
    model per value (15 per interaction) was three quarters of the export's time; this has the
    attributes criteria.verdict and criteria.not_applicable_reason read. Not frozen: a frozen
    dataclass sets each attribute through object.__setattr__, 4 us against 1 us a value."""

    property_name: str
    field: str
    status: str
    value: float | None
    label: str
    error: str
    spans: list
    details: dict

    @property
    def address(self) -> str:
        return self.property_name if self.field == _WHOLE_INTERACTION else f"{self.property_name}.{self.field}"


# A plain string: comparing with the enum member went through the enum's machinery for every value.
_WHOLE_INTERACTION = PropertyValue.Field.INTERACTION.value


# Spans and details are read as their JSON text and decoded only when not empty: decoding two JSON
# columns per value (15 a row) was half of an export's time, and most values have neither.
VALUE_COLUMNS = ("interaction_id", *(f.name for f in fields(StoredValue) if f.name not in ("spans", "details")))
_EMPTY_JSON = {"[]": [], "{}": {}}


def _decoded(text: str | None, empty: list | dict) -> Any:
    if text is None:
        return empty
    known = _EMPTY_JSON.get(text)
    return json.loads(text) if known is None else type(known)()


def stored_values(interaction_ids: list[int]) -> dict[int, dict[str, StoredValue]]:
    """{interaction id: {address: value}} for a page of interactions, in one query."""
    rows: dict[int, dict[str, StoredValue]] = {pk: {} for pk in interaction_ids}
    values = PropertyValue.objects.filter(interaction_id__in=interaction_ids).annotate(
        spans_text=Cast("spans", TextField()), details_text=Cast("details", TextField())
    )
    for interaction_id, name, field, status, number, label, error, spans, details in values.values_list(
        *VALUE_COLUMNS, "spans_text", "details_text"
    ):
        value = StoredValue(
            name,
            field,
            status,
            number,
            label,
            error,
            [] if spans == "[]" else _decoded(spans, []),
            {} if details == "{}" else _decoded(details, {}),
        )
        rows[interaction_id][value.address] = value
    return rows


def _plain(value: StoredValue | PropertyValue | None) -> float | str | None:
    """A value as one cell: its category or number, or why there is none."""
    if value is None:
        return None
    if value.status == PropertyValue.Status.ERROR:
        return f"error: {value.error}"
    if value.status == PropertyValue.Status.NOT_APPLICABLE:
        return f"n/a: {criteria.not_applicable_reason(value)}"
    return value.label or value.value


def _verdict(value: StoredValue, criterion: Criterion) -> str | None:
    """pass, fail, n/a or error; None for a property with no pass criterion."""
    return criteria.verdict(value, criterion) or None


def _evidence(interaction: Interaction, value: StoredValue) -> list[dict[str, Any]]:
    """The value's spans with the text each marks, as a list of plain records."""
    found = []
    for span in value.spans or []:
        field = str(span.get("field") or "output")
        start, end = span.get("start"), span.get("end")
        text = _field_text(interaction, field)
        marked = text[start:end] if isinstance(start, int) and isinstance(end, int) else ""
        found.append(
            {
                "field": field,
                "text": marked,
                "label": span.get("label"),
                "score": span.get("score"),
                "note": span.get("note"),
            }
        )
    return found


def _field_text(interaction: Interaction, field: str) -> str:
    if field.startswith("information_retrieval[") and field.endswith("]"):
        index = field[len("information_retrieval[") : -1]
        documents = interaction.information_retrieval or []
        return document_text(documents[int(index)]) if index.isdigit() and int(index) < len(documents) else ""
    text = getattr(interaction, field, "") if field in FIELDS else ""
    return text if isinstance(text, str) else ""


def _json_value(interaction: Interaction, value: StoredValue, criterion: Criterion) -> dict:
    record = {
        "value": value.value,
        "label": value.label or None,
        "status": value.status,
        "verdict": _verdict(value, criterion),
        "error": value.error or None,
        "evidence": _evidence(interaction, value),
    }
    if value.status == PropertyValue.Status.NOT_APPLICABLE:
        record["reason"] = criteria.not_applicable_reason(value)
    return record


def _record(interaction: Interaction) -> dict:
    record = {name: getattr(interaction, name) for name in FIELDS}
    for name in ("started_at", "finished_at"):
        record[name] = record[name].isoformat() if record[name] else None
    return record


def run_records(run: Run, query: ScreenQuery | None = None) -> Iterator[dict]:
    judged: dict[str, Criterion] = {}
    for page in view_pages(run, query or ScreenQuery()):
        values = stored_values([i.pk for i in page])
        for interaction in page:
            record = _record(interaction)
            properties = {}
            for address, value in sorted(values[interaction.pk].items()):
                if address not in judged:
                    judged[address] = criteria.criterion_for(run.project, value.property_name)
                properties[address] = _json_value(interaction, value, judged[address])
            record["properties"] = properties
            yield record


def run_csv_header(addresses: list[str]) -> list[str]:
    return FIELDS + [
        column for address in addresses for column in (address, f"{address} verdict", f"{address} evidence")
    ]


def run_csv_rows(run: Run, query: ScreenQuery | None = None) -> Iterator[list]:
    """A row per interaction; per property its value, verdict and evidence (compact JSON)."""
    addresses = property_addresses(run, exhaustive=True)
    judged = criteria.criteria_for(run.project, addresses)
    yield run_csv_header(addresses)
    for page in view_pages(run, query or ScreenQuery()):
        values = stored_values([i.pk for i in page])
        for interaction in page:
            record = _record(interaction)
            cells = [
                json.dumps(record[name]) if name in ("information_retrieval", "metadata") else record[name]
                for name in FIELDS
            ]
            found = values[interaction.pk]
            for address in addresses:
                value = found.get(address)
                if value is None:
                    cells += [None, None, None]
                    continue
                compact = None
                if value.spans:
                    evidence = _evidence(interaction, value)
                    compact = json.dumps(evidence, ensure_ascii=False, separators=(",", ":")) if evidence else None
                cells += [_plain(value), _verdict(value, judged[address]), compact]
            yield cells


def comparison_csv_rows(run_a: Run, run_b: Run) -> Iterator[list]:
    addresses = sorted(set(property_addresses(run_a, True)) | set(property_addresses(run_b, True)))
    header = ["user_interaction_id", "input", f"output ({run_a.name})", f"output ({run_b.name})"]
    for address in addresses:
        header += [f"{address} ({run_a.name})", f"{address} ({run_b.name})", f"{address} delta"]
    yield header
    pairs = match_interactions(run_a, run_b)
    for start in range(0, len(pairs), EXPORT_PAGE):
        chunk = pairs[start : start + EXPORT_PAGE]
        ids = [pk for pair in chunk for pk in pair]
        interactions = Interaction.objects.in_bulk(ids)
        values = values_by_interaction(ids)
        for a, b in chunk:
            row = [interactions[a].user_interaction_id, interactions[a].input, interactions[a].output]
            row.append(interactions[b].output)
            for address in addresses:
                va, vb = _plain(values[a].get(address)), _plain(values[b].get(address))
                delta = vb - va if isinstance(va, float) and isinstance(vb, float) else None
                row += [va, vb, delta]
            yield row


def comparison_records(run_a: Run, run_b: Run) -> Iterator[dict]:
    rows = comparison_csv_rows(run_a, run_b)
    header = next(rows)
    for row in rows:
        yield dict(zip(header, row, strict=True))


# A spreadsheet runs a cell that starts with one of these as a formula (`=HYPERLINK(...)`,
# `=cmd|' /C calc'!A0`, and `+`, `-`, `@`, tab or carriage return lead into one): OWASP's
# "CSV Injection" advice is to prefix such a cell with an apostrophe so it is shown as text.
FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")


def neutralise_formula(cell: object) -> object:
    """Text that a spreadsheet would run as a formula, made plain text; numbers stay numbers."""
    if isinstance(cell, str) and cell.startswith(FORMULA_LEADS):
        return "'" + cell
    return cell


def csv_stream(rows: Iterable[list]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in rows:
        # neutralise_formula, inline: it is called for every cell of every row.
        writer.writerow(["'" + cell if type(cell) is str and cell.startswith(FORMULA_LEADS) else cell for cell in row])
        if buffer.tell() >= STREAM_CHUNK_CHARS:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    if buffer.tell():
        yield buffer.getvalue()


def json_stream(records: Iterable[dict]) -> Iterator[str]:
    parts, size = ["["], 1
    for i, record in enumerate(records):
        part = ("," if i else "") + "\n" + json.dumps(record, ensure_ascii=False, default=str)
        parts.append(part)
        size += len(part)
        if size >= STREAM_CHUNK_CHARS:
            yield "".join(parts)
            parts, size = [], 0
    parts.append("\n]\n")
    yield "".join(parts)


def for_server(request: HttpRequest, chunks: Iterator[str]) -> Iterator[str] | AsyncIterator[str]:
    """The chunks as this request's server streams them without holding the export in memory:
    under ASGI an async iterator (Django would read a plain one whole before sending a byte),
    taking ASYNC_STEP chunks at a time on the request's thread, where its database connection is."""
    if not isinstance(request, ASGIRequest):
        return chunks
    take = sync_to_async(lambda: list(itertools.islice(chunks, ASYNC_STEP)), thread_sensitive=True)

    async def steps() -> AsyncIterator[str]:
        while step := await take():
            for chunk in step:
                yield chunk

    return steps()
