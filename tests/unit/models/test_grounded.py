"""Grounded in Context and Hallucination Free on clear cases, with the packaged default models."""

from __future__ import annotations

import pytest

from properties.scorers import registry
from properties.scorers.base import Score, ScorerUnavailable, full_context
from properties.scorers.grounded_in_context import NO_CONTEXT, GroundedInContext, HallucinationFree

REPORT = (
    "Northwind Traders reported revenue of 4.2 billion dollars for 2023. The company employs 12,000 people in "
    "30 countries. Its headquarters are in Rotterdam."
)
FAITHFUL = "Northwind Traders had revenue of 4.2 billion dollars in 2023. It employs 12,000 people."
INVENTED = "Northwind Traders had revenue of 4.2 billion dollars in 2023. It employs 45,000 people."
BERLIN = "Berlin is the capital and largest city of Germany, with 3.7 million inhabitants."
QUESTION = "What is the capital of Germany?"


@pytest.fixture(scope="session")
def grounded() -> GroundedInContext:
    scorer = GroundedInContext()
    scorer.current_field = "output"
    scorer.run_batch(["warm-up sentence."], None, ["warm-up"], [full_context(["warm-up sentence."])])
    return scorer


@pytest.fixture(scope="session")
def hallucination_free(grounded) -> HallucinationFree:  # shares the loaded models with `grounded`
    scorer = HallucinationFree()
    scorer.current_field = "output"
    return scorer


def score(scorer, output: str, documents, question: str = "") -> Score:
    [result] = scorer.run_batch([output], None, [question], [full_context(documents)])
    assert isinstance(result, Score)
    return result


def test_registered() -> None:
    for name in ("grounded_in_context", "hallucination_free"):
        assert registry.is_builtin(name)
        assert registry.get(name).queue == "models"
        assert registry.get(name).uses_full_context


def test_an_invented_number_lowers_the_score_and_is_the_span(grounded) -> None:
    faithful = score(grounded, FAITHFUL, [REPORT])
    invented = score(grounded, INVENTED, [REPORT])
    assert invented.value < faithful.value
    assert faithful.value > 0.5
    # Every statement is a span with its passage; the invented one is the ungrounded statement.
    span, passage = [s for s in invented.spans if s.label == "ungrounded" or "It employs" in s.note]
    assert {s.label for s in invented.spans} == {"supported", "ungrounded", "closest passage"}
    assert (span.field, span.start, span.end) == ("output", INVENTED.index("It employs"), len(INVENTED))
    assert span.score < 0.5
    assert "information_retrieval[0]" in span.note
    closest = invented.details["statements"][1]["closest"]
    assert closest["field"] == "information_retrieval[0]"
    assert "12,000 people" in REPORT[closest["start"] : closest["end"]]
    # The closest passage is marked too, in its own field, for the Data Screen.
    assert (passage.field, passage.start, passage.end) == (closest["field"], closest["start"], closest["end"])
    assert passage.label == "closest passage" and "It employs" in passage.note


def test_an_answer_about_paris_is_not_grounded_in_a_berlin_context(grounded) -> None:
    paris = score(grounded, "The capital is Paris, which is on the Seine.", [BERLIN], QUESTION)
    berlin = score(grounded, "The capital of Germany is Berlin.", [BERLIN], QUESTION)
    assert paris.value < 0.5 < berlin.value
    assert [s.label for s in paris.spans] == ["ungrounded", "closest passage"]
    assert [s.label for s in berlin.spans] == ["supported", "closest passage"]


def test_a_one_phrase_answer_is_a_statement(grounded) -> None:
    right = score(grounded, "Berlin", [BERLIN], QUESTION)
    wrong = score(grounded, "Hans-Dieter Flick", [BERLIN], QUESTION)
    assert len(right.details["statements"]) == len(wrong.details["statements"]) == 1
    assert wrong.value < right.value


def test_greetings_and_questions_are_skipped(grounded) -> None:
    output = "Hello! Great question. Berlin is the capital of Germany. Would you like to know more about it?"
    result = score(grounded, output, [BERLIN], QUESTION)
    [statement] = result.details["statements"]
    assert output[statement["start"] : statement["end"]] == "Berlin is the capital of Germany."
    nothing = score(grounded, "Hi there! How can I help you today?", [BERLIN])
    assert nothing.value == 1.0 and nothing.details["statements"] == []


def test_a_long_document_grounds_a_statement_at_its_end(grounded) -> None:
    filler = " ".join(
        f"Section {i} describes the opening hours and the ticket prices of the gallery." for i in range(150)
    )
    document = filler + " The museum was founded in 1871 by the botanist Henrietta Vogel."
    result = score(grounded, "Henrietta Vogel founded the museum in 1871.", [document])
    assert result.value > 0.5
    closest = result.details["statements"][0]["closest"]
    assert closest["start"] > len(filler) - 200
    assert "Henrietta Vogel" in document[closest["start"] : closest["end"]]


def test_the_context_can_be_the_input_history_or_a_plain_string(grounded) -> None:
    [from_string] = grounded.run_batch([FAITHFUL], None, [""], [REPORT])
    [from_history] = grounded.run_batch([FAITHFUL], None, [""], [full_context(history=REPORT)])
    [from_input] = grounded.run_batch([FAITHFUL], None, [REPORT], [None])
    assert from_string.value > 0.5 and from_history.value > 0.5 and from_input.value > 0.5
    assert from_history.details["statements"][0]["closest"]["field"] == "history"
    assert from_input.details["statements"][0]["closest"]["field"] == "input"
    documents = ["The Eiffel Tower is in Paris.", REPORT]
    [second] = grounded.run_batch([INVENTED], None, [""], [full_context(documents)])
    assert second.details["statements"][1]["closest"]["field"] == "information_retrieval[1]"


