"""Hand-made linguistic features that the Fluency and Formality heads take beside the embedding.

The encoder's embedding says what a text is about more than how it is written; these say how:
the Heylighen-Dewaele formality F-score from spaCy part-of-speech tags, and surface markers of
casual or broken writing (text-speak, contractions, shouting, missing capitals, repeated words).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from properties.scorers.runtime import spacy_english

# Documents per spaCy `pipe` batch, tagging only (parser, NER, lemmatizer off). Measured on 2 shared
# cores over 600 short eval texts: 16 -> 1,237/s, 64 -> 1,484/s, 256 -> 1,273/s.
SPACY_BATCH_SIZE = 64

# Common text-speak and chat words: their share of the words marks casual or ill-formed English.
_TEXT_SPEAK_WORDS = (
    "u r ur ya yall y'all gr8 l8r b4 2day 2moro 2nite lol lmao lmfao rofl omg idk imo imho tbh "
    "btw brb thx thnx tx pls plz cuz coz bc gonna wanna gotta kinda sorta dunno lemme gimme "
    "ain't nah yea yeah yep yup k kk ok okay hey hi sup wassup haha hahaha hehe xd smh ikr fyi "
    "np nvm ppl msg txt luv wat wut da dat dis dem bro dude srsly cya ttyl jk "
)
TEXT_SPEAK = frozenset(_TEXT_SPEAK_WORDS.split())
SURFACE_FEATURES = (
    "text_speak",
    "contractions",
    "exclamations",
    "questions",
    "all_caps_words",
    "lowercase_starts",
    "lowercase_i",
    "first_second_person",
    "repeated_words",
    "ends_without_punctuation",
    "non_letters",
    "mean_word_length",
    "emoticons",
)
_WORD = re.compile(r"[A-Za-z0-9']+")
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+)([A-Za-z])")
_EMOTICON = re.compile(r"[:;=8][\-o*']?[)(\]\[dDpP/\\|]|<3|[\U0001F300-\U0001FAFF]")
_PERSON = frozenset(["i", "me", "my", "mine", "you", "your", "yours", "u", "ur", "we", "us", "our"])


def surface_features(texts: Sequence[str]) -> np.ndarray:
    return np.array([_surface(text) for text in texts], dtype=np.float64)


def _surface(text: str) -> list[float]:
    words = _WORD.findall(text)
    lower = [w.lower() for w in words]
    n = max(len(words), 1)
    starts = _SENTENCE_START.findall(text)
    stripped = text.rstrip()
    return [
        sum(w in TEXT_SPEAK for w in lower) / n,
        sum("'" in w for w in words) / n,
        text.count("!") / n,
        text.count("?") / n,
        sum(len(w) > 1 and w.isupper() for w in words) / n,
        sum(s.islower() for s in starts) / max(len(starts), 1),
        sum(w == "i" for w in words) / n,
        sum(w in _PERSON for w in lower) / n,
        sum(a == b for a, b in zip(lower, lower[1:], strict=False)) / n,
        float(bool(stripped) and stripped[-1] not in ".!?\"')"),
        sum(not (c.isalpha() or c.isspace()) for c in text) / max(len(text), 1),
        sum(len(w) for w in words) / n,
        len(_EMOTICON.findall(text)) / n,
    ]


_OPEN_QUOTE, _CLOSE_QUOTE = "\u201c", "\u201d"
# Markers a note can name, in words, with the words that show them (`casual_markers`).
FLUENCY_MARKERS = (
    "text_speak",
    "all_caps_words",
    "lowercase_starts",
    "lowercase_i",
    "repeated_words",
    "ends_without_punctuation",
    "emoticons",
)
FORMALITY_MARKERS = (
    "text_speak",
    "contractions",
    "exclamations",
    "emoticons",
    "lowercase_i",
    "all_caps_words",
    "first_second_person",
)


def casual_markers(text: str, kinds: Sequence[str]) -> list[str]:
    """The surface markers of `kinds` that a text shows, each in words with an example from the text:
    what a note says to explain why a sentence reads as casual or broken."""
    words = _WORD.findall(text)
    lower = [w.lower() for w in words]
    stripped = text.rstrip()

    def quoted(found: Sequence[str], what: str) -> str:
        examples = list(dict.fromkeys(found))[:3]
        return f"{what} ({', '.join(_OPEN_QUOTE + w + _CLOSE_QUOTE for w in examples)})"

    found: dict[str, str] = {}
    if speak := [w for w, low in zip(words, lower, strict=True) if low in TEXT_SPEAK]:
        found["text_speak"] = quoted(speak, "chat words")
    if contractions := [w for w in words if "'" in w.strip("'")]:
        found["contractions"] = quoted(contractions, "contractions")
    if "!" in text:
        found["exclamations"] = "exclamation marks"
    if emoticons := _EMOTICON.findall(text):
        found["emoticons"] = quoted(emoticons, "emoticons")
    if "i" in words:
        found["lowercase_i"] = f"{_OPEN_QUOTE}i{_CLOSE_QUOTE} in lower case"
    if shouted := [w for w in words if len(w) > 1 and w.isupper() and w.isalpha()]:
        found["all_caps_words"] = quoted(shouted, "words in capitals")
    if any(start.islower() for start in _SENTENCE_START.findall(text)):
        found["lowercase_starts"] = "a sentence starting in lower case"
    if person := [w for w, low in zip(words, lower, strict=True) if low in _PERSON and low not in TEXT_SPEAK]:
        found["first_second_person"] = quoted(person, "speaks as I or to you")
    if repeated := [b for a, b in zip(lower, lower[1:], strict=False) if a == b and a.isalpha()]:
        found["repeated_words"] = quoted([f"{w} {w}" for w in repeated], "a word repeated")
    if stripped and stripped[-1] not in ".!?\"')":
        found["ends_without_punctuation"] = "no closing punctuation"
    return [found[kind] for kind in kinds if kind in found]


def explained(reading: str, text: str, kinds: Sequence[str]) -> str:
    """A span's note: what the sentence reads as, then the markers of `kinds` it shows, if any."""
    markers = casual_markers(text, kinds)
    return f"{reading}: {'; '.join(markers)}" if markers else reading


# Heylighen & Dewaele (1999): F = (noun + adjective + preposition + article - pronoun - verb - adverb
# - interjection + 100) / 2, each the percentage of the words. Articles are determiners here.
_FORMAL_POS = frozenset({"NOUN", "PROPN", "ADJ", "ADP", "DET"})
_DEICTIC_POS = frozenset({"PRON", "VERB", "AUX", "ADV", "INTJ"})


def formality_fscore(texts: Sequence[str]) -> np.ndarray:
    """The F-score of each text scaled to 0..1 (0.5 is neutral)."""
    scores = []
    for doc in spacy_english.parse(texts, "formality", spacy_english.TAGGER, SPACY_BATCH_SIZE):
        words = [token.pos_ for token in doc if not (token.is_punct or token.is_space)]
        n = max(len(words), 1)
        formal = sum(pos in _FORMAL_POS for pos in words) * 100 / n
        deictic = sum(pos in _DEICTIC_POS for pos in words) * 100 / n
        scores.append((formal - deictic + 100) / 200)
    return np.array(scores, dtype=np.float64)
