from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from properties.compare import comparison, matching
from properties.quality import criteria
from properties.screen import highlight
from tests.factories import InteractionFactory, RunFactory
from tests.unit.screen.test_datascreen import add_value


def test_stat_interval():
    stat = comparison.Stat(mean=0.5, count=100, stddev=0.2)
    assert stat.ci95 == pytest.approx(1.96 * 0.02)
    assert comparison.Stat(0.5, 1, 0.0).ci95 == 0.0


def test_word_diff_marks_changes():
    pieces = comparison.word_diff("Paris is the capital.", "Berlin is the capital.")
    assert pieces == [("Paris", "delete"), ("Berlin", "insert"), (" is the capital.", "equal")]
    assert comparison.word_diff("same words", "same words") == [("same words", "equal")]
    assert comparison.word_diff("", "") == []


WORD = st.sampled_from(["a", "b", "lorem", "ipsum", " ", "  ", "\n", "."])


@settings(max_examples=300, deadline=None)
@given(before=st.lists(WORD, max_size=12).map("".join), after=st.lists(WORD, max_size=12).map("".join))
def test_word_diff_pieces_rebuild_both_texts(before, after):
    pieces = comparison.word_diff(before, after)
    assert "".join(text for text, tag in pieces if tag != "insert") == before
    assert "".join(text for text, tag in pieces if tag != "delete") == after
    assert all(text for text, _ in pieces), "no empty piece"
    assert (pieces == [(before, "equal")]) == (before == after != "")


@pytest.mark.django_db
def test_row_diffs_sort_by_largest_change_and_summaries_have_means():
    run_a, run_b = RunFactory(name="a"), None
    run_b = RunFactory(project=run_a.project, name="b")
    for uid, before, after in [("1", 0.1, 0.2), ("2", 0.5, 0.0), ("3", 0.3, None)]:
        ia = InteractionFactory(run=run_a, user_interaction_id=uid, input=f"q{uid}")
        ib = InteractionFactory(run=run_b, user_interaction_id=uid, input=f"q{uid}")
        add_value(ia, "toxicity", value=before)
        if after is not None:
            add_value(ib, "toxicity", value=after)
    rows = comparison.row_diffs(run_a, run_b, "toxicity.output")
    assert [(r.a.user_interaction_id, r.delta) for r in rows] == [("2", -0.5), ("1", pytest.approx(0.1)), ("3", None)]
    summaries = comparison.summarize_runs([run_a, run_b])
    assert summaries[0].stats["toxicity.output"].mean == pytest.approx(0.3)
    assert summaries[1].stats["toxicity.output"].count == 2


def test_segments_follow_span_offsets_and_clip_overlaps():
    text = "Call me at 555-0100 or mail a@b.io"
    spans = [
        {"field": "output", "start": 11, "end": 19, "label": "PHONE", "score": 0.9, "note": "risk 0.6"},
        {"field": "output", "start": 15, "end": 22, "label": "overlap"},
        {"field": "output", "start": 30, "end": 34, "label": "EMAIL", "score": 0.2},
    ]
    segments = highlight.segments(text, highlight.evidence_of("pii_risk", spans))
    assert "".join(s.text for s in segments) == text
    marked = [(s.text, s.span["label"]) for s in segments if s.span]
    assert marked == [("555-0100", "PHONE"), (" or", "overlap"), ("b.io", "EMAIL")]
    assert segments[1].title == "personal data “PHONE” · risk 0.90 · risk 0.6"
    assert [s.evidence.css for s in segments if s.evidence] == [
        "ev-problem ev-problem-3",
        "ev-problem ev-problem-2",
        "ev-problem ev-problem-1",
    ], "risky PII is darker than harmless PII; a span without a score is in the middle"


def test_segments_ignore_spans_outside_the_text():
    outside = highlight.evidence_of("pii_risk", [{"start": 5, "end": 9}])
    assert [s.text for s in highlight.segments("abc", outside)] == ["abc"]
    assert [s.text for s in highlight.segments("", [])] == [""]


