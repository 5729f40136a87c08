"""Pattern and checksum detectors of PII Risk (no model)."""

from __future__ import annotations

from properties.scorers.text.pii_detectors import detect, iban_valid, luhn_valid


def kinds(text: str) -> dict[str, str]:
    return {kind: text[start:end] for start, end, kind, _ in detect(text)}


def test_checksums() -> None:
    assert luhn_valid("4111111111111111")
    assert not luhn_valid("4111111111111112")
    assert iban_valid("GB82 WEST 1234 5698 7654 32")
    assert not iban_valid("GB82 WEST 1234 5698 7654 33")


def test_detectors_find_what_they_validate() -> None:
    text = "SSN 123-45-6789, IBAN GB82 WEST 1234 5698 7654 32, from 192.168.1.20, born on 4 July 1976."
    found = kinds(text)
    assert found["ssn"] == "123-45-6789"
    assert found["iban"] == "GB82 WEST 1234 5698 7654 32"
    assert found["ip_address"] == "192.168.1.20"
    assert found["date_of_birth"] == "4 July 1976"


def test_detectors_reject_what_does_not_validate() -> None:
    assert kinds("Order 4111 1111 1111 1112 and version 1.2.3.999 shipped.") == {}


def test_a_dotted_version_number_is_not_an_ip_address() -> None:
    assert kinds("Install driver version 10.4.0.2, then firmware 2.1.0.7.") == {}
    assert kinds("The request came from 10.4.0.2.")["ip_address"] == "10.4.0.2"
