"""Runs and comparisons as CSV or JSON, streamed page by page so any run size fits in memory.

A run's export is the Data Screen's view: its filter, annotation, search and sort (a ScreenQuery),
every page of it, each property value with its pass or fail, its evidence spans and, where the
property does not apply, the reason.

The database pivots the values: a page is one query that returns one row per interaction, its
fields and, per property, the few columns the format writes (`CSV_COLUMNS`, `JSON_COLUMNS`), each
property's value joined on the (interaction, property, field) key. Reading the values as rows and
regrouping them in Python cost about 300 microseconds of CPU per interaction of 15 values.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Any

import orjson
from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.db import connection, transaction
from django.db.models import Case, Expression, F, FilteredRelation, Lookup, Q, QuerySet, TextField, Value, When
from django.db.models.functions import Cast, Concat, NullIf
from django.http import HttpRequest

from properties import read_ahead
from properties.compare.matching import match_interactions
from properties.models import Interaction, PropertyValue, Run
from properties.quality import criteria
from properties.quality.criteria import Criterion
from properties.screen import datascreen
from properties.screen.datascreen import ScreenQuery, property_addresses, values_by_interaction
from properties.screen.interaction_panel import document_text
from properties.screen.rows import ids_of, planner_settings

# Interactions per page: each page is one query that reads them with all their values, pivoted.
# bench/export.py, 100,000 rows: ~100 us of CPU a row, 9 to 18 MB above idle (docs/scaling.md).
EXPORT_PAGE = 1000
# Property values joined per query: SQLite joins at most 64 tables in one query, so a project with
# more properties than this is read in several queries per page, a group of properties each.
JOINS_PER_QUERY = 48
# The next page is read on a second connection while this one is written (properties.read_ahead):
# the server's time per page and the worker's overlap, for 1 to 2 MB more above idle. Not on SQLite,
# whose reading is the worker's own CPU: 100,000 rows alternated, 4 rounds, load 9 to 16, took 17.1
# to 27.1 s read ahead and 15.9 to 33.7 s in turn, the same CPU and 4.5 MB more memory.
READ_AHEAD_PAGES = 1
READ_AHEAD_VENDORS = {"postgresql"}
# Connections reading pages at once, the view's id pages dealt to them in turn (read_ahead.dealt,
# in_turns). One reader left the server idle between pages; two took a million rows from 8,981 to
# 13,831 rows/s (whole run) and 9,838 to 12,629 (filtered), for ~15 MB more above idle; three were
# no faster (bench/export.py, docs/scaling.md).
READ_AHEAD_READERS = 2
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
# The JSON fields are read as their text and decoded only when not empty, as are spans and details.
_AS_TEXT = {"information_retrieval": "information_retrieval_text", "metadata": "metadata_text"}
FIELD_COLUMNS = ["pk", *(_AS_TEXT.get(name, name) for name in FIELDS)]
_TIMES = ("started_at", "finished_at")
_EMPTY_JSON = {"[]": [], "{}": {}}
# What `compact_json` writes when orjson refuses a value, as compactly as orjson writes (made once:
# json.dumps with options builds an encoder each call).
_FALLBACK_JSON = json.JSONEncoder(ensure_ascii=False, default=str, separators=(",", ":")).encode
_OK, _ERROR = PropertyValue.Status.OK.value, PropertyValue.Status.ERROR.value
_NOT_APPLICABLE = PropertyValue.Status.NOT_APPLICABLE.value


def _decoded(text: str | None, empty: list | dict) -> Any:
    if text is None:
        return empty
    known = _EMPTY_JSON.get(text)
    return json.loads(text) if known is None else type(known)()


def _id_pages(interactions: QuerySet[Interaction]) -> Iterator[list[int]]:
    """The ids in order, a page at a time (keyset: each page is an index range)."""
    last = 0
    while page := ids_of(interactions.filter(pk__gt=last).order_by("pk").values_list("pk")[:EXPORT_PAGE]):
        yield page
        last = page[-1]


IDS_SETTINGS = {"jit": "off"}


def view_pages(run: Run, query: ScreenQuery) -> Iterator[list[int]]:
    """The ids of a Data Screen view in its order, a page at a time.

    The whole run in id order is read page by page; any other view by its ordered ids (read once,
    an index-only query: 100,000 ids are a few megabytes).
    """
    view = datascreen.filtered_interactions(run, query)
    if view.in_pk_order and not view.filtered:
        yield from _id_pages(view.interactions)
        return
    # The statement's estimated cost passes PostgreSQL's JIT threshold, and compiling it took more
    # than it saved: 150 of its 286 ms for a filtered view of 100,000 interactions (EXPLAIN ANALYZE).
    # Off for this statement only: JIT off for every connection made the comparison's statistics,
    # an aggregate over every run, 7% slower.
    with planner_settings(IDS_SETTINGS):
        ids = view.ids
    for start in range(0, len(ids), EXPORT_PAGE):
        yield ids[start : start + EXPORT_PAGE]


# --- the pivot -------------------------------------------------------------------------------
# Each column read per value is an expression on the value joined as `alias`; where the value is
# missing the join gives NULL in every column.


def _on(alias: str, condition: Q) -> Q:
    """A condition on PropertyValue (criteria's passing_q) as one on the value joined as `alias`."""
    children = [
        _on(alias, child) if isinstance(child, Q) else (f"{alias}__{child[0]}", child[1])
        for child in condition.children
    ]
    return Q.create(children, connector=condition.connector, negated=condition.negated)


def _verdict(alias: str, criterion: Criterion) -> Expression:
    """pass, fail, n/a, error or NULL, as criteria.verdict says, in SQL."""
    status = f"{alias}__status"
    cases = [When(**{status: _ERROR}, then=Value("error")), When(**{status: _NOT_APPLICABLE}, then=Value("n/a"))]
    if criterion.judges:
        cases += [
            # NaN (PostgreSQL stores it) is on neither side in Python, which calls it a fail; in
            # PostgreSQL it is above every number.
            When(**{f"{alias}__value": float("nan")}, then=Value("fail")),
            When(_on(alias, criterion.passing_q()), then=Value("pass")),
            When(_on(alias, criterion.failing_q()), then=Value("fail")),
        ]
    return Case(*cases, output_field=TextField())


def _text(alias: str, name: str) -> Expression:
    """A text column, NULL where empty."""
    return NullIf(f"{alias}__{name}", Value(""), output_field=TextField())


def _json_text(alias: str, name: str, empty: str) -> Expression:
    return NullIf(Cast(f"{alias}__{name}", TextField()), Value(empty), output_field=TextField())


PER_VALUE: dict[str, Callable[[str, Criterion], Expression]] = {
    "status": lambda alias, _: F(f"{alias}__status"),
    "value": lambda alias, _: F(f"{alias}__value"),
    "value_text": lambda alias, _: Cast(f"{alias}__value", TextField()),
    "label": lambda alias, _: _text(alias, "label"),
    "error": lambda alias, _: _text(alias, "error"),
    "verdict": _verdict,
    "spans": lambda alias, _: _json_text(alias, "spans", "[]"),
    # Details are read only for their reason where the property does not apply.
    "details": lambda alias, _: Case(
        When(**{f"{alias}__status": _NOT_APPLICABLE}, then=Cast(f"{alias}__details", TextField())),
        output_field=TextField(),
    ),
    # A CSV cell that is text: the category, or the error with its prefix (as _plain writes it).
    "text": lambda alias, _: Case(
        When(**{f"{alias}__status": _OK}, then=NullIf(f"{alias}__label", Value(""))),
        When(**{f"{alias}__status": _ERROR}, then=Concat(Value("error: "), f"{alias}__error")),
        output_field=TextField(),
    ),
}
CSV_COLUMNS = ("text", "value", "verdict", "spans", "details")
# Where a CSV reads a value's number as the database's text of it (_csv_columns).
NUMBER_AS_TEXT_VENDORS = {"postgresql"}


def _csv_columns() -> tuple[str, ...]:
    """The CSV's columns per value. PostgreSQL writes a float8 as its shortest text that reads back
    as the same float, as Python's repr does, and the CSV writes that text: the writer's repr of a
    row's 13 floats was ~6 of the ~21 us it spent a row. The two write a number with a point and no
    exponent alike (checked on 200,000 random floats); the others, whole numbers ("3" for "3.0"),
    exponents from e+15 ("1e+15" for "1000000000000000.0"), NaN and infinities, are written from
    the float (run_csv_rows)."""
    if connection.vendor not in NUMBER_AS_TEXT_VENDORS:
        return CSV_COLUMNS
    return tuple("value_text" if column == "value" else column for column in CSV_COLUMNS)


JSON_COLUMNS = ("status", "value", "label", "error", "verdict", "spans", "details")


def _pivot_queries(
    addresses: list[str], judged: dict[str, Criterion], columns: tuple[str, ...]
) -> list[QuerySet[Interaction]]:
    """The queries that read a page: the first has the interaction's fields, each a group of properties."""
    queries = []
    for start in range(0, max(len(addresses), 1), JOINS_PER_QUERY):
        relations, expressions = {}, {}
        for number, address in enumerate(addresses[start : start + JOINS_PER_QUERY]):
            # A stored address: no field is a value on the whole interaction (PropertyValue.address).
            prop, _, field = address.partition(".")
            field = field or PropertyValue.Field.INTERACTION.value
            alias = f"value_{number}"
            on = Q(property_values__property_name=prop, property_values__field=field)
            relations[alias] = FilteredRelation("property_values", condition=on)
            for column in columns:
                expressions[f"{alias}_{column}"] = PER_VALUE[column](alias, judged[address])
        names = FIELD_COLUMNS if not queries else ["pk"]
        texts = {text: Cast(name, TextField()) for name, text in _AS_TEXT.items()} if not queries else {}
        query = Interaction.objects.annotate(**texts, **relations).annotate(**expressions)
        queries.append(query.order_by().values_list(*names, *expressions))
    return queries


class PageReader:
    """Runs the pivot queries for a page of ids. Each is compiled once per page length and run as
    SQL: compiling its expressions took ~11 ms a page, a fifth of the page's time on SQLite."""

    def __init__(self, queries: list[QuerySet[Interaction]]) -> None:
        self.queries = queries
        self._compiled: dict[tuple[int, int], tuple[str, list, Any, dict]] = {}

    def rows(self, ids: list[int]) -> list:
        """The page's rows in the order of `ids`: the fields, then the columns of every property in turn."""
        found: dict[int, Any] = {}
        with transaction.atomic(), connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                # A query of many joins passes PostgreSQL's JIT threshold, and compiling it took
                # longer (~0.5 s a page) than running it.
                # And it puts a Memoize node (a cache keyed by interaction id) over each value's join,
                # though no id comes twice in a page: 15 caches of 1,000 misses each were ~15% of the
                # server's time a page (72 against 58 ms, 20 pages each, alternated 3 times).
                cursor.execute("SET LOCAL jit = off; SET LOCAL enable_memoize = off")
            for number in range(len(self.queries)):
                sql, params, compiler, converters = self._compile(number, ids)
                cursor.execute(sql, [*params, *_page_parameters(ids)])
                rows = cursor.fetchall()
                for row in compiler.apply_converters(rows, converters) if converters else rows:
                    if not number:
                        found[row[0]] = row
                    elif row[0] in found:
                        found[row[0]] = (*found[row[0]], *row[1:])
        return [found[pk] for pk in ids if pk in found]

    def _compile(self, number: int, ids: list[int]) -> tuple[str, list, Any, dict]:
        key = (number, len(ids))
        if key not in self._compiled:
            in_page = _AnyOf(F("pk"), ids) if connection.vendor == "postgresql" else Q(pk__in=ids)
            compiler = self.queries[number].filter(in_page).query.get_compiler(connection=connection)
            sql, params = compiler.as_sql()
            # The ids are the query's last parameters (its WHERE): the others are the same each page.
            page = len(_page_parameters(ids))
            if list(params[len(params) - page :]) != _page_parameters(ids):
                raise RuntimeError("the export's page query does not end with its ids")
            converters = compiler.get_converters([column for column, _, _ in compiler.select])
            self._compiled[key] = (sql, list(params[: len(params) - page]), compiler, converters)
        return self._compiled[key]


class _AnyOf(Lookup):
    """`pk = ANY(%s)`, the page's ids as one array (PostgreSQL). With `IN` and 1,000 placeholders
    psycopg split the query anew each page (~3.5 ms of the worker's CPU) and the server took about
    25 ms longer a page of 1,000 (180 against 155 ms, alternated, load 10)."""

    lookup_name = "any_of"
    prepare_rhs = False

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list]:
        lhs, params = self.process_lhs(compiler, connection)
        return f"{lhs} = ANY(%s)", [*params, self.rhs]


