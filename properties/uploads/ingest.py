"""Streaming upload parser: CSV, JSONL, JSON and Parquet files into a run's interactions.

One code path serves the browser upload page, the REST API and the CLI. A file is read one row
at a time and written BATCH_SIZE rows per transaction, so memory stays flat whatever its size.
Recognising a file's format and reading its records is properties.uploads.file_formats; this module maps
the records to interactions, validates them and stores them.

Bad input never aborts an upload: a bad row is rejected with a RowError and the others are kept.
Only a problem with the whole file (too large, empty, not what its extension says, over 1,000
columns, a JSON array cut off before its end, an unreadable Parquet file) is `fatal`; rows stored
before it stay stored. Hostile JSON (deep nesting, huge numbers) is read by properties.uploads.json_reading.

Line numbers in row errors (`RowError.line`):
  CSV, JSONL  the 1-based physical line where the row starts in the file; the CSV header is
              line 1 and blank lines count, so the number matches what an editor shows.
  JSON        the 1-based position of the object in the top-level array ("item N"); a parser
              that streams an array does not know physical lines.
  Parquet     the 1-based row number.
A file-level problem has line None. `field` is the interaction field (`output`,
`metadata.<column>` for an unmapped column) or "" when the problem is the whole row.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import itertools
import json
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from decimal import Decimal
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.core.files import File
from django.db import DataError, IntegrityError, reset_queries, transaction
from django.db.models import Exists, Max, OuterRef, Q
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from properties.models import Annotation, Interaction, Project, Run, Upload, input_hash
from properties.uploads import inserts, json_reading
from properties.uploads.file_formats import (
    BAD_TEXT,
    CutShort,
    IngestError,
    Item,
    RowError,
    check_size,
    detect_format,
    displayable,
    file_size,
    first_line,
    has_bad_text,
    json_record,
    open_records,
    read_head,
)
from properties.uploads.inserts import InteractionRow, dump_json

# Rows per transaction. bench/ingest.py, 20k JSONL rows of ~1.5 KB through COPY / executemany
# (properties.uploads.inserts), batches of 1000 / 5000 / 20000: the worker's CPU time is flat
# (SQLite 3.4 / 3.6 / 3.3 s, PostgreSQL 2.5 / 2.8 / 2.6 s) while its peak memory above idle grows
# (SQLite 2 / 15 / 86 MB, PostgreSQL 1 / 13 / 62 MB). 1000 keeps memory low and holds SQLite's
# write lock for a few tens of milliseconds at a time, short for the web server and the workers.
BATCH_SIZE = 1000
# Ids per duplicate-check query: under SQLite's historical limit of 999 parameters.
ID_QUERY_CHUNK = 900
# Errors kept in detail; the rest are only counted in `rejected`, so that a file of a million
# bad rows does not hold a million errors in memory and in Upload.row_errors.
MAX_REPORTED_ERRORS = 10_000
# A preview reads at most this many rows looking for good ones, so a bad file is not read whole.
PREVIEW_SCAN_ROWS = 1000

FIELDS = (
    "user_interaction_id",
    "input",
    "information_retrieval",
    "full_prompt",
    "history",
    "output",
    "expected_output",
    "annotation",
    "metadata",
    "started_at",
    "finished_at",
)
TEXT_FIELDS = ("input", "full_prompt", "history", "output", "expected_output")
RETRIEVAL = "information_retrieval"

AUTO_MAPPING_NAMES: dict[str, list[str]] = {
    "user_interaction_id": ["user_interaction_id", "interaction_id", "id"],
    "input": ["input", "question", "prompt", "query", "user_input"],
    "information_retrieval": [
        "information_retrieval",
        "context",
        "contexts",
        "documents",
        "retrieved_documents",
        "retrieval",
    ],
    "full_prompt": ["full_prompt"],
    "history": ["history", "chat_history"],
    "output": ["output", "answer", "response", "completion", "model_output", "generation"],
    "expected_output": ["expected_output", "reference", "target", "ground_truth", "expected", "reference_output"],
    "annotation": ["annotation", "label"],
    "metadata": ["metadata"],
    "started_at": ["started_at", "start_time"],
    "finished_at": ["finished_at", "end_time"],
}
# context_1, doc2, chunk_3 ...: numbered retrieval columns become several documents.
_NUMBERED_DOCUMENT = re.compile(r"(context|document|doc|chunk|passage|retrieved_document)s?_?\d+")

_GOOD, _BAD, _UNKNOWN = Annotation.GOOD.value, Annotation.BAD.value, Annotation.UNKNOWN.value
_ANNOTATION_WORDS = {
    **dict.fromkeys(["good", "1", "1.0", "+1", "true", "yes", "y", "pass", "passed", "positive"], _GOOD),
    **dict.fromkeys(["thumbs up", "thumbsup", "up", "👍"], _GOOD),
    **dict.fromkeys(["bad", "0", "0.0", "-1", "false", "no", "n", "fail", "failed", "negative"], _BAD),
    **dict.fromkeys(["thumbs down", "thumbsdown", "down", "👎"], _BAD),
    **dict.fromkeys(["unknown", "", "none", "null", "n/a", "na", "?"], _UNKNOWN),
}


@dataclass
class FilePreview:
    file_format: str = ""
    columns: list[str] = field(default_factory=list)
    sample_rows: list[dict] = field(default_factory=list)
    suggested_mapping: dict[str, str | list[str]] = field(default_factory=dict)
    error: str | None = None
    # A file cut short after some rows: they can be stored, and the page says so before the import.
    warning: str = ""


@dataclass
class IngestResult:
    accepted: int = 0
    rejected: int = 0
    # The first MAX_REPORTED_ERRORS rejected rows, by line; `rejected` counts them all.
    errors: list[RowError] = field(default_factory=list)
    fatal: str | None = None
    file_format: str = ""
    # The mapping used: the one given, else the suggested one (for JSON and JSONL, the first row's).
    column_mapping: dict[str, str | list[str]] = field(default_factory=dict)
    # Why the rows stored were not scored (the project's open jobs at the operator's limit).
    scoring_refused: str = ""
    # Resuming an interrupted import: the lines up to this one were handled (and counted) before.
    skip_through: int = 0

    def reject(self, error: RowError) -> None:
        if error.line is not None and error.line <= self.skip_through:
            return
        self.rejected += 1
        if len(self.errors) < MAX_REPORTED_ERRORS:
            # Field names and reasons may quote uploaded text: keep them storable as JSON.
            self.errors.append(RowError(error.line, displayable(error.field), displayable(error.reason)))

    def error_dicts(self) -> list[dict[str, Any]]:
        """The shape of Upload.row_errors: the file-level problem first, with line None."""
        rows = [error.to_dict() for error in self.errors]
        if self.fatal:
            rows.insert(0, RowError(None, "", self.fatal).to_dict())
        return rows


class _Rejected(Exception):
    def __init__(self, field_name: str, reason: str) -> None:
        super().__init__(reason)
        self.field = field_name
        self.reason = reason


# --- column mapping ---------------------------------------------------------------------------


def _normalise(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def suggest_mapping(columns: list[str]) -> dict[str, str | list[str]]:
    """Interaction field -> column for the usual column names (case-insensitive).

    information_retrieval gets every matching column (a list when there are several), so that
    context_1, context_2 ... become several documents.
    """
    by_name: dict[str, str] = {}
    for column in columns:
        by_name.setdefault(_normalise(column), column)
    mapping: dict[str, str | list[str]] = {}
    used: set[str] = set()
    for field_name, names in AUTO_MAPPING_NAMES.items():
        if field_name == RETRIEVAL:
            continue
        column = next((by_name[name] for name in names if by_name.get(name, "") not in ("", *used)), None)
        if column is not None:
            mapping[field_name] = column
            used.add(column)
    retrieval = [column for column in columns if column not in used and _is_retrieval_column(column)]
    if retrieval:
        mapping[RETRIEVAL] = retrieval[0] if len(retrieval) == 1 else retrieval
    return mapping


def _is_retrieval_column(column: str) -> bool:
    name = _normalise(column)
    return name in AUTO_MAPPING_NAMES[RETRIEVAL] or _NUMBERED_DOCUMENT.fullmatch(name) is not None


@dataclass
class _Mapping:
    columns: dict[str, str]  # field -> column, for every field but information_retrieval
    retrieval: tuple[str, ...]

    @classmethod
    def from_dict(cls, mapping: dict[str, Any]) -> _Mapping:
        columns: dict[str, str] = {}
        retrieval: tuple[str, ...] = ()
        for field_name, value in mapping.items():
            if field_name not in FIELDS:
                raise IngestError(f"unknown interaction field {field_name!r} in the column mapping")
            if field_name == RETRIEVAL:
                retrieval = _retrieval_columns(value)
            elif isinstance(value, str):
                if value:  # "" is how a form says "not in the file"
                    columns[field_name] = value
            else:
                raise IngestError(f"{field_name} takes one column name in the column mapping, not {value!r}")
        return cls(columns, retrieval)

    @functools.cached_property
    def mapped(self) -> frozenset[str]:
        return frozenset(self.columns.values()) | frozenset(self.retrieval)

    @functools.cached_property
    def text_columns(self) -> tuple[tuple[str, str | None], ...]:
        """(field, column or None) for each of TEXT_FIELDS, in their order."""
        return tuple((name, self.columns.get(name)) for name in TEXT_FIELDS)

    @functools.cached_property
    def metadata_column(self) -> str | None:
        # A column named "metadata" holding a JSON object is merged even when not mapped.
        return self.columns.get("metadata") or (None if "metadata" in self.mapped else "metadata")

    def value(self, values: dict[str, Any], field_name: str) -> Any:
        column = self.columns.get(field_name)
        return None if column is None else values.get(column)

    def as_dict(self) -> dict[str, str | list[str]]:
        mapping: dict[str, str | list[str]] = dict(self.columns)
        if self.retrieval:
            mapping[RETRIEVAL] = self.retrieval[0] if len(self.retrieval) == 1 else list(self.retrieval)
        return mapping

    def require_output(self) -> None:
        if "output" not in self.columns:
            usual = ", ".join(AUTO_MAPPING_NAMES["output"])
            raise IngestError(f"no column is mapped to output (the required answer); name it one of: {usual}")

    def check_columns(self, available: list[str]) -> None:
        missing = sorted(self.mapped - set(available))
        if missing:
            raise IngestError(f"the column mapping names columns the file does not have: {', '.join(missing)}")
        self.require_output()


def _retrieval_columns(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,) if value else ()
    if isinstance(value, list | tuple) and all(isinstance(column, str) for column in value):
        return tuple(column for column in value if column)
    raise IngestError(f"information_retrieval takes a column name or a list of column names, not {value!r}")


@functools.lru_cache(maxsize=256)
def _auto_mapping(columns: tuple[str, ...]) -> _Mapping:
    # Cached: JSON and JSONL rows are mapped one by one, and nearly all share the same keys.
    return _Mapping.from_dict(suggest_mapping(list(columns)))


class _MappingResolver:
    """The given mapping for every row, or the suggested one for each row's set of columns."""

    def __init__(self, column_mapping: dict[str, Any] | None) -> None:
        self.fixed = _Mapping.from_dict(column_mapping) if column_mapping else None

    def for_columns(self, columns: tuple[str, ...]) -> _Mapping:
        return self.fixed or _auto_mapping(columns)


