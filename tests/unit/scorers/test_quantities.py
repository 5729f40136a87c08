"""Numbers that are quantities, not identifiers (properties/scorers/text/quantities.py)."""

from __future__ import annotations

import pytest

from properties.scorers.text.quantities import quantity_reading


def reading(text: str, number: str) -> str | None:
    start = text.index(number)
    return quantity_reading(text, start, start + len(number))


@pytest.mark.parametrize(
    ("text", "number", "expected"),
    [
        ("Mount Everest is 8,849 metres tall.", "8,849", "a figure with thousands separators"),
        ("The speed of light is 299,792,458 metres per second.", "299,792,458", "a figure with thousands separators"),
        ("It is 8849 metres tall.", "8849", "a measurement"),
        ("The box measures 30 x 20 x 15 cm.", "20", "a measurement"),
        ("The Mona Lisa was painted between 1503 and 1519.", "1519", "a year"),
        ("Leonardo died in 1519 at Amboise.", "1519", "a year"),
        ("It was built from 220 BC onwards.", "220", "a year"),
        ("The 2008-2009 financial crisis", "2008-2009", "a range of years"),
        ("The war of 1939–45 ended.", "1939–45", "a range of years"),
        ("It costs $1,299.00 per year.", "$1,299.00", "a price"),
        ("Or €119 per month.", "€119", "a price"),
        ("The fee is 45 EUR.", "45", "a price"),
        ("About 11% of the population.", "11%", "a percentage"),
        ("Install driver version 10.4.0.2 first.", "10.4.0.2", "a version number"),
        ("Upgrade to 3.12.4 today.", "3.12.4", "a version number"),
        ("Use v2.1.0-beta.3 for now.", "v2.1.0-beta.3", "a version number"),
        ("The 44th president.", "44th", "an ordinal number"),
        ("It starts at 14:30 CET.", "14:30", "a time of day"),
        ("Shipped on 2024-05-14.", "2024-05-14", "a date"),
    ],
)
def test_quantities_are_read_as_what_they_are(text: str, number: str, expected: str) -> None:
    assert reading(text, number) == expected


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("Call 415.555.0132 after six.", "415.555.0132"),
        ("Call 555-0132 after six.", "555-0132"),
        ("Springfield, IL 62704.", "62704"),
        ("He lives at 42 Elm Road.", "42"),
        ("Sydney NSW 2000, Australia.", "2000"),
        ("Ship to 1519 Maple Avenue.", "1519 Maple Avenue"),
    ],
)
def test_identifiers_and_address_parts_are_not_quantities(text: str, number: str) -> None:
    assert reading(text, number) is None
