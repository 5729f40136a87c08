"""Hostile uploads fail per row or as a whole with a clear message, in time and memory linear in
their size: deep nesting, wide headers, huge strings and numbers, truncated and unclosed input."""

from __future__ import annotations

import io
import json
import time
import tracemalloc

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from properties.models import ApiToken, Upload
from properties.uploads import json_reading
from properties.uploads.ingest import RowError
from tests.factories import ProjectFactory, RunFactory, UserFactory
from tests.unit.uploads.test_ingest import run_ingest

pytestmark = pytest.mark.django_db


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def timed_ingest(run, name: str, content: str | bytes, seconds: float = 20):
    # A loose bound, not a benchmark (bench/ingest.py --hostile measures): the quadratic readers these
    # files were built against took minutes, or ran out of memory.
    started = time.perf_counter()
    result = run_ingest(run, name, content)
    assert time.perf_counter() - started < seconds
    return result


@pytest.fixture
def run():
    return RunFactory()


# --- nesting ------------------------------------------------------------------------------------


def test_a_json_file_nested_100_000_deep_is_a_row_error_in_linear_memory(run):
    content = '[{"output": "kept"}, {"output": "deep", "trace": ' + deep(100_000) + '}, {"output": "also kept"}]'
    tracemalloc.start()
    result = timed_ingest(run, "data.json", content)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 20_000_000, f"peak {peak / 1e6:.0f} MB for a {len(content) / 1e3:.0f} KB file"
    assert result.accepted == 2
    assert result.errors == [RowError(2, "metadata.trace", "nested deeper than 64 levels")]


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("data.jsonl", '{"output": "kept"}\n{"output": "deep", "metadata": {"a": ' + deep(600) + "}}\n"),
        ("data.csv", 'output,metadata\nkept,{}\ndeep,"{""a"": ' + deep(600) + '}"\n'),
        ("data.json", '[{"output": "kept"}, {"output": ' + deep(600) + "}]"),
    ],
)
def test_nesting_600_deep_rejects_its_row_naming_the_field(run, name, content):
    result = timed_ingest(run, name, content)
    assert result.accepted == 1
    assert [(e.field, e.reason) for e in result.errors] in (
        [("metadata", "nested deeper than 64 levels")],
        [("output", "nested deeper than 64 levels")],
    )


def test_the_mapping_page_shows_a_file_with_deep_metadata(client, settings):
    user = UserFactory()
    client.force_login(user)
    project = ProjectFactory(owner=user)
    content = ('{"output": "deep", "metadata": {"a": ' + deep(600) + "}}\n").encode()
    response = client.post(
        reverse("properties:upload-create", args=[project.pk]),
        {"run_name": "v1", "environment": "evaluation", "file": SimpleUploadedFile("rows.jsonl", content)},
    )
    page = client.get(response.url)
    assert page.status_code == 200 and "metadata" in page.content.decode()
    done = client.post(response.url, {"output": "output"})
    upload = Upload.objects.get()
    assert done.status_code == 302 and (upload.accepted, upload.rejected) == (0, 1)
    assert upload.row_errors[-1]["reason"] == "nested deeper than 64 levels"


# --- width --------------------------------------------------------------------------------------


@pytest.mark.parametrize("columns", [40_000, 100_000])
def test_a_header_of_tens_of_thousands_of_columns_is_refused_at_once(run, columns):
    header = ",".join(f"c{i}" for i in range(columns - 1)) + ",output"
    result = timed_ingest(run, "data.csv", header + "\n" + "x," * (columns - 1) + "y\n", seconds=2)
    assert result.fatal == f"the file has {columns:,} columns; at most 1,000 are read"
    assert result.accepted == 0


def test_a_thousand_columns_with_a_repeated_name_are_checked_in_linear_time(run):
    header = ",".join(f"c{i % 999}" for i in range(1000))
    result = timed_ingest(run, "data.csv", header + "\n", seconds=1)
    assert result.fatal == "the header names these columns more than once: c0"


