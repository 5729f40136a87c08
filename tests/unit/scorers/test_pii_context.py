"""How a text uses a person's name (properties/scorers/text/pii_context.py)."""

from __future__ import annotations

import pytest

from properties.scorers.text.pii_context import ENCYCLOPEDIC, MENTION, PERSONAL, name_reading


def read(text: str, name: str) -> str:
    start = text.index(name)
    return name_reading(text, start, start + len(name))


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Leonardo da Vinci painted the Mona Lisa.", "Leonardo da Vinci"),
        ("Marie Curie won the Nobel Prize in Physics in 1903.", "Marie Curie"),
        ("Barack Obama was the 44th president of the United States.", "Barack Obama"),
        ("Queen Elizabeth I ruled England from 1558.", "Elizabeth I"),
        ("Lincoln delivered the Gettysburg Address in 1863.", "Lincoln"),
        ("Great question! Ada Lovelace was an English mathematician.", "Ada Lovelace"),
    ],
)
def test_statements_of_the_public_record_are_encyclopedic(text: str, name: str) -> None:
    assert read(text, name) == ENCYCLOPEDIC


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Hi Priya Raman, your account has been unlocked.", "Priya Raman"),
        ("Please contact Sarah Miller about the invoice.", "Sarah Miller"),
        ("Yesterday I met Tom Becker at the station.", "Tom Becker"),
        ("Dear Jan Kowalski, thank you for writing.", "Jan Kowalski"),
        ("The customer Laura Jensen won a voucher in 2023.", "Laura Jensen"),
        # Another sentence addresses the reader: the name may be the customer's.
        ("Your order is ready. Mark Evans will bring it tomorrow.", "Mark Evans"),
    ],
)
def test_names_next_to_a_reader_or_an_account_are_personal(text: str, name: str) -> None:
    assert read(text, name) == PERSONAL


def test_a_third_person_text_that_addresses_no_one_only_mentions_the_name() -> None:
    assert read("The keynote was given by Satya Nadella, followed by a panel.", "Satya Nadella") == MENTION


@pytest.mark.parametrize(
    ("text", "name"),
    [
        # A capitalised pronoun inside a sentence is a title; "U.S." holds no "u".
        ("Mike Binder directed Reign Over Me in 2007.", "Mike Binder"),
        ("Anthony Swofford, a former U.S. Marine, wrote the memoir in 2003.", "Anthony Swofford"),
        # A quotation is the quoted person's voice, not the text speaking to its reader.
        ('In 1928 Tesla told a reporter, "I am in love with my work."', "Tesla"),
    ],
)
def test_titles_and_quotations_do_not_address_the_reader(text: str, name: str) -> None:
    assert read(text, name) == ENCYCLOPEDIC


def test_pronouns_in_a_text_in_capitals_are_pronouns() -> None:
    assert read("CONTACT SARAH MILLER ABOUT YOUR ORDER.", "SARAH MILLER") == PERSONAL
