"""Statements and passages: what Grounded in Context checks, and what it checks them against.

- `factual_statements(output)`: the output's sentences (Punkt, then lines, so that bullet lists
  split), with character offsets, minus those that assert nothing: questions, greetings and
  pleasantries, affirmations ("Yes.", "Sure!"), hedges ("I'm not sure"), and lead-ins ending in a
  colon ("Here is a summary:"). A lead-in or discourse marker before the claim in the same
  sentence ("Here is what I found: ...", "Yes, ...") is left out of the statement's range.
  A one-phrase answer ("Hans-Dieter Flick") is a statement: it is the whole claim.
- `without_questions(text)`: the text with its questions blanked out (offsets kept): a user's
  question is never evidence for a statement.
- `passage_windows(text)`: overlapping runs of up to `PASSAGE_SENTENCES` sentences (at most
  `PASSAGE_CHARS` characters) covering a context text, with offsets, so that a statement is
  judged against a passage that fits the models' windows however long the document is.
- `content_stems`, `numbers`: the lexical side (novel content words, numbers missing from the
  context), cheap and strong on short answers, where the models see too little text.
"""

from __future__ import annotations

import re

from properties.scorers.runtime import models

PASSAGE_SENTENCES = 3
# Windows start every PASSAGE_STRIDE sentences: consecutive windows share one sentence, so a fact
# stated across a sentence boundary is seen whole in one window.
PASSAGE_STRIDE = 2
# ~150 MiniLM tokens: inside the cross-encoder's 128-token passage window plus a little, and the
# encoder's 256. A longer sentence is cut at whitespace.
PASSAGE_CHARS = 600

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_BULLET = re.compile(r"\s*(?:[-*•‣·]|\d{1,2}[.)]|[a-z][.)])\s+")
_NON_FACTUAL = re.compile(
    r"^\W*(?:hi|hello|hey|dear|greetings|thanks|thank you|you're welcome|you are welcome|sure|of course|certainly|"
    r"absolutely|great question|good question|i hope|hope this helps|let me know|feel free|please let|"
    r"glad to help|happy to help|good luck|best regards|kind regards|regards|cheers|sincerely|"
    r"i'm not sure|i am not sure|i don't know|i do not know|i cannot|i can't|i'm sorry|i am sorry|sorry|"
    r"as an ai|okay|ok|alright|yes|yeah|yep|no|nope|right|correct|exactly|indeed|definitely|great|perfect|"
    r"excellent|got it|noted|understood|done|here you go|here it is)\b\W*$|"
    r"^\W*(?:hi|hello|hey|dear|greetings|thanks|thank you|you're welcome|you are welcome|of course|certainly|"
    r"great question|good question|i hope|hope this helps|let me know|feel free|please let|"
    r"glad to help|happy to help|good luck|best regards|kind regards|regards|cheers|sincerely|"
    r"i'm not sure|i am not sure|i don't know|i do not know|i cannot|i can't|i'm sorry|i am sorry|sorry|"
    r"as an ai|have a (?:great|nice|good|wonderful|lovely) (?:day|weekend|evening)|enjoy|take care|"
    r"good (?:morning|afternoon|evening)|welcome)\b",
    re.IGNORECASE,
)
# Words before the claim that say nothing about the world: a lead-in ending in a colon, or a discourse
# marker followed by a comma ("Yes, the plan ...", "According to the documentation, ...").
_LEAD_IN = re.compile(  # no ^: matched with a start position, where ^ would fail
    r"(?:[^:.!?\n]{0,60}(?:here(?:'s| is| are)|i found|found|answer|summary|in short|in summary|to summari[sz]e|"
    r"according to [^:]{0,40}|based on [^:]{0,40}|note|tl;?dr)\s*:\s+)",
    re.IGNORECASE,
)
_DISCOURSE = re.compile(
    r"(?:yes|yeah|no|sure|well|so|okay|ok|actually|basically|in short|in summary|indeed|of course|certainly|"
    r"absolutely|great question|good question|according to (?:the |our |your )?[\w -]{1,40}|"
    r"based on (?:the |our |your )?[\w -]{1,40}|as (?:stated|mentioned|described) in [\w -]{1,40})\s*[,!]\s+",
    re.IGNORECASE,
)
NUMBER_NAMES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty"
)
_NUMBER_WORDS = {word: str(value) for value, word in enumerate(NUMBER_NAMES.split())}
_STOP_WORDS = """a an the of to in on at for by with and or but nor so yet is are was were be been being am it its this
that these those what which who whom whose how when where why do does did done from as into onto than then there here
their they them he she his her him i me my you your we our us not no also very just only such can could would should
will shall may might must has have had having about over under after before between during while if because although
though since until up down out off again further once all any both each few more most other some own same too s t don
doesn didn isn aren wasn weren one"""
_STOP = frozenset(_STOP_WORDS.split())
_SUFFIXES = ("ing", "ed", "es", "ly", "s")


