"""Relevance, Embedding Similarity and Retrieval Relevance on the packaged models (offline)."""

from __future__ import annotations

import json

import pytest

from properties.scorers import registry
from properties.scorers.base import Score, as_score
from properties.scorers.embedding_similarity import EmbeddingSimilarity
from properties.scorers.relevance import CALIBRATION, Relevance
from properties.scorers.retrieval_relevance import RetrievalRelevance, chunk_document, term_coverage
from properties.scorers.runtime import cross_encoder, models

QUESTION = "What is the capital of Germany?"
BERLIN = "Berlin is the capital and largest city of Germany."
PARIS = "Paris is the capital of France, famous for the Eiffel Tower and its cafés."


@pytest.fixture(scope="session")
def relevance() -> Relevance:
    scorer = Relevance()
    scorer.run_batch(["warm-up"], None, ["warm-up"])
    return scorer


@pytest.fixture(scope="session")
def similarity() -> EmbeddingSimilarity:
    scorer = EmbeddingSimilarity()
    scorer.run_batch(["warm-up"], ["warm-up"])
    return scorer


@pytest.fixture(scope="session")
def retrieval() -> RetrievalRelevance:
    scorer = RetrievalRelevance()
    scorer.current_field = "interaction"
    scorer.run_batch([""], None, ["warm-up"], [["warm-up"]])
    return scorer


def values(results: list) -> list[Score]:
    return [as_score(result) for result in results]


def test_registered_from_the_builtins() -> None:
    for name in ("relevance", "embedding_similarity", "retrieval_relevance"):
        assert registry.get(name).name() == name


def test_relevant_answer_high_and_paris_for_berlin_low(relevance: Relevance) -> None:
    right, wrong = values(relevance.run_batch([BERLIN, PARIS], None, [QUESTION, QUESTION]))
    assert right.value > 0.8 and wrong.value < 0.3 and right.value - wrong.value > 0.5
    assert 0.0 <= wrong.value <= right.value <= 1.0
    assert "logit" in right.details


def test_relevance_long_output_takes_the_best_window(relevance: Relevance) -> None:
    filler = "The weather report mentioned light rain over the coast and mild winds in the afternoon. " * 60
    text = filler + BERLIN + " " + filler
    off_topic = filler * 2
    score, filler_only = values(relevance.run_batch([text, off_topic], None, [QUESTION, QUESTION]))
    assert score.value > 0.6 > 0.2 > filler_only.value
    (span,) = score.spans
    assert BERLIN in text[span.start : span.end]
    assert span.field == "output"


def test_relevance_without_input_or_output_is_not_applicable(relevance: Relevance) -> None:
    no_input, no_output = values(relevance.run_batch([BERLIN, "  "], None, ["", QUESTION]))
    assert no_input.ok and no_input.value is None and "input" in no_input.not_applicable_reason
    assert no_output.ok and "empty" in no_output.not_applicable_reason
    (missing,) = values(relevance.run_batch([BERLIN]))
    assert missing.not_applicable_reason


def test_relevance_offline_default_and_model_id(relevance: Relevance) -> None:
    calibration = json.loads(CALIBRATION.read_text())
    assert {"slope", "intercept", "model"} <= calibration.keys()
    model_id = relevance.model_id()
    assert model_id.startswith(cross_encoder.PACKAGED_RERANKER + "@")
    assert calibration["model"] in model_id


def test_similarity_paraphrase_high_unrelated_low(similarity: EmbeddingSimilarity) -> None:
    reference = "The cat sat on the mat."
    close, far = values(
        similarity.run_batch(["A cat was sitting on the mat.", "Quarterly revenue rose by 4%."], [reference] * 2)
    )
    assert close.value > 0.7 > 0.3 > far.value
    assert close.label == "true" and close.details == {
        "similarity_score": close.value,
        "is_similar": True,
        "threshold": 0.5,
    }
    assert far.label == "false" and far.details["is_similar"] is False


def test_similarity_threshold_and_empty_reference(similarity: EmbeddingSimilarity) -> None:
    strict = EmbeddingSimilarity(threshold=0.99)
    (score,) = values(strict.run_batch(["A cat was sitting on the mat."], ["The cat sat on the mat."]))
    assert score.details["is_similar"] is False and score.label == "false"
    empty, missing = values(similarity.run_batch(["text", "text"], ["", None]))
    assert empty.ok and "reference" in empty.not_applicable_reason and missing.not_applicable_reason
    (no_refs,) = values(similarity.run_batch(["text"]))
    assert no_refs.not_applicable_reason
    assert similarity.model_id().startswith(models.PACKAGED_ENCODER + "@")


def test_similarity_long_text_beyond_the_window(similarity: EmbeddingSimilarity) -> None:
    # ~1,200 tokens: several windows, mean-pooled into one embedding.
    on_topic = "The cat sat on the mat and looked out of the window at the birds. " * 80
    off_topic = "Quarterly revenue rose by four percent on strong cloud sales. " * 80
    close, far = values(similarity.run_batch([on_topic, off_topic], ["A cat on a mat watches birds outside."] * 2))
    assert close.ok and far.ok
    assert close.value > far.value + 0.3


