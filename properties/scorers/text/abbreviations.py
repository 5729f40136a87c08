"""Whether a short form in an answer stands for words of the documents: "SSO" for "single sign-on",
"CTO" for "chief technology officer", "USD" for "US dollars", "2FA" for "two-factor authentication",
"Mon-Fri" for "Monday to Friday", "585M" for "585 million".

Grounded in Context's name rule says a name of the answer that the documents never mention is
unsupported; a short form of words the documents do use is no new name. The forms read are those
writers use for any words, not a list of known abbreviations:

- an initialism: the letters are the first letters of consecutive words of the documents (the parts
  of a hyphenated word count as words, a word in capitals gives all its letters, a number word its
  digit: "US dollars" gives U, S, D; "two-factor" gives 2, F);
- a truncation: a word of at least `MIN_TRUNCATION` letters that begins a word of the documents
  ("Mon" for "Monday", "Dept" for "Department");
- a figure with a magnitude letter: "585M" where the documents write "585 million".
"""

from __future__ import annotations

import re
from functools import lru_cache

from properties.scorers.text.statements import NUMBER_NAMES

MIN_TRUNCATION = 3
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_DIGIT_OF = {word: str(value) for value, word in enumerate(NUMBER_NAMES.split()) if value < 10}
_MAGNITUDE = re.compile(r"(\d+(?:\.\d+)?)\s?(k|K|M|m|bn|B|b)\b")
_MAGNITUDE_WORDS = {"k": "thousand", "m": "million", "b": "billion", "bn": "billion"}


_TOKEN = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?\s?(?:k|K|M|m|bn|B|b)\b|[^\W_]+)(\.)?")


def short_forms(statement: str, passage: str) -> dict[str, str]:
    """Each word of the statement that the passage lacks and that is a short form of its words,
    with those words: {"SSO": "Single sign on", "Mon": "Monday", "58M": "58 million"}."""
    known = {word.lower() for word in _words(passage)}
    found = {}
    for match in _TOKEN.finditer(statement):
        token = match.group(1)
        if token.lower() in known or token in found:
            continue
        # A cut word is one only where the writer marks it: "approx.", "Mon-Fri", "Jan/Feb".
        marked = (
            bool(match.group(2))
            or statement[match.end() : match.end() + 1] in ("-", "/", "–")
            or (statement[match.start() - 1 : match.start()] in ("-", "/", "–"))
        )
        words = words_abbreviated(token, passage, truncation=marked)
        if words:
            found[token] = words
    return found


def words_abbreviated(token: str, passage: str, truncation: bool = True) -> str | None:
    """The words of the passage that `token` (one word, hyphenated parts apart) is a short form of,
    as the passage writes them; None when it is none."""
    token = token.strip(".")
    if not token:
        return None
    magnitude = _MAGNITUDE.fullmatch(token)
    if magnitude:
        number, letter = magnitude.groups()
        written_out = re.search(rf"\b{re.escape(number)}\s+{_MAGNITUDE_WORDS[letter.lower()]}\b", passage, re.I)
        return written_out.group() if written_out else None
    initialism = _initialism_of(token, passage)
    if initialism:
        return initialism
    if truncation and token.isalpha() and len(token) >= MIN_TRUNCATION:
        return next(
            (word for word in _words(passage) if word.lower().startswith(token.lower()) and len(word) > len(token) + 1),
            None,
        )
    return None


def _initialism_of(token: str, passage: str) -> str | None:
    if len(token) < 2 or not any(char.isupper() for char in token):
        return None
    wanted = token.lower()
    words = _words(passage)
    pieces = _initial_pieces(passage)
    for start in range(len(pieces)):
        spelled = ""
        for end in range(start, len(pieces)):
            spelled += pieces[end]
            if not wanted.startswith(spelled):
                break
            if spelled == wanted:
                return " ".join(words[start : end + 1])
    return None


@lru_cache(maxsize=256)
def _initial_pieces(passage: str) -> tuple[str, ...]:
    """What each word of the passage gives an initialism, in order (see the module docstring)."""
    pieces = []
    for word in _words(passage):
        lower = word.lower()
        if lower in _DIGIT_OF:
            pieces.append(_DIGIT_OF[lower])
        elif len(word) > 1 and word.isupper():
            pieces.append(lower)
        else:
            pieces.append(lower[0])
    return tuple(pieces)


@lru_cache(maxsize=256)
def _words(passage: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(passage.replace("-", " ")))