def stem(word: str) -> str:
    """A crude, fast stem: strip a common suffix and a final e, keep six characters ('Germany' ~
    'German', 'expires' ~ 'expire')."""
    word = word.lower().replace("’", "'")
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    return word[:6]


def content_stems(text: str) -> set[str]:
    """Stems of the words that carry content (no function words, no bare numbers)."""
    return set(content_stem_sequence(text))


def content_stem_sequence(text: str) -> list[str]:
    """The stems of `content_stems`, in the order of the text, repeats kept."""
    return [stem(w) for w in _WORD.findall(text) if w.lower() not in _STOP and not w.isdigit()]


def numbers(text: str) -> set[str]:
    """Numbers written in digits (commas dropped, '3.0' = '3') or as words up to twenty."""
    found = {_canonical_number(match) for match in _NUMBER.findall(text)}
    found.update(_NUMBER_WORDS[w] for w in _WORD.findall(text.lower()) if w in _NUMBER_WORDS)
    return found


def number_value(text: str) -> float | None:
    """The value of a number written in digits ("1,200", "2.5") or as a word up to twenty."""
    word = text.lower()
    if word in _NUMBER_WORDS:
        return float(_NUMBER_WORDS[word])
    digits = text.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+", text) else text.replace(",", ".")
    try:
        return float(digits)
    except ValueError:
        return None


def _canonical_number(text: str) -> str:
    text = text.replace(",", "")
    return text[: -len(".0")] if text.endswith(".0") else text


def is_factual(sentence: str) -> bool:
    """Whether a sentence asserts something that the context could support or contradict."""
    stripped = sentence.strip()
    if not _WORD.search(stripped) or stripped.endswith(("?", ":")):
        return False
    return not _NON_FACTUAL.match(stripped)


def sentences_and_lines(text: str) -> list[tuple[int, int]]:
    """Sentences (Punkt), each further cut at line breaks, trimmed, bullet markers dropped."""
    pieces: list[tuple[int, int]] = []
    for first, last in models.sentence_bounds(text):
        position = first
        for line in text[first:last].split("\n"):
            start, end = position, position + len(line)
            position = end + 1
            bullet = _BULLET.match(text, start, end)
            start = bullet.end() if bullet else start
            start, end = _trim(text, start, end)
            if start < end:
                pieces.append((start, end))
    return pieces


def factual_statements(text: str) -> list[tuple[int, int]]:
    """Character ranges of the factual statements of an output, in order, lead-ins left out."""
    found = []
    for start, end in sentences_and_lines(text):
        if not is_factual(text[start:end]):
            continue
        start = _after_lead_in(text, start, end)
        if is_factual(text[start:end]):
            found.append((start, end))
    return found


def _after_lead_in(text: str, start: int, end: int) -> int:
    """Where the claim starts once a lead-in ("Here is what I found: ") and discourse markers are skipped."""
    for pattern in (_LEAD_IN, _DISCOURSE, _DISCOURSE):
        match = pattern.match(text, start, end)
        if match and match.end() < end:
            start = match.end()
    return start


def is_question(sentence: str) -> bool:
    return sentence.rstrip().endswith("?")


def without_questions(text: str) -> str:
    """The text with each question sentence replaced by spaces, so that offsets still point into it."""
    pieces = list(text)
    for start, end in sentences_and_lines(text):
        if is_question(text[start:end]):
            pieces[start:end] = " " * (end - start)
    return "".join(pieces)


def passage_windows(text: str) -> list[tuple[int, int]]:
    """Overlapping windows of sentences covering the whole text, each at most `PASSAGE_CHARS` long."""
    sentences = [piece for s, e in sentences_and_lines(text) for piece in _cut_long(text, s, e)]
    if not sentences:
        return []
    windows: list[tuple[int, int]] = []
    for first in range(0, len(sentences), PASSAGE_STRIDE):
        last = first
        while (
            last + 1 < len(sentences)
            and last + 1 - first < PASSAGE_SENTENCES
            and sentences[last + 1][1] - sentences[first][0] <= PASSAGE_CHARS
        ):
            last += 1
        windows.append((sentences[first][0], sentences[last][1]))
        if last == len(sentences) - 1:
            break
    return windows


def _cut_long(text: str, start: int, end: int) -> list[tuple[int, int]]:
    pieces = []
    while end - start > PASSAGE_CHARS:
        cut = text.rfind(" ", start, start + PASSAGE_CHARS)
        cut = cut if cut > start else start + PASSAGE_CHARS
        pieces.append(_trim(text, start, cut))
        start = cut
    pieces.append(_trim(text, start, end))
    return [piece for piece in pieces if piece[0] < piece[1]]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
