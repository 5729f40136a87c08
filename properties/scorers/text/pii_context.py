"""How a text uses a person's name: an encyclopedic statement, a mention, or a person's own data.

No list of famous people can tell a public figure from a private one, so PII Risk reads how the
name is used instead (`name_reading`):

- *personal*: the name's sentence addresses someone or speaks of an account, a contact or a
  delivery: first- or second-person words ("I", "my", "you", "our"), a greeting ("Dear", "Hi"),
  words such as "customer", "contact", "invoice", "shipped". "Hi Priya Raman, your account is
  unlocked." The name may well be the reader's or a customer's.
- *encyclopedic*: otherwise, when the sentence states something of the public record: a year or a
  date, a role or title ("president", "painter", "physicist"), or a deed ("painted", "founded",
  "won", "was born", "died"). "Leonardo da Vinci painted the Mona Lisa."
- *mention*: otherwise, when nothing in the whole text addresses anyone: a third-person statement
  that names someone. "The keynote was given by Satya Nadella."
- *personal* again when another sentence of the text speaks to someone (first or second person,
  a greeting): in a support answer, a name next to "your order" may be the customer's.

First- and second-person words count in lower case or at the start of a sentence (capitalised
inside one they are a title: "Reign Over Me"), and not inside quotation marks (a quotation is the
quoted person's voice).

PII Risk lowers a name (and a date of birth) read as encyclopedic or a mention only when the text
holds no contact details or identifiers at all (pii_risk.py).
"""

from __future__ import annotations

import re

from properties.scorers.runtime import models

# "us" is left out: in running text it is as often the country (the US) as the pronoun. A pronoun
# counts in lower case or at the start of a sentence: capitalised inside one it is a title ("Reign
# Over Me", "YOU On Demand"). "I" is read apart (it is also a numeral: "Elizabeth I").
_PERSONAL = re.compile(r"\b(?:me|my|mine|myself|we|our|ours|ourselves|you|your|yours|yourself|yourselves|u|ur)\b")
_PERSONAL_FIRST = re.compile(r"^\W*(?:My|We|Our|You|Your)\b")
# A quotation is the quoted person's voice, not the text speaking to its reader.
_QUOTATION = re.compile(r'"[^"\n]*"|“[^”\n]*”')
_I = re.compile(r"\bI\b(?!\.)")
_GREETING = re.compile(
    r"^\W*(?:dear|hi|hello|hey|greetings|thanks|thank you|regards|best|sincerely|cheers|attn|attention|"
    r"good (?:morning|afternoon|evening))\b",
    re.IGNORECASE,
)
# Words of an account, a contact or a delivery. Words that encyclopedic prose uses as often
# ("call", "reached", "member", "order", "colleague", "Gettysburg Address") are left out or narrowed.
_SERVICE = re.compile(
    r"\b(?:contact(?:s|ed|ing)?|e-?mail(?:s|ed)?|mailbox|inbox|(?-i:address(?:es)?)|"
    r"phone (?:number|no)|lives at|living at|resides|dm|whatsapp|customer|client|patient|"
    r"account (?:number|holder|id)|order (?:number|no|id)|booking|invoice|receipt|refund|payment|billing|"
    r"delivery|shipped|shipping|parcel|salary|payroll|insurance|login|password|username|user|tenant|"
    r"landlord|volunteer|employee|technician|escalated|assigned to)\b",
    re.IGNORECASE,
)
_MONTH = r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
_RECORD_DATE = re.compile(
    rf"\b(?:1\d{{3}}|20\d{{2}})s?\b|\b\d{{1,2}}(?:st|nd|rd|th)?[- ]century\b|\b\d{{1,4}}\s?(?:BC|BCE|AD|CE)\b|"
    rf"\b{_MONTH}\s\d{{1,2}}\b|\b\d{{1,2}}\s{_MONTH}\b",
    re.IGNORECASE,
)
_ROLE = re.compile(
    r"\b(?:president|vice[- ]president|prime minister|chancellor|king|queen|emperor|empress|prince|princess|"
    r"pharaoh|sultan|tsar|czar|pope|saint|bishop|archbishop|cardinal|senator|governor|minister|mayor|"
    r"general|admiral|marshal|commander|statesman|politician|diplomat|dynasty|monarch|ruler|"
    r"painter|artist|sculptor|architect|author|writer|novelist|poet|playwright|essayist|composer|musician|"
    r"singer|songwriter|rapper|guitarist|pianist|violinist|conductor|actor|actress|director|filmmaker|"
    r"producer|comedian|dancer|photographer|designer|scientist|physicist|chemist|biologist|"
    r"mathematician|astronomer|philosopher|economist|historian|psychologist|sociologist|theologian|"
    r"geologist|naturalist|physician|surgeon|inventor|engineer|explorer|navigator|astronaut|cosmonaut|aviator|"
    r"athlete|player|footballer|cricketer|golfer|boxer|wrestler|sprinter|swimmer|cyclist|racing driver|champion|"
    r"olympian|coach|manager of|founder|co-founder|ceo|chairman|entrepreneur|businessman|businesswoman|editor|"
    r"industrialist|billionaire|philanthropist|leader|activist|journalist|broadcaster|laureate|nobel|"
    r"prophet|apostle|disciple|reformer|revolutionary|scholar|professor|"
    r"biography|autobiography|memoir|album|novel|symphony|opera|painting|theorem)\b",
    re.IGNORECASE,
)
_DEED = re.compile(
    r"\b(?:painted|wrote|written|composed|sculpted|authored|published|directed|recorded|released|"
    r"discovered|invented|formulated|proposed|developed|pioneered|introduced|designed|built|founded|"
    r"co-founded|established|won|awarded|knighted|crowned|elected|appointed|served|reigned|ruled|led|"
    r"conquered|defeated|succeeded|abdicated|assassinated|executed|exiled|born|died|buried|became|"
    r"stars|starring|starred|co-starred|cast as|played|portrayed|"
    r"explored|climbed|flew|landed|walked on|premiered|known for|famous|renowned|celebrated|legendary|"
    r"best[- ]known|acclaimed|influential)\b",
    re.IGNORECASE,
)