# --- building interactions --------------------------------------------------------------------


def _bad_text_reason(text: str) -> str | None:
    match = BAD_TEXT.search(text)
    if match is None:
        return None
    if match.group() == "\x00":
        return "contains a NUL character"
    return json_reading.MARKER_REASONS.get(match.group(), "not valid UTF-8")


def _shown(value: Any) -> str:
    text = str(value)
    return repr(text if len(text) <= 40 else text[:40] + "...")


# Scalars stored as they are (what _json_scalar returns unchanged), told apart by exact type.
_PLAIN_JSON = frozenset({int, bool, type(None)})


def _json_scalar(value: Any) -> Any:
    """A JSON-storable value; NaN and infinities (JSON has none, PostgreSQL refuses them) become null."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float | Decimal):
        number = float(value)
        return number if math.isfinite(number) else None
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return str(value)


def _to_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, ensure_ascii=False, default=str)
    scalar = _json_scalar(value)
    return "" if scalar is None else str(scalar)


def _annotation(value: Any) -> str:
    if isinstance(value, bool):
        return _GOOD if value else _BAD
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return _UNKNOWN
    key = str(value).strip().lower()
    found = _ANNOTATION_WORDS.get(key) or _ANNOTATION_WORDS.get(re.sub(r"[\s_-]+", " ", key))
    if found is None:
        raise _Rejected(
            "annotation", f"must be good, bad or unknown (or 1/0, true/false, thumbs up/down), not {_shown(value)}"
        )
    return found


def _timestamp(value: Any, field_name: str) -> datetime | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    moment = _to_datetime(value)
    if moment is None:
        raise _Rejected(field_name, f"not a date and time (ISO 8601, e.g. 2024-05-01T12:00:00Z): {_shown(value)}")
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment, UTC)


def _to_datetime(value: Any) -> datetime | None:
    if type(value) is str:
        # ISO 8601 as files write it: parse_datetime's own first try, without the steps around it.
        with contextlib.suppress(ValueError):
            return datetime.fromisoformat(value)
    try:
        if isinstance(value, datetime):
            return value
        if isinstance(value, date):
            return datetime(value.year, value.month, value.day)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return _from_epoch(float(value))
        text = str(value).strip()
        moment = parse_datetime(text)
        if moment is None and (day := parse_date(text)) is not None:
            moment = datetime(day.year, day.month, day.day)
        return moment if moment is not None else _from_epoch(float(text))
    except (ValueError, OverflowError, OSError):
        return None


def _from_epoch(seconds: float) -> datetime:
    # Seconds since 1970, or milliseconds when the number is too large to be seconds.
    return datetime.fromtimestamp(seconds / 1000 if abs(seconds) > 1e11 else seconds, tz=UTC)


def line_id(line: int) -> str:
    """The id of a row that has none, when nothing else names it (the CLI): its line."""
    return f"r{line}"


class _RowBuilder:
    """Turns one record (column -> value) into an InteractionRow, or raises _Rejected.

    A row without an id gets `row_id(line)`: stable (the same file row gets the same id) and short,
    so that it reads in full in the table and a second upload of the row can be recognised.
    """

    def __init__(self, run: Run | None, row_id: Callable[[int], str] = line_id) -> None:
        # No run: the CLI validates rows without a database, and never saves them.
        self.run_id = run.pk if run is not None else None
        self.row_id = row_id
        self.max_chars = settings.EVALSITE_FIELD_MAX_CHARS

    def build(self, values: dict[str, Any], columns: tuple[Any, ...], mapping: _Mapping, line: int) -> InteractionRow:
        """`columns` is the record's keys, `tuple(values)`, which the caller looked its mapping up by."""
        # A JSON row's own keys name its fields: one that is not text would otherwise read as a
        # field missing (no "output") or as a column of its own, and be reported under that name.
        misnamed = _misnamed_key(columns)
        if misnamed is not None:
            raise _Rejected(displayable(misnamed), "the name of this field is not valid UTF-8")
        input_text, full_prompt, history, output, expected_output = [
            self._text(values.get(column) if column is not None else None, name)
            for name, column in mapping.text_columns
        ]
        if not output.strip():
            raise _Rejected("output", "required, but missing or empty")
        return InteractionRow(
            run_id=self.run_id,
            user_interaction_id=self._interaction_id(mapping.value(values, "user_interaction_id"), line),
            input=input_text,
            information_retrieval=dump_json(self._documents(values, mapping.retrieval)),
            full_prompt=full_prompt,
            history=history,
            output=output,
            expected_output=expected_output,
            annotation=_annotation(mapping.value(values, "annotation")),
            annotation_reason="",
            annotation_source="",
            estimated_annotation="",
            metadata=self._metadata(values, mapping),
            input_hash=input_hash(input_text),
            started_at=_timestamp(mapping.value(values, "started_at"), "started_at"),
            finished_at=_timestamp(mapping.value(values, "finished_at"), "finished_at"),
        )

    def _checked(self, text: str, field_name: str) -> str:
        if len(text) > self.max_chars:
            raise _Rejected(field_name, f"longer than {self.max_chars} characters ({len(text)})")
        if has_bad_text(text):  # called ~10 times a row: the reason only when needed
            raise _Rejected(field_name, _bad_text_reason(text) or "")
        return text

    def _text(self, value: Any, field_name: str) -> str:
        return self._checked(value if type(value) is str else _to_text(value), field_name)

    def _interaction_id(self, value: Any, line: int) -> str:
        text = self._text(value, "user_interaction_id").strip()
        if len(text) > 255:
            raise _Rejected("user_interaction_id", f"longer than 255 characters ({len(text)})")
        return text or self.row_id(line)

    def _documents(self, values: dict[str, Any], columns: tuple[str, ...]) -> list[str]:
        documents = [document for column in columns for document in _split_documents(values.get(column))]
        return [self._checked(document, RETRIEVAL) for document in documents if document]

    def _metadata(self, values: dict[str, Any], mapping: _Mapping) -> str:
        """The JSON text of the metadata column's object with every unmapped column added.

        Most metadata is plain JSON with clean text: serialised once, and its text checked at once
        (see _clean_json). Otherwise it is walked, which converts what JSON lacks (dates, bytes,
        NaN) and rejects the row naming the field that holds the bad text.
        """
        column = mapping.metadata_column
        value = _metadata_value(values[column]) if column in values else None
        own = value if isinstance(value, dict) else {}
        mapped = mapping.mapped
        extras = {key: extra for key, extra in values.items() if key not in mapped and key != column and key not in own}
        text = self._clean_json({**_metadata_object(value, column), **extras})
        if text is not None:
            return text
        metadata = self._checked_metadata_object(value, column)
        for key, extra in extras.items():
            name = f"metadata.{key}"
            metadata[self._checked(str(key), name)] = self._json(extra, name)
        return dump_json(metadata)

    def _clean_json(self, value: dict[str, Any]) -> str | None:
        """The value's JSON text when walking it would store the same and find nothing; else None.

        The text holds every key and string of the value as it is (dump_json escapes only control
        characters, NUL as `\\u0000`), so a character BAD_TEXT finds in a string is in the text, and a
        string longer than a field makes a text longer than that. A value nested past the cap holds
        more brackets than the cap. A text that may hold a problem is left to the walk.
        """
        try:
            text = dump_json(value)
        except (TypeError, ValueError, RecursionError):  # not plain JSON: a date, bytes, NaN...
            return None
        if (
            len(text) > self.max_chars
            or has_bad_text(text)
            or "\\u0000" in text
            or text.count("[") + text.count("{") > json_reading.MAX_NESTING
        ):
            return None
        return text

    def _checked_metadata_object(self, value: Any, column: str | None) -> dict[str, Any]:
        if isinstance(value, dict):
            return self._json(value, "metadata")
        if value is None or value == "":
            return {}
        return {str(column): self._json(value, "metadata")}

    def _json(self, value: Any, field_name: str, depth: int = 0) -> Any:
        """The value as stored JSON, every string in it checked like a field, nesting capped."""
        if isinstance(value, str):
            return self._checked(value, field_name)
        if isinstance(value, dict | list | tuple) and depth >= json_reading.MAX_NESTING:
            raise _Rejected(field_name, json_reading.MARKER_REASONS[json_reading.TOO_DEEP])
        if isinstance(value, dict):
            return {self._checked(str(k), field_name): self._json_item(v, field_name, depth) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self._json_item(item, field_name, depth) for item in value]
        return _json_scalar(value)

    def _json_item(self, value: Any, field_name: str, depth: int) -> Any:
        # Most metadata is strings and plain numbers: checked here, without a level of _json each.
        kind = type(value)
        if kind is str:
            return self._checked(value, field_name)
        if kind in _PLAIN_JSON:
            return value
        return self._json(value, field_name, depth + 1)