def _page_parameters(ids: list[int]) -> list:
    return [ids] if connection.vendor == "postgresql" else ids


def _pivoted_pages(run: Run, query: ScreenQuery | None, addresses: list[str], columns: tuple[str, ...]):
    queries = _pivot_queries(addresses, criteria.criteria_for(run.project, addresses), columns)

    def pages(id_pages: Callable[[], Iterator[list[int]]]) -> Iterator[list]:
        reader = PageReader(queries)
        for ids in id_pages():
            yield reader.rows(ids)

    id_pages = view_pages(run, query or ScreenQuery())
    if connection.vendor in READ_AHEAD_VENDORS and read_ahead.can_read_ahead():
        hands = read_ahead.dealt(id_pages, READ_AHEAD_READERS)
        yield from read_ahead.in_turns([functools.partial(pages, hand) for hand in hands], READ_AHEAD_PAGES)
    else:
        yield from pages(lambda: id_pages)


# --- rows and records -----------------------------------------------------------------------


def _record(row: tuple) -> dict:
    """The interaction's fields, as its JSON record has them."""
    record = dict(zip(FIELDS, row[1 : len(FIELD_COLUMNS)], strict=True))
    record["information_retrieval"] = _decoded(record["information_retrieval"], [])
    record["metadata"] = _decoded(record["metadata"], {})
    for name in _TIMES:
        record[name] = record[name].isoformat() if record[name] else None
    return record


