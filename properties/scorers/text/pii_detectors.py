"""Detectors for PII with a fixed shape, which beat a model on these: Presidio's recognizers.

Cards (Luhn checksum), IBANs (mod-97 checksum, grouped or not), US social security numbers, IP
addresses and passport numbers (of the US, the UK, Germany, Spain, Italy and India) come from
presidio-analyzer's predefined recognizers; phone numbers in any common format
come from Google's phonenumbers library (through Presidio's PhoneRecognizer, which parses every
candidate against the numbering plans of `PHONE_REGIONS`), plus US local numbers of seven digits
("call Kenji Sato at 555-0121"), which the plan allows but a full parse does not. E-mail addresses
and dates of birth stay patterns of ours: Presidio's e-mail recognizer checks the domain against the
public suffix list, which it downloads, and it has no date-of-birth recognizer.

A Presidio pattern it scores as weak (a bare nine-digit number for an SSN or a passport, two letters
and seven digits for a passport) counts only after a word of its kind (`pii_identifiers`), as
Presidio's own context enhancement has it: "passport 364526084" is a passport, "+34 888601150" no
SSN. Where two validated readings overlap, the longer stays (pii_risk.resolve_overlaps): a Luhn-valid
run of sixteen digits inside an IBAN is part of the IBAN.

Each detection is (start, end, type, confidence, how it was found): confidence 0.99 where a
checksum validates the match, 0.95 for an IP address, 0.9 for a valid phone number or SSN, 0.85
for a passport number after a word of its kind, 0.75 for a seven-digit local number.
"""

from __future__ import annotations

import ipaddress
import logging
import re
from functools import cache
from typing import Any

from properties.scorers.text import pii_identifiers
from properties.scorers.text.quantities import follows_a_version_word

Detection = tuple[int, int, str, float, str]

# What each detector checked, in the words of a span's note.
HOW_FOUND = {
    "email": "a well-formed address",
    "credit_card": "Luhn checksum valid (Presidio)",
    "iban": "mod-97 checksum valid (Presidio)",
    "ssn": "valid area, group and serial (Presidio)",
    "ip_address": "a valid IP address (Presidio)",
    "phone": "a valid phone number (phonenumbers)",
    "passport": "a passport number after a word of its kind (Presidio)",
    "date_of_birth": "a date after 'born' or 'date of birth'",
}
# Numbering plans a phone number is parsed against: those of the languages and markets we serve.
PHONE_REGIONS = ("US", "GB", "DE", "FR", "ES", "IT", "NL", "IN", "CA", "AU", "IE", "BE", "CH", "AT", "BR", "JP")
# A person's number has at least seven digits; shorter "valid" ones are service codes ("1648"),
# which years and counts look like.
PHONE_MIN_DIGITS = 7
# Mastercard's 2-series (2221-2720, issued since 2017), which Presidio's card pattern predates; its
# Luhn check applies to these as to the others.
MASTERCARD_2_SERIES = r"\b2[2-7]\d{2}[- ]?\d{4}[- ]?\d{4}[- ]?\d{4}\b"
CONFIDENCE = {"credit_card": 0.99, "iban": 0.99, "ip_address": 0.95, "ssn": 0.9, "phone": 0.9, "passport": 0.85}
# Presidio scores a bare pattern under this as weak: it stands only with a word of its kind before it.
# Phone numbers (Presidio's 0.4) are checked against numbering plans instead, and read in context by
# pii_risk.is_unnamed_identifier.
WEAK_SCORE = 0.5
LOCAL_PHONE_CONFIDENCE = 0.75
LOCAL_PHONE = "a seven-digit local phone number (phonenumbers)"

_EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b")
_DATE = r"(?:\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{4}-\d{2}-\d{2}|\w+ \d{1,2},? \d{4}|\d{1,2} \w+ \d{4})"
_DOB = re.compile(r"\b(?:born(?: on)?|d\.?o\.?b\.?:?|date of birth:?|birthday:?)\s*(" + _DATE + ")", re.IGNORECASE)
# Presidio's entity types -> ours.
_TYPES = {
    "CREDIT_CARD": "credit_card",
    "IBAN_CODE": "iban",
    "US_SSN": "ssn",
    "IP_ADDRESS": "ip_address",
    "PHONE_NUMBER": "phone",
    "US_PASSPORT": "passport",
    "UK_PASSPORT": "passport",
    "DE_PASSPORT": "passport",
    "ES_PASSPORT": "passport",
    "IT_PASSPORT": "passport",
    "IN_PASSPORT": "passport",
}