def test_a_json_row_with_too_many_keys_is_a_row_error(run):
    wide = {f"k{i}": i for i in range(1500)} | {"output": "wide"}
    result = timed_ingest(run, "data.json", json.dumps([{"output": "kept"}, wide]))
    assert result.accepted == 1
    assert result.errors == [RowError(2, "", "the object has 1,501 keys; at most 1,000 are read")]


# --- size ---------------------------------------------------------------------------------------


def test_a_string_over_the_limit_is_skipped_without_being_built(run, settings):
    settings.EVALSITE_FIELD_MAX_CHARS = 1000  # a row may hold 16,000 characters
    huge = "x" * 5_000_000
    content = ('[{"output": "kept"}, {"output": "' + huge + '"}, {"output": "also kept"}]').encode()
    # Imports and caches warmed first: they are not this file's cost.
    run_ingest(RunFactory(project=run.project), "warm.json", b'[{"output": "x"}]')
    tracemalloc.start()
    result = timed_ingest(run, "data.json", content)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 2_000_000, f"{peak / 1e6:.1f} MB: the 5 MB string was built"
    assert result.accepted == 2
    assert result.errors == [RowError(2, "", "the item is longer than 16000 characters")]


# --- numbers ------------------------------------------------------------------------------------

NUMBERS = [
    ("1e999999", "a number too large for a float"),
    ("9" * 5000, "a number that does not fit a 64-bit integer"),
    (str(2**63), "a number that does not fit a 64-bit integer"),
    (str(-(2**63) - 1), "a number that does not fit a 64-bit integer"),
]


@pytest.mark.parametrize(("number", "reason"), NUMBERS)
@pytest.mark.parametrize("file_format", ["json", "jsonl"])
def test_numbers_that_do_not_fit_are_a_row_error(run, number, reason, file_format):
    rows = ['{"output": "kept", "n": 9223372036854775807}', '{"output": "big", "n": ' + number + "}"]
    content = "[" + ",".join(rows) + "]" if file_format == "json" else "\n".join(rows) + "\n"
    result = timed_ingest(run, f"data.{file_format}", content)
    assert result.accepted == 1 and result.errors == [RowError(2, "metadata.n", reason)]
    assert run.interactions.get().metadata == {"n": 2**63 - 1}


# --- broken files -------------------------------------------------------------------------------


def test_a_truncated_json_array_keeps_the_rows_before_it_even_in_one_read(run):
    content = '[{"output": "a"}, {"output": "b"}, {"output": "c", "metadata": {"x": [1, 2'
    result = timed_ingest(run, "data.json", content)
    assert result.fatal == "the file ends before its JSON array is closed, after item 2"
    assert [i.output for i in run.interactions.order_by("pk")] == ["a", "b"]


def test_a_json_item_with_a_syntax_error_rejects_only_itself(run):
    result = timed_ingest(run, "data.json", '[{"output": "a"}, {"output": "b" "c"}, {"output": "d"}]')
    assert result.accepted == 2
    assert [(e.line, e.reason.split(":")[0]) for e in result.errors] == [(2, "invalid JSON")]


def test_brackets_and_quotes_inside_strings_do_not_split_items(run):
    rows = [{"output": 'a "quoted" ] }, [ { text\\'}, {"output": "b"}]
    result = timed_ingest(run, "data.json", json.dumps(rows))
    assert (result.accepted, result.errors) == (2, [])
    assert run.interactions.order_by("pk").first().output == rows[0]["output"]


def test_an_unclosed_csv_quote_is_an_error_naming_its_line_and_the_rows_after_it_are_read(run):
    content = 'id,output\n1,fine\n2,"unclosed\n3,swallowed\n4,swallowed too\n'
    result = timed_ingest(run, "data.csv", content)
    assert result.accepted == 3
    reason = "not readable as CSV: a quote opened in this row is never closed; the rows after it were read"
    assert result.errors == [RowError(3, "", reason)]


# --- the API ------------------------------------------------------------------------------------