@pytest.mark.parametrize(
    ("prop", "span", "kind", "tone"),
    [
        ("grounded_in_context", {"label": "ungrounded", "score": 0.1}, "ungrounded statement", "problem"),
        ("grounded_in_context", {"label": "closest passage", "score": 0.1}, "closest passage", "support"),
        ("coverage", {"label": "Paris", "note": "missed; place, weight 2"}, "missed topic", "problem"),
        ("coverage", {"label": "Paris", "note": "covered (exact); place, weight 2"}, "covered topic", "support"),
        (
            "summarization",
            {"label": "key sentence", "note": "key sentence missed: 0.2"},
            "missed key sentence",
            "problem",
        ),
        ("context_entity_recall", {"label": "Paris", "note": "kept: place of the context"}, "kept entity", "support"),
        ("pii_risk", {"label": "email", "score": 0.8}, "personal data", "problem"),
        ("toxicity", {"label": "toxic", "score": 0.9}, "toxic sentence", "problem"),
        ("avoided_answer", {"label": "refusal", "score": 0.9}, "refusal", "problem"),
        ("invalid_links", {"label": "404", "score": 1.0}, "bad link", "problem"),
        ("invalid_links", {"label": "ok", "score": 0.0}, "working link", "support"),
        ("invalid_links", {"label": "not checked"}, "link not checked", "neutral"),
        ("information_density", {"label": "low information", "score": 0.1}, "low-information sentence", "problem"),
        ("retrieval_relevance", {"label": "relevant chunk", "score": 0.8}, "relevant chunk", "support"),
        ("retrieval_relevance", {"label": "not relevant", "score": 0.1}, "not relevant chunk", "problem"),
        ("llm_context_relevancy", {"label": "closest chunk", "score": 0.3}, "not relevant chunk", "problem"),
        ("grounded_in_context", {"label": "supported", "score": 0.9}, "supported statement", "support"),
        (
            "relevance",
            {"label": "closest to the input", "score": 0.2},
            "closest sentence, does not address the input",
            "problem",
        ),
        ("relevance", {"label": "addresses the input", "score": 0.9}, "answering sentence", "support"),
        ("valid_json", {"label": "error"}, "format error", "problem"),
        ("my_plugin", {"label": "whatever", "score": 0.5}, "evidence", "neutral"),
    ],
)
def test_every_span_says_what_kind_of_evidence_it_is(prop, span, kind, tone):
    found = highlight.kind_of(prop, span)
    assert (found.name, found.tone) == (kind, tone)


def test_a_problem_is_darker_the_worse_it_is_and_notes_name_their_numbers():
    weak, strong = highlight.evidence_of(
        "grounded_in_context",
        [
            {"field": "output", "start": 0, "end": 3, "label": "ungrounded", "score": 0.45},
            {"field": "output", "start": 4, "end": 9, "label": "ungrounded", "score": 0.05},
        ],
    )
    assert (weak.level, strong.level) == (2, 3), "a lower support probability is a worse problem"
    assert strong.title == "ungrounded statement · support probability 0.05"
    (topic,) = highlight.evidence_of(
        "coverage",
        [{"field": "output", "start": 0, "end": 3, "label": "Paris", "score": 2.4, "note": "missed; weight 2.4"}],
    )
    assert topic.title == "missed topic “Paris” · salience 2.40 · missed; salience 2.4"
    legend = highlight.legend([weak, strong, topic])
    assert legend[0] == ("problem", highlight.TONES["problem"], ["ungrounded statement", "missed topic"])
    assert [tone for tone, _, _ in legend] == ["problem"], "only the kinds the property has are listed"


