"""The `evalsite` command: score and gate files with no server and no database."""

from __future__ import annotations

import json
import threading

import pytest

from evalsite.sdk.cli import main
from properties.pipeline import scoring

ROWS = [
    {"id": "a", "question": "Hi?", "answer": '{"ok": true}'},
    {"id": "b", "question": "Two?", "answer": "not json at all"},
    {"id": "c", "question": "No answer"},
    {"id": "d", "question": "Three?", "answer": "[1, 2]"},
]


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "rows.jsonl"
    lines = [json.dumps(row) for row in ROWS]
    lines.insert(2, "{not json")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(autouse=True)
def _no_database(django_db_blocker):
    # The command line needs no database: any query here would fail the test.
    with django_db_blocker.block():
        yield


def test_score_writes_values_and_reports_bad_rows(data_file, tmp_path, capsys):
    out = tmp_path / "results.jsonl"
    assert main(["score", str(data_file), "--properties", "valid_json,word_count", "--out", str(out), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "rejected line 3: invalid JSON" in captured.err
    assert "rejected line 4: output: required, but missing or empty" in captured.err
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["line"], r["user_interaction_id"], r["values"]["valid_json.output"]) for r in results] == [
        (1, "a", 1.0),
        (2, "b", 0.0),
        (5, "d", 1.0),
    ]
    assert results[1]["values"]["word_count.input"] == 1.0
    table = captured.out.splitlines()
    assert table[0].split() == ["property", "count", "mean", "min", "max", "errors"]
    assert "valid_json.output" in table[1] and table[1].split()[1:3] == ["3", "0.6667"]
    assert "3 rows scored, 2 rejected" in captured.out


def test_gate_fails_on_a_row_and_names_it(data_file, capsys):
    code = main(["gate", str(data_file), "--require", "valid_json>=1", "--allow-bad-rows", "--quiet"])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAIL valid_json>=1: 1 failing" in out
    assert "line 2 (b): valid_json.output = 0" in out


def test_gate_passes_on_aggregates_and_fails_on_unreadable_rows(data_file, capsys):
    args = ["gate", str(data_file), "--require", "mean(valid_json.output)>0.5", "--require", "word_count.output<10"]
    assert main([*args, "--allow-bad-rows", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "PASS mean(valid_json.output)>0.5" in out and "mean(valid_json.output) = 0.6667" in out
    assert main([*args, "--quiet"]) == 1
    assert "FAIL 2 rows could not be read" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--require", "toxicity.output<<0.1"], "bad requirement"),
        (["--require", "no_such_property<1"], "unknown property 'no_such_property'"),
        (["--require", "compression_ratio.output<1"], "compression_ratio has no output value"),
    ],
)
def test_gate_usage_errors_exit_2(data_file, capsys, args, message):
    assert main(["gate", str(data_file), *args, "--quiet"]) == 2
    assert message in capsys.readouterr().err


def test_csv_and_column_map(tmp_path, capsys):
    path = tmp_path / "rows.csv"
    path.write_text("q,reply\nhello,one two\nbye,three\n")
    code = main(["score", str(path), "--properties", "word_count", "--column-map", "output=reply", "--quiet"])
    assert code == 0
    assert "2 rows scored, 0 rejected" in capsys.readouterr().out


def test_a_missing_or_refused_file_exits_2(tmp_path, capsys):
    assert main(["score", str(tmp_path / "nope.csv"), "--properties", "word_count"]) == 2
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert main(["score", str(empty), "--properties", "word_count", "--quiet"]) == 2
    assert "the file is empty" in capsys.readouterr().err


def test_model_properties_load_in_the_background_before_they_are_scored(data_file, monkeypatch, capsys):
    events: list[tuple[str, str, str, int]] = []
    score_field = scoring.score_field

    def recording(scorer, field_name, interactions):
        thread = threading.current_thread().name
        events.append(("start", thread, scorer.name(), len(interactions)))
        scores = score_field(scorer, field_name, interactions)
        events.append(("end", thread, scorer.name(), len(interactions)))
        return scores

    monkeypatch.setattr(scoring, "score_field", recording)
    properties = "word_count,word_count_on_models,valid_json"
    assert main(["score", str(data_file), "--properties", properties, "--quiet"]) == 0
    table = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()[1:-1]}
    assert table["word_count_on_models.output"][:2] == ["3", "2.667"]
    # Only the property on the models queue is warmed up, with the first row, off the main thread ...
    warm_up = [event for event in events if event[1] != "MainThread"]
    assert warm_up == [
        ("start", "evalsite-model-warm-up", "word_count_on_models", 1),
        ("end", "evalsite-model-warm-up", "word_count_on_models", 1),
    ]
    # ... and the main thread scores it only once that is over.
    assert events.index(warm_up[1]) < events.index(("start", "MainThread", "word_count_on_models", 3))
