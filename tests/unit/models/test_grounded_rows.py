"""Grounded in Context's generated training rows: seeded, balanced, written apart from the behaviour suite."""

from __future__ import annotations

import re

from properties.scorers.runtime import nli
from properties.scorers.runtime.heads import load_head
from properties.training import grounded, grounded_rows


def test_rows_are_the_same_on_every_run_half_supported_and_of_every_kind() -> None:
    first, again = grounded_rows.grounded_rows(240), grounded_rows.grounded_rows(240)
    assert first == again
    assert [row["label"] for row in first] == ["supported", "not_supported"] * 120
    assert {row["source"] for row in first} == {f"generated_{kind}" for kind in grounded_rows.KINDS}
    assert all(row["hypothesis"] not in row["premise"] for row in first)


def test_the_rows_share_no_list_with_the_behaviour_suites_lexicon() -> None:
    from bench.generated import lexicon

    theirs = {
        str(value).lower()
        for name in dir(lexicon)
        if name.isupper() and isinstance(getattr(lexicon, name), tuple)
        for value in getattr(lexicon, name)
        if isinstance(value, str)
    }
    lists = (
        grounded_rows.PEOPLE,
        grounded_rows.ORGS,
        grounded_rows.PLACES,
        grounded_rows.EVENTS,
        grounded_rows.GADGETS,
    )
    ours = {value.lower() for values in lists for value in values}
    assert theirs and not ours & theirs


def test_no_generated_sentence_is_a_sentence_of_the_behaviour_suite() -> None:
    from bench.generated import build

    def sentences(text: str) -> set[str]:
        return {s.strip().lower() for s in re.split(r"(?<=[.!?;])\s+", text) if s.strip()}

    suite = build("grounded_in_context").suite
    theirs = set()
    for case in suite.cases:
        for interaction in (case.interaction, case.variant or {}):
            texts = [
                interaction.get("output", ""),
                interaction.get("input", ""),
                *interaction.get("information_retrieval", []),
            ]
            theirs |= {sentence for text in texts if isinstance(text, str) for sentence in sentences(text)}
    ours = set()
    for row in grounded_rows.grounded_rows(sum(grounded.GENERATED)):
        ours |= sentences(row["premise"]) | sentences(row["hypothesis"])
    assert not ours & theirs


def test_the_packaged_nli_head_records_the_generated_rows() -> None:
    assert load_head(nli.NLI_HEAD).meta["generated"] == grounded.GENERATED[1]
