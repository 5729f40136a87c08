"""properties.uploads.ingest: every format, the mapping, and every kind of bad input."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from properties.models import Interaction, Run, Upload, input_hash
from properties.uploads import ingest
from properties.uploads.ingest import IngestError, RowError
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory

pytestmark = pytest.mark.django_db


def run_ingest(run: Run, name: str, content: bytes | str, mapping: dict | None = None) -> ingest.IngestResult:
    data = content.encode() if isinstance(content, str) else content
    return ingest.ingest_file(io.BytesIO(data), name, run, mapping)


def jsonl(*rows: dict) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


def parquet_bytes(table: pa.Table, row_group_size: int | None = None) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer, row_group_size=row_group_size)
    return buffer.getvalue()


def errors_of(result: ingest.IngestResult) -> list[tuple[int | None, str]]:
    return [(error.line, error.field) for error in result.errors]


@pytest.fixture
def run() -> Run:
    return RunFactory()


# --- formats and mapping ----------------------------------------------------------------------


def test_csv_with_usual_column_names_fills_every_field(run):
    content = (
        "ID,Question,Context,Answer,Ground Truth,Label,chat_history,full_prompt,started_at,finished_at\n"
        'q1,What is 2+2?,"[""Two and two make four.""]",Four,4,thumbs up,hi,Q: What is 2+2?,'
        "2024-05-01T12:00:00Z,2024-05-01 12:00:02\n"
    )
    result = run_ingest(run, "data.csv", content)

    assert (result.accepted, result.rejected, result.fatal, result.file_format) == (1, 0, None, "csv")
    row = Interaction.objects.get(run=run)
    assert row.user_interaction_id == "q1"
    assert row.input == "What is 2+2?"
    assert row.information_retrieval == ["Two and two make four."]
    assert row.output == "Four"
    assert row.expected_output == "4"
    assert row.annotation == "good"
    assert row.history == "hi"
    assert row.full_prompt == "Q: What is 2+2?"
    assert row.started_at == datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    assert row.finished_at == datetime(2024, 5, 1, 12, 0, 2, tzinfo=UTC)
    assert row.input_hash == input_hash("What is 2+2?")
    assert row.metadata == {}
    assert result.column_mapping["output"] == "Answer"


def test_jsonl_takes_real_lists_and_keeps_unknown_keys_as_metadata(run):
    content = jsonl(
        {"input": "a?", "output": "A.", "information_retrieval": ["doc 1", "doc 2"], "latency_ms": 12.5},
        {"question": "b?", "answer": "B.", "history": [{"role": "user", "content": "hi"}], "tags": ["x"]},
    )
    result = run_ingest(run, "data.jsonl", content)

    assert (result.accepted, result.rejected, result.file_format) == (2, 0, "jsonl")
    first, second = Interaction.objects.filter(run=run)
    assert first.information_retrieval == ["doc 1", "doc 2"]
    assert first.metadata == {"latency_ms": 12.5}
    # Each row is mapped on its own keys: the second uses the usual names.
    assert (second.input, second.output) == ("b?", "B.")
    assert json.loads(second.history) == [{"role": "user", "content": "hi"}]
    assert second.metadata == {"tags": ["x"]}


def test_json_array_of_objects(run):
    content = json.dumps(
        [
            {"prompt": "a?", "completion": "A.", "contexts": ["c1"], "annotation": "BAD"},
            {"prompt": "b?", "completion": "B.", "contexts": "one document", "annotation": None},
        ]
    )
    result = run_ingest(run, "data.json", content)

    assert (result.accepted, result.rejected, result.file_format) == (2, 0, "json")
    first, second = Interaction.objects.filter(run=run)
    assert (first.input, first.output, first.information_retrieval, first.annotation) == ("a?", "A.", ["c1"], "bad")
    assert (second.information_retrieval, second.annotation) == (["one document"], "unknown")


def test_parquet_is_read_in_record_batches(run, monkeypatch):
    monkeypatch.setattr(ingest, "BATCH_SIZE", 2)
    table = pa.table(
        {
            "query": [f"q{i}" for i in range(5)],
            "response": [f"r{i}" for i in range(5)],
            "retrieved_documents": [["d1", "d2"], [], None, ["d"], ["e"]],
            "score": [0.5, float("nan"), 1.0, 2.0, 3.0],
            "started_at": [datetime(2024, 1, 1, 10, i) for i in range(5)],
        }
    )
    result = run_ingest(run, "data.parquet", parquet_bytes(table, row_group_size=2))

    assert (result.accepted, result.rejected, result.file_format) == (5, 0, "parquet")
    rows = list(Interaction.objects.filter(run=run))
    assert [row.input for row in rows] == ["q0", "q1", "q2", "q3", "q4"]
    assert rows[0].information_retrieval == ["d1", "d2"]
    assert rows[2].information_retrieval == []
    # JSON has no NaN (and PostgreSQL refuses it): stored as null.
    assert rows[1].metadata == {"score": None}
    assert rows[3].started_at == datetime(2024, 1, 1, 10, 3, tzinfo=UTC)


def test_parquet_row_numbers_in_errors(run):
    table = pa.table({"input": ["a", "b", "c"], "output": ["A", "", "C"]})
    result = run_ingest(run, "data.parquet", parquet_bytes(table))
    assert errors_of(result) == [(2, "output")]


def test_custom_mapping_with_several_retrieval_columns(run):
    content = "q,doc_a,doc_b,doc_c,a,notes\nWhy?,first,,third,Because.,keep me\n"
    mapping = {"input": "q", "output": "a", "information_retrieval": ["doc_a", "doc_b", "doc_c"]}
    result = run_ingest(run, "data.csv", content, mapping)

    assert result.accepted == 1
    row = Interaction.objects.get(run=run)
    assert row.information_retrieval == ["first", "third"]  # an empty cell is no document
    assert row.metadata == {"notes": "keep me"}
    assert result.column_mapping == mapping


def test_unmapped_columns_and_a_metadata_column_are_kept_in_metadata(run):
    content = 'input,output,metadata,model,temperature\nhi,hello,"{""team"": ""red""}",gpt,0.2\n'
    result = run_ingest(run, "data.csv", content)
    assert result.accepted == 1
    assert Interaction.objects.get(run=run).metadata == {"team": "red", "model": "gpt", "temperature": "0.2"}


def test_a_metadata_column_that_is_not_a_json_object_is_kept_as_text(run):
    run_ingest(run, "data.csv", "input,output,metadata\nhi,hello,plain note\n", {"output": "output"})
    assert Interaction.objects.get(run=run).metadata == {"input": "hi", "metadata": "plain note"}


def test_retrieval_cell_parsing(run):
    content = 'input,output,context\na,A,"[""x"", ""y""]"\nb,B,[1] Paris is the capital.\nc,C,\n'
    run_ingest(run, "data.csv", content)
    assert [row.information_retrieval for row in Interaction.objects.filter(run=run)] == [
        ["x", "y"],
        ["[1] Paris is the capital."],
        [],
    ]


def test_semicolon_separated_csv(run):
    result = run_ingest(run, "data.csv", "question;answer\nWhy?;Because, that is why.\n")
    assert result.accepted == 1
    assert Interaction.objects.get(run=run).output == "Because, that is why."


def test_tab_separated_file(run):
    result = run_ingest(run, "data.tsv", "question\tanswer\nWhy?\tBecause.\n")
    assert (result.accepted, result.file_format) == (1, "csv")


def test_a_django_uploaded_file_is_read_and_left_open(run):
    uploaded = SimpleUploadedFile("data.csv", b"question,answer\nWhy?,Because.\n")
    result = ingest.ingest_file(uploaded, uploaded.name, run)
    assert result.accepted == 1
    assert not uploaded.closed


def test_empty_id_gets_a_stable_short_one_from_its_line(run):
    run_ingest(run, "data.csv", "id,input,output\n,a,A\n  ,b,B\n")
    ids = list(Interaction.objects.filter(run=run).values_list("user_interaction_id", flat=True))
    assert ids == ["r2", "r3"]


# --- suggest_mapping and detect_format --------------------------------------------------------


def test_suggest_mapping_for_usual_names():
    columns = ["Interaction_ID", "User Input", "RESPONSE", "reference", "label", "chat_history", "extra"]
    assert ingest.suggest_mapping(columns) == {
        "user_interaction_id": "Interaction_ID",
        "input": "User Input",
        "output": "RESPONSE",
        "expected_output": "reference",
        "annotation": "label",
        "history": "chat_history",
    }


def test_suggest_mapping_collects_several_retrieval_columns():
    mapping = ingest.suggest_mapping(["question", "answer", "context_1", "context_2", "documents"])
    assert mapping["information_retrieval"] == ["context_1", "context_2", "documents"]
    assert ingest.suggest_mapping(["question", "answer", "contexts"])["information_retrieval"] == "contexts"


def test_suggest_mapping_prefers_the_exact_field_name():
    assert ingest.suggest_mapping(["question", "input", "output"])["input"] == "input"


@pytest.mark.parametrize(
    ("name", "head", "expected"),
    [
        ("a.csv", b"input,output\n", "csv"),
        ("a.CSV", b"\xef\xbb\xbfinput,output\n", "csv"),
        ("a.jsonl", b'{"output": "x"}\n', "jsonl"),
        ("a.ndjson", b'  {"output": "x"}\n', "jsonl"),
        ("a.json", b'\n[{"output": "x"}]', "json"),
        ("a.parquet", b"PAR1\x15\x04", "parquet"),
        ("no_extension", b"PAR1\x15\x04", "parquet"),
        ("no_extension", b'[{"output": 1}]', "json"),
        ("no_extension", b"output\nx\n", "csv"),
    ],
)
def test_detect_format(name, head, expected):
    assert ingest.detect_format(name, head) == expected


@pytest.mark.parametrize(
    ("name", "head", "message"),
    [
        ("a.parquet", b"input,output\n", "the file ends in .parquet but is not a Parquet file"),
        (
            "a.json",
            b'{"output": "x"}\n',
            "the file ends in .json but is not a JSON file (it is not an array of objects",
        ),
        ("a.jsonl", b'[{"output": "x"}]', "the file ends in .jsonl but is not a JSON Lines file (it looks like a"),
        ("a.jsonl", b"input,output\n", "the file ends in .jsonl but is not a JSON Lines file"),
        ("a.csv", b"PAR1\x15\x04", "the file ends in .csv but is not a CSV file (it is a Parquet file"),
        ("a.csv", b"PK\x03\x04\x00\x00binary", "the file ends in .csv but is not a CSV file (it has binary content)"),
        ("a.csv", b'{"output": "x"}\n', "the file ends in .csv but is not a CSV file (it looks like JSON"),
        ("a.xlsx", b"PK\x03\x04", "unsupported file type '.xlsx'"),
        ("no_extension", b"\x00\x00\x00\x01binary", "the file has no extension but is not a CSV file (it has binary"),
        ("a.csv", b"", "the file is empty"),
        ("a.csv", b" \n\r\n", "the file is empty"),
    ],
)
def test_detect_format_refuses_content_that_does_not_match(name, head, message):
    with pytest.raises(IngestError) as raised:
        ingest.detect_format(name, head)
    assert str(raised.value).startswith(message)


# --- bad rows ---------------------------------------------------------------------------------


def test_invalid_utf8_rejects_only_that_row(run):
    content = b"input,output\nfine,ok\nbroken \xff\xfe,ok\nalso fine,ok\n"
    result = run_ingest(run, "data.csv", content)
    assert (result.accepted, result.rejected) == (2, 1)
    assert result.errors == [RowError(3, "input", "not valid UTF-8")]


def test_invalid_utf8_in_jsonl_and_json(run):
    result = run_ingest(run, "data.jsonl", b'{"output": "ok"}\n{"output": "bad \xc3\x28"}\n')
    assert (result.accepted, errors_of(result)) == (1, [(2, "output")])
    other = RunFactory(project=run.project)
    result = run_ingest(other, "data.json", b'[{"output": "ok"}, {"output": "x", "note": "\xff"}, {"output": "y"}]')
    assert (result.accepted, result.fatal) == (2, None)
    assert result.errors == [RowError(2, "metadata.note", "not valid UTF-8")]


def test_utf8_bom_is_accepted(run):
    result = run_ingest(run, "data.csv", b"\xef\xbb\xbfquestion,answer\nWhy?,Because.\n")
    assert result.accepted == 1
    assert result.column_mapping == {"input": "question", "output": "answer"}


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_utf16_with_a_byte_order_mark_is_decoded(run, encoding):
    text = "question,answer\nÇa va ?,Très bien 👍\n"
    data = text.encode(encoding) if encoding == "utf-16" else b"\xfe\xff" + text.encode(encoding)
    result = run_ingest(run, "data.csv", data)
    assert result.accepted == 1
    assert Interaction.objects.get(run=run).output == "Très bien 👍"


def test_utf16_jsonl_and_json(run):
    result = run_ingest(run, "data.jsonl", jsonl({"output": "é"}, {"output": "ü"}).encode("utf-16"))
    assert result.accepted == 2
    other = RunFactory(project=run.project)
    assert run_ingest(other, "data.json", json.dumps([{"output": "ß"}]).encode("utf-16")).accepted == 1


def test_ragged_csv_rows_are_rejected(run):
    content = "input,output\na,A\nb,B,extra\nc\nd,D\n"
    result = run_ingest(run, "data.csv", content)
    assert result.accepted == 2
    assert result.errors == [
        RowError(3, "", "the row has 3 cells but the header has 2 columns"),
        RowError(4, "", "the row has 1 cells but the header has 2 columns"),
    ]


def test_missing_or_empty_output_is_rejected(run):
    result = run_ingest(run, "data.jsonl", jsonl({"input": "a"}, {"output": "  "}, {"output": None}, {"output": "x"}))
    assert result.accepted == 1
    assert result.errors == [RowError(line, "output", "required, but missing or empty") for line in (1, 2, 3)]


def test_invalid_json_line_is_rejected_and_the_others_kept(run):
    content = '{"output": "a"}\n{"output": "b",\n\n[1, 2]\n{"output": "c"}\n'
    result = run_ingest(run, "data.jsonl", content)
    assert result.accepted == 2
    assert errors_of(result) == [(2, ""), (4, "")]
    assert result.errors[0].reason.startswith("invalid JSON")
    assert result.errors[1].reason == "not a JSON object"


def test_jsonl_line_over_the_row_limit(run, settings):
    settings.EVALSITE_FIELD_MAX_CHARS = 10
    content = jsonl({"output": "x" * 500}, {"output": "fine"})
    result = run_ingest(run, "data.jsonl", content)
    assert result.accepted == 1
    assert result.errors[0].line == 1
    assert result.errors[0].reason.startswith("the line is longer than 160 characters")


def test_duplicate_ids_within_one_batch(run):
    result = run_ingest(run, "data.csv", "id,output\na,1\nb,2\na,3\n")
    assert result.accepted == 2
    assert result.errors == [RowError(4, "user_interaction_id", "the same as line 2 of this file ('a')")]
    assert Interaction.objects.get(run=run, user_interaction_id="a").output == "1"


def test_duplicate_ids_across_batches(run, monkeypatch):
    monkeypatch.setattr(ingest, "BATCH_SIZE", 2)
    result = run_ingest(run, "data.csv", "id,output\na,1\nb,2\nc,3\na,4\nd,5\n")
    assert result.accepted == 4
    assert result.errors == [
        RowError(5, "user_interaction_id", "the same as an earlier row of this file ('a')"),
    ]


def test_only_a_batch_the_database_refuses_is_checked_for_stored_ids(run, monkeypatch):
    # Checking every batch cost more than the insert on PostgreSQL (a plan that read the whole run);
    # the unique (run, id) constraint refuses a batch that repeats an id, and only that one is checked.
    monkeypatch.setattr(ingest, "BATCH_SIZE", 2)
    checked = []
    check = ingest._BatchWriter._drop_stored

    def counting_check(self, rows):
        checked.append(sorted(rows))
        check(self, rows)

    monkeypatch.setattr(ingest._BatchWriter, "_drop_stored", counting_check)
    result = run_ingest(run, "data.csv", "id,output\na,1\nb,2\nc,3\nd,4\ne,5\na,6\n")
    assert result.accepted == 5
    assert checked == [["a", "e"]]
    assert result.errors == [RowError(7, "user_interaction_id", "the same as an earlier row of this file ('a')")]
    assert Interaction.objects.get(run=run, user_interaction_id="e").output == "5"


def test_an_upload_into_a_run_with_rows_keeps_them(run):
    existing = InteractionFactory(run=run, user_interaction_id="a", input="old", output="old answer")
    InteractionFactory(run=run, user_interaction_id="b")
    result = run_ingest(run, "data.csv", "id,input,output\na,new,new answer\nc,x,y\n")

    assert result.accepted == 1
    assert result.errors == [RowError(2, "user_interaction_id", "the same as a row already in this run ('a')")]
    existing.refresh_from_db()
    assert (existing.input, existing.output) == ("old", "old answer")
    assert set(run.interactions.values_list("user_interaction_id", flat=True)) == {"a", "b", "c"}


def test_a_row_stored_by_someone_else_after_the_check_is_rejected_alone(run, monkeypatch):
    # As if a concurrent upload stored "a" between the duplicate check and the insert.
    InteractionFactory(run=run, user_interaction_id="a")
    monkeypatch.setattr(ingest._BatchWriter, "_drop_stored", lambda self, rows: None)
    result = run_ingest(run, "data.csv", "id,output\nb,1\na,2\nc,3\n")
    assert result.accepted == 2
    assert errors_of(result) == [(3, "")]
    assert result.errors[0].reason.startswith("could not be stored")
    assert set(run.interactions.values_list("user_interaction_id", flat=True)) == {"a", "b", "c"}


def test_the_same_id_in_another_run_is_fine(run):
    InteractionFactory(run=RunFactory(project=run.project), user_interaction_id="a")
    assert run_ingest(run, "data.csv", "id,output\na,1\n").accepted == 1


def test_a_field_over_the_limit_rejects_its_row(run, settings):
    settings.EVALSITE_FIELD_MAX_CHARS = 10
    content = "input,output,context,note\nshort,fine,,\nshort,0123456789x,,\nok,ok,12345678901,\nok,ok,,12345678901\n"
    result = run_ingest(run, "data.csv", content)
    assert result.accepted == 1
    assert errors_of(result) == [(3, "output"), (4, "information_retrieval"), (5, "metadata.note")]
    assert result.errors[0].reason == "longer than 10 characters (11)"


def test_metadata_is_checked_string_by_string_wherever_it_nests(run, settings):
    # Plain metadata is serialised once and its text checked at once; a problem found there is
    # named by walking the value, and text that only looks like a problem is kept.
    settings.EVALSITE_FIELD_MAX_CHARS = 40
    rows = [
        {"output": "nul", "metadata": {"a": [{"b": "x\u0000y"}]}},
        {"output": "long", "trace": {"steps": ["s" * 41]}},
        {"output": "long in all", "metadata": {"a": "s" * 30, "b": "t" * 30}},
        {"output": "escapes", "metadata": {"note": "\\u0000 is not a NUL", "name": "名前 ümlaut"}},
    ]
    result = run_ingest(run, "data.jsonl", jsonl(*rows))
    assert result.errors == [
        RowError(1, "metadata", "contains a NUL character"),
        RowError(2, "metadata.trace", "longer than 40 characters (41)"),
    ]
    stored = dict(Interaction.objects.filter(run=run).values_list("output", "metadata"))
    assert stored == {
        "long in all": {"a": "s" * 30, "b": "t" * 30},
        "escapes": {"note": "\\u0000 is not a NUL", "name": "名前 ümlaut"},
    }


def test_a_file_over_the_upload_limit_is_refused_before_parsing(run, settings):
    settings.EVALSITE_UPLOAD_MAX_BYTES = 20
    result = run_ingest(run, "data.csv", "input,output\n" + "a,b\n" * 10)
    assert result.fatal == "the file is 53 bytes, over the upload limit of 20 bytes"
    assert (result.accepted, result.rejected, result.file_format) == (0, 0, "")
    assert not run.interactions.exists()


@pytest.mark.parametrize(
    ("name", "content", "fatal"),
    [
        ("data.csv", b"", "the file is empty"),
        ("data.jsonl", b"\n\n  \n", "the file is empty"),
        ("data.csv", b"input,output\n", "the file contains no interactions"),
        ("data.json", b"[]", "the file contains no interactions"),
        ("data.parquet", b"input,output\na,b\n", "the file ends in .parquet but is not a Parquet file"),
        ("data.parquet", b"PAR1 but truncated", "the file is not a readable Parquet file"),
        ("data.json", b'{"output": "x"}\n', "the file ends in .json but is not a JSON file"),
    ],
)
def test_file_level_problems(run, name, content, fatal):
    result = run_ingest(run, name, content)
    assert result.fatal.startswith(fatal)
    assert result.accepted == 0


@pytest.mark.parametrize("batch_size", [2, 1000])
def test_a_broken_json_array_keeps_the_items_before_it(run, monkeypatch, batch_size):
    monkeypatch.setattr(ingest, "BATCH_SIZE", batch_size)
    result = run_ingest(run, "data.json", '[{"output": "a"}, {"output": "b"}, {"output": "c"}, {"output": ')
    assert result.fatal == "the file ends before its JSON array is closed, after item 3"
    assert result.accepted == 3
    assert run.interactions.count() == 3


def test_json_items_that_are_not_objects(run):
    result = run_ingest(run, "data.json", '[{"output": "a"}, "text", 3]')
    assert result.accepted == 1
    assert result.errors == [RowError(2, "", "not a JSON object"), RowError(3, "", "not a JSON object")]


def test_csv_line_numbers_count_physical_lines(run):
    content = 'input,output\n\n"multi\nline\ninput",A\nb,\n'
    result = run_ingest(run, "data.csv", content)
    assert result.accepted == 1
    assert Interaction.objects.get(run=run).input == "multi\nline\ninput"
    assert errors_of(result) == [(6, "output")]


def test_nul_characters_are_rejected(run):
    result = run_ingest(run, "data.jsonl", jsonl({"output": "a\u0000b"}, {"output": "fine"}))
    assert result.errors == [RowError(1, "output", "contains a NUL character")]
    # A stray NUL byte in a CSV is the row's problem, not a sign of a binary file.
    result = run_ingest(RunFactory(), "data.csv", b"input,output\na\x00,x\nb,y\n")
    assert (result.accepted, result.errors) == (1, [RowError(2, "input", "contains a NUL character")])


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Good", "good"),
        ("BAD", "bad"),
        ("", "unknown"),
        ("Unknown", "unknown"),
        ("1", "good"),
        ("0", "bad"),
        ("true", "good"),
        ("False", "bad"),
        ("thumbs up", "good"),
        ("Thumbs_Down", "bad"),
        ("👍", "good"),
        ("-1", "bad"),
    ],
)
def test_annotation_values(run, value, expected):
    result = run_ingest(run, "data.csv", f"output,label\nx,{value}\n")
    assert result.accepted == 1
    assert Interaction.objects.get(run=run).annotation == expected


def test_annotation_from_json_types(run):
    run_ingest(run, "data.jsonl", jsonl({"output": "a", "annotation": True}, {"output": "b", "annotation": 0}))
    assert list(run.interactions.values_list("annotation", flat=True)) == ["good", "bad"]


def test_an_unknown_annotation_rejects_the_row(run):
    result = run_ingest(run, "data.csv", "output,annotation\nx,maybe\n")
    assert errors_of(result) == [(2, "annotation")]
    assert "'maybe'" in result.errors[0].reason


def test_timestamps(run):
    content = jsonl(
        {"output": "a", "started_at": "2024-05-01", "finished_at": 1714564800},
        {"output": "b", "started_at": "yesterday"},
    )
    result = run_ingest(run, "data.jsonl", content)
    assert errors_of(result) == [(2, "started_at")]
    row = run.interactions.get()
    assert row.started_at == datetime(2024, 5, 1, tzinfo=UTC)
    assert row.finished_at == datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def test_errors_beyond_the_cap_are_counted(run, monkeypatch):
    monkeypatch.setattr(ingest, "MAX_REPORTED_ERRORS", 2)
    result = run_ingest(run, "data.csv", "input,output\n" + "a,\n" * 5 + "b,B\n")
    assert (result.accepted, result.rejected, len(result.errors)) == (1, 5, 2)


# --- mapping problems -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mapping", "fatal"),
    [
        ({"output": "answer", "colour": "x"}, "unknown interaction field 'colour'"),
        ({"output": "nope"}, "the column mapping names columns the file does not have: nope"),
        ({"input": "question"}, "no column is mapped to output"),
        ({"output": ["answer"]}, "output takes one column name"),
    ],
)
def test_a_mapping_that_cannot_work_is_refused(run, mapping, fatal):
    result = run_ingest(run, "data.csv", "question,answer\nq,a\n", mapping)
    assert result.fatal.startswith(fatal)
    assert not run.interactions.exists()


def test_a_csv_without_an_output_column_is_refused(run):
    result = run_ingest(run, "data.csv", "question,notes\nq,a\n")
    assert result.fatal.startswith("no column is mapped to output")


def test_a_repeated_header_is_refused(run):
    result = run_ingest(run, "data.csv", "output,x,x\na,1,2\n")
    assert result.fatal == "the header names these columns more than once: x"


# --- preview ----------------------------------------------------------------------------------


def test_preview_csv():
    data = io.BytesIO(b"question,answer,context_1,context_2\n" + b"q,a,c1,c2\n" * 10)
    preview = ingest.preview_file(data, "data.csv", max_rows=3)
    assert preview.error is None
    assert preview.file_format == "csv"
    assert preview.columns == ["question", "answer", "context_1", "context_2"]
    assert preview.sample_rows == [{"question": "q", "answer": "a", "context_1": "c1", "context_2": "c2"}] * 3
    assert preview.suggested_mapping == {
        "input": "question",
        "output": "answer",
        "information_retrieval": ["context_1", "context_2"],
    }
    assert data.tell() == 0  # ready for ingest_file


def test_preview_jsonl_collects_the_keys_of_the_first_rows():
    data = io.BytesIO(jsonl({"input": "a", "output": "b"}, {"output": "c", "extra": 1}).encode())
    preview = ingest.preview_file(data, "data.jsonl")
    assert preview.columns == ["input", "output", "extra"]
    assert len(preview.sample_rows) == 2


def test_preview_parquet():
    table = pa.table({"prompt": ["p"], "generation": ["g"], "when": [datetime(2024, 1, 1)]})
    preview = ingest.preview_file(io.BytesIO(parquet_bytes(table)), "data.parquet")
    assert preview.columns == ["prompt", "generation", "when"]
    assert preview.sample_rows == [{"prompt": "p", "generation": "g", "when": "2024-01-01T00:00:00"}]


def test_preview_shows_invalid_bytes_as_replacement_characters():
    preview = ingest.preview_file(io.BytesIO(b"input,output\nbad \xff,ok\n"), "data.csv")
    assert preview.sample_rows == [{"input": "bad \ufffd", "output": "ok"}]


@pytest.mark.parametrize(
    ("name", "content"),
    [("data.csv", b""), ("data.parquet", b"not parquet"), ("data.json", b"[{]"), ("data.doc", b"x")],
)
def test_preview_reports_a_bad_file_without_raising(name, content):
    preview = ingest.preview_file(io.BytesIO(content), name)
    assert preview.error
    assert preview.columns == []


def test_preview_refuses_a_file_over_the_limit(settings):
    settings.EVALSITE_UPLOAD_MAX_BYTES = 5
    assert ingest.preview_file(io.BytesIO(b"output\nabc\n"), "data.csv").error.startswith("the file is 11 bytes")


# --- Upload records ---------------------------------------------------------------------------


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def test_ingest_path_stores_the_file_and_the_outcome(media, tmp_path):
    project = ProjectFactory()
    user = UserFactory()
    path = tmp_path / "interactions.csv"
    path.write_text("question,answer,team\nq1,a1,red\nq2,,blue\n")

    upload = ingest.ingest_path(project, "v1", path, user=user)

    upload.refresh_from_db()
    assert upload.run == Run.objects.get(project=project, name="v1")
    assert (upload.status, upload.file_format, upload.original_name) == ("ingested", "csv", "interactions.csv")
    assert (upload.accepted, upload.rejected) == (1, 1)
    assert upload.row_errors == [{"line": 3, "field": "output", "reason": "required, but missing or empty"}]
    assert upload.column_mapping == {"input": "question", "output": "answer"}
    assert upload.created_by == user
    with upload.file.open("rb") as stored:
        assert stored.read() == path.read_bytes()
    assert upload.run.interactions.get().metadata == {"team": "red"}


def test_ingest_path_into_an_existing_run_adds_rows(media, tmp_path):
    run = RunFactory(name="v1")
    InteractionFactory(run=run, user_interaction_id="kept")
    path = tmp_path / "more.jsonl"
    path.write_text(jsonl({"id": "new", "output": "x"}))

    upload = ingest.ingest_path(
        run.project, "v1", path, column_mapping={"user_interaction_id": "id", "output": "output"}
    )

    assert upload.run == run
    assert set(run.interactions.values_list("user_interaction_id", flat=True)) == {"kept", "new"}


def test_ingest_path_reads_parquet_from_storage(media, tmp_path):
    path = tmp_path / "data.parquet"
    path.write_bytes(parquet_bytes(pa.table({"input": ["a", "b"], "output": ["A", "B"]})))
    upload = ingest.ingest_path(ProjectFactory(), "v1", path)
    assert (upload.status, upload.file_format, upload.accepted) == ("ingested", "parquet", 2)


def test_ingest_path_of_a_missing_file_creates_nothing(media, tmp_path):
    project = ProjectFactory()
    with pytest.raises(FileNotFoundError):
        ingest.ingest_path(project, "v1", tmp_path / "missing.csv")
    assert not project.runs.exists()


def test_ingest_path_refuses_a_large_file_without_copying_it(media, tmp_path, settings):
    settings.EVALSITE_UPLOAD_MAX_BYTES = 10
    path = tmp_path / "big.csv"
    path.write_text("output\n" + "x\n" * 20)

    upload = ingest.ingest_path(ProjectFactory(), "v1", path)

    assert upload.status == Upload.Status.FAILED
    assert upload.row_errors == [
        {"line": None, "field": "", "reason": "the file is 47 bytes, over the upload limit of 10 bytes"}
    ]
    assert not upload.file
    assert not media.exists() or not any(media.rglob("*.csv"))


def test_ingest_upload_records_a_fatal_problem(media, tmp_path):
    path = tmp_path / "data.parquet"
    path.write_text("input,output\na,b\n")
    upload = ingest.ingest_path(ProjectFactory(), "v1", path)

    upload.refresh_from_db()
    assert upload.status == Upload.Status.FAILED
    assert upload.row_errors == [
        {"line": None, "field": "", "reason": "the file ends in .parquet but is not a Parquet file"}
    ]


def test_ingest_upload_uses_the_mapping_given(media, tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("a,b,c\nq,x,y\n")
    upload = ingest.ingest_path(ProjectFactory(), "v1", path, column_mapping={"input": "a", "output": "c"})
    upload.refresh_from_db()
    assert upload.column_mapping == {"input": "a", "output": "c"}
    assert upload.run.interactions.get().metadata == {"b": "x"}


def test_rows_with_errors_are_storable_as_upload_json(media, tmp_path):
    path = tmp_path / "data.csv"
    path.write_bytes(b"input,output,\xff\xfe\n")
    upload = ingest.ingest_path(ProjectFactory(), "v1", path)
    upload.refresh_from_db()
    assert upload.row_errors == [{"line": None, "field": "", "reason": "the header row is not valid UTF-8"}]


@pytest.mark.parametrize("key", [b"out\xffput", b"con\xfftext"])
def test_a_key_that_is_not_utf8_is_reported_as_that_key_not_as_a_missing_output(run, key):
    """A byte inside the key "output" was once reported as "output: required, but missing or empty"."""
    row = b'{"input": "q", "' + key + b'": "the value", "output": "fine"}'
    if key.startswith(b"out"):
        row = b'{"input": "q", "' + key + b'": "the answer"}'
    result = run_ingest(run, "data.jsonl", row + b"\n")
    [error] = result.errors
    shown = key.decode("utf-8", "replace")
    assert (error.line, error.field) == (1, shown)
    assert error.reason == "the name of this field is not valid UTF-8"