PERSONAL, ENCYCLOPEDIC, MENTION = "personal", "encyclopedic", "mention"


def sentences(text: str) -> list[tuple[int, int]]:
    """Sentences (Punkt), each further cut at line breaks: a list item or a signature is its own."""
    pieces = []
    for first, last in models.sentence_bounds(text):
        position = first
        for line in text[first:last].split("\n"):
            if line.strip():
                pieces.append((position, position + len(line)))
            position += len(line) + 1
    return pieces or [(0, len(text))]


def name_reading(text: str, start: int, end: int, bounds: list[tuple[int, int]] | None = None) -> str:
    """How the name at text[start:end] is used: PERSONAL, ENCYCLOPEDIC or MENTION (module docstring).
    `bounds` are the text's `sentences`, when the caller reads several names of one text."""
    bounds = bounds if bounds is not None else sentences(text)
    sentence = next((text[first:last] for first, last in bounds if first <= start < last), text)
    if addresses_someone(sentence):
        return PERSONAL
    if states_a_public_record(sentence):
        return ENCYCLOPEDIC
    if any(speaks_to_someone(text[first:last]) for first, last in bounds):
        return PERSONAL
    return MENTION


def addresses_someone(sentence: str) -> bool:
    """First or second person, a greeting, or the words of an account, a contact or a delivery."""
    return speaks_to_someone(sentence) or bool(_SERVICE.search(_QUOTATION.sub(" ", sentence)))


def speaks_to_someone(sentence: str) -> bool:
    """First or second person outside quotations, or a greeting."""
    unquoted = _QUOTATION.sub(" ", sentence)
    if unquoted.isupper():  # A text in capitals: its pronouns are pronouns
        unquoted = unquoted.lower()
    personal = _PERSONAL.search(unquoted) or _PERSONAL_FIRST.match(unquoted) or _says_i(unquoted)
    return bool(personal or _GREETING.match(unquoted))


def _says_i(sentence: str) -> bool:
    """ "I" as a pronoun: not after a capitalised word inside the sentence ("Elizabeth I", "War I")."""
    for match in _I.finditer(sentence):
        previous = re.search(r"(\S+)\s+$", sentence[: match.start()])
        numeral = previous and previous.start(1) > 0 and previous.group(1)[0].isupper() and previous.group(1).isalpha()
        if not numeral:
            return True
    return False


def states_a_public_record(sentence: str) -> bool:
    """A year or a date, a role or title, or a deed of the public record."""
    return bool(_RECORD_DATE.search(sentence) or _ROLE.search(sentence) or _DEED.search(sentence))
