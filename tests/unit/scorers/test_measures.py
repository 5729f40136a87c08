"""Quantities compared across units, for Grounded in Context's number rule."""

from __future__ import annotations

from properties.scorers.text import measures, support


def test_the_same_quantity_in_another_unit_is_the_same_figure() -> None:
    assert measures.same_quantity_in("180", "It charges in 180 minutes.", "A full charge takes three hours.")
    assert measures.same_quantity_in("2", "a two-year warranty", "The warranty lasts 24 months.")
    assert measures.same_quantity_in("2,500", "It holds 2,500 ml.", "The kettle holds 2.5 litres.")
    assert not measures.same_quantity_in("190", "It charges in 190 minutes.", "A full charge takes three hours.")
    assert not measures.same_quantity_in("5", "5 seats", "There are five seats."), "a count is no unit"


def test_the_number_rule_lists_no_conversion_as_a_difference() -> None:
    passage = "A full charge of the Vega e-bike takes three hours."
    assert support.mismatch("A full charge takes 180 minutes.", [], passage) is None
    assert "the answer says 240" in support.mismatch("A full charge takes 240 minutes.", [], passage)
    assert support.mismatch("The battery lasts 47h.", ["47h"], "The battery lasts 47 hours.") is None


def test_a_bare_m_after_a_figure_is_metres_but_not_after_a_currency() -> None:
    assert measures.same_quantity_in("4", "The hose is 4 m long.", "The hose is four metres long.")
    assert support.copied("The hose is 4 m long.", "The hose is four metres long.")
    assert not measures.quantities("It raised $4 m in May.")