@pytest.mark.parametrize(
    ("prop", "span", "threshold", "kind", "tone"),
    [
        # Written at the scorer's 0.5, shown by the project's threshold.
        ("grounded_in_context", {"label": "supported", "score": 0.63}, 0.7, "ungrounded statement", "problem"),
        ("grounded_in_context", {"label": "ungrounded", "score": 0.4}, 0.3, "supported statement", "support"),
        # A passage that does not support its statement is never painted as support.
        (
            "grounded_in_context",
            {"label": "closest passage", "score": 0.09},
            0.5,
            "closest passage, not supporting",
            "neutral",
        ),
        ("grounded_in_context", {"label": "closest passage", "score": 0.8}, 0.5, "closest passage", "support"),
        ("toxicity", {"label": "most toxic", "score": 0.4}, 0.3, "toxic sentence", "problem"),
        ("toxicity", {"label": "toxic", "score": 0.6}, 0.7, "most toxic sentence, under the threshold", "neutral"),
        (
            "avoided_answer",
            {"label": "refusal", "score": 0.0},
            0.5,
            "closest to a refusal, under the threshold",
            "neutral",
        ),
        (
            "relevance",
            {"label": "addresses the input", "score": 0.6},
            0.7,
            "closest sentence, does not address the input",
            "problem",
        ),
        (
            "information_density",
            {"label": "least informative", "score": 0.6},
            0.7,
            "low-information sentence",
            "problem",
        ),
        ("coverage", {"label": "Paris", "score": 2.4, "note": "missed; weight 2.4"}, 0.9, "missed topic", "problem"),
    ],
)
def test_a_span_on_the_scale_of_its_value_is_shown_by_the_projects_threshold(prop, span, threshold, kind, tone):
    rule = replace(criteria.default_for(prop), threshold=threshold)
    (shown,) = highlight.evidence_of(prop, [{"field": "output", "start": 0, "end": 3, **span}], rule)
    assert (shown.kind.name, shown.kind.tone) == (kind, tone)
    if prop == "grounded_in_context":
        assert shown.label == "", "a verdict written at the scorer's threshold is not shown beside the kind"


def test_the_legend_lists_support_and_neutral_only_where_they_occur():
    (chunk,) = highlight.evidence_of(
        "retrieval_relevance",
        [{"field": "information_retrieval[0]", "start": 0, "end": 3, "label": "relevant chunk", "score": 0.8}],
    )
    assert [tone for tone, _, _ in highlight.legend([chunk])] == ["support"]


@pytest.mark.django_db
def test_a_row_not_applicable_in_both_runs_has_not_changed():
    """Once an n/a-to-n/a row was listed as changed, with a dash for its change."""
    run_a = RunFactory()
    run_b = RunFactory(project=run_a.project)
    for run, number in ((run_a, 0.2), (run_b, 0.8)):
        moved = InteractionFactory(run=run, user_interaction_id="moved", input="moved")
        add_value(moved, "retrieval_relevance", "interaction", value=number)
        both_na = InteractionFactory(run=run, user_interaction_id="n/a", input="n/a")
        add_value(both_na, "retrieval_relevance", "interaction", status="not_applicable")
    one_side = InteractionFactory(run=run_a, user_interaction_id="gone", input="gone")
    add_value(one_side, "retrieval_relevance", "interaction", value=0.5)
    InteractionFactory(run=run_b, user_interaction_id="gone", input="gone")
    changed = matching.changed_pairs(run_a, run_b, "retrieval_relevance", 0.01)
    ids = [pair[0] for pair in changed.pairs]
    assert len(ids) == 2 and changed.matched == 3 and changed.without_values == 1
    assert [(a, b) for _, _, a, b in changed.pairs] == [(0.2, 0.8), (0.5, None)]


@pytest.mark.django_db
def test_a_property_of_labels_changes_when_its_label_does():
    """Labels have no number: once every row was "changed" with a dash on both sides."""
    run_a = RunFactory()
    run_b = RunFactory(project=run_a.project)
    for uid, before, after in (("same", "sql", "sql"), ("moved", "sql", "other")):
        add_value(InteractionFactory(run=run_a, user_interaction_id=uid, input=uid), "content_type", label=before)
        add_value(InteractionFactory(run=run_b, user_interaction_id=uid, input=uid), "content_type", label=after)
    changed = matching.changed_pairs(run_a, run_b, "content_type.output", 0.01)
    assert [(a, b) for _, _, a, b in changed.pairs] == [("sql", "other")]
    assert changed.within_tolerance == 1
    [row] = comparison.diff_rows(changed.pairs)
    assert (row.labels, row.delta, row.change) == (True, None, "changed")
