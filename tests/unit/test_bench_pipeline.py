"""The parts of bench/pipeline.py that run in a blink: its rows, its PSS reader, its stage clock."""

import json
import os
import subprocess
import sys

from bench import pipeline, pipeline_worker


def write_rows(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def test_rows_are_half_short_half_long_and_no_text_repeats(tmp_path):
    write_rows(
        tmp_path / pipeline.SHORT_FILES[0],
        [{"input": f"Question {i}?", "context": f"Passage {i}.", "output": f"Answer {i}."} for i in range(3)],
    )
    for name in pipeline.LONG_FILES:
        write_rows(tmp_path / name, [{"input": "Summarize the article.", "context": "", "output": f"{name} summary"}])
    rows = pipeline.build_rows(tmp_path, 9)
    assert (len(rows["short"]), len(rows["long"])) == (5, 4)
    short = rows["short"]
    assert short[0] == {"id": "short-0", "input": "Question 0?", "context": ["Passage 0."], "output": "Answer 0."}
    assert short[3]["input"] == "Hello. Question 0?" and short[3]["context"] == ["Source. Passage 0."]
    for half in rows.values():
        assert len({row["output"] for row in half}) == len(half)
        assert len({row["id"] for row in half}) == len(half)
    # The long half takes the files in turn; a row without a document has no documents.
    assert [row["output"] for row in rows["long"][:2]] == [f"{name} summary" for name in pipeline.LONG_FILES]
    assert rows["long"][0]["context"] == []


def test_pss_of_a_process_and_of_its_children():
    assert pipeline.pss_kb(os.getpid()) > 0
    assert pipeline.pss_kb(2**22 + 1) is None  # no such process
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert child.pid in pipeline.child_pids(os.getpid())
    finally:
        child.kill()
        child.wait()


class FakeTime:
    """perf_counter moves only when the test says."""

    def __init__(self):
        self.now = 100.0

    def perf_counter(self):
        return self.now


def test_a_nested_stage_is_counted_once_in_the_inner_stage(monkeypatch):
    fake = FakeTime()
    monkeypatch.setattr(pipeline_worker, "time", fake)
    clock = pipeline_worker.StageClock()
    with clock.stage("outer"):
        fake.now += 2
        with clock.stage("inner"):
            fake.now += 5
        fake.now += 1
    assert clock.take() == {"outer": 3.0, "inner": 5.0}
    assert clock.take() == {}


def test_every_property_of_every_template_has_its_raw_model_calls_or_calls_no_model():
    # The raw-model limit is measured per template: a model-backed property without raw calls
    # would stop a long bench halfway (pipeline_raw.calls_for raises for it).
    from bench import pipeline_raw
    from properties.projects import project_templates

    kinds = {
        name: pipeline_raw.kind_of(name)
        for template in project_templates.TEMPLATES.values()
        for name in template.properties or project_templates.DEFAULT_PROPERTIES
    }
    assert kinds["fluency"] == kinds["formality"] == "classifier" and kinds["coverage"] == "rag"
    assert kinds["sentiment"] == "none" and kinds["grounded_in_context"] == "nli"
