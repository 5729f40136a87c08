"""Information Density and Context Relevancy on the packaged models (offline)."""

from __future__ import annotations

import pytest

from bench.metrics import roc_auc
from properties.scorers import registry
from properties.scorers.base import Score, as_score
from properties.scorers.context_relevancy import ContextRelevancy
from properties.scorers.information_density import InformationDensity, split_units

# A hand-labelled sanity set (not a tuning set: written after the weights were set, never used to
# change them). 1 = conveys information (facts, instructions), 0 = conveys next to none.
SANITY = [
    ("The Danube flows through ten countries before reaching the Black Sea.", 1),
    ("Insulin is produced by the beta cells of the pancreas.", 1),
    ("Add two cups of flour and knead the dough for eight minutes.", 1),
    ("Set the environment variable DEBUG=false before deploying to production.", 1),
    ("Mount Kilimanjaro rises 5,895 metres above sea level in Tanzania.", 1),
    ("Open a terminal and type `git log --oneline` to list recent commits.", 1),
    ("Copper conducts electricity better than aluminium of the same cross-section.", 1),
    ("The French Revolution began in 1789 with the storming of the Bastille.", 1),
    ("Replace the air filter every twelve months or after 15,000 kilometres.", 1),
    ("Python dictionaries preserve insertion order since version 3.7.", 1),
    ("Honeybees communicate the direction of flowers through a waggle dance.", 1),
    ("Disconnect the power cable before removing the side panel.", 1),
    ("Marie Curie won Nobel Prizes in both physics and chemistry.", 1),
    ("Store the vaccine between 2 and 8 degrees Celsius.", 1),
    ("Could you give me some more context about your project?", 0),
    ("What exactly do you mean by that?", 0),
    ("Please share additional information so I can assist.", 0),
    ("Thanks for reaching out!", 0),
    ("I hope you find this answer useful.", 0),
    ("Feel free to ask if anything else comes up.", 0),
    ("Absolutely!", 0),
    ("I'm sorry, but I am unable to assist with that.", 0),
    ("I cannot provide that kind of information.", 0),
    ("It's hard to say, since every situation is different.", 0),
    ("There are many things to consider here.", 0),
    ("Xlqtr vbnmz grrphk wddjq plokk.", 0),
    ("%%$$ ##@@ &&** !!??", 0),
    ("Have a wonderful day!", 0),
]

QUESTION = "When did the Berlin Wall fall?"
ANSWERING_DOCUMENT = (
    "Berlin is the capital of Germany and home to about 3.7 million people. It is known for its museums, "
    "its nightlife and its many lakes.\n\n"
    "The Berlin Wall fell on 9 November 1989, when East German authorities opened the border crossings.\n\n"
    "Today the city hosts the federal parliament in the Reichstag building."
)
UNRELATED_DOCUMENT = (
    "Sourdough bread is leavened with a culture of wild yeast and lactic acid bacteria. The starter is fed "
    "with flour and water every day."
)


@pytest.fixture(scope="session")
def density() -> InformationDensity:
    scorer = InformationDensity()
    scorer.current_field = "output"
    scorer.run_batch(["Warm-up: load the models."])
    return scorer


@pytest.fixture(scope="session")
def context_relevancy() -> ContextRelevancy:
    scorer = ContextRelevancy()
    scorer.current_field = "interaction"
    scorer.run_batch([""], None, ["warm-up"], [["warm-up"]])
    return scorer


def scores(results: list) -> list[Score]:
    return [as_score(result) for result in results]


def test_names_resolve_through_the_registry() -> None:
    assert registry.get("information_density") is InformationDensity
    assert registry.get("context_relevancy") is ContextRelevancy
    assert registry.is_builtin("information_density") and registry.is_builtin("context_relevancy")


def test_request_for_more_information_well_below_an_instruction(density: InformationDensity) -> None:
    request, instruction = scores(
        density.run_batch(
            ["Could you tell me more about what you need?", "Run `pip install x`, then restart the server."]
        )
    )
    assert instruction.value > 0.8
    assert request.value < 0.2
    (span,) = request.spans
    assert "request for more information" in span.note


def test_filler_lowers_the_value_and_is_the_evidence(density: InformationDensity) -> None:
    answer = "The Great Barrier Reef lies off the coast of Queensland. It is the largest coral reef system on Earth."
    padded = f"Great question! {answer} I hope this helps!"
    bare, filled = scores(density.run_batch([answer, padded]))
    assert filled.value < bare.value - 0.2
    assert all(span.score >= 0.5 for span in bare.spans), "no sentence is low in the bare answer"
    texts = [padded[span.start : span.end] for span in filled.spans]
    assert texts == ["I hope this helps!", "Great question!"] or texts == ["Great question!", "I hope this helps!"]
    assert all(span.field == "output" and "filler" in span.note and span.score < 0.5 for span in filled.spans)


def test_sentences_that_say_nothing_in_unlisted_words_are_low(density: InformationDensity) -> None:
    # Written for this test, apart from the training rows and the behaviour suites; no rule lists them.
    empty = ["Our people put their hearts into serving you.", "Every single client matters enormously to us."]
    fact = "The ferry leaves Dover at 07:40 and reaches Calais 90 minutes later."
    *nothing, informative = scores(density.run_batch([*empty, fact]))
    for score in nothing:
        assert score.value < 0.5
        assert score.spans[0].note == "says nothing"
    assert informative.value > 0.8