def _span_record(row: tuple) -> dict:
    """The fields that spans mark (the texts and the documents), as _record has them: a CSV row
    needs no other, and decoding the metadata again cost a json.loads a row."""
    record = dict(zip(FIELDS, row[1 : len(FIELD_COLUMNS)], strict=True))
    record["information_retrieval"] = _decoded(record["information_retrieval"], [])
    record["metadata"] = None  # not a text: a span on it marks nothing, as on the decoded object
    return record


def _evidence(record: dict, spans: list) -> list[dict[str, Any]]:
    """The value's spans with the text each marks, as a list of plain records."""
    found = []
    for span in spans or []:
        field = str(span.get("field") or "output")
        start, end = span.get("start"), span.get("end")
        text = _field_text(record, field)
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


def _field_text(record: dict, field: str) -> str:
    if field.startswith("information_retrieval[") and field.endswith("]"):
        index = field[len("information_retrieval[") : -1]
        documents = record["information_retrieval"] or []
        return document_text(documents[int(index)]) if index.isdigit() and int(index) < len(documents) else ""
    # The record holds the times as text: spans mark the text fields only.
    text = record[field] if field in FIELDS and field not in _TIMES else ""
    return text if isinstance(text, str) else ""


def run_records(run: Run, query: ScreenQuery | None = None) -> Iterator[dict]:
    addresses = property_addresses(run, exhaustive=True)
    for rows in _pivoted_pages(run, query, addresses, JSON_COLUMNS):
        for row in rows:
            record = _record(row)
            properties = {}
            values = iter(row[len(FIELD_COLUMNS) :])
            for address, (status, number, label, error, verdict, spans, details) in zip(
                addresses, zip(*[values] * len(JSON_COLUMNS), strict=True), strict=True
            ):
                if status is None:  # no value for this property
                    continue
                properties[address] = {
                    "value": number,
                    "label": label,
                    "status": status,
                    "verdict": verdict,
                    "error": error,
                    "evidence": _evidence(record, _decoded(spans, [])) if spans else [],
                }
                if status == _NOT_APPLICABLE:
                    properties[address]["reason"] = criteria.reason_in(_decoded(details, {}))
            record["properties"] = properties
            yield record


