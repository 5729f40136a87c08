"""JSON paths as users read them (`$.items[2].name`) and where they sit in a JSON text.

Python's json parser keeps no positions, so `locate` walks the text itself, using the parser's own
`raw_decode` to skip the siblings it passes over. It is only called for values that failed a check.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

_decoder = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

PathPart = str | int


def format_path(parts: Iterable[PathPart]) -> str:
    """`$`, `$.a.b`, `$.items[0]`, `$["odd key"]`."""
    path = "$"
    for part in parts:
        if isinstance(part, int):
            path += f"[{part}]"
        elif _IDENTIFIER.match(part):
            path += f".{part}"
        else:
            path += f"[{json.dumps(part, ensure_ascii=False)}]"
    return path


def _skip(text: str, index: int) -> int:
    match = _WHITESPACE.match(text, index)
    return match.end() if match else index


def _child_start(text: str, start: int, part: PathPart) -> int | None:
    """Offset where the member `part` of the object or array starting at `start` begins."""
    opener = text[start : start + 1]
    if opener not in ("{", "[") or (opener == "{") != isinstance(part, str):
        return None
    index, position = _skip(text, start + 1), 0
    while index < len(text) and text[index] not in "}]":
        if opener == "{":
            key, index = json.decoder.scanstring(text, index + 1)
            index = _skip(text, _skip(text, index) + 1)  # past the colon
            if key == part:
                return index
        elif position == part:
            return index
        _, index = _decoder.raw_decode(text, index)
        index = _skip(text, index)
        index = _skip(text, index + 1) if text[index : index + 1] == "," else index
        position += 1
    return None


def locate(text: str, parts: Iterable[PathPart]) -> tuple[int, int] | None:
    """(start, end) of the value at the path in a JSON text, or None if it is not there."""
    try:
        start: int | None = _skip(text, 0)
        for part in parts:
            start = _child_start(text, start, part) if start is not None else None
        if start is None:
            return None
        _, end = _decoder.raw_decode(text, start)
        return start, end
    except (ValueError, IndexError):
        return None