@pytest.fixture
def api_run():
    cache.clear()
    user = UserFactory()
    _, secret = ApiToken.issue(user, "tests")
    return RunFactory(project=ProjectFactory(owner=user)), {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


@pytest.mark.parametrize("levels", [600, 100_000])
def test_an_api_batch_with_a_deep_row_names_it_and_keeps_the_others(client, api_run, levels):
    run, auth = api_run
    body = (
        '{"interactions": [{"output": "kept"}, {"output": "deep", "metadata": {"a": '
        + deep(levels)
        + '}}, {"output": "also kept"}]}'
    )
    response = client.post(f"/api/runs/{run.pk}/interactions", body, content_type="application/json", **auth)
    assert response.status_code == 200
    assert response.json() == {
        "accepted": 2,
        "rejected": 1,
        "errors": [{"row": 2, "field": "metadata", "reason": "nested deeper than 64 levels"}],
    }


@pytest.mark.parametrize(("number", "reason"), NUMBERS)
def test_an_api_batch_with_a_number_out_of_range_names_the_row_and_field(client, api_run, number, reason):
    run, auth = api_run
    body = '{"interactions": [{"output": "kept"}, {"output": "big", "score": ' + number + "}]}"
    response = client.post(f"/api/runs/{run.pk}/interactions", body, content_type="application/json", **auth)
    assert response.status_code == 200
    assert response.json()["errors"] == [{"row": 2, "field": "metadata.score", "reason": reason}]
    assert run.interactions.get().output == "kept"


def test_json_reading_caps_nesting_without_recursing():
    assert json_reading.loads('{"a": ' + deep(100_000) + "}", max_nesting=3) == {"a": [[json_reading.TOO_DEEP]]}
    assert json_reading.loads('["[[[", {"b": "]]]"}]', max_nesting=2) == ["[[[", {"b": "]]]"}]
    assert json_reading.loads(io.StringIO("[1]").read()) == [1]


def test_a_parquet_row_group_whose_values_do_not_fit_the_budget_is_not_decoded(run, settings, monkeypatch):
    """5 rows of 200 MB strings (zstd: 31 KB) once raised the web worker by 1.9-3.8 GB. Row groups are
    judged from the file's metadata before any column is decoded; the good ones are read."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from properties.uploads import file_formats

    settings.EVALSITE_FIELD_MAX_CHARS = 1000  # a row: 16,000 characters, 64 KB at most
    monkeypatch.setattr(file_formats, "PARQUET_DECODE_BUDGET_BYTES", 1_000_000)
    buffer = io.BytesIO()
    schema = pa.schema([("answer", pa.string())])
    with pq.ParquetWriter(buffer, schema, compression="zstd") as writer:
        values = [str(n) * 500_000 for n in range(5)]  # 2.5 MB, 500 KB a value
        writer.write_table(pa.table({"answer": values}, schema=schema))
        writer.write_table(pa.table({"answer": ["fine 1", "fine 2", "fine 3"]}, schema=schema))
    assert len(buffer.getvalue()) < 10_000
    result = timed_ingest(run, "data.parquet", buffer.getvalue())
    assert result.accepted == 3 and result.rejected == 5
    assert [error.line for error in result.errors] == [1, 2, 3, 4, 5]
    assert result.errors[0].reason.startswith("row group 1: column 'answer' holds 2.5 MB uncompressed for 5 rows")
    assert sorted(run.interactions.values_list("output", flat=True)) == ["fine 1", "fine 2", "fine 3"]


def test_a_parquet_column_nested_too_deep_is_refused_before_decoding(run):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from properties.uploads import file_formats

    nested = pa.string()
    for _ in range(file_formats.PARQUET_MAX_NESTING + 1):
        nested = pa.list_(nested)
    buffer = io.BytesIO()
    pq.write_table(pa.table({"answer": pa.array([None], type=nested)}), buffer)
    result = timed_ingest(run, "data.parquet", buffer.getvalue())
    assert result.accepted == 0
    depth = file_formats.PARQUET_MAX_NESTING + 1
    assert (
        result.fatal == f"the column 'answer' is nested {depth} levels deep; at most {file_formats.PARQUET_MAX_NESTING}"
    )
