"""Coverage, Context Entity Recall and Summarization: spaCy topics and the packaged MiniLM, for real."""

from __future__ import annotations

import pytest

from properties.scorers import registry
from properties.scorers.base import Score
from properties.scorers.context_entity_recall import ContextEntityRecall
from properties.scorers.coverage import Coverage
from properties.scorers.summarization import Summarization
from properties.scorers.text import topics

ARTICLE = (
    "The Springfield city council approved a new budget for public schools on Monday. "
    "The budget raises teacher salaries by 5 percent and pays for 40 new classrooms. "
    "Mayor Ellen Park said the schools budget was the council's first priority this year. "
    "Teachers welcomed the budget, and the council will review the schools again in March. "
    "Coffee and pastries for the meeting came from a local bakery."
)
INSTRUCTION = "Summarize the article."


@pytest.fixture(scope="module")
def coverage() -> Coverage:
    scorer = Coverage()
    scorer.run_batch(["warm-up"], None, ["warm-up source"], None)
    return scorer


@pytest.fixture(scope="module")
def summarization() -> Summarization:
    return Summarization()


def score_one(scorer, output: str, source: str, documents: list[str] | None = None) -> Score:
    documents = [source] if documents is None else documents
    result = scorer.run_batch([output], None, [INSTRUCTION], [documents])[0]
    assert isinstance(result, Score)
    return result


def test_dropping_the_main_topic_costs_more_than_dropping_a_detail(coverage):
    keeps_main = score_one(
        coverage, "Springfield's council approved a schools budget that raises teacher salaries.", ARTICLE
    )
    keeps_detail = score_one(coverage, "A local bakery brought coffee and pastries to a meeting.", ARTICLE)
    assert keeps_main.value > keeps_detail.value + 0.2
    assert "budget" in keeps_main.details["covered_topics"]
    assert "budget" in keeps_detail.details["missed_topics"]


def test_missed_topics_point_at_the_source_and_covered_ones_at_the_output(coverage):
    output = "The council approved a budget for schools."
    result = score_one(coverage, output, ARTICLE)
    missed = [
        span for span in result.spans if span.field == "information_retrieval[0]" and span.label != "key sentence"
    ]
    covered = [span for span in result.spans if span.field == "output" and span.label != "key sentence"]
    assert {"Springfield", "Ellen Park"} <= {span.label for span in missed}
    for span in missed:
        assert ARTICLE[span.start : span.end] == span.label
        assert span.note.startswith("missed")
    assert {"council", "budget"} <= {output[span.start : span.end] for span in covered}


def test_a_synonym_counts_through_the_embedding_only_with_the_semantic_step(coverage):
    source = "An aircraft landed safely in a storm. The aircraft carried 120 passengers. The aircraft was new."
    semantic = score_one(coverage, "A plane landed in a storm.", source)
    lexical = score_one(Coverage(semantic=False), "A plane landed in a storm.", source)
    assert "aircraft" in semantic.details["covered_topics"]
    assert "aircraft" in lexical.details["missed_topics"]


def test_the_input_is_the_source_when_there_are_no_documents(coverage):
    result = coverage.run_batch(["The council approved a schools budget."], None, [ARTICLE], None)[0]
    assert result.ok
    assert any(span.field == "input" and ARTICLE[span.start : span.end] == span.label for span in result.spans)


def test_context_entity_recall_is_the_share_of_the_contexts_entities_kept():
    context = "Marie Curie was born in Warsaw in 1867 and later moved to Paris."
    result = ContextEntityRecall().run_batch(["Marie Curie lived in Paris."], None, [""], [[context]])[0]
    assert result.details["context_entity_count"] == 4, result.details
    assert result.value == 0.5
    assert sorted(result.details["missed"]) == ["1867", "Warsaw"]
    assert result.details["output_entities_in_context"] == 1.0


def test_summarization_grades_a_clear_good_and_bad_summary(summarization):
    good = score_one(
        summarization, "Springfield's council approved a schools budget raising teacher salaries 5 percent.", ARTICLE
    )
    bad = score_one(summarization, "Coffee came from a local bakery.", ARTICLE)
    assert good.value > bad.value
    assert bad.label == "poor" and bad.value == 0.0
    assert good.label in ("ok", "excellent")
    for key in ("summarization_eval_score", "entity_density", "is_entity_dense", "llm_eval_reasoning", "quality"):
        assert key in good.details
    assert good.details["is_entity_dense"] is True


def test_a_copy_of_the_source_is_no_summary(summarization):
    assert score_one(summarization, ARTICLE, ARTICLE).label == "poor"


def test_pieces_cover_the_whole_text_and_cut_at_sentence_ends():
    text = "One sentence here. " * 40
    pieces = topics.cut_pieces(text, size=100)
    assert pieces[0][0] == 0 and pieces[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(pieces, pieces[1:], strict=False))
    assert all(text[end - 1] == " " and text[end - 2] == "." for _, end in pieces[:-1])


def test_a_source_longer_than_any_window_is_read_to_its_end(coverage):
    filler = " ".join(f"Shelf {n} of the inventory holds a blue box." for n in range(2400))
    tail = " Zanzibar signed the treaty. The Zanzibar treaty ends the dispute. Zanzibar celebrated."
    source = filler + tail
    assert len(source) > topics.PIECE_CHARS
    kept = score_one(coverage, "Zanzibar signed a treaty.", source)
    dropped = score_one(coverage, "The inventory holds boxes on shelves.", source)
    assert "Zanzibar" in kept.details["covered_topics"]
    span = next(span for span in dropped.spans if span.label == "Zanzibar")
    assert span.start > topics.PIECE_CHARS and source[span.start : span.end] == "Zanzibar"


def test_without_source_or_output_it_is_not_applicable(coverage, summarization):
    for scorer in (coverage, summarization, ContextEntityRecall()):
        no_source, no_output = scorer.run_batch(["A summary.", "  "], None, ["", INSTRUCTION], [[], [ARTICLE]])
        assert no_source.ok and "no source" in no_source.not_applicable_reason
        assert no_output.not_applicable_reason == "the output is empty"


def test_the_registered_names_load_through_the_registry():
    for name, cls in (
        ("coverage", Coverage),
        ("context_entity_recall", ContextEntityRecall),
        ("summarization", Summarization),
    ):
        assert registry.get(name) is cls
        assert registry.is_builtin(name)
        assert isinstance(registry.get(name).from_dict({}), cls)