@functools.lru_cache(maxsize=256)
def _misnamed_key(columns: tuple[Any, ...]) -> str | None:
    """The first key that is not valid text; cached, as _auto_mapping is, per set of keys."""
    return next((key for key in columns if isinstance(key, str) and BAD_TEXT.search(key)), None)


def _metadata_value(value: Any) -> Any:
    """The metadata column's value: a JSON object written as text is read."""
    if not isinstance(value, str) or not value.lstrip().startswith("{"):
        return value
    try:
        return json_reading.loads(value)
    except ValueError:
        return value  # not JSON after all: stored as text under the column's name


def _metadata_object(value: Any, column: str | None) -> dict[str, Any]:
    """The metadata column's value as an object, unchecked: anything else is kept under the column's name."""
    if isinstance(value, dict):
        return value
    if value is None or value == "":
        return {}
    return {str(column): value}


def _split_documents(cell: Any) -> list[str]:
    """Documents from one cell: a real list, a JSON array in a string, or one document."""
    if cell is None:
        return []
    if isinstance(cell, list | tuple):
        return [_to_text(item) for item in cell if item is not None]
    if not isinstance(cell, str):
        text = _to_text(cell)
        return [text] if text else []
    if not cell.strip():
        return []
    if cell.lstrip().startswith("["):
        try:
            parsed = json_reading.loads(cell)
        except ValueError:
            return [cell]  # "[1] Paris is ..." is a document that happens to start with a bracket
        if isinstance(parsed, list):
            return [_to_text(item) for item in parsed if item is not None]
    return [cell]


