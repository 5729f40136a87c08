"""Lexical rules for whether a passage supports a statement, for the cases users check first.

The trained signals of Grounded in Context weigh evidence; these rules settle what needs no
weighing, and say why in words:

- `copied(statement, passage)`: the statement's content words occur in one sentence of the passage,
  in the same order, with at most `MAX_GAP_WORDS` other content words between them, and with the
  same numbers and the same polarity: a copy or near copy, supported by construction.
- `reworded(statement, passage)`: the same, with one content word of the statement replaced (a
  synonym: "kept" for "retained"), unless the two words are opposites; the caller confirms the
  meaning with the sentence embeddings.
- `mismatch(statement, entities, passage)`: a number, a named entity or a negation of the statement
  that the passage lacks or contradicts; the statement is then unsupported whatever else agrees
  ("the documents say 2009, the answer says 2015").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from properties.scorers.text import measures, statements

# Content words of the passage's sentence allowed between the statement's own (a dropped adjective,
# a clause the answer left out), in all.
MAX_GAP_WORDS = 3
# A passage sentence is compared for polarity only when it shares this share of the statement's
# content words: otherwise it is about something else.
POLARITY_OVERLAP = 0.5
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|without|cannot|can't|won't|n't|"
    r"doesn't|don't|isn't|aren't|wasn't|weren't|didn't|hasn't|haven't|hadn't|shouldn't|wouldn't|couldn't)\b|n't\b",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
# Number words that are nearly always numbers ("one" and "zero" are often not).
_NUMBER_NAMES = (
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty"
)
_NUMBER_WORDS = {word: str(value) for value, word in enumerate(_NUMBER_NAMES.split(), start=2)}
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


def figures(text: str) -> set[str]:
    """The numbers a statement asserts: digits (thousands separators dropped, '3.0' = '3'), and 2-20 in words."""
    found = set()
    for match in _DIGITS.findall(text):
        number = match.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+", match) else match.replace(",", ".")
        found.add(number[: -len(".0")] if number.endswith(".0") else number)
    found.update(_NUMBER_WORDS[w] for w in _WORD.findall(text.lower()) if w in _NUMBER_WORDS)
    return found


def negated(text: str) -> bool:
    return _NEGATION.search(text) is not None


def _sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in statements.sentences_and_lines(text)] or [text]


def _in_order(wanted: list[str], sentence: list[str]) -> bool:
    """Whether `wanted` is a subsequence of `sentence` with at most MAX_GAP_WORDS words in between."""
    if not wanted:
        return False
    for first in (i for i, word in enumerate(sentence) if word == wanted[0]):
        position, gaps = first, 0
        for word in wanted[1:]:
            try:
                found = sentence.index(word, position + 1)
            except ValueError:
                break
            gaps += found - position - 1
            position = found
        else:
            if gaps <= MAX_GAP_WORDS:
                return True
    return False


def copied(statement: str, passage: str) -> bool:
    """A copy or near copy of one sentence of the passage (see the module docstring)."""
    wanted = statements.content_stem_sequence(statement)
    for sentence in _sentences(passage):
        if (
            _in_order(wanted, statements.content_stem_sequence(sentence))
            and figures(statement) <= figures(sentence)
            and negated(statement) == negated(sentence)
        ):
            return True
    return False


# Pairs of words (stems) whose swap turns a statement into its opposite: never a rewording.
_OPPOSITES = [
    ("includ", "exclud"),
    ("increas", "decreas"),
    ("more", "less"),
    ("more", "fewer"),
    ("higher", "lower"),
    ("above", "below"),
    ("over", "under"),
    ("befor", "after"),
    ("earlier", "later"),
    ("first", "last"),
    ("allow", "deny"),
    ("allow", "block"),
    ("allow", "prevent"),
    ("accept", "reject"),
    ("add", "remov"),
    ("enabl", "disabl"),
    ("open", "clos"),
    ("start", "stop"),
    ("start", "end"),
    ("win", "los"),
    ("rise", "fall"),
    ("gain", "loss"),
    ("maximu", "minimu"),
    ("buy", "sell"),
    ("import", "export"),
    ("permit", "forbid"),
    ("approv", "deny"),
    ("approv", "reject"),
    ("succes", "failur"),
    ("pass", "fail"),
    ("requir", "option"),
    ("public", "privat"),
    ("free", "paid"),
    ("onlin", "offlin"),
    ("internal", "externa"),
    ("inbound", "outbou"),
    ("upload", "downlo"),
    ("encryp", "decryp"),
    ("lock", "unlock"),
    ("old", "new"),
]
OPPOSITES = frozenset({*_OPPOSITES, *((b, a) for a, b in _OPPOSITES)})


def reworded(statement: str, passage: str) -> tuple[str, str] | None:
    """(the statement's word, the passage's) when the statement is one sentence of the passage with
    one content word replaced by a word that is not its opposite; None otherwise."""
    wanted = statements.content_stem_sequence(statement)
    if len(wanted) < 3:
        return None
    for sentence in _sentences(passage):
        words = statements.content_stem_sequence(sentence)
        new = [w for w in wanted if w not in words]
        if len(new) != 1 or not figures(statement) <= figures(sentence) or negated(statement) != negated(sentence):
            continue
        if not _in_order([w for w in wanted if w != new[0]], words):
            continue
        others = [w for w in words if w not in wanted]
        if others and not any((new[0], other) in OPPOSITES for other in others):
            return _word_of(statement, new[0]), _word_of(sentence, others[0])
    return None


def _word_of(text: str, stem: str) -> str:
    """The word of the text that a stem came from, for notes a user reads."""
    return next((word for word in _WORD.findall(text) if statements.stem(word) == stem), stem)


_CAPITALISED = re.compile(r"(?<=[\w,;] )[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)*")


def names(statement: str, entities: Sequence[str]) -> list[str]:
    """The statement's named entities, and capitalised words inside a sentence (names a small NER
    model misses: products, companies)."""
    found = list(dict.fromkeys(entities))
    lower = " ".join(found).lower()
    for match in _CAPITALISED.finditer(statement):
        if match.group().lower() not in lower and match.group() != "I":
            found.append(match.group())
    return found


def mismatch(statement: str, entities: Sequence[str], passage: str) -> str | None:
    """Why the passage cannot support the statement, in words, or None."""
    # A figure in another unit is no difference when the passage gives the same quantity (`measures`).
    missing = sorted(
        f for f in figures(statement) - figures(passage) if not measures.same_quantity_in(f, statement, passage)
    )
    if missing:
        # Only the passage's figures that the statement lacks: one both give is no difference.
        said = sorted(figures(passage) - figures(statement))
        documents = f"the documents say {', '.join(said)}" if said else "the documents give no such figure"
        return f"{documents}, the answer says {', '.join(missing)}"
    lower = " ".join(passage.lower().split())
    stems = statements.content_stems(passage)
    absent = [
        entity
        for entity in names(statement, entities)
        if " ".join(entity.lower().split()) not in lower
        and not statements.content_stems(entity) <= stems
        and not measures.is_a_quantity_given_in(entity, passage)
    ]
    if absent:
        return f"the documents do not mention {', '.join(absent)}"
    closest = _closest_sentence(statement, passage)
    if closest is not None and negated(statement) != negated(closest):
        side = "denies" if negated(statement) else "affirms"
        return f"the answer {side} what the documents say: \u201c{_preview(closest)}\u201d"
    return None


_CLAUSE = re.compile(r"[;:,]\s+|\s+(?:but|whereas|while|although)\s+", re.IGNORECASE)


def _closest_sentence(statement: str, passage: str) -> str | None:
    """The clause of the passage that shares most of the statement's content words, if it shares enough."""
    words = statements.content_stems(statement)
    if not words:
        return None
    best, overlap = None, 0.0
    clauses = [clause for sentence in _sentences(passage) for clause in _CLAUSE.split(sentence) if clause.strip()]
    for sentence in clauses:
        shared = len(words & statements.content_stems(sentence)) / len(words)
        if shared > overlap:
            best, overlap = sentence, shared
    return best if overlap >= POLARITY_OVERLAP else None


def _preview(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"
