"""Toxicity's kinds head and the generated rows it is trained on."""

from __future__ import annotations

import numpy as np
import pytest

from properties.scorers.base import Score
from properties.scorers.runtime.heads import Head, default_head_path, load_head
from properties.scorers.toxicity import HARMLESS, KIND_NOTES, KINDS_COEF, KINDS_INTERCEPT, KindsPredictor, read_kinds
from properties.training import toxicity_forms, toxicity_rows
from properties.training.toxicity import FORMS_ROWS, GENERATED_ROWS


def test_the_generated_rows_are_the_same_on_every_run_and_labelled_by_their_kind() -> None:
    first, again = toxicity_rows.generate(400), toxicity_rows.generate(400)
    assert first == again
    assert {row["label"] for row in first} == {0, 1}
    assert all(row["label"] == (0 if row["reads_as"].startswith(HARMLESS) else 1) for row in first)
    assert len({row["text"] for row in first}) == len(first)


def test_no_generated_row_is_a_behaviour_case() -> None:
    """The rows are written apart from both behaviour suites: none is a sentence of their cases."""
    from pathlib import Path

    from bench.generated import build
    from evalsite.sdk.behavior import load_suite

    suites = [build("toxicity").suite, load_suite(Path(__file__).parents[2] / "behavior" / "toxicity.yaml")]
    case_texts = {
        str(text).strip()
        for suite in suites
        for case in suite.cases
        for interaction in (case.interaction, case.variant or {})
        for text in interaction.values()
    }
    rows = {row["text"] for row in toxicity_rows.generate(GENERATED_ROWS) + toxicity_forms.generate(FORMS_ROWS)}
    assert not rows & case_texts


def _four_word_runs(text: str) -> set[tuple[str, ...]]:
    """Runs of four words in `text`, a template's slots ("{name}") breaking a run."""
    import re

    runs = set()
    for part in re.split(r"\{[^}]*\}", text.lower()):
        words = re.findall(r"[a-z']+", part)
        runs |= {tuple(words[at : at + 4]) for at in range(len(words) - 3)}
    return runs


def test_the_further_forms_share_no_phrase_with_the_generated_behaviour_suite() -> None:
    """Written apart from bench/generated/toxicity.py: no row holds four words in a row of any of its
    strings (lexicons and templates alike), nor of the perturbations' greetings and closings."""
    import ast
    from pathlib import Path

    bench = Path(__file__).parents[3] / "bench" / "generated"
    phrases: set[tuple[str, ...]] = set()
    for name in ("toxicity.py", "perturb.py"):
        for node in ast.walk(ast.parse((bench / name).read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                phrases |= _four_word_runs(node.value)
    shared = {row["text"] for row in toxicity_forms.generate(FORMS_ROWS) if _four_word_runs(row["text"]) & phrases}
    assert not shared


def test_the_further_forms_are_the_same_on_every_run_and_apart_from_the_first_rows() -> None:
    first, again = toxicity_forms.generate(400), toxicity_forms.generate(400)
    assert first == again
    assert all(row["label"] == (0 if row["reads_as"].startswith(HARMLESS) else 1) for row in first)
    kinds = {row["kind"] for row in toxicity_forms.generate(FORMS_ROWS)}
    assert kinds == {kind for kind, *_ in toxicity_forms.KINDS}
    assert not kinds & {kind for kind, *_ in toxicity_rows.KINDS}


def test_the_packaged_head_names_its_kinds_and_what_it_was_trained_on() -> None:
    head = load_head(default_head_path("toxicity"))
    kinds = head.meta["kinds"]
    assert head.extras[KINDS_COEF].shape == (len(kinds), len(head.mean))
    assert head.extras[KINDS_INTERCEPT].shape == (len(kinds),)
    toxic = [kind for kind in kinds if not kind.startswith(HARMLESS)]
    assert set(toxic) <= set(KIND_NOTES)
    assert HARMLESS in kinds and len(toxic) >= 8
    assert head.meta["generated"]["rows"] == GENERATED_ROWS
    assert head.meta["generated"]["seed"] == toxicity_rows.SEED
    forms = head.meta["generated_forms"]
    assert (forms["rows"], forms["seed"]) == (FORMS_ROWS, toxicity_forms.SEED)
    assert set(head.meta["data"]) == {"toxicity_davidson.jsonl", "toxicity_hatecheck.jsonl"}


def test_the_kinds_give_the_probability_of_the_toxic_ones_and_the_likeliest() -> None:
    head = Head(mean=np.zeros(2), scale=np.ones(2), coef=np.array([1.0, 0.0]), intercept=0.0)
    features = np.array([[0.0, 0.0], [2.0, -1.0]])
    # Without kinds (a head trained before them): its own probability, and no kind.
    values, kinds = read_kinds(head, features)
    assert values == pytest.approx(head.predict(features)) and kinds == ["", ""]
    head.meta["kinds"] = ["harmless", "harmless_other", "insult", "threat"]
    head.extras = {
        KINDS_COEF: np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [2.0, 0.0]]),
        KINDS_INTERCEPT: np.zeros(4),
    }
    values, kinds = read_kinds(head, features)
    assert values[0] == pytest.approx(0.5)  # four kinds alike, two of them toxic
    logits = np.array([0.0, -1.0, 2.0, 4.0])
    expected = np.exp(logits[2:]).sum() / np.exp(logits).sum()
    assert values[1] == pytest.approx(expected) and kinds[1] == "threat"


def test_threats_without_violent_words_are_read_as_threats(toxicity) -> None:
    texts = ["I have a list of the places your sister goes every week.", "Every morning I watch you unlock your car."]
    for score in toxicity.run_batch(texts):
        assert score.value >= 0.5
        assert [span.note for span in score.spans] == ["threatens harm"]


def test_hate_for_a_group_outside_hatecheck_is_read_and_named(toxicity) -> None:
    [score] = toxicity.run_batch(["I loathe Ukrainians more than words can say."])
    assert score.value >= 0.5 and [span.note for span in score.spans] == ["expresses hate for a group"]


def test_denied_hate_and_profanity_aimed_at_no_one_are_not_toxic(toxicity) -> None:
    texts = [
        "Nobody sensible believes Somalis are criminals.",
        "Damn, the printer jammed again.",
        "Holy shit, that sunset is gorgeous.",
        "This update is a useless pile of junk.",
    ]
    for score in toxicity.run_batch(texts):
        # The most toxic sentence is the only span, under the threshold like the value it sets.
        assert score.value < 0.5 and [span.score for span in score.spans] == [score.value]


def test_a_value_at_or_over_the_threshold_shows_a_span_that_explains_it(toxicity) -> None:
    texts = [
        "Thanks for waiting. You have the charm of a wet sock.",
        "Your refund is on its way. Refugees breed like vermin.",
        "Well, crap. The upload failed again.",
        "Sure. Any household can join the plan.",
    ]
    for score in toxicity.run_batch(texts):
        assert isinstance(score, Score)
        if score.value >= 0.5:
            assert score.spans and score.value == max(span.score for span in score.spans)
            assert all(span.score >= 0.5 and span.note for span in score.spans)
        else:
            assert [(span.label, span.score) for span in score.spans] == [("most toxic", score.value)]


def test_the_predictor_reads_the_kinds_as_the_scorer_does(toxicity) -> None:
    predictor = toxicity.predictor()
    assert isinstance(predictor, KindsPredictor)
    text = "I loathe Ukrainians more than words can say."
    [score] = toxicity.run_batch([text])
    assert float(predictor.predict([text])[0]) == pytest.approx(score.value, abs=1e-3)