def test_the_question_said_back_is_low_and_an_answer_in_its_words_is_not(density: InformationDensity) -> None:
    # Written for this test, apart from the training rows and the behaviour suites.
    question = "Can the Aurora kettle boil water in under three minutes?"
    outputs = [
        "So what you would like to find out is whether the Aurora kettle can boil water in under three minutes.",
        "Yes, the Aurora kettle can boil water in under three minutes.",
        "The Aurora kettle boils a litre of water in 2 minutes 40 seconds.",
    ]
    said_back, yes, figure = scores(density.run_batch(outputs, input_text_batch=[question] * 3))
    assert said_back.value < 0.5
    assert said_back.spans[0].note == "says nothing"
    assert yes.value > 0.5
    assert figure.value > 0.8
    # Without the input there is nothing to say back: the same sentence is read on its own.
    (alone,) = scores(density.run_batch(outputs[:1]))
    assert alone.value > said_back.value


def test_gibberish_is_low(density: InformationDensity) -> None:
    (score,) = scores(density.run_batch(["Asdfkj qwpeoiru zxcvbn hjkl mnbvcxz fdsa lkjhg."]))
    assert score.value < 0.1
    assert "incomprehensible" in score.spans[0].note


def test_factual_paragraph_is_high(density: InformationDensity) -> None:
    paragraph = (
        "The Amazon River carries more water than any other river on Earth. Its basin covers about seven "
        "million square kilometres across nine countries. The river discharges roughly 209,000 cubic metres "
        "of water per second into the Atlantic Ocean."
    )
    (score,) = scores(density.run_batch([paragraph]))
    assert score.value > 0.8
    # The least informative sentence alone, over the threshold: it explains a project threshold above it.
    [least] = score.spans
    assert least.label == "least informative" and least.score >= score.value - 0.2
    assert score.details["sentence_count"] == 3


def test_sentences_keep_offsets_for_lists_and_code() -> None:
    text = "Steps:\n1. Open the settings page.\n- Click Save.\n```bash\nmake install\n```\n|---|---|\nDone. Bye."
    pieces = [(text[u.start : u.end], u.code) for u in split_units(text)]
    assert pieces == [
        ("Steps:", False),
        ("Open the settings page.", False),
        ("Click Save.", False),
        ("```bash\nmake install\n```", True),
        ("Done.", False),
        ("Bye.", False),
    ]


def test_hand_labelled_sanity_set_separates(density: InformationDensity) -> None:
    texts = [text for text, _ in SANITY]
    labels = [label for _, label in SANITY]
    values = [score.value for score in scores(density.run_batch(texts))]
    assert roc_auc(labels, values) >= 0.95
    # The mean-of-sentences value reads on the same 0.5 threshold as the spans.
    accuracy = sum((v >= density.threshold) == bool(y) for v, y in zip(values, labels, strict=True)) / len(labels)
    assert accuracy >= 0.85


def test_empty_output_is_not_applicable_like_other_scorers(density: InformationDensity) -> None:
    empty, blank, text = scores(density.run_batch(["", "   \n", "Water boils at 100 degrees Celsius."]))
    assert empty.not_applicable_reason == "the output is empty" == blank.not_applicable_reason
    assert text.ok and 0.0 <= text.value <= 1.0
    assert density.model_id().startswith("all-MiniLM-L6-v2-int8@")


def test_answering_paragraph_beats_unrelated_document(context_relevancy: ContextRelevancy) -> None:
    answering, unrelated = scores(
        context_relevancy.run_batch(["", ""], None, [QUESTION, QUESTION], [[ANSWERING_DOCUMENT], [UNRELATED_DOCUMENT]])
    )
    assert answering.value > unrelated.value + 0.4
    assert unrelated.value < 0.2
    second = ANSWERING_DOCUMENT.split("\n\n")[1]
    start = ANSWERING_DOCUMENT.index(second)
    span, *not_relevant = answering.spans
    assert all(other.label == "not relevant" and other.score < 0.5 for other in not_relevant)
    assert span.field == "information_retrieval[0]" and span.label == "relevant chunk"
    assert start <= span.start < span.end <= start + len(second)
    assert "9 November 1989" in ANSWERING_DOCUMENT[span.start : span.end]
    assert answering.details["relevancy_score"] == answering.value
    assert isinstance(answering.details["reasoning"], str)
    assert [chunk["document"] for chunk in answering.details["relevant_chunks"]] == [0]


def test_off_topic_text_dilutes_relevancy(context_relevancy: ContextRelevancy) -> None:
    second = ANSWERING_DOCUMENT.split("\n\n")[1]
    alone, diluted = scores(
        context_relevancy.run_batch(
            ["", ""], None, [QUESTION, QUESTION], [[second], [ANSWERING_DOCUMENT, UNRELATED_DOCUMENT]]
        )
    )
    assert alone.value > 0.8
    assert diluted.value < alone.value
    assert diluted.spans[0].field == "information_retrieval[0]"


def test_empty_context_is_not_applicable(context_relevancy: ContextRelevancy) -> None:
    none, empty_list, blank, no_input = scores(
        context_relevancy.run_batch(
            ["", "", "", ""], None, [QUESTION, QUESTION, QUESTION, ""], [None, [], [" "], ["x"]]
        )
    )
    for score in (none, empty_list, blank):
        reason = score.not_applicable_reason
        assert score.ok and "context is empty" in reason and "information_retrieval" in reason
    assert no_input.ok and "input is empty" in no_input.not_applicable_reason