# --- writing ----------------------------------------------------------------------------------


class LimitReached(IngestError):
    """An operator's limit on rows: reading stops at this row, the rows before it are stored."""


@dataclass(frozen=True)
class RowLimits:
    """The operator's limits on the rows one upload (or API batch) may store into a project."""

    per_upload: int
    project_room: int
    project_name: str
    project_limit: int
    stored: int

    @classmethod
    def for_run(cls, run: Run) -> RowLimits:
        limit = settings.EVALSITE_PROJECT_MAX_INTERACTIONS
        stored = Interaction.objects.filter(run__project_id=run.project_id).count()
        name = Run.objects.filter(pk=run.pk).values_list("project__name", flat=True).first() or ""
        return cls(settings.EVALSITE_UPLOAD_MAX_ROWS, max(0, limit - stored), name, limit, stored)

    def check(self, line: int, taken: int) -> None:
        """Raise for the row that would be the `taken`-th this upload stores, if it is one too many."""
        if taken > self.per_upload:
            raise LimitReached(
                f"line {line} is past the limit of {self.per_upload:,} rows per upload "
                "(EVALSITE_UPLOAD_MAX_ROWS, set by the server's operator)"
            )
        if taken > self.project_room:
            raise LimitReached(
                f"line {line} would take project {self.project_name!r} past its limit of "
                f"{self.project_limit:,} interactions (EVALSITE_PROJECT_MAX_INTERACTIONS, set by the server's "
                f"operator); it held {self.stored:,} before this upload"
            )


