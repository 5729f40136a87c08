"""Pattern and checksum detectors of PII Risk (no model)."""

from __future__ import annotations

from properties.scorers.text.pii_detectors import detect, written_as_a_phone_number


def kinds(text: str) -> dict[str, str]:
    return {kind: text[start:end] for start, end, kind, *_ in detect(text)}


def test_checksums() -> None:
    assert kinds("card 4111 1111 1111 1111")["credit_card"] == "4111 1111 1111 1111"
    assert "credit_card" not in kinds("card 4111 1111 1111 1112")
    assert kinds("IBAN GB82 WEST 1234 5698 7654 32.")["iban"] == "GB82 WEST 1234 5698 7654 32"
    assert "iban" not in kinds("IBAN GB82 WEST 1234 5698 7654 33.")
    # Grouped in fours with a letter inside a group, as Italian IBANs are written.
    assert kinds("IT60 X054 2811 1010 0000 0123 456")["iban"] == "IT60 X054 2811 1010 0000 0123 456"


def test_phone_numbers_in_common_formats() -> None:
    for text, number in (
        ("Reach me on +44 20 7946 0958 today.", "+44 20 7946 0958"),
        ("Call (415) 555-0132.", "(415) 555-0132"),
        ("Telefon: 030 12345678", "030 12345678"),
        ("Appelez le 01 23 45 67 89.", "01 23 45 67 89"),
        ("call Kenji Sato at 555-0121", "555-0121"),
    ):
        assert kinds(text)["phone"] == number, text
    assert "phone" not in kinds("Order QNH-197423 shipped; build 4567-8901 of version 2.4.1, in 2023-2024.")


def test_detectors_find_what_they_validate() -> None:
    text = "SSN 875-06-6175, IBAN GB82 WEST 1234 5698 7654 32, from 192.168.1.20, born on 4 July 1976."
    found = kinds(text)
    assert found["ssn"] == "875-06-6175"
    # The number printed on sample cards and in documentation is no one's.
    assert "ssn" not in kinds("SSN 123-45-6789")
    assert found["iban"] == "GB82 WEST 1234 5698 7654 32"
    assert found["ip_address"] == "192.168.1.20"
    assert found["date_of_birth"] == "4 July 1976"


def test_detectors_reject_what_does_not_validate() -> None:
    assert kinds("Order 4111 1111 1111 1112 and version 1.2.3.999 shipped.") == {}


def test_a_dotted_version_number_is_not_an_ip_address() -> None:
    assert kinds("Install driver version 10.4.0.2, then firmware 2.1.0.7.") == {}
    assert kinds("The request came from 10.4.0.2.")["ip_address"] == "10.4.0.2"


def test_a_weak_pattern_counts_only_after_a_word_of_its_kind() -> None:
    # Nine bare digits are an SSN, a passport or a phone number by what stands before them.
    assert kinds("Social Security number 875066175 on file.")["ssn"] == "875066175"
    assert "ssn" not in kinds("Call me on +34 888601150 please.")
    assert kinds("Call me on +34 888601150 please.")["phone"] == "+34 888601150"
    for text, number in (
        ("Verified with passport number 364526084.", "364526084"),
        ("Your passport no. NF3205701 was scanned.", "NF3205701"),
        ("The booking is tied to passport P77631706.", "P77631706"),
    ):
        assert kinds(text)["passport"] == number, text
    assert "passport" not in kinds("Batch NF3205701 left the plant.")


def test_an_ip_address_is_not_a_phone_number() -> None:
    assert kinds("failed login from 96.188.252.97") == {"ip_address": "96.188.252.97"}


def test_a_checksum_valid_piece_of_a_longer_code_is_no_card() -> None:
    # 4494154-1932730 passes Luhn, but it is the end of an order number.
    assert "credit_card" not in kinds("We've reopened the return for order 276-4494154-1932730.")
    assert kinds("charged card=4111-1111-1111-1111; status=ok")["credit_card"] == "4111-1111-1111-1111"


def test_a_phone_number_written_as_one() -> None:
    for number in ("+44 20 7946 0958", "(415) 555-0132", "212-555-0134", "020 7946 0958", "01 23 45 67 89"):
        assert written_as_a_phone_number(number), number
    # A run of digits, groups no numbering plan prints, and a local number need a word before them.
    for number in ("1995417500", "8642 6843 2384", "555-0121", "108-1447"):
        assert not written_as_a_phone_number(number), number
