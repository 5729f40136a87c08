"""Fluency's generated training rows: seeded, balanced, each broken form really changed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from properties.scorers.runtime.heads import default_head_path, load_head
from properties.training import fluency_rows
from properties.training.common import file_sha

SENTENCE = "Your parcel is with the courier in Bergen and is due to reach you on Friday."


def test_rows_are_the_same_on_every_run_and_half_of_them_broken() -> None:
    first, again = fluency_rows.generate(400), fluency_rows.generate(400)
    assert first == again
    assert [label for _, label, _ in first] == [1, 0] * 200
    kinds = {kind.split("/")[-1] for _, label, kind in fluency_rows.generate() if label == 0}
    assert kinds == {make.__name__ for make in fluency_rows.BREAKS} | {"run_on"}


@pytest.mark.parametrize("make", fluency_rows.BREAKS, ids=lambda make: make.__name__)
def test_every_break_changes_the_sentence_and_keeps_its_words_or_fewer(make) -> None:
    for seed in range(20):
        broken = make(random.Random(seed), SENTENCE)
        assert broken is not None and broken != SENTENCE
        assert broken[0].isupper() and broken.endswith(".")
        assert len(broken.split()) >= 3


def test_a_broken_row_is_its_fluent_row_broken() -> None:
    rows = fluency_rows.generate(200)
    for (fluent, one, _), (broken, zero, _) in zip(rows[::2], rows[1::2], strict=True):
        assert (one, zero) == (1, 0) and fluent.lower() != broken.lower()


def test_the_packaged_head_records_the_generator() -> None:
    head = load_head(default_head_path("fluency"))
    assert head.meta["generated"] == {"rows": fluency_rows.ROWS, "seed": fluency_rows.SEED}
    assert head.meta["data"]["fluency_rows.py"] == file_sha(Path(fluency_rows.__file__))


def test_the_rows_share_no_list_with_the_behaviour_suites_lexicon() -> None:
    """Written apart from bench/generated: no name, place, product or organisation of its lexicon."""
    from bench.generated import lexicon

    theirs = {
        str(value).lower()
        for name in dir(lexicon)
        if name.isupper() and isinstance(getattr(lexicon, name), tuple)
        for value in getattr(lexicon, name)
        if isinstance(value, str)
    }
    ours = {
        value.lower()
        for values in (
            fluency_rows.FIRST_NAMES,
            fluency_rows.SURNAMES,
            fluency_rows.PLACES,
            fluency_rows.ORGS,
            fluency_rows.PRODUCTS,
            fluency_rows.TABLES,
            fluency_rows.CODE_NAMES,
        )
        for value in values
    }
    assert theirs and not ours & theirs
