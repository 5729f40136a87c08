"""The generated behaviour suites (bench/generated/): enough cases, the same on every run, and split
by template so that no template feeds both groups."""

from __future__ import annotations

import pytest

from bench import generated
from bench.generated.lexicon import Lexicon


@pytest.fixture(scope="module", params=generated.PROPERTIES)
def built(request):
    return generated.build(request.param)


def test_each_property_has_at_least_300_cases(built):
    assert len(built.suite.cases) >= generated.MIN_CASES


def test_a_third_of_the_templates_rounded_up_is_held_out(built):
    templates = {built.template_of(case) for case in built.suite.cases}
    assert built.held_out <= templates
    assert len(built.held_out) == (len(templates) + 2) // 3


def test_the_split_is_by_template(built):
    groups: dict[str, set[str]] = {}
    for case in built.suite.cases:
        groups.setdefault(built.template_of(case), set()).add(built.group_of(case))
    assert all(len(found) == 1 for found in groups.values())


def test_the_cases_are_the_same_on_every_build(built):
    again = generated.build(built.suite.property_name)
    assert [(case.id, case.interaction, case.variant) for case in again.suite.cases] == [
        (case.id, case.interaction, case.variant) for case in built.suite.cases
    ]


def test_case_ids_are_unique_and_variants_change_something(built):
    ids = [case.id for case in built.suite.cases]
    assert len(ids) == len(set(ids))
    for case in built.suite.cases:
        if case.variant is not None:
            assert {**case.interaction, **case.variant} != case.interaction, case.id


def test_the_held_out_group_depends_on_the_template_ids_only():
    # A fixed hash: the same ids give the same group whatever else changes.
    templates = generated.templates_of("relevance")
    assert templates.held_out() == frozenset(
        {"chat-recommendation", "opening-time", "polite-wrapper-invariance", "sql-answer", "step-list"}
    )


def test_a_lexicon_draws_the_same_for_the_same_seed():
    first, second = Lexicon(42), Lexicon(42)
    assert [first.person(), first.phone(), first.iban(), first.price()] == [
        second.person(),
        second.phone(),
        second.iban(),
        second.price(),
    ]
    assert Lexicon(43).person() != Lexicon(42).person() or Lexicon(43).phone() != Lexicon(42).phone()
