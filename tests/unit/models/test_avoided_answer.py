"""Avoided Answer: the generated training rows, the features, and evidence that agrees with the value."""

from __future__ import annotations

import json

import pytest

from properties.scorers.avoided_answer import SHORT_WORDS, feature_names, opening, shortness
from properties.scorers.runtime.heads import default_head_path, load_head
from properties.training import avoided_answer_forms, avoided_answer_rows
from properties.training.avoided_answer import (
    FORMS_ROWS,
    GENERATED_ROWS,
    GENERATED_WEIGHT,
    generated_kinds,
    generated_rows,
    rows_sha,
)

# Written for this test, apart from the templates of the rows and of the behaviour suites.
AVOIDED = [
    "Questions about your pay slip are for the payroll office, so please send it their way.",
    "Hello! Sadly, the notes I was given don't cover that at all.",
    "I'm not the right one to judge whether the contract is valid.",
    "Thanks for asking. Our rules don't let me discuss other members' accounts.",
]
ANSWERED = [
    "Your pay slip shows 160 hours; the payroll office can send a corrected copy if needed.",
    "Hello! The notes say the launch moved to 12 March.",
    "Sorry for the delay: the contract is valid until the end of 2026.",
    "Members can't see each other's accounts; only admins can.",
]


def test_rows_are_the_same_on_every_run_and_cover_both_sides() -> None:
    first, again = avoided_answer_rows.generate(300), avoided_answer_rows.generate(300)
    assert first == again
    assert len({row["output"] for row in first}) == 300
    assert {row["label"] for row in first} == {0, 1}
    kinds = {row["template"].split("/")[0] for row in avoided_answer_rows.generate(3000)}
    named = {kind.__name__.lstrip("_") for kind in avoided_answer_rows.AVOIDED + avoided_answer_rows.ANSWERED}
    assert kinds == named


def test_further_forms_are_the_same_on_every_run_and_apart_from_the_first_rows() -> None:
    first, again = avoided_answer_forms.generate(300), avoided_answer_forms.generate(300)
    assert first == again
    assert {row["label"] for row in first} == {0, 1}
    kinds = {row["template"].split("/")[0] for row in avoided_answer_forms.generate(2000)}
    assert kinds == {kind.__name__.lstrip("_") for kind in avoided_answer_forms.AVOIDED + avoided_answer_forms.ANSWERED}
    assert not kinds & {
        kind.__name__.lstrip("_") for kind in avoided_answer_rows.AVOIDED + avoided_answer_rows.ANSWERED
    }


def test_the_packaged_head_records_what_it_was_trained_on() -> None:
    head = load_head(default_head_path("avoided_answer"))
    generated = head.meta["generated"]
    assert generated["module"] == "properties.training.avoided_answer_rows"
    assert (generated["rows"], generated["seed"], generated["weight"]) == (
        GENERATED_ROWS,
        avoided_answer_rows.SEED,
        GENERATED_WEIGHT,
    )
    texts, labels = generated_rows()
    assert generated["sha"] == rows_sha(texts, labels)
    forms = head.meta["generated_forms"]
    assert (forms["module"], forms["rows"], forms["seed"]) == (
        "properties.training.avoided_answer_forms",
        FORMS_ROWS,
        avoided_answer_forms.SEED,
    )
    made = generated_kinds()[1]
    assert forms["sha"] == rows_sha([row["output"] for row in made], [row["label"] for row in made])
    assert head.meta["features"] == feature_names(384)
    assert len(head.coef) == len(feature_names(384))
    assert json.dumps(head.meta)  # a plain record


def test_shortness_and_opening() -> None:
    assert shortness("I don't know.") == 1.0
    assert shortness(" ".join(["word"] * (2 * SHORT_WORDS))) == 0.0
    assert 0 < shortness(" ".join(["word"] * (SHORT_WORDS + 5))) < 1
    # A greeting does not push the refusal out of the opening.
    text = "Hi there! Good afternoon. I'm not able to help with that. Here is something else entirely."
    assert "not able to help" in opening(text)


@pytest.mark.parametrize("text", AVOIDED)
def test_avoided_answers_of_several_forms(avoided_answer, text: str) -> None:
    [score] = avoided_answer.run_batch([text])
    assert score.value >= 0.5
    assert score.spans and all(span.score >= 0.5 for span in score.spans)


@pytest.mark.parametrize("text", ANSWERED)
def test_answers_that_look_like_avoidance(avoided_answer, text: str) -> None:
    [score] = avoided_answer.run_batch([text])
    assert score.value < 0.5
    # One span, the output read as a whole, with the value: under the threshold, so shown as answered.
    assert [(span.start, span.score) for span in score.spans] == [(0, score.value)]


@pytest.mark.parametrize(
    "text",
    [
        "I'm not sure, but the Pro plan allows 40 projects.",
        "I'm afraid I don't know anything about the renewal date.",
        "I can't see your account from here. In general, refunds take 5 days to appear.",
    ],
)
def test_case_and_spacing_do_not_move_the_value(avoided_answer, text: str) -> None:
    variants = [text, text.upper(), text.lower(), text.replace(" ", "  "), text.replace(". ", ".\n")]
    values = [score.value for score in avoided_answer.run_batch(variants)]
    assert max(values) - min(values) <= 0.05, values


def test_evidence_is_on_the_side_of_the_value(avoided_answer) -> None:
    texts = [row["output"] for row in avoided_answer_rows.generate(60, seed=99)] + AVOIDED + ANSWERED
    for text, score in zip(texts, avoided_answer.run_batch(texts), strict=True):
        if score.value >= 0.5:
            assert score.spans, text
            assert all(span.score >= 0.5 for span in score.spans), text
            assert all(0 <= span.start < span.end <= len(text) for span in score.spans)
        else:
            assert [span.score for span in score.spans] == [score.value], text
