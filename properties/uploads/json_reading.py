"""JSON from uploads and API requests, read within limits of nesting and number size.

Python's json module recurses once per level of nesting, ijson's events carry a prefix that grows
with the depth (so memory grows with its square), and ijson's C parser stops a whole file at one
number that does not fit 64 bits. Here JSON text is first scanned, following only its strings and
brackets, and every value nested deeper than the cap is replaced by the string TOO_DEEP before
anything is parsed; numbers that do not fit a 64-bit integer or a float are read as the strings
INT_OUT_OF_RANGE and FLOAT_OUT_OF_RANGE. These are Unicode noncharacters that uploaded text never
holds legitimately, so the row holding one is rejected with its field and the reason (see
properties.uploads.file_formats.BAD_TEXT), and the other rows are kept.

A JSON array is split into its items' text by the same scan, so that an item is parsed alone and
an item over the size limit is skipped without being kept in memory or parsed.
"""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

# Levels of lists and objects inside one row (an interaction needs three or four).
MAX_NESTING = 64
TOO_DEEP = "\ufdd1"
INT_OUT_OF_RANGE = "\ufdd2"
FLOAT_OUT_OF_RANGE = "\ufdd3"
MARKER_REASONS = {
    TOO_DEEP: f"nested deeper than {MAX_NESTING} levels",
    INT_OUT_OF_RANGE: "a number that does not fit a 64-bit integer",
    FLOAT_OUT_OF_RANGE: "a number too large for a float",
}
# Characters read from a stream at a time.
CHUNK_CHARS = 64 * 1024
# "-9223372036854775808" has 20 characters: a longer integer is out of range without int(), which
# Python refuses past 4,300 digits anyway.
_INT64_DIGITS = 20
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1

_OUTSIDE_STRINGS = re.compile(r'["\[\]{},]')
_INSIDE_STRINGS = re.compile(r'["\\]')
_MARKER_JSON = json.dumps(TOO_DEEP)


class NotAnArray(ValueError):
    """The text does not start with `[`."""


class Truncated(ValueError):
    """The text ends inside the array."""


def _int(text: str) -> int | str:
    if len(text) > _INT64_DIGITS:
        return INT_OUT_OF_RANGE
    value = int(text)
    return value if _INT64_MIN <= value <= _INT64_MAX else INT_OUT_OF_RANGE


def _float(text: str) -> float | str:
    value = float(text)
    return value if math.isfinite(value) else FLOAT_OUT_OF_RANGE


# One decoder for every row: json.loads with hooks builds a new one per call.
_DECODER = json.JSONDecoder(parse_int=_int, parse_float=_float)


def parse(text: str) -> Any:
    """json.loads with numbers checked; `text` must already be capped (see loads)."""
    return _DECODER.decode(text)


def loads(text: str, max_nesting: int = MAX_NESTING) -> Any:
    """json.loads in time and memory linear in the text, deeper values replaced by TOO_DEEP."""
    if text.count("[") + text.count("{") <= max_nesting:
        # Too few brackets to nest past the cap: nothing to replace, so the scan (in Python, most
        # of a JSONL row's parsing time) is skipped.
        return parse(text)
    scanner = _Scanner(cap=max_nesting, split_depth=None)
    scanner.feed(text)
    return parse(scanner.finish())


def array_items(stream: io.TextIOBase, max_item_chars: int) -> Iterator[tuple[int, str | None]]:
    """(position, text) for each item of the JSON array read from `stream`, 1-based, with values
    nested deeper than MAX_NESTING inside an item replaced; text is None for an item longer than
    `max_item_chars`, which is skipped without being kept. Raises NotAnArray, or Truncated after
    the last complete item when the array is not closed (the items before it were yielded)."""
    scanner = _Scanner(cap=MAX_NESTING + 1, split_depth=1, max_item_chars=max_item_chars)
    position = 0
    while chunk := stream.read(CHUNK_CHARS):
        scanner.feed(chunk)
        for text in scanner.take_items():
            position += 1
            yield position, text
        if scanner.closed:
            return
    raise Truncated(f"after item {position}")


@dataclass
class _Scanner:
    """Follows strings and brackets across chunks; copies the text, replacing every value deeper
    than `cap` by TOO_DEEP; with `split_depth`, cuts the copy at that depth's commas into items."""

    cap: int
    split_depth: int | None
    max_item_chars: int | None = None
    depth: int = 0
    in_string: bool = False
    escaped: bool = False
    # The depth at which skipping a too-deep value ends, or None when copying.
    skip_to: int | None = None
    closed: bool = False
    started: bool = False
    parts: list[str] = field(default_factory=list)
    item_chars: int = 0
    oversized: bool = False
    items: list[str | None] = field(default_factory=list)

    def feed(self, chunk: str) -> None:
        copied_from = 0  # where the text not yet copied to `parts` starts
        position = 0
        while position < len(chunk) and not self.closed:
            if self.in_string:
                position = self._in_string(chunk, position)
                continue
            match = _OUTSIDE_STRINGS.search(chunk, position)
            if match is None:
                position = len(chunk)
                break
            char, at, position = match.group(), match.start(), match.end()
            if self.split_depth is not None and not self.started:
                if char != "[" or chunk[copied_from:at].strip():
                    raise NotAnArray("the text is not a JSON array")
                self.started, self.depth, copied_from = True, 1, position
                continue
            if char == '"':
                self.in_string = True
            elif char in "[{":
                self.depth += 1
                if self.skip_to is None and self.depth > self.cap:
                    self._copy(chunk[copied_from:at] + _MARKER_JSON)
                    self.skip_to = self.depth - 1
            elif char in "]}":
                self.depth -= 1
                if self.skip_to is not None and self.depth == self.skip_to:
                    self.skip_to, copied_from = None, position
                elif self.split_depth is not None and self.depth < self.split_depth:
                    self._copy(chunk[copied_from:at])
                    self._end_item(last=True)
                    self.closed = True
            elif self.depth == self.split_depth and self.skip_to is None:  # a comma between items
                self._copy(chunk[copied_from:at])
                self._end_item(last=False)
                copied_from = position
        if self.skip_to is None and not self.closed:
            self._copy(chunk[copied_from:position])

    def _in_string(self, chunk: str, position: int) -> int:
        if self.escaped:
            self.escaped = False
            return position + 1
        match = _INSIDE_STRINGS.search(chunk, position)
        if match is None:
            return len(chunk)
        if match.group() == "\\":
            self.escaped = True
        else:
            self.in_string = False
        return match.end()

    def _copy(self, text: str) -> None:
        if self.oversized or not text:
            return
        self.item_chars += len(text)
        if self.max_item_chars is not None and self.item_chars > self.max_item_chars:
            self.oversized, self.parts = True, []
        else:
            self.parts.append(text)

    def _end_item(self, last: bool) -> None:
        text = "".join(self.parts)
        # `[]` has no item, and `[1,]` is read as its one item.
        if not (last and not self.oversized and not text.strip()):
            self.items.append(None if self.oversized else text)
        self.parts, self.item_chars, self.oversized = [], 0, False

    def take_items(self) -> list[str | None]:
        items, self.items = self.items, []
        return items

    def finish(self) -> str:
        return "".join(self.parts)