class _BatchWriter:
    """Writes accepted interactions BATCH_SIZE at a time, one transaction per batch.

    A batch is committed on its own so that a long upload never holds SQLite's write lock for
    long, and what was stored survives a problem later in the file. Duplicate ids are caught in
    memory within a batch; against the run (earlier batches of the same file included) the unique
    (run, id) constraint refuses a batch that repeats a stored id, and only such a batch is then
    checked by a query that names each repeated row: memory stays flat. A query for every batch
    cost more than the insert: PostgreSQL planned it for a run its statistics had not seen yet as
    a run of one row, on the run's label index (interaction_run_score), and so read every stored
    row of the run for each batch (164 ms a batch at 200,000 rows). Existing rows are never
    updated or deleted.
    """

    def __init__(
        self, run: Run, result: IngestResult, on_flush: Callable[[int, IngestResult], None] | None = None
    ) -> None:
        self.run = run
        self.result = result
        # Called in each batch's transaction with the batch's last line: progress is committed
        # with the rows, so an import that dies can resume exactly where its last batch ended.
        self.on_flush = on_flush
        self.last_line = 0
        self.pending: dict[str, tuple[int, InteractionRow]] = {}
        self.limits = RowLimits.for_run(run)
        self.taken = 0
        # Rows above this pk were stored after the upload began: "an earlier row of this file".
        self.last_pk_before = Interaction.objects.filter(run=run).aggregate(last=Max("pk"))["last"] or 0

    def add(self, line: int, row: InteractionRow) -> None:
        self.last_line = line
        self.taken += 1
        self.limits.check(line, self.taken)
        uid = row.user_interaction_id
        earlier = self.pending.get(uid)
        if earlier is not None:
            reason = f"the same as line {earlier[0]} of this file ({_shown(uid)})"
            self.result.reject(RowError(line, "user_interaction_id", reason))
            return
        self.pending[uid] = (line, row)
        if len(self.pending) >= BATCH_SIZE:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        rows, self.pending = self.pending, {}
        with transaction.atomic():
            if not self._inserted(rows):
                self._drop_stored(rows)
                if not self._inserted(rows):
                    self._create_one_by_one(rows)
            if self.on_flush is not None:
                self.on_flush(self.last_line, self.result)
        if settings.DEBUG:
            reset_queries()  # DEBUG keeps every query's SQL: a large upload would grow without bound

    def _inserted(self, rows: dict[str, tuple[int, InteractionRow]]) -> bool:
        """Insert the batch in a savepoint, so that a refused batch leaves the transaction usable."""
        if not rows:
            return True
        try:
            with transaction.atomic():
                inserts.insert_rows([row for _, row in rows.values()])
        except (IntegrityError, DataError):
            return False
        self.result.accepted += len(rows)
        return True

    def _drop_stored(self, rows: dict[str, tuple[int, InteractionRow]]) -> None:
        ids = list(rows)
        for start in range(0, len(ids), ID_QUERY_CHUNK):
            for uid, pk in inserts.stored_ids(self.run.pk, ids[start : start + ID_QUERY_CHUNK]):
                line, _ = rows.pop(uid)
                where = "an earlier row of this file" if pk > self.last_pk_before else "a row already in this run"
                self.result.reject(RowError(line, "user_interaction_id", f"the same as {where} ({_shown(uid)})"))

    def _create_one_by_one(self, rows: dict[str, tuple[int, InteractionRow]]) -> None:
        # Only after the checked batch failed too: a bad value, or a concurrent upload stored the
        # same id in between.
        for line, row in rows.values():
            try:
                with transaction.atomic():
                    inserts.insert_rows([row])
                self.result.accepted += 1
            except (IntegrityError, DataError) as exc:
                self.result.reject(RowError(line, "", f"could not be stored: {first_line(exc)}"))


