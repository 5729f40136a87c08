"""File formats of an upload: which format a file is in, and its records one at a time.

CSV, JSON Lines, JSON (an array of objects) and Parquet are read as a stream of (line, record)
items, or a RowError for a row that cannot be parsed at all; properties.uploads.ingest turns the records
into interactions. A problem with the whole file raises IngestError.
"""

from __future__ import annotations

import csv
import io
import itertools
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

from django.conf import settings

from properties.uploads import json_reading

# Enough of the start of a file to check its format and read a CSV header.
HEAD_BYTES = 64 * 1024
# Bytes pyarrow reads from a Parquet file at a time (see _parquet_records).
PARQUET_READ_BUFFER = 1024 * 1024
# A Parquet column chunk is decoded only when its values fit this budget, read from the file's
# metadata before anything is decoded: one larger than this whose values average more bytes than a
# row may hold (5 rows of 200 MB strings, zstd-compressed to 31 KB) is not decoded; its rows are
# rejected. Chunks of many small values stream page by page whatever their size.
PARQUET_DECODE_BUDGET_BYTES = 64 * 1024 * 1024
# Nesting of a Parquet column's type (lists of structs of lists...): pyarrow itself stops near 50.
PARQUET_MAX_NESTING = 32
# A row holds 11 interaction fields plus metadata, each up to EVALSITE_FIELD_MAX_CHARS: a line
# or CSV cell beyond this many field-lengths is refused before it is parsed.
ROW_LIMIT_IN_FIELDS = 16
# Columns of a file, or keys of a JSON row: far more than an interaction has, few enough that the
# mapping page and each row's metadata stay small.
MAX_COLUMNS = 1000

_FORMATS_BY_SUFFIX = {
    ".csv": "csv",
    ".tsv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".parquet": "parquet",
    ".pq": "parquet",
}
_FORMAT_LABELS = {"csv": "CSV", "jsonl": "JSON Lines", "json": "JSON", "parquet": "Parquet"}
_PARQUET_MAGIC = b"PAR1"
# ZIP (and so .xlsx), gzip, PDF, and the old .xls: common uploads that are not text.
_BINARY_SIGNATURES = (b"PK\x03\x04", b"\x1f\x8b", b"%PDF", b"\xd0\xcf\x11\xe0")

# Text is decoded with errors="surrogateescape", so a byte that is not UTF-8 shows up as a lone
# surrogate; PostgreSQL also refuses NUL in text. JSON values that could not be read stand as the
# noncharacters of properties.uploads.json_reading (too deep, a number out of range).
BAD_TEXT = re.compile("[\x00\ud800-\udfff\ufdd1-\ufdd3]")


def has_bad_text(text: str) -> bool:
    """Whether BAD_TEXT is in `text`. Every character it finds but NUL is outside ASCII, and a str
    knows whether it is ASCII without reading it: most text is, and is not scanned character by
    character (the scan was ~10% of an upload row's time)."""
    if text.isascii():
        return "\x00" in text
    return BAD_TEXT.search(text) is not None


class IngestError(Exception):
    """A problem with the whole file: nothing more can be read from it."""


class CutShort(IngestError):
    """The file ends in the middle of its structure (a JSON array never closed): the rows before
    the break are good and are stored; nothing after it can be read."""


@dataclass
class RowError:
    line: int | None
    field: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# A parsed record with its line number, or a row that could not be parsed at all.
Item = tuple[int, dict[str, Any]] | RowError


# --- format detection -------------------------------------------------------------------------


def detect_format(name: str, head: bytes) -> str:
    """'csv', 'jsonl', 'json' or 'parquet' from the file name, checked against the first bytes.

    A name without an extension is recognised from its content alone.
    """
    if not head or not _decode_head(head).strip():
        raise IngestError("the file is empty")
    suffix = Path(name).suffix.lower()
    if suffix and suffix not in _FORMATS_BY_SUFFIX:
        raise IngestError(f"unsupported file type {suffix!r}: upload a .csv, .jsonl, .json or .parquet file")
    file_format = _FORMATS_BY_SUFFIX.get(suffix) or _sniff_format(head)
    problem = _content_mismatch(file_format, head)
    if problem is not None:
        named = f"ends in {suffix}" if suffix else "has no extension"
        raise IngestError(f"the file {named} but is not a {_FORMAT_LABELS[file_format]} file{problem}")
    return file_format


def _sniff_format(head: bytes) -> str:
    if head.startswith(_PARQUET_MAGIC):
        return "parquet"
    first = _decode_head(head).lstrip()[:1]
    return {"[": "json", "{": "jsonl"}.get(first, "csv")