def run_csv_header(addresses: list[str]) -> list[str]:
    return FIELDS + [
        column for address in addresses for column in (address, f"{address} verdict", f"{address} evidence")
    ]


# Stored JSON text that json.dumps writes back unchanged: ASCII (json.dumps escapes the rest, and
# DEL), and no decimal number (jsonb keeps a number's written digits, "1.50", where json.dumps
# writes the float's, "1.5"). jsonb's text and the uploads' (json.dumps, default separators) are
# otherwise written as json.dumps writes: ", " and ": ", the same escapes, the stored key order.
_NOT_AS_DUMPED = re.compile(r"[\x7f]|\d[.eE]")
# Up to this length the check is cheaper than decoding and encoding (0.7 against 2.7 us at 40
# characters, even at ~200, then dearer: the check reads every character in Python's regex engine).
_CHECKED_JSON_CHARS = 128


def _json_cell(text: str) -> str:
    """A JSON field's stored text as the CSV writes it (json.dumps of the decoded value): short
    text as it is where it is already that, as most metadata is."""
    if text in _EMPTY_JSON:
        return text
    if len(text) <= _CHECKED_JSON_CHARS and text.isascii() and not _NOT_AS_DUMPED.search(text):
        return text
    return json.dumps(json.loads(text))


def run_csv_rows(run: Run, query: ScreenQuery | None = None) -> Iterator[list]:
    """A row per interaction; per property its value, verdict and evidence (compact JSON). Cells
    that hold text a user wrote (fields, category labels) come neutralised (`neutralise_formula`):
    the others are numbers, verdicts, JSON and times, which no formula lead starts, and checking
    them was a third of the writing (`csv_stream(..., neutralised=True)`)."""
    addresses = property_addresses(run, exhaustive=True)
    yield [neutralise_formula(cell) for cell in run_csv_header(addresses)]
    documents, metadata = (FIELD_COLUMNS.index(text) for text in _AS_TEXT.values())
    started, finished = (FIELD_COLUMNS.index(name) for name in _TIMES)
    columns = _csv_columns()
    numbers_as_text = columns is not CSV_COLUMNS
    for rows in _pivoted_pages(run, query, addresses, columns):
        for row in rows:
            cells = [  # neutralise_formula, inline, as in csv_stream
                "'" + cell if type(cell) is str and cell.startswith(FORMULA_LEADS) else cell
                for cell in row[1 : len(FIELD_COLUMNS)]
            ]
            cells[documents - 1], cells[metadata - 1] = _json_cell(row[documents]), _json_cell(row[metadata])
            for index in (started, finished):
                cells[index - 1] = row[index] and row[index].isoformat()
            record = None
            values = iter(row[len(FIELD_COLUMNS) :])
            for text, number, verdict, spans, details in zip(values, values, values, values, values, strict=True):
                compact = None
                if spans is not None:
                    record = record or _span_record(row)
                    evidence = _evidence(record, json.loads(spans))
                    compact = compact_json(evidence) if evidence else None
                if details is not None:
                    cells += (f"n/a: {criteria.reason_in(_decoded(details, {}))}", verdict, compact)
                elif text is not None:
                    cells += ("'" + text if text.startswith(FORMULA_LEADS) else text, verdict, compact)
                elif numbers_as_text and number and ("." not in number or "e" in number):
                    cells += (float(number), verdict, compact)  # a text unlike repr (_csv_columns)
                else:
                    cells += (number, verdict, compact)
            yield cells