# --- entry points -----------------------------------------------------------------------------


def preview_file(fileobj: IO[bytes], name: str, max_rows: int = 5) -> FilePreview:
    """Columns, the first rows and a suggested mapping. A bad file sets `error`; nothing raises."""
    preview = FilePreview()
    try:
        check_size(file_size(fileobj))
        head = read_head(fileobj)
        preview.file_format = detect_format(name, head)
        with open_records(fileobj, preview.file_format, head, BATCH_SIZE) as (columns, items):
            rows, seen, cut_short = _first_rows(items, max_rows)
        if cut_short and not rows:
            raise IngestError(f"{cut_short}, before any row that can be stored")
        if cut_short:
            preview.warning = f"{cut_short}: the rows before the break will be stored, and none after it."
        if not seen:
            raise IngestError("the file contains no interactions")
        preview.columns = columns if columns is not None else _keys_in_order(rows)
        preview.sample_rows = [_for_display(row) for row in rows]
        preview.suggested_mapping = suggest_mapping(preview.columns)
    except IngestError as exc:
        preview.error = str(exc)
    finally:
        fileobj.seek(0)
    return preview


def _first_rows(items: Iterator[Item], max_rows: int) -> tuple[list[dict[str, Any]], int, str]:
    """The first good rows, how many rows (good or bad) were read to find them, and why the file
    ends early when it is cut short among them."""
    rows, seen = [], 0
    try:
        for item in itertools.islice(items, PREVIEW_SCAN_ROWS):
            seen += 1
            if not isinstance(item, RowError):
                rows.append(item[1])
            if len(rows) >= max_rows:
                break
    except CutShort as exc:
        return rows, seen, str(exc)
    return rows, seen, ""


def _keys_in_order(rows: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(key for row in rows for key in row))


