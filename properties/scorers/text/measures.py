"""Quantities with units, compared across units: "three hours" is "180 minutes", "2 kg" is "2,000 g".

Grounded in Context's number rule lists a figure of the answer that no document gives as a
difference ("the documents say 3, the answer says 180"). A figure in another unit is no difference
when the documents give the same quantity: its unit is read after the number ("180 minutes",
"a 24-month warranty", "147 GB") and pint converts both to one unit. Units of time, length, mass,
volume, power, energy, data and speed are read; counts ("seats", "users") are no unit, and their
figures must match as written.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from properties.scorers.text.statements import NUMBER_NAMES, number_value

# The units read, by how they are written (pint parses them); a bare "m", "s" or "in" is left out:
# in prose they are mostly a letter or a word.
UNIT = (
    r"(?:mm|cm|km|inch(?:es)?|ft|feet|foot|yards?|miles?|metres?|meters?|kilomet(?:re|er)s?|centimet(?:re|er)s?|"
    r"millimet(?:re|er)s?|mg|g|kg|tons?|tonnes?|lbs?|oz|ounces?|grams?|kilos?|kilograms?|ml|l|litres?|liters?|"
    r"gallons?|mph|km/h|ms|sec(?:ond)?s?|min(?:ute)?s?|h|hrs?|hours?|days?|weeks?|months?|years?|yrs?|"
    r"decades?|[kMGT]B|bytes?|kilobytes?|megabytes?|gigabytes?|terabytes?|[kM]?W|kWh|watts?|kilowatts?|mAh|Wh)"
)
_NUMBER = r"\d+(?:[.,]\d+)*|" + "|".join(NUMBER_NAMES.split())
_QUANTITY = re.compile(rf"(?<![\w.,])({_NUMBER})[\s-]?({UNIT})\b", re.IGNORECASE)
# A bare "m" is metres only right after a figure with no currency sign before it ("5 m long";
# "$5 m" is five million).
# A unit as a quantity of a text may write it, "m" included.
WRITTEN_UNIT = rf"(?:{UNIT}|m)"
_METRES = re.compile(rf"(?<![\w.,$€£¥])({_NUMBER})\s?(m)\b(?![²³'’])")
_SPELLING = {"hrs": "hours", "hr": "hour", "yrs": "years", "yr": "year", "kilos": "kilograms", "kilo": "kilogram"}
# Durations written in words: "half an hour", "a quarter of an hour", "an hour and a half", "a week".
_WORD_DURATION = re.compile(
    r"\b(?:(?P<half>half\s+an?)|(?P<quarter>a\s+quarter\s+of\s+an?)|an?|one)\s+"
    r"(?P<unit>second|minute|hour|day|week|month|year|decade)(?P<and_a_half>\s+and\s+a\s+half)?\b",
    re.IGNORECASE,
)
# Two readings of one quantity agree within this share (rounding: "about 2.2 lbs" for 1 kg).
TOLERANCE = 0.02


@cache
def unit_registry() -> Any:
    """pint's units, read once per process (0.3 CPU seconds: Grounded in Context loads them with its
    models rather than in the first chunk that holds a quantity)."""
    import pint

    return pint.UnitRegistry()


def quantities(text: str) -> list[tuple[str, Any]]:
    """Each number with a unit after it, and each duration in words: (the number or the words as
    written, the quantity)."""
    return [(written, quantity) for written, quantity, _ in quantity_spans(text)]


def quantity_spans(text: str) -> list[tuple[str, Any, tuple[int, int]]]:
    """`quantities` with where each is written, unit included: (number or words, quantity, (start, end))."""
    found = []
    for match in [*_QUANTITY.finditer(text), *_METRES.finditer(text)]:
        number, unit = match.group(1), match.group(2)
        value = number_value(number)
        if value is None:
            continue
        try:
            quantity = value * unit_registry().parse_units(_SPELLING.get(unit.lower(), unit))
        except Exception:  # noqa: BLE001 - pint raises several kinds of error for a word it cannot read
            continue
        found.append((number, quantity, match.span()))
    for match in _WORD_DURATION.finditer(text):
        value = 0.5 if match["half"] else 0.25 if match["quarter"] else 1.0
        value += 0.5 if match["and_a_half"] else 0.0
        found.append((match.group(), value * unit_registry().parse_units(match["unit"].lower()), match.span()))
    return found


def same_quantity(one: Any, other: Any) -> bool:
    """Whether two quantities are one, in whatever units (within `TOLERANCE`)."""
    if one.dimensionality != other.dimensionality:
        return False
    if one.units == other.units:  # no conversion, no rounding: 148 GB is not 147 GB
        return bool(one.magnitude == other.magnitude)
    converted = other.to(one.units).magnitude
    return abs(converted - one.magnitude) <= TOLERANCE * max(abs(one.magnitude), 1e-9)


def same_quantity_in(number: str, statement: str, passage: str) -> bool:
    """Whether the statement's `number`, with the unit after it, is a quantity the passage gives in
    another unit."""
    wanted = [quantity for written, quantity in quantities(statement) if number_value(written) == number_value(number)]
    given = [quantity for _, quantity in quantities(passage)]
    return any(same_quantity(quantity, other) for quantity in wanted for other in given)


def missing_figures(figures: set[str], statement: str, passage: str, given: set[str]) -> set[str]:
    """The statement's figures that the passage gives neither as written (`given`) nor as the same
    quantity in another unit."""
    return {figure for figure in figures - given if not same_quantity_in(figure, statement, passage)}


def is_a_quantity_given_in(text: str, passage: str) -> bool:
    """Whether a name-like piece of text ("47h", "238 W") is a quantity the passage gives, in any unit."""
    found = quantities(text)
    return bool(found) and all(same_quantity_in(number, text, passage) for number, _ in found)
