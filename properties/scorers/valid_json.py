"""Valid JSON: does the whole output parse as one JSON value (Weave's ValidJSONScorer)."""

from __future__ import annotations

import json
import re
from typing import Any

from properties.scorers.base import OutputScorer, Score, Span
from properties.scorers.registry import builtin

_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}


def _reject_constant(name: str) -> Any:
    # Python's json accepts NaN and Infinity; no other JSON parser does.
    raise ValueError(f"{name} is not a JSON value")


# Built once: json.loads with any keyword argument builds a new decoder per call (~1 us, half the
# cost of parsing a short output).
_json_decoder = json.JSONDecoder(parse_constant=_reject_constant)
LEADING_SPACE = re.compile(r"[ \t\n\r]*")  # JSON's whitespace; XML's is the same four characters
SPACE = frozenset(" \t\n\r")
_JSON_VALUE_START = frozenset('{["-0123456789tfnNI')  # N, I: NaN and Infinity, rejected by the decoder


def json_value_offset(text: str) -> tuple[bool, int]:
    """Whether the text can start a JSON value, and where it starts. Most outputs are prose: a cheap
    test of the first character spares them the parser's exception (half the time of a rejection)."""
    # Most texts start with no whitespace: a set lookup spares them the pattern (a fifth of a check).
    offset = LEADING_SPACE.match(text).end() if text[:1] in SPACE else 0  # type: ignore[union-attr]
    return text[offset : offset + 1] in _JSON_VALUE_START and offset < len(text), offset


_FIRST_WORD = re.compile(r"\S{1,40}")
_CODE_FENCE = re.compile(r"```[^\n]*")
# A JSON string, skipped whole, or NaN / Infinity outside one (the decoder has accepted the rest).
_CONSTANT_OUTSIDE_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"|(?P<constant>-?(?:NaN|Infinity))')
NOT_JSON = "not JSON: a JSON value starts with {, [, a quote, a digit, -, true, false or null"
CODE_FENCE = "a markdown code fence: the output must be the JSON alone, without the fence"


def error_span(field: str, text: str, offset: int, message: str) -> list[Span]:
    if not text:
        return []
    start = min(max(offset, 0), len(text) - 1)
    return [Span(field, start, start + 1, "error", None, message)]


def first_word_span(field: str, text: str, offset: int, message: str) -> list[Span]:
    """The word at `offset` (where the text starts after whitespace) as the error: the whole text is
    not the format, and one marked character would be hard to see."""
    found = _FIRST_WORD.match(text, offset)
    return [Span(field, offset, found.end(), "error", None, message)] if found else []


def not_json(text: str, field: str, start: tuple[bool, int] | None = None) -> tuple[str, list[Span]]:
    """Why a text is not one JSON value, and the span that shows it: the first syntax error, the
    NaN or Infinity, a markdown code fence, or the first word of prose; ("", []) for JSON. `start`:
    `json_value_offset(text)` where the caller has it."""
    can_start, offset = start or json_value_offset(text)
    if not can_start:
        if text.startswith("```", offset):
            fence = _CODE_FENCE.match(text, offset).end()  # type: ignore[union-attr]  # "```" matches
            return CODE_FENCE, [Span(field, offset, fence, "error", None, CODE_FENCE)]
        return f"Expecting value at character {offset}", first_word_span(field, text, offset, NOT_JSON)
    try:
        _json_decoder.decode(text)
    except (ValueError, RecursionError) as exc:
        return decoding_error(text, field, offset, exc)
    return "", []


def decoding_error(text: str, field: str, offset: int, exc: Exception) -> tuple[str, list[Span]]:
    """What the decoder's exception says, and where (`not_json` for a text that starts like JSON)."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at character {exc.pos}", error_span(field, text, exc.pos, exc.msg)
    if isinstance(exc, RecursionError):
        return "nested too deeply", error_span(field, text, offset, "nested deeper than a JSON parser goes")
    for found in _CONSTANT_OUTSIDE_STRINGS.finditer(text):  # NaN or Infinity (`_reject_constant`)
        if found.group("constant"):
            start, end = found.span("constant")
            return str(exc), [Span(field, start, end, "error", None, f"{found.group('constant')} is not a JSON value")]
    return str(exc), error_span(field, text, offset, str(exc))


def boolean_score(valid: bool, details: dict[str, Any], spans: list[Span] | None = None) -> Score:
    # Positional arguments: this runs once per output and keywords cost a third of Score's time.
    return Score(1.0 if valid else 0.0, "true" if valid else "false", spans or [], details)


@builtin
class ValidJSON(OutputScorer):
    display_name = "Valid JSON"
    description = (
        "Whether the whole output is one JSON value (object, array, string, number, true, false or "
        "null), as Weave's ValidJSONScorer: 1 (true) or 0 (false). Surrounding prose or a markdown "
        "code fence makes it false; NaN and Infinity are not JSON. What makes it false is highlighted: the "
        "first syntax error, the NaN, the fence, or the first word of prose."
    )

    @staticmethod
    def name() -> str:
        return "valid_json"

    def check(self, text: str, field: str) -> Score:
        start = json_value_offset(text)
        can_start, offset = start
        if can_start:
            try:
                document = _json_decoder.decode(text)
            except (ValueError, RecursionError) as exc:
                error, spans = decoding_error(text, field, offset, exc)
                return boolean_score(False, {"json_valid": False, "error": error}, spans)
            return boolean_score(True, {"json_valid": True, "json_type": _JSON_TYPES.get(type(document), "number")})
        if text.startswith("```", offset):
            error, spans = not_json(text, field, start)
            return boolean_score(False, {"json_valid": False, "error": error}, spans)
        # Prose, most outputs: its first word, written out here rather than through `not_json` and
        # `first_word_span` (their calls were a sixth of a prose output's check).
        word = _FIRST_WORD.match(text, offset)
        spans = [Span(field, offset, word.end(), "error", None, NOT_JSON)] if word else []
        return Score(0.0, "false", spans, {"json_valid": False, "error": f"Expecting value at character {offset}"})