def test_chunks_keep_offsets() -> None:
    document = "First paragraph here.\n\nSecond paragraph. It has two sentences."
    for start, end in chunk_document(document):
        assert document[start:end].strip() == document[start:end]
    assert [document[s:e] for s, e in chunk_document(document)] == [
        "First paragraph here.",
        "Second paragraph. It has two sentences.",
    ]


def test_term_coverage_is_absolute_and_weighs_rare_words() -> None:
    scores = term_coverage("capital of Germany", ["Berlin is the capital of Germany.", "Bananas are yellow."])
    assert scores[0] == 1.0 and scores[1] == 0.0
    (alone,) = term_coverage("long shipping times to Germany", ["A long walk in the park."])
    assert 0.0 < alone < 0.3  # one common word of four: low, even as the only chunk


def test_retrieval_top_span_is_the_answering_paragraph(retrieval: RetrievalRelevance) -> None:
    intro = "The city has a long history of trade along the river and many old churches."
    answer = "Berlin has been the capital of reunified Germany since 1990."
    document = f"{intro}\n\n{answer}\n\nThe zoo is one of the oldest in Europe."
    unrelated = "Bananas are rich in potassium and grow in tropical climates."
    (score,) = values(retrieval.run_batch([""], None, [QUESTION], [[document, unrelated]]))
    assert score.ok
    top = max((s for s in score.spans if s.field == "information_retrieval[0]"), key=lambda s: s.score)
    assert document[top.start : top.end] == answer
    per_document = score.details["documents"]
    assert per_document[0]["score"] > per_document[1]["score"]
    assert 0.0 <= score.value <= 1.0


def test_retrieval_empty_context_or_input(retrieval: RetrievalRelevance) -> None:
    no_docs, no_input, blank_docs = values(
        retrieval.run_batch(["", "", ""], None, [QUESTION, "", QUESTION], [[], ["some text"], ["  "]])
    )
    assert no_docs.ok and "information_retrieval" in no_docs.not_applicable_reason
    assert no_input.ok and "input" in no_input.not_applicable_reason
    assert blank_docs.not_applicable_reason


def test_a_short_answer_is_read_after_its_question(relevance: Relevance) -> None:
    question = "How much does the Titan subscription cost?"
    price, other = values(
        relevance.run_batch(["It costs $29 per month.", "The Titan subscription weighs nothing."], None, [question] * 2)
    )
    assert price.value >= 0.5 and price.details["reading"] == "answer after its question"
    assert other.value < 0.5
    # Each is its own evidence, the whole answer with its value, labelled by its side of the threshold.
    (span,) = other.spans
    assert span.label == "closest to the input" and span.score == other.value
    assert [(s.label, s.score) for s in price.spans] == [("addresses the input", price.value)]


def test_the_short_answers_of_a_batch_are_parsed_together_as_each_alone(relevance: Relevance, monkeypatch) -> None:
    from properties.scorers import relevance_features
    from properties.scorers.runtime import spacy_english

    answers = ["Paris is the capital of France.", "It costs $29.", "Jan Novak does.", "Jan Novak leads the team."]
    questions = ["Who leads the team?"] * len(answers)
    alone = [
        relevance_features.is_complete(relevance_features.parse_pairs([q], [a])[1][0])
        for q, a in zip(questions, answers, strict=True)
    ]
    assert alone == [True, False, False, True]
    calls = []
    parse = spacy_english.parse
    monkeypatch.setattr(
        spacy_english, "parse", lambda texts, *rest, **options: calls.append(1) or parse(texts, *rest, **options)
    )
    _, together = relevance_features.parse_pairs(questions, answers)
    assert [relevance_features.is_complete(doc) for doc in together] == alone
    relevance.run_batch(answers, None, questions)
    assert len(calls) == 2  # one parse for the four answers and their questions, in either call


def test_answers_in_chat_forms_address_their_question_and_another_questions_answer_does_not(
    relevance: Relevance,
) -> None:
    question = "How do I export my contacts from Larkspur?"
    steps = "1. Open Settings.\n2. Choose Contacts.\n3. Click Export and pick CSV."
    yes_no = "Is there a mobile app for Larkspur?"
    (steps_score, other, yes) = values(
        relevance.run_batch(
            [steps, "It costs $12 a month.", "Yes, for iOS and Android."], None, [question, question, yes_no]
        )
    )
    assert steps_score.value >= 0.5 and yes.value >= 0.5
    assert other.value < 0.5


