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
_JSON_VALUE_START = frozenset('{["-0123456789tfnNI')  # N, I: NaN and Infinity, rejected by the decoder


def json_value_offset(text: str) -> tuple[bool, int]:
    """Whether the text can start a JSON value, and where it starts. Most outputs are prose: a cheap
    test of the first character spares them the parser's exception (half the time of a rejection)."""
    offset = LEADING_SPACE.match(text).end()  # type: ignore[union-attr]  # the pattern always matches
    return text[offset : offset + 1] in _JSON_VALUE_START and offset < len(text), offset


def error_span(field: str, text: str, offset: int, message: str) -> list[Span]:
    if not text:
        return []
    start = min(max(offset, 0), len(text) - 1)
    return [Span(field, start, start + 1, "error", None, message)]


def boolean_score(valid: bool, details: dict[str, Any], spans: list[Span] | None = None) -> Score:
    # Positional arguments: this runs once per output and keywords cost a third of Score's time.
    return Score(1.0 if valid else 0.0, "true" if valid else "false", spans or [], details)


@builtin
class ValidJSON(OutputScorer):
    display_name = "Valid JSON"
    description = (
        "Whether the whole output is one JSON value (object, array, string, number, true, false or "
        "null), as Weave's ValidJSONScorer: 1 (true) or 0 (false). Surrounding prose or a markdown "
        "code fence makes it false; NaN and Infinity are not JSON. The first syntax error is highlighted."
    )

    @staticmethod
    def name() -> str:
        return "valid_json"

    def check(self, text: str, field: str) -> Score:
        can_start, offset = json_value_offset(text)
        if not can_start:
            # Prose, not broken JSON: nothing to highlight.
            return boolean_score(False, {"json_valid": False, "error": f"Expecting value at character {offset}"})
        try:
            document = _json_decoder.decode(text)
        except json.JSONDecodeError as exc:
            error = f"{exc.msg} at character {exc.pos}"
            return boolean_score(
                False, {"json_valid": False, "error": error}, error_span(field, text, exc.pos, exc.msg)
            )
        except (ValueError, RecursionError) as exc:
            return boolean_score(False, {"json_valid": False, "error": str(exc) or "nested too deeply"})
        return boolean_score(True, {"json_valid": True, "json_type": _JSON_TYPES.get(type(document), "number")})