def test_without_context_or_output_it_is_not_applicable(grounded) -> None:
    no_context, empty_output = grounded.run_batch([FAITHFUL, "  "], None, ["", QUESTION], [full_context(), [BERLIN]])
    assert no_context.ok and no_context.value is None and no_context.not_applicable_reason == NO_CONTEXT
    assert empty_output.not_applicable_reason == "the output is empty"


def test_hallucination_free_on_clear_cases(hallucination_free) -> None:
    free = score(hallucination_free, FAITHFUL, [REPORT])
    invented = score(hallucination_free, "The capital is Paris, which is on the Seine.", [BERLIN], QUESTION)
    assert (free.value, free.label, free.details["has_hallucination"]) == (1.0, "true", False)
    assert (invented.value, invented.label, invented.details["has_hallucination"]) == (0.0, "false", True)
    assert "Paris" in invented.details["reasoning"]
    assert invented.spans


def test_the_offline_default_names_the_packaged_artifacts(grounded) -> None:
    model_id = grounded.model_id()
    for part in ("all-MiniLM-L6-v2-int8@", "ms-marco-MiniLM-L-12-v2-int8@", "nli-head@", "grounded-head@"):
        assert part in model_id
    assert GroundedInContext.from_dict(grounded.to_dict()).model_id() == model_id


def test_a_missing_nli_model_folder_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(ScorerUnavailable, match="no such file or folder"):
        GroundedInContext(nli_model=str(tmp_path / "no-such-model"))


def test_hallucination_free_with_a_model_id_is_the_llm_judge() -> None:
    judge = HallucinationFree(model_id="openai/judge-model")
    assert judge.name() == "llm_hallucination_free"
    assert type(HallucinationFree()) is HallucinationFree


@pytest.mark.django_db
def test_the_data_screen_marks_the_ungrounded_statement_and_its_closest_passage(client, grounded) -> None:
    """Through the pipeline's own scoring and storing, then the detail pane, as a user sees it."""
    from django.urls import reverse

    from properties.pipeline import scoring
    from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory

    user = UserFactory()
    run = RunFactory(project=ProjectFactory(owner=user))
    interaction = InteractionFactory(
        run=run, input="How big is Northwind?", output=INVENTED, information_retrieval=[REPORT]
    )
    setup = scoring.build_scorer(run.project, "grounded_in_context")
    scoring.store_values(run.pk, setup, scoring.compute_scores(setup, [interaction]))
    client.force_login(user)
    url = reverse("properties:interaction-detail", args=[interaction.pk])
    body = client.get(url, {"highlight": "grounded_in_context.output"}, HTTP_HX_REQUEST="true").content.decode()
    marked = [chunk.split("</mark>", 1)[0] for chunk in body.split("<mark")[1:]]
    # The statement in the output, and the report's passage that holds the true figure.
    assert any("45,000 people" in chunk for chunk in marked)
    assert any("12,000 people" in chunk for chunk in marked)


def _nli_folder(source: str, folder, labels: dict[int, str]):
    """A user's NLI classifier folder, built here from the MiniLM weights with a fresh head."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model = AutoModelForSequenceClassification.from_pretrained(
        source, num_labels=len(labels), id2label=labels, label2id={v: k for k, v in labels.items()}
    )
    model.save_pretrained(folder)
    AutoTokenizer.from_pretrained(source).save_pretrained(folder)
    return folder


def test_a_local_nli_model_folder_gives_the_support_judgement(grounded, minilm_folder, tmp_path) -> None:
    import numpy as np

    folder = _nli_folder(minilm_folder, tmp_path / "nli", {0: "contradiction", 1: "neutral", 2: "entailment"})
    scorer = GroundedInContext(nli_model=str(folder))
    scorer.current_field = "output"
    result = score(scorer, INVENTED, [REPORT])
    assert 0.0 <= result.value <= 1.0
    assert scorer.model_id().split("+")[-2].startswith(f"{folder}@")  # old values go stale with the model
    nli = scorer.grounder().nli
    assert nli.index == 2  # found by its name, "entailment"
    # The statement's NLI signal is the folder's model on (closest passage, statement), not the packaged head.
    first = result.details["statements"][0]
    premise = REPORT[first["closest"]["start"] : first["closest"]["end"]]
    claim = INVENTED[first["start"] : first["end"]]
    [p] = nli.entailment([claim], [premise])
    assert first["signals"]["nli_logit"] == pytest.approx(float(np.log(p / (1 - p))), abs=1e-3)
    packaged = score(grounded, INVENTED, [REPORT]).details["statements"][0]["signals"]["nli_logit"]
    assert first["signals"]["nli_logit"] != pytest.approx(packaged, abs=1e-3)


def test_an_nli_model_without_an_entailment_label_is_a_clear_error(minilm_folder, tmp_path) -> None:
    folder = _nli_folder(minilm_folder, tmp_path / "nli", {0: "alpha", 1: "beta", 2: "gamma"})
    scorer = GroundedInContext(nli_model=str(folder))
    scorer.current_field = "output"
    with pytest.raises(ScorerUnavailable, match="alpha") as raised:
        scorer.run_batch([FAITHFUL], None, [""], [full_context([REPORT])])
    assert "grounded_in_context" in str(raised.value) and str(folder) in str(raised.value)