def _plain(value: PropertyValue | None) -> float | str | None:
    """A value as one cell: its category or number, or why there is none."""
    if value is None:
        return None
    if value.status == PropertyValue.Status.ERROR:
        return f"error: {value.error}"
    if value.status == PropertyValue.Status.NOT_APPLICABLE:
        return f"n/a: {criteria.not_applicable_reason(value)}"
    return value.label or value.value


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


# What makes csv.writer quote a cell (its default dialect, "excel", quotes as little as it can).
_NEEDS_QUOTES = re.compile(r'[",\r\n]').search


def csv_line(row: list) -> str:
    """The row as csv.writer's default dialect writes it, byte for byte: cells joined by commas, a
    cell with a comma, a quote or a line break quoted (its quotes doubled), None as nothing, other
    values as str(), and CRLF. Twice as fast as the writer: it spent ~19 us on a row of 59 cells and
    1.1 KB, scanning every character of every cell in its state machine; this scans each text cell
    with one regular expression and joins them (tests/unit/screen/test_export_csv.py compares the two)."""
    if len(row) == 1 and row[0] in ("", None):
        return '""\r\n'  # as the writer: a line with nothing on it would read as no row at all
    return (
        ",".join(
            [
                ('"' + cell.replace('"', '""') + '"' if _NEEDS_QUOTES(cell) else cell)
                if isinstance(cell, str)
                else ""
                if cell is None
                else str(cell)
                for cell in row
            ]
        )
        + "\r\n"
    )


