"""Formality's generated training rows and the packaged head's record of them."""

from __future__ import annotations

import re

from bench.generated import build
from properties.scorers.runtime.heads import default_head_path, load_head
from properties.training import formality as training
from properties.training import formality_rows as rows
from properties.training.common import DEFAULT_DATA, rows_sha


def test_rows_are_the_same_on_every_run_and_cover_every_kind() -> None:
    first, again = rows.generate(200), rows.generate(200)
    assert first == again
    assert len({row["text"] for row in first}) == 200
    assert {row["label"] for row in first} == {0, 1}
    kinds = {row["template"] for row in rows.generate(training.GENERATED_ROWS)}
    assert kinds == {kind.__name__.lstrip("_") for kind in rows.INFORMAL + rows.FORMAL}


def test_no_training_sentence_is_a_sentence_of_the_behaviour_suite() -> None:
    suite = build("formality").suite
    outputs = [case.interaction.get("output", "") for case in suite.cases]
    outputs += [(case.variant or {}).get("output", "") for case in suite.cases]
    suite_sentences = {s.strip().lower() for text in outputs for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()}
    made = {row["text"].strip().lower() for row in rows.generate(training.GENERATED_ROWS)}
    assert not made & suite_sentences


def test_the_packaged_head_records_what_it_was_trained_on() -> None:
    head = load_head(default_head_path("formality"))
    texts, labels, _, paths = training.training_rows(DEFAULT_DATA)
    generated = head.meta["generated"]
    assert generated["module"] == "properties.training.formality_rows"
    assert (generated["rows"], generated["seed"]) == (training.GENERATED_ROWS, rows.SEED)
    assert generated["sha"] == rows_sha(texts, labels)
    assert head.meta["rows"] == len(texts)
    assert set(head.meta["data"]) == {path.name for path in paths}