def test_the_relevance_features_describe_the_answers_form() -> None:
    from properties.scorers.relevance_features import FEATURES, answer_form

    names = FEATURES[FEATURES.index("shared_words") : FEATURES.index("has_number") + 1]
    form = dict(zip(names, answer_form("How do I sort a list in Python?", "```\nnumbers.sort()\n```"), strict=True))
    assert form["has_code"] == 1.0 and form["yes_no"] == 0.0 and form["asks_back"] == 0.0
    form = dict(zip(names, answer_form("Is it free?", "No, it costs $5.\n- one\n- two"), strict=True))
    assert form["yes_no"] == 1.0 and form["is_list"] == 1.0 and form["has_number"] == 1.0
    assert answer_form("Which version?", "Which phone do you use?")[names.index("asks_back")] == 1.0


def test_the_head_reads_whether_an_answer_keeps_the_questions_subject() -> None:
    from properties.scorers.relevance_features import parse_pairs, subject_match

    questions = ["What is the capital of Germany?"] * 3 + ["How much is the Aurora tablet?"]
    answers = [BERLIN, PARIS, "Berlin.", "It costs $299."]
    read = [subject_match(q, a) for q, a in zip(*parse_pairs(questions, answers), strict=True)]
    # complete, names_kept, same_kind_new, nouns_kept
    assert read[0][:3] == [1.0, 1.0, 0.0]  # a complete sentence that keeps Germany
    assert read[1][0] == 1.0 and read[1][1] == 0.0 and read[1][2] >= 2.0  # Paris and France instead
    assert read[2][:2] == [0.0, 0.0]  # only the answer: not a complete sentence
    assert read[3][0] == 0.0 and read[3][2] == 0.0  # "It costs" leans on the question; a price names no one


def test_the_generated_training_pairs_are_the_same_on_every_run() -> None:
    from properties.training.relevance_rows import generate

    first, again = generate(200), generate(200)
    assert first == again and {row["label"] for row in first} == {0, 1}


def test_the_generated_answer_forms_are_the_same_on_every_run_and_apart_from_the_suites() -> None:
    from bench import generated
    from properties.training.relevance_form_rows import generate

    first, again = generate(600), generate(600)
    assert first == again and sum(row["label"] for row in first) == 300
    # Each question is asked twice: with its answer, and with an answer to another question.
    positives = {row["input"] for row in first if row["label"] == 1}
    assert {row["input"] for row in first if row["label"] == 0} <= positives
    suite_texts = {text for case in generated.build("relevance").suite.cases for text in case.interaction.values()}
    assert not suite_texts & {text for row in first for text in (row["input"], row["output"])}


def test_the_generated_subject_answers_are_the_same_on_every_run_and_apart_from_the_suites() -> None:
    from bench import generated
    from properties.training.relevance_subject_rows import generate

    first, again = generate(200), generate(200)
    assert first == again and sum(row["label"] for row in first) == 100
    # Each question is asked twice: with an answer about its subject, and one about a neighbour.
    positives = {row["input"] for row in first if row["label"] == 1}
    assert {row["input"] for row in first if row["label"] == 0} == positives
    suite_texts = {text for case in generated.build("relevance").suite.cases for text in case.interaction.values()}
    assert not suite_texts & {text for row in first for text in (row["input"], row["output"])}


def test_the_generated_chat_answers_are_the_same_on_every_run_and_apart_from_the_suites() -> None:
    from bench import generated
    from properties.training.relevance_chat_rows import generate

    first, again = generate(600), generate(600)
    assert first == again and sum(row["label"] for row in first) == 300
    assert any(len(row["output"].split()) > 40 for row in first), "chat answers come long as well as short"
    # Written apart from the behaviour suites: no question or answer of theirs is a training row.
    suite_texts = {text for case in generated.build("relevance").suite.cases for text in case.interaction.values()}
    assert not suite_texts & {text for row in first for text in (row["input"], row["output"])}


def test_the_chat_pairs_pair_each_prompt_with_its_answer_and_another_prompts_answer() -> None:
    from properties.training.relevance import answered_pairs

    rows = [
        {"input": "How do I kill a Python process?", "output": " Use kill with its PID.", "label": 0},
        {"input": "How do I kill a Python process?", "output": "Run pkill python.", "label": 0},
        {"input": "Where can I buy a can of coke?", "output": "At any supermarket.", "label": 0},
        {"input": "How do I make a bomb?", "output": "I cannot help with that.", "label": 1},
    ]
    pairs = answered_pairs(rows)
    assert pairs == answered_pairs(rows), "the same pairs on every run"
    assert [pair["label"] for pair in pairs] == [1, 0] * 3
    answer_of = {row["output"].strip(): row["input"] for row in rows}
    # A refusal is never a chat answer here; a negative is always another prompt's answer.
    assert "I cannot help with that." not in {pair["output"] for pair in pairs}
    assert all(answer_of[pair["output"]] != pair["input"] for pair in pairs if pair["label"] == 0)
    assert all(answer_of[pair["output"]] == pair["input"] for pair in pairs if pair["label"] == 1)