@cache
def recognizers() -> tuple[Any, ...]:
    """Presidio's recognizers, built once per process (each compiles its patterns)."""
    # Presidio logs a line per recognizer it builds: noise in every worker's log.
    logging.getLogger("presidio-analyzer").setLevel(logging.WARNING)
    from presidio_analyzer import Pattern
    from presidio_analyzer.predefined_recognizers import (
        CreditCardRecognizer,
        DePassportRecognizer,
        EsPassportRecognizer,
        IbanRecognizer,
        InPassportRecognizer,
        IpRecognizer,
        ItPassportRecognizer,
        PhoneRecognizer,
        UkPassportRecognizer,
        UsPassportRecognizer,
        UsSsnRecognizer,
    )

    cards = [*CreditCardRecognizer.PATTERNS, Pattern("Mastercard 2-series (weak)", MASTERCARD_2_SERIES, 0.3)]
    return (
        CreditCardRecognizer(patterns=cards),
        IbanRecognizer(),
        UsSsnRecognizer(),
        IpRecognizer(),
        PhoneRecognizer(supported_regions=PHONE_REGIONS),
        UsPassportRecognizer(),
        UkPassportRecognizer(),
        DePassportRecognizer(),
        EsPassportRecognizer(),
        ItPassportRecognizer(),
        InPassportRecognizer(),
    )


def detect(text: str) -> list[Detection]:
    found: list[Detection] = [(m.start(), m.end(), "email", 0.99, HOW_FOUND["email"]) for m in _EMAIL.finditer(text)]
    for recognizer in recognizers():
        for result in recognizer.analyze(text, recognizer.supported_entities, None):
            kind = _TYPES.get(result.entity_type)
            if kind is None or (kind == "ip_address" and follows_a_version_word(text, result.start)):
                continue  # "driver version 10.4.0.2" is a release, not a host
            if kind == "phone" and not _could_be_a_persons_number(text[result.start : result.end]):
                continue
            if kind in ("credit_card", "ssn") and _part_of_a_longer_code(text, result.start, result.end):
                continue  # "order 276-4494154-1932730": a Luhn-valid piece of another number
            weak = result.score < WEAK_SCORE and kind != "phone"
            if weak and not pii_identifiers.has_context(text, result.start, kind):
                continue
            found.append((result.start, result.end, kind, CONFIDENCE[kind], HOW_FOUND[kind]))
    found += [
        (start, end, "phone", LOCAL_PHONE_CONFIDENCE, LOCAL_PHONE)
        for start, end in local_phone_numbers(text)
        if not any(start < other[1] and other[0] < end for other in found)
    ]
    found += [(m.start(1), m.end(1), "date_of_birth", 0.9, HOW_FOUND["date_of_birth"]) for m in _DOB.finditer(text)]
    return found


def _could_be_a_persons_number(number: str) -> bool:
    """Seven digits or more, and not an IPv4 address (phonenumbers reads "96.188.252.97" as a number
    of some plan)."""
    if sum(char.isdigit() for char in number) < PHONE_MIN_DIGITS:
        return False
    try:
        ipaddress.IPv4Address(number)
    except ValueError:
        return True
    return False


def _part_of_a_longer_code(text: str, start: int, end: int) -> bool:
    """Letters or digits run on into the match, directly or across a hyphen, dot or slash."""
    before, after = text[max(0, start - 2) : start], text[end : end + 2]
    return bool(re.search(r"\w[-./]?$", before) or re.match(r"[-./]?\w", after))


def written_as_a_phone_number(number: str) -> bool:
    """In international form ("+44 20 7946 0958"), with the area code in brackets ("(415) 555-0132"),
    or in the groups its numbering plan prints ("212-555-0134", "020 7946 0958"): a reader sees a phone
    number with no word before it. A run of digits ("1995417500") or other groups ("8642 6843 2384")
    may be any number."""
    import phonenumbers

    if number.startswith("+") or "(" in number:
        return True
    groups = re.findall(r"\d+", number)
    if len(groups) < 2:
        return False
    for region in PHONE_REGIONS:
        try:
            parsed = phonenumbers.parse(number, region)
        except phonenumbers.NumberParseException:
            continue
        national = phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.NATIONAL)
        if phonenumbers.is_valid_number(parsed) and re.findall(r"\d+", national) == groups:
            return True
    return False


def local_phone_numbers(text: str) -> list[tuple[int, int]]:
    """Seven-digit US local numbers ("555-0121"): possible in the North American plan without an
    area code, which phonenumbers finds at its lowest leniency."""
    import phonenumbers

    matches = phonenumbers.PhoneNumberMatcher(text, "US", leniency=phonenumbers.Leniency.POSSIBLE)
    return [(match.start, match.end) for match in matches if _is_local(match.number)]


def _is_local(number: Any) -> bool:
    import phonenumbers

    return len(phonenumbers.national_significant_number(number)) == 7