def _for_display(value: Any) -> Any:
    """Sample values safe to render and to store as JSON (invalid text shown as U+FFFD)."""
    if isinstance(value, str):
        return displayable(value)
    if isinstance(value, dict):
        return {displayable(str(k)): _for_display(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_for_display(item) for item in value]
    return _json_scalar(value)


def ingest_file(
    fileobj: IO[bytes],
    name: str,
    run: Run,
    column_mapping: dict[str, str | list[str]] | None = None,
    row_id: Callable[[int], str] = line_id,
    result: IngestResult | None = None,
    on_flush: Callable[[int, IngestResult], None] | None = None,
) -> IngestResult:
    """Parse, validate and insert a file's rows into `run`; `name` gives the format.

    `fileobj` is a seekable binary file. Without a mapping, the suggested one is used. A row
    without an id gets `row_id(line)`. A `result` carried over from an interrupted import holds its
    counts, and the lines up to its `skip_through` are read past without being stored again.
    """
    result = result or IngestResult()
    writer = _BatchWriter(run, result, on_flush)
    try:
        for line, row in read_rows(fileobj, name, result, column_mapping, run, row_id):
            if line <= result.skip_through:
                continue
            writer.add(line, row)
    except LimitReached as exc:
        result.fatal = str(exc)
    writer.flush()  # the rows read before a fatal problem are good: keep them
    _finish(result)
    return result


def ingest_records(
    records: Iterable[Any], run: Run, column_mapping: dict[str, str | list[str]] | None = None
) -> IngestResult:
    """Validate and insert rows given as dicts (a REST API batch), exactly as a file's rows are.

    A row error's `line` is the row's 1-based position in `records`. Rows without an id are named
    after the batch (numbered per run) and their position: `b3-r17`.
    """
    result = IngestResult(file_format="records")
    writer = _BatchWriter(run, result)
    batch = run.next_api_batch()
    try:
        resolver = _MappingResolver(column_mapping)
        if resolver.fixed is not None:
            resolver.fixed.require_output()
        # The same limits as a file's rows: an object, at most MAX_COLUMNS keys.
        items = (json_record(index, record) for index, record in enumerate(records, start=1))
        builder = _RowBuilder(run, lambda line: f"b{batch}-r{line}")
        for line, row in _build_items(items, resolver, builder, result):
            writer.add(line, row)
    except IngestError as exc:  # LimitReached included: the rows before it are stored
        result.fatal = str(exc)
    writer.flush()
    _finish(result)
    return result


def read_interactions(
    fileobj: IO[bytes], name: str, result: IngestResult, column_mapping: dict[str, str | list[str]] | None = None
) -> Iterator[tuple[int, Interaction]]:
    """(line, unsaved Interaction) for each valid row, as read_rows reads them. Needs no database:
    the CLI scores files with it."""
    for line, row in read_rows(fileobj, name, result, column_mapping):
        yield line, row.to_interaction()


def read_rows(
    fileobj: IO[bytes],
    name: str,
    result: IngestResult,
    column_mapping: dict[str, str | list[str]] | None = None,
    run: Run | None = None,
    row_id: Callable[[int], str] = line_id,
) -> Iterator[tuple[int, InteractionRow]]:
    """(line, new row) for each valid row; rejected rows and a fatal problem go to `result`.

    `run` only sets the rows' run id.
    """
    try:
        check_size(file_size(fileobj))  # before reading a byte of content
        head = read_head(fileobj)
        result.file_format = detect_format(name, head)
        resolver = _MappingResolver(column_mapping)
        with open_records(fileobj, result.file_format, head, BATCH_SIZE) as (columns, items):
            _prepare_mapping(resolver, columns, result)
            yield from _build_items(items, resolver, _RowBuilder(run, row_id), result)
    except IngestError as exc:
        result.fatal = str(exc)


def _finish(result: IngestResult) -> None:
    if result.fatal is None and result.accepted + result.rejected == 0:
        result.fatal = "the file contains no interactions"
    result.errors.sort(key=lambda error: error.line or 0)


def _prepare_mapping(resolver: _MappingResolver, columns: list[str] | None, result: IngestResult) -> None:
    """Refuse a mapping that cannot work, before any row is read."""
    if columns is not None:
        mapping = resolver.for_columns(tuple(columns))
        mapping.check_columns(columns)
        result.column_mapping = mapping.as_dict()
    elif resolver.fixed is not None:
        resolver.fixed.require_output()
        result.column_mapping = resolver.fixed.as_dict()


def _build_items(
    items: Iterator[Item], resolver: _MappingResolver, builder: _RowBuilder, result: IngestResult
) -> Iterator[tuple[int, InteractionRow]]:
    for item in items:
        if isinstance(item, RowError):
            result.reject(item)
            continue
        line, values = item
        columns = tuple(values)
        mapping = resolver.for_columns(columns)
        if not result.column_mapping:
            result.column_mapping = mapping.as_dict()
        try:
            row = builder.build(values, columns, mapping, line)
        except _Rejected as exc:
            result.reject(RowError(line, exc.field, exc.reason))
            continue
        yield line, row


def ingest_upload(
    upload: Upload,
    column_mapping: dict[str, str | list[str]] | None = None,
    start_scoring: bool = False,
    resume: bool = False,
) -> IngestResult:
    """Ingest a stored upload into its run and record the outcome on the Upload row.

    The run named by the upload is created here, and deleted again when no row was stored, so that
    a file refused whole leaves no empty run. While rows are stored the upload is *importing*, its
    counts and the last line handled committed with each batch; a process that dies leaves it
    interrupted with the rows stored so far, and `resume=True` reads on from the next line, so
    that every row is stored once. With `start_scoring`, the outcome and a scoring job for the new
    rows are stored in one transaction; a worker plans the job.
    """
    run, created = upload.run, False
    if run is None:
        run, created = Run.objects.get_or_create(
            project=upload.project, name=upload.run_name, defaults={"environment": upload.environment}
        )
    result = IngestResult()
    if resume:
        column_mapping = upload.column_mapping or column_mapping
        result.accepted, result.rejected, result.skip_through = upload.accepted, upload.rejected, upload.lines_done
        result.errors = [RowError(e["line"], e["field"], e["reason"]) for e in upload.row_problems]
    upload.run, upload.status, upload.progress_at = run, Upload.Status.IMPORTING, timezone.now()
    if column_mapping is not None:
        upload.column_mapping = column_mapping
    upload.save(update_fields=["run", "status", "progress_at", "column_mapping"])

    def record_progress(line: int, progress: IngestResult) -> None:
        Upload.objects.filter(pk=upload.pk).update(
            lines_done=line,
            progress_at=timezone.now(),
            accepted=progress.accepted,
            rejected=progress.rejected,
            row_errors=[error.to_dict() for error in progress.errors],
        )

    with upload.file.open("rb") as fileobj:
        name = upload.original_name or upload.file.name
        result = ingest_file(fileobj, name, run, column_mapping, upload.row_id, result, record_progress)
    upload.file_format = result.file_format
    upload.column_mapping = result.column_mapping
    upload.accepted = result.accepted
    upload.rejected = result.rejected
    upload.row_errors = result.error_dicts()
    upload.status = Upload.Status.FAILED if result.fatal else Upload.Status.INGESTED
    upload.progress_at = timezone.now()
    with transaction.atomic():
        if created and not result.accepted and _drop_if_empty(run):
            run = None
        upload.run = run
        upload.save(
            update_fields=[
                "run",
                "file_format",
                "column_mapping",
                "accepted",
                "rejected",
                "row_errors",
                "status",
                "progress_at",
            ]
        )
        if run is not None and result.accepted and start_scoring:
            from properties.pipeline import limits, scoring

            try:
                scoring.start_job(run)
            except limits.JobLimitReached as exc:
                result.scoring_refused = str(exc)
    return result


def claim_resume(upload: Upload) -> bool:
    """Take an interrupted import for one resume: False when it is not interrupted, or another
    request took it first."""
    stale = timezone.now() - Upload.INTERRUPTED_AFTER
    interrupted = Upload.objects.filter(pk=upload.pk, status=Upload.Status.IMPORTING).filter(
        Q(progress_at__isnull=True) | Q(progress_at__lt=stale)
    )
    return interrupted.update(progress_at=timezone.now()) == 1


def _drop_if_empty(run: Run) -> bool:
    """Delete a run this upload created and filled with nothing; False when rows arrived meanwhile."""
    empty = Run.objects.filter(pk=run.pk).exclude(Exists(Interaction.objects.filter(run=OuterRef("pk"))))
    return empty.delete()[0] > 0


def file_hash(fileobj: IO[bytes]) -> str:
    """sha256 of a seekable file, read in blocks; the position is restored to the start."""
    digest = hashlib.sha256()
    fileobj.seek(0)
    for block in iter(lambda: fileobj.read(1 << 20), b""):
        digest.update(block)
    fileobj.seek(0)
    return digest.hexdigest()


def earlier_upload(project: Project, run_name: str, content_hash: str) -> Upload | None:
    """An upload of the same file whose rows are in the live run of this name, if any."""
    return (
        Upload.objects.filter(
            project=project, run__name=run_name, run__deleting=False, content_hash=content_hash, accepted__gt=0
        )
        .order_by("created_at", "pk")
        .first()
    )


def ingest_path(
    project: Project,
    run_name: str,
    path: str | Path,
    column_mapping: dict[str, str | list[str]] | None = None,
    user: Any = None,
    start_scoring: bool = False,
) -> Upload:
    """Store a local file as an Upload into the run named `run_name` (created if new) and ingest it.

    The entry point of scripts and the demo. A file over the upload limit is not copied: the
    Upload records the refusal, and no run is created.
    """
    path = Path(path)
    size = path.stat().st_size  # a missing file raises here, before anything is stored
    upload = Upload(project=project, run_name=run_name, original_name=path.name[:255], created_by=user)
    try:
        check_size(size)
    except IngestError as exc:
        upload.status = Upload.Status.FAILED
        upload.row_errors = [RowError(None, "", str(exc)).to_dict()]
        upload.save()
        return upload
    with path.open("rb") as source:
        upload.content_hash = file_hash(source)
        upload.file.save(path.name, File(source), save=True)
    ingest_upload(upload, column_mapping, start_scoring=start_scoring)
    return upload
