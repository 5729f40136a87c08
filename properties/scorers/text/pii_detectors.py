"""Pattern and checksum detectors for PII with a fixed shape: they beat a model on these.

Each returns (start, end, type, confidence). Confidence is 0.99 where a checksum or a strict
structure validates the match (a Luhn-valid card, a mod-97-valid IBAN, a well-formed email or IP
address) and lower where only the shape matches.
"""

from __future__ import annotations

import ipaddress
import re

from properties.scorers.text.quantities import follows_a_version_word

Detection = tuple[int, int, str, float]

# What each detector checked, in the words of a span's note.
HOW_FOUND = {
    "email": "a well-formed address",
    "credit_card": "Luhn checksum valid",
    "iban": "mod-97 checksum valid",
    "ssn": "valid area, group and serial",
    "ip_address": "a valid IP address",
    "phone": "a phone number format",
    "date_of_birth": "a date after 'born' or 'date of birth'",
}

_EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b")
_CARD = re.compile(r"\b\d(?:[ -]?\d){12,18}\b")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")
_SSN = re.compile(r"\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b")
_IPV4 = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")
_IPV6 = re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])")
_PHONE = re.compile(r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{3}\)|\d{3})[ .-]\d{3}[ .-]\d{4}\b")
_DATE = r"(?:\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{4}-\d{2}-\d{2}|\w+ \d{1,2},? \d{4}|\d{1,2} \w+ \d{4})"
_DOB = re.compile(r"\b(?:born(?: on)?|d\.?o\.?b\.?:?|date of birth:?|birthday:?)\s*(" + _DATE + ")", re.IGNORECASE)


def luhn_valid(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char) * (2 if position % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def iban_valid(candidate: str) -> bool:
    """ISO 13616: move the first four characters to the end, letters to numbers, mod 97 == 1."""
    compact = candidate.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(char, 36)) for char in rearranged)) % 97 == 1


def detect(text: str) -> list[Detection]:
    found: list[Detection] = [(m.start(), m.end(), "email", 0.99) for m in _EMAIL.finditer(text)]
    for match in _CARD.finditer(text):
        if luhn_valid(re.sub(r"[ -]", "", match.group())):
            found.append((match.start(), match.end(), "credit_card", 0.99))
    found += [(m.start(), m.end(), "iban", 0.99) for m in _IBAN.finditer(text) if iban_valid(m.group())]
    found += [(m.start(), m.end(), "ssn", 0.9) for m in _SSN.finditer(text)]
    found += [(m.start(), m.end(), "ip_address", 0.95) for m in _IPV4.finditer(text) if _is_host(text, m)]
    found += [(m.start(), m.end(), "ip_address", 0.95) for m in _IPV6.finditer(text) if _is_ip(m.group())]
    found += [(m.start(), m.end(), "phone", 0.85) for m in _PHONE.finditer(text)]
    found += [(m.start(1), m.end(1), "date_of_birth", 0.9) for m in _DOB.finditer(text)]
    return found


def _is_host(text: str, match: re.Match[str]) -> bool:
    """A valid IPv4 address that no version word names ("driver version 10.4.0.2" is a release)."""
    return _is_ip(match.group()) and not follows_a_version_word(text, match.start())


def _is_ip(candidate: str) -> bool:
    try:
        ipaddress.ip_address(candidate)
    except ValueError:
        return False
    return True
