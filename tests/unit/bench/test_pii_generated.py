"""The generated PII set (bench/pii_generated.py): enough texts, the same on every build, split by
template, and every recorded span holding an entity of its type."""

from __future__ import annotations

import ipaddress
import re

import pytest

from bench import pii_generated
from bench.generated import DEVELOPMENT, HELD_OUT

MEASURED = (*pii_generated.CONTACT_DETAILS, *pii_generated.IDENTIFIERS)


def _luhn(digits: str) -> bool:
    total = 0
    for position, digit in enumerate(reversed(digits)):
        value = int(digit) * (2 if position % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _mod97(iban: str) -> bool:
    compact = iban.replace(" ", "")
    moved = compact[4:] + compact[:4]
    return int("".join(str(int(char, 36)) for char in moved)) % 97 == 1


# What a span of each type must hold, checked apart from the generator's own draws.
HOLDS = {
    "email": lambda text: re.fullmatch(r"[\w.+-]+@[\w-]+(\.[\w-]+)+", text),
    "phone": lambda text: re.fullmatch(r"\+?[\d ()./-]+", text) and len(re.sub(r"\D", "", text)) >= 7,
    "street_address": lambda text: re.search(r"\d", text) and re.search(r"[^\W\d_]{3}", text),
    "credit_card": lambda text: re.fullmatch(r"\d{4}([ -]?\d{3,6}){2,4}", text) and _luhn(re.sub(r"\D", "", text)),
    "iban": lambda text: re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9 ]+", text) and _mod97(text),
    "ssn": lambda text: re.fullmatch(r"\d{3}-\d{2}-\d{4}", text),
    "passport": lambda text: re.fullmatch(r"[A-Z0-9]{8,9}", text) and re.search(r"\d{6}", text),
    "ip_address": lambda text: ipaddress.ip_address(text),
    "person_name": lambda text: len(text.split()) >= 2 and not re.search(r"\d", text),
}


@pytest.fixture(scope="module")
def built() -> pii_generated.GeneratedSet:
    return pii_generated.build()


def test_at_least_1000_texts_the_same_on_every_build(built) -> None:
    assert len(built.items) >= pii_generated.MIN_TEXTS
    assert pii_generated.build().items == built.items
    assert len({item.id for item in built.items}) == len(built.items)


def test_every_recorded_span_holds_an_entity_of_its_type(built) -> None:
    for item in built.items:
        for entity in item.entities:
            value = item.text[entity.start : entity.end]
            assert value == value.strip() and HOLDS[entity.kind](value), (item.id, entity.kind, value)


def test_the_pii_free_texts_record_nothing_and_the_others_something(built) -> None:
    for item in built.items:
        assert bool(item.entities) == (item.setting != "free"), item.id


def test_both_groups_hold_every_measured_type_and_pii_free_texts(built) -> None:
    assert len(built.held_out) == (len(pii_generated.templates.templates) + 2) // 3
    for group in (DEVELOPMENT, HELD_OUT):
        items = [item for item in built.items if built.group_of(item) == group]
        assert {entity.kind for item in items for entity in item.entities} >= set(MEASURED), group
        assert any(item.setting == "free" for item in items), group


def test_texts_come_in_several_locales_and_settings(built) -> None:
    assert {item.locale for item in built.items} == set(pii_generated.LOCALES)
    assert {item.setting for item in built.items} == {"support", "rag", "code", "free"}


def test_compose_records_the_span_of_each_pii_slot() -> None:
    phone = pii_generated.PII("phone", "+44 20 7946 0958")
    raw = pii_generated.compose('{{"tel": "{phone}", "n": {n}}}', "code", phone=phone, n=3)
    assert raw["text"] == '{"tel": "+44 20 7946 0958", "n": 3}'
    [entity] = raw["entities"]
    assert raw["text"][entity.start : entity.end] == phone.text and entity.kind == "phone"