def csv_stream(rows: Iterable[list], neutralised: bool = False) -> Iterator[str]:
    """The rows as CSV text in chunks; each text cell goes through `neutralise_formula` unless the
    rows come `neutralised` already."""
    lines: list[str] = []
    size = 0
    for row in rows:
        if not neutralised:
            # neutralise_formula, inline: it is called for every cell of every row.
            row = ["'" + cell if type(cell) is str and cell.startswith(FORMULA_LEADS) else cell for cell in row]
        line = csv_line(row)
        lines.append(line)
        size += len(line)
        if size >= STREAM_CHUNK_CHARS:
            yield "".join(lines)
            lines, size = [], 0
    if lines:
        yield "".join(lines)


def compact_json(value: Any) -> str:
    """Compact JSON, as exports write it (a JSON export's records, a CSV's evidence cells), by orjson:
    the json module's encoder took ~33 us for a record of 15 values (2.6 KB), orjson ~3. Values JSON
    has no number for (NaN, infinities) are null (the json module wrote NaN, which JSON.parse and
    strict readers refuse), and a value of a type JSON lacks is written as its str(). A value orjson refuses, such as
    metadata holding an integer past 64 bits, is written by the json module. Decoding stays with the
    json module: orjson reads such an integer as a float."""
    try:
        return orjson.dumps(value, default=str).decode()
    except orjson.JSONEncodeError:
        return _FALLBACK_JSON(value)


def json_stream(records: Iterable[dict]) -> Iterator[str]:
    parts, size = ["["], 1
    for i, record in enumerate(records):
        part = ("," if i else "") + "\n" + compact_json(record)
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
