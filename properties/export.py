"""Runs and comparisons as CSV or JSON, streamed page by page so any run size fits in memory."""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections.abc import AsyncIterator, Iterable, Iterator

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest

from properties.compare.comparison import match_interactions
from properties.models import Interaction, PropertyValue, Run
from properties.quality import criteria
from properties.screen.datascreen import property_addresses, values_by_interaction

EXPORT_PAGE = 1000
# Chunks (CSV rows, JSON records) taken from the database per step when streaming under ASGI.
ASYNC_STEP = 500
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


def _pages(run: Run) -> Iterator[list[Interaction]]:
    last = 0
    while True:
        page = list(run.interactions.filter(pk__gt=last).order_by("pk")[:EXPORT_PAGE])
        if not page:
            return
        yield page
        last = page[-1].pk


def _plain(value: PropertyValue | None) -> float | str | None:
    if value is None:
        return None
    if value.status == PropertyValue.Status.ERROR:
        return f"error: {value.error}"
    if value.status == PropertyValue.Status.NOT_APPLICABLE:
        return None  # an empty cell: neither a zero nor an error
    return value.label or value.value


def _json_value(value: PropertyValue) -> dict:
    record = {"value": value.value, "label": value.label or None, "status": value.status, "error": value.error or None}
    if value.status == PropertyValue.Status.NOT_APPLICABLE:
        record["reason"] = criteria.not_applicable_reason(value)
    return record


def _record(interaction: Interaction) -> dict:
    record = {name: getattr(interaction, name) for name in FIELDS}
    for name in ("started_at", "finished_at"):
        record[name] = record[name].isoformat() if record[name] else None
    return record


def run_records(run: Run) -> Iterator[dict]:
    for page in _pages(run):
        values = values_by_interaction([i.pk for i in page])
        for interaction in page:
            record = _record(interaction)
            record["properties"] = {address: _json_value(v) for address, v in sorted(values[interaction.pk].items())}
            yield record


def run_csv_rows(run: Run) -> Iterator[list]:
    addresses = property_addresses(run, exhaustive=True)
    yield FIELDS + addresses
    for page in _pages(run):
        values = values_by_interaction([i.pk for i in page])
        for interaction in page:
            record = _record(interaction)
            cells = [
                json.dumps(record[name]) if name in ("information_retrieval", "metadata") else record[name]
                for name in FIELDS
            ]
            yield cells + [_plain(values[interaction.pk].get(address)) for address in addresses]


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
        writer.writerow([neutralise_formula(cell) for cell in row])
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


def json_stream(records: Iterable[dict]) -> Iterator[str]:
    yield "["
    for i, record in enumerate(records):
        yield ("," if i else "") + "\n" + json.dumps(record, ensure_ascii=False, default=str)
    yield "\n]\n"


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
