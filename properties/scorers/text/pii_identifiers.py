"""Whether an identifier or a phone number has a word of its kind before it.

The model reads any code of letters and digits as a driver licence, a passport or a tax id
("QNH-197423", "87a4ebe12890"), and an order number, a SKU or a request id has the same shape. What
tells them apart is the text around them: "licence no. D1234567" against "Order QNH-197423". The
words come from presidio-analyzer's recognizers for those identifiers, which use them the same way
(a weak pattern gains confidence when one of its context words is near), in several countries.

Phone numbers are read the same way: a run of digits that a numbering plan allows is as often an
invoice number, a barcode or a tracking number ("invoice 1995417500"). Presidio's phone words are
English, so `EXTRA_CONTEXT` adds how the languages of the locales we serve ask to be called.
"""

from __future__ import annotations

import re
from functools import cache

# Our identifier types -> Presidio's recognizers whose context words name them.
RECOGNIZERS = {
    "drivers_license": (
        "UsLicenseRecognizer",
        "UkDrivingLicenceRecognizer",
        "ItDriverLicenseRecognizer",
        "DeFuehrerscheinRecognizer",
        "ZaDriverLicenseRecognizer",
    ),
    "passport": (
        "UsPassportRecognizer",
        "UkPassportRecognizer",
        "DePassportRecognizer",
        "EsPassportRecognizer",
        "ItPassportRecognizer",
        "InPassportRecognizer",
    ),
    "tax_id": (
        "UsItinRecognizer",
        "DeTaxIdRecognizer",
        "InPanRecognizer",
        "AuTfnRecognizer",
        "UsProviderTaxIdRecognizer",
    ),
    "government_id": (
        "UsSsnRecognizer",
        "UkNinoRecognizer",
        "DeIdCardRecognizer",
        "ItIdentityCardRecognizer",
        "InAadhaarRecognizer",
        "EsNifRecognizer",
        "CaSinRecognizer",
    ),
    "bank_account": ("UsBankRecognizer", "IbanRecognizer"),
    "routing_number": ("AbaRoutingRecognizer",),
    "ssn": ("UsSsnRecognizer",),
    "ip_address": ("IpRecognizer",),
    "phone": ("PhoneRecognizer",),
}
# The identifier types the PII model guesses from a code's shape alone (no detector checks them).
GUESSED = frozenset({"drivers_license", "passport", "tax_id", "government_id", "bank_account", "routing_number"})
# Words Presidio lacks: English verbs of calling, and the phone words of German, French, Spanish,
# Italian and Dutch ("Telefon", "rappeler", "llamar", "chiamare", "bellen"), with the forms replies use.
EXTRA_CONTEXT = {
    "phone": (
        "tel",
        "phoned",
        "called",
        "calling",
        "callback",
        "ring",
        "reach",
        "reached",
        "reachable",
        "contact",
        "sms",
        "text",
        "whatsapp",
        "fax",
        "dial",
        "hotline",
        "landline",
        "telefon",
        "telefonnummer",
        "rufnummer",
        "handy",
        "mobil",
        "anrufen",
        "rufen",
        "erreichen",
        "téléphone",
        "tél",
        "portable",
        "appeler",
        "appelez",
        "rappeler",
        "rappellerons",
        "joindre",
        "teléfono",
        "móvil",
        "llamar",
        "llame",
        "llamaremos",
        "telefono",
        "cellulare",
        "chiamare",
        "chiami",
        "richiameremo",
        "telefoon",
        "telefoonnummer",
        "mobiel",
        "bellen",
        "bel",
    ),
}
# Presidio looks this many words back for a context word; so do we, within the line.
WORDS_BEFORE = 5
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@cache
def context(kind: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The kind's context words (single words of two letters or more) and phrases, lower-cased."""
    import presidio_analyzer.predefined_recognizers as recognizers

    words: set[str] = set()
    phrases: set[str] = set()
    entries = list(EXTRA_CONTEXT.get(kind, ()))
    for name in RECOGNIZERS.get(kind, ()):
        entries += getattr(getattr(recognizers, name, None), "CONTEXT", None) or []
    for entry in entries:
        entry = " ".join(_WORD.findall(entry.lower()))
        if " " in entry:
            phrases.add(entry)
        elif len(entry) >= 2 and not entry.isdigit():
            words.add(entry)
    return frozenset(words), tuple(sorted(phrases))


def has_context(text: str, start: int, kind: str) -> bool:
    """Whether one of the kind's context words or phrases stands among the few words before `start`,
    on its line."""
    line_start = text.rfind("\n", 0, start) + 1
    before = _WORD.findall(text[line_start:start].lower())[-WORDS_BEFORE:]
    words, phrases = context(kind)
    joined = " ".join(before)
    return bool(words & set(before)) or any(phrase in joined for phrase in phrases)