def _content_mismatch(file_format: str, head: bytes) -> str | None:
    """None when the head fits the format, else a hint to append to the error ('' for none)."""
    is_parquet = head.startswith(_PARQUET_MAGIC)
    if file_format == "parquet":
        return None if is_parquet else ""
    if is_parquet:
        return " (it is a Parquet file: name it .parquet)"
    if _looks_binary(head):
        return " (it has binary content)"
    text = _decode_head(head)
    first = text.lstrip()[:1]
    expected = {"json": "[", "jsonl": "{"}.get(file_format)
    if expected is None:
        return " (it looks like JSON: name it .json or .jsonl)" if first in ("[", "{") else None
    if first == expected:
        return None
    return {
        "{": " (it is not an array of objects; for one object per line, name it .jsonl)",
        "[": " (it looks like a JSON array: name it .json)",
    }.get(first, "")


def _looks_binary(head: bytes) -> bool:
    # Binary formats are full of NUL bytes; a text file may hold a stray one, rejected with its row.
    nuls = _decode_head(head).count("\x00")
    return head.startswith(_BINARY_SIGNATURES) or nuls > len(head) // 100 + 1


def _text_encoding(head: bytes) -> str:
    # UTF-16 can only be told apart by its byte order mark; utf-8-sig drops a UTF-8 one.
    return "utf-16" if head[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"


def _decode_head(head: bytes) -> str:
    # The head may end in the middle of a character: replace it rather than fail.
    return head.decode(_text_encoding(head), errors="replace")


# --- reading files ----------------------------------------------------------------------------


def file_size(fileobj: IO[bytes]) -> int:
    size = getattr(fileobj, "size", None)  # Django's File and UploadedFile know it
    if isinstance(size, int):
        return size
    position = fileobj.tell()
    end = fileobj.seek(0, io.SEEK_END)
    fileobj.seek(position)
    return end


def _format_bytes(size: int) -> str:
    return f"{size} bytes" if size < 1_000_000 else f"{size / 1_000_000:.1f} MB"


def check_column_count(count: int) -> None:
    if count > MAX_COLUMNS:
        raise IngestError(f"the file has {count:,} columns; at most {MAX_COLUMNS:,} are read")


def check_size(size: int) -> None:
    limit = settings.EVALSITE_UPLOAD_MAX_BYTES
    if size > limit:
        raise IngestError(f"the file is {_format_bytes(size)}, over the upload limit of {_format_bytes(limit)}")


def read_head(fileobj: IO[bytes]) -> bytes:
    fileobj.seek(0)
    head = fileobj.read(HEAD_BYTES)
    fileobj.seek(0)
    return head


def _row_char_limit() -> int:
    return settings.EVALSITE_FIELD_MAX_CHARS * ROW_LIMIT_IN_FIELDS


@contextmanager
def _text_stream(fileobj: IO[bytes], head: bytes) -> Iterator[io.TextIOWrapper]:
    """The file as text, invalid bytes kept as lone surrogates so that each row can be judged."""
    fileobj.seek(0)
    encoding = _text_encoding(head)
    stream = io.TextIOWrapper(fileobj, encoding=encoding, errors="surrogateescape", newline="")  # type: ignore[arg-type]
    try:
        yield stream
    finally:
        stream.detach()  # closing the wrapper would close the caller's file


@contextmanager
def open_records(
    fileobj: IO[bytes], file_format: str, head: bytes, batch_size: int
) -> Iterator[tuple[list[str] | None, Iterator[Item]]]:
    """(columns, records): columns is None for JSON and JSONL, whose rows carry their own keys.

    A Parquet file is read `batch_size` rows at a time.
    """
    if file_format == "parquet":
        yield _parquet_records(fileobj, batch_size)
        return
    with _text_stream(fileobj, head) as stream:
        if file_format == "csv":
            yield _csv_records(stream, _csv_delimiter(head))
        elif file_format == "jsonl":
            yield None, _jsonl_records(stream)
        else:
            yield None, _json_records(stream)


def _csv_delimiter(head: bytes) -> str:
    # A spreadsheet saved as "CSV" in many locales uses semicolons; .tsv uses tabs.
    header = _decode_head(head).splitlines()[0] if head else ""
    counts = {delimiter: header.count(delimiter) for delimiter in (",", ";", "\t", "|")}
    best = max(counts, key=lambda delimiter: counts[delimiter])
    return best if counts[best] > counts[","] else ","


def _csv_records(stream: io.TextIOWrapper, delimiter: str) -> tuple[list[str], Iterator[Item]]:
    # The csv module refuses cells over its own limit (128 KiB) with an error that names no
    # field; raised (never lowered: it is process-wide) so that the field check can name it.
    csv.field_size_limit(max(csv.field_size_limit(), _row_char_limit()))
    lines = _CsvLines(stream)
    # strict: text after a closing quote (`"a"b`) is an error at its row. A quote that is never
    # closed reaches the end of the file: its row is rejected and the lines after it read again.
    reader = csv.reader(lines, delimiter=delimiter, strict=True)
    columns = _csv_header(reader)
    return columns, _csv_rows(reader, lines, columns)


class _CsvLines:
    """The lines the csv reader reads, numbered, with those of the current row kept, so that the
    lines a never-closed quote swallowed can be read again (at most a cell's size: the csv module
    stops a longer cell with its own error)."""

    def __init__(self, stream: io.TextIOWrapper) -> None:
        self.stream = stream
        self.read = 0
        self.again: list[tuple[int, str]] = []
        self.row: list[tuple[int, str]] = []

    def __iter__(self) -> _CsvLines:
        return self

    def __next__(self) -> str:
        if self.again:
            number, line = self.again.pop()
        else:
            line = self.stream.readline()
            if not line:
                raise StopIteration
            self.read += 1
            number = self.read
        self.row.append((number, line))
        return line

    def start_row(self) -> None:
        self.row = []

    @property
    def row_start(self) -> int:
        return self.row[0][0] if self.row else self.read + 1

    @property
    def row_lines(self) -> int:
        return len(self.row)

    def read_again_after_first(self) -> None:
        self.again.extend(reversed(self.row[1:]))
        self.row = []


def _csv_header(reader: Any) -> list[str]:
    try:
        header = next((row for row in reader if row), None)
    except csv.Error as exc:
        raise IngestError(f"the header row is not readable CSV: {exc}") from exc
    if header is None:
        raise IngestError("the file has no header row")
    check_column_count(len(header))
    columns = [cell.strip() or f"column_{index}" for index, cell in enumerate(header, start=1)]
    if any(BAD_TEXT.search(column) for column in columns):
        raise IngestError("the header row is not valid UTF-8")
    repeated = sorted(column for column, count in Counter(columns).items() if count > 1)
    if repeated:
        raise IngestError(f"the header names these columns more than once: {', '.join(repeated)}")
    return columns


def _csv_rows(reader: Any, lines: _CsvLines, columns: list[str]) -> Iterator[Item]:
    while True:
        lines.start_row()
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            line = lines.row_start  # a quoted cell may span lines: report where the row starts
            yield RowError(line, "", _csv_problem(exc, lines.row_lines))
            # A quote opened in this row swallowed the lines after it, up to the end of the file or
            # to a quote on a later line where the row then broke: those lines are rows of their own,
            # read again, so that each one is stored or reported.
            lines.read_again_after_first()
            continue
        line = lines.row_start
        if not any(cells):
            continue  # a blank line, or a spreadsheet's row of empty cells
        if len(cells) != len(columns):
            yield RowError(line, "", f"the row has {len(cells)} cells but the header has {len(columns)} columns")
            continue
        yield line, dict(zip(columns, cells, strict=True))


def _csv_problem(exc: csv.Error, lines_held: int) -> str:
    if "unexpected end of data" in str(exc):
        return "not readable as CSV: a quote opened in this row is never closed; the rows after it were read"
    if lines_held > 1:
        return (
            f"not readable as CSV: a quote opened in this row runs over {lines_held - 1} more line(s) and the row "
            f"breaks there ({exc}); the lines after this one were read as rows of their own"
        )
    return f"not readable as CSV: {exc}"


def _jsonl_records(stream: io.TextIOWrapper) -> Iterator[Item]:
    limit = _row_char_limit()
    line_number = 0
    while line := stream.readline(limit + 1):
        line_number += 1
        # Length first: stripping copies the line, and nearly every line is far under the limit.
        if len(line) > limit and len(line.rstrip("\r\n")) > limit:
            _skip_rest_of_line(stream, line, limit)
            yield RowError(line_number, "", f"the line is longer than {limit} characters")
            continue
        if not line.isspace():
            yield _jsonl_record(line_number, line)


def _skip_rest_of_line(stream: io.TextIOWrapper, line: str, limit: int) -> None:
    while line and not line.endswith(("\n", "\r")):
        line = stream.readline(limit)


def _jsonl_record(line_number: int, line: str) -> Item:
    try:
        value = json_reading.loads(line)
    except ValueError as exc:
        return RowError(line_number, "", f"invalid JSON: {exc}")
    return json_record(line_number, value)


def json_record(line: int, value: Any) -> Item:
    """A parsed JSON row, or why it is rejected: not an object, or more keys than a file has columns."""
    if not isinstance(value, dict):
        return RowError(line, "", "not a JSON object")
    if len(value) > MAX_COLUMNS:
        return RowError(line, "", f"the object has {len(value):,} keys; at most {MAX_COLUMNS:,} are read")
    return line, value


def _json_records(stream: io.TextIOWrapper) -> Iterator[Item]:
    """Each item of the array parsed on its own, so a bad item rejects only itself. A file that
    ends before the array is closed keeps the items before the break (see json_reading)."""
    limit = _row_char_limit()
    try:
        for position, text in json_reading.array_items(stream, limit):
            if text is None:
                yield RowError(position, "", f"the item is longer than {limit} characters")
                continue
            try:
                value = json_reading.parse(text)
            except ValueError as exc:
                yield RowError(position, "", f"invalid JSON: {exc}")
                continue
            yield json_record(position, value)
    except json_reading.NotAnArray as exc:
        raise IngestError(f"the file is not a JSON array: {exc}") from exc
    except json_reading.Truncated as exc:
        raise CutShort(f"the file ends before its JSON array is closed, {exc}") from exc


def first_line(exc: Exception) -> str:
    message = exc.args[0] if exc.args else str(exc)
    if isinstance(message, bytes):
        message = message.decode("utf-8", errors="replace")
    return displayable(str(message).strip().splitlines()[0] if str(message).strip() else type(exc).__name__)


def _parquet_errors() -> tuple[type[Exception], ...]:
    """What a corrupt Parquet file raises: Arrow's errors, I/O errors, and ValueError (among
    them UnicodeDecodeError, for a column name or a string that is not UTF-8)."""
    import pyarrow

    return (pyarrow.ArrowException, OSError, ValueError)


def _parquet_records(fileobj: IO[bytes], batch_size: int) -> tuple[list[str], Iterator[Item]]:
    # Imported here: pyarrow costs ~0.3 s and tens of MB, and most uploads are text.
    import pyarrow.parquet as pq

    fileobj.seek(0)
    try:
        # Without these, pyarrow reads ahead and its peak memory grows with the file: 100k rows
        # of ~1 KB peaked at 200 MB and 400k rows at 300 MB, against 135 MB for both with them.
        parquet = pq.ParquetFile(fileobj, pre_buffer=False, buffer_size=PARQUET_READ_BUFFER)
        schema = parquet.schema_arrow
    except _parquet_errors() as exc:
        raise IngestError(f"the file is not a readable Parquet file: {first_line(exc)}") from exc
    columns = list(schema.names)
    check_column_count(len(columns))
    for field in schema:
        depth = _type_depth(field.type)
        if depth > PARQUET_MAX_NESTING:
            raise IngestError(f"the column {field.name!r} is nested {depth} levels deep; at most {PARQUET_MAX_NESTING}")
    return columns, _parquet_rows(parquet, batch_size)


def _type_depth(arrow_type: Any) -> int:
    """How deep lists and structs nest in an Arrow type (a plain column: 0)."""
    # Lists, maps and structs name their children as fields (a list's one field is its values).
    children = [arrow_type.field(index).type for index in range(getattr(arrow_type, "num_fields", 0))]
    return 1 + max(map(_type_depth, children)) if children else 0


def _over_budget(metadata: Any, group: int) -> str:
    """Why a row group cannot be decoded within the budget, from its metadata alone; "" when it can."""
    row_group = metadata.row_group(group)
    rows = max(row_group.num_rows, 1)
    largest_row = _row_char_limit() * 4  # UTF-8 takes up to 4 bytes a character
    for index in range(row_group.num_columns):
        column = row_group.column(index)
        size = column.total_uncompressed_size
        if size > PARQUET_DECODE_BUDGET_BYTES and size / rows > largest_row:
            return (
                f"row group {group + 1}: column {column.path_in_schema!r} holds {size / 1e6:,.1f} MB uncompressed "
                f"for {row_group.num_rows:,} rows, values larger than a row may be; not decoded"
            )
    return ""


def _parquet_rows(parquet: Any, batch_size: int) -> Iterator[Item]:
    row = 0
    try:
        metadata = parquet.metadata
        for group in range(metadata.num_row_groups):
            problem = _over_budget(metadata, group)
            if problem:
                for _ in range(metadata.row_group(group).num_rows):
                    row += 1
                    yield RowError(row, "", problem)
                continue
            # One row group, one record batch at a time: memory holds a batch, not the file.
            for batch in parquet.iter_batches(batch_size=batch_size, row_groups=[group], use_threads=False):
                names = batch.schema.names
                # Column by column, then zipped: a fifth less CPU than batch.to_pylist(), which
                # fills each row's dict a value at a time (bench/ingest.py's rows).
                columns = [column.to_pylist() for column in batch.columns]
                # A file without columns still has rows: each is rejected on its own.
                rows = zip(*columns, strict=True) if columns else itertools.repeat((), batch.num_rows)
                for values in rows:
                    row += 1
                    yield row, dict(zip(names, values, strict=True))
    except _parquet_errors() as exc:
        raise IngestError(f"unreadable Parquet data after row {row}: {first_line(exc)}") from exc


def displayable(text: str) -> str:
    return BAD_TEXT.sub("\ufffd", text)
