"""The evidence-agreement check that bench/evidence.py runs on every suite case: it finds each way
evidence can disagree with its verdict, and passes evidence that agrees."""

from __future__ import annotations

from properties.quality.criteria import default_for
from properties.scorers.base import Score, Span
from properties.screen.evidence_agreement import disagreements, thresholds

OUTPUT = "Apollo 11 landed in 1969. It carried three astronauts."


def statement(start: int, end: int, score: float, note: str = "") -> Span:
    label = "ungrounded" if score < 0.5 else "supported"
    return Span("output", start, end, label, score, note)


def test_the_thresholds_are_the_default_and_it_moved_either_way_inside_the_range() -> None:
    assert thresholds(default_for("grounded_in_context")) == [0.5, 0.3, 0.7]
    assert thresholds(default_for("invalid_links")) == [0.01, 0.21]  # -0.19 is outside 0-1
    assert thresholds(default_for("formality")) == []  # no pass or fail


def test_every_statement_as_a_span_agrees_at_every_threshold() -> None:
    score = Score(value=0.634, spans=[statement(0, 25, 0.62), statement(26, 54, 0.9)])
    assert disagreements("grounded_in_context", score, default_for("grounded_in_context"), {"output": OUTPUT}) == []


def test_a_failing_value_without_a_problem_span_is_found() -> None:
    # Only the ungrounded statements, written at 0.5: at the project's 0.7 the value fails with no problem.
    score = Score(value=0.634, spans=[])
    found = disagreements("grounded_in_context", score, default_for("grounded_in_context"), {"output": OUTPUT})
    assert found == ["at threshold 0.7: value 0.634 fails, and no span shows a problem (no spans)"]


def test_a_note_that_says_the_opposite_of_the_colour_is_found() -> None:
    span = Span("output", 0, 25, "addresses the input", 0.9, "no sentence addresses the input")
    found = disagreements("relevance", Score(value=0.9, spans=[span]), default_for("relevance"), {"output": OUTPUT})
    assert any("shown as support, but its note says" in problem for problem in found)


def test_a_difference_that_both_texts_contain_is_found() -> None:
    note = "the documents say 11, 1969, 20, the answer says 21; closest passage: ..."
    score = Score(value=0.1, spans=[statement(0, 25, 0.1, note)])
    found = disagreements("grounded_in_context", score, default_for("grounded_in_context"), {"output": OUTPUT})
    assert any("lists as a difference 11, 1969, which the statement also gives" in problem for problem in found)


def test_format_and_length_properties_explain_a_failing_value_at_every_threshold() -> None:
    # Valid JSON, Valid XML, Schema and Reading Ease had no span on a failing value (prose, a NaN, a
    # missing field, a hard text).
    from properties.scorers.reading_ease import ReadingEase
    from properties.scorers.schema import Schema
    from properties.scorers.valid_json import ValidJSON
    from properties.scorers.valid_xml import ValidXML

    hard = "Notwithstanding the aforementioned provisions, indemnification obligations survive termination."
    cases = [
        ("valid_json", ValidJSON().run_batch(["Sure! Here it is."])[0], {"output": "Sure! Here it is."}),
        ("valid_json", ValidJSON().run_batch(['{"a": NaN}'])[0], {"output": '{"a": NaN}'}),
        ("valid_xml", ValidXML().run_batch(["No XML here."])[0], {"output": "No XML here."}),
        ("schema", Schema(json_schema={"required": ["a"]}).run_batch(["{}"])[0], {"output": "{}"}),
        ("reading_ease", ReadingEase().run_batch([hard])[0], {"output": hard}),
        ("reading_ease", ReadingEase().run_batch(["Turn it off. Then on."])[0], {"output": "Turn it off. Then on."}),
    ]
    for prop, score, texts in cases:
        assert score.spans, prop
        assert disagreements(prop, score, default_for(prop), texts) == []


def test_a_hard_sentence_is_a_problem_only_on_the_failing_side() -> None:
    from dataclasses import replace

    from properties.screen import highlight

    for prop, span, failing_at, passing_at in [
        ("reading_ease", Span("output", 0, 10, "sentence", 42.0), 50.0, 30.0),
    ]:
        rule = default_for(prop)
        failing = highlight.evidence_of(prop, [span.to_dict()], replace(rule, threshold=failing_at))[0]
        passing = highlight.evidence_of(prop, [span.to_dict()], replace(rule, threshold=passing_at))[0]
        assert (failing.kind.tone, passing.kind.tone) == (highlight.PROBLEM, highlight.NEUTRAL), prop
