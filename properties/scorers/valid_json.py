"""Valid JSON and Valid XML: does the whole output parse (Weave's ValidJSONScorer, ValidXMLScorer)."""

from __future__ import annotations

import json
import re
from abc import abstractmethod
from typing import Any
from xml.etree.ElementTree import ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring as parse_xml

from properties.scorers.base import Score, Scorer, Span
from properties.scorers.registry import builtin

_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}


def _reject_constant(name: str) -> Any:
    # Python's json accepts NaN and Infinity; no other JSON parser does.
    raise ValueError(f"{name} is not a JSON value")


# Built once: json.loads with any keyword argument builds a new decoder per call (~1 us, half the
# cost of parsing a short output).
_json_decoder = json.JSONDecoder(parse_constant=_reject_constant)
_LEADING_SPACE = re.compile(r"[ \t\n\r]*")  # JSON's whitespace; XML's is the same four characters
_JSON_VALUE_START = frozenset('{["-0123456789tfnNI')  # N, I: NaN and Infinity, rejected by the decoder


def json_value_offset(text: str) -> tuple[bool, int]:
    """Whether the text can start a JSON value, and where it starts. Most outputs are prose: a cheap
    test of the first character spares them the parser's exception (half the time of a rejection)."""
    offset = _LEADING_SPACE.match(text).end()  # type: ignore[union-attr]  # the pattern always matches
    return text[offset : offset + 1] in _JSON_VALUE_START and offset < len(text), offset


def _error_span(field: str, text: str, offset: int, message: str) -> list[Span]:
    if not text:
        return []
    start = min(max(offset, 0), len(text) - 1)
    return [Span(field, start, start + 1, "error", None, message)]


def _boolean(valid: bool, details: dict[str, Any], spans: list[Span] | None = None) -> Score:
    # Positional arguments: this runs once per output and keywords cost a third of Score's time.
    return Score(1.0 if valid else 0.0, "true" if valid else "false", spans or [], details)


class OutputScorer(Scorer):
    """A scorer of the output alone, one text at a time; `check` scores one text."""

    fields = ("output",)
    queue = "cpu"
    version = "1"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        field = getattr(self, "current_field", "output")
        return [self.check(text or "", field) for text in candidate_batch]

    @abstractmethod
    def check(self, text: str, field: str) -> Score: ...


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
            return _boolean(False, {"json_valid": False, "error": f"Expecting value at character {offset}"})
        try:
            document = _json_decoder.decode(text)
        except json.JSONDecodeError as exc:
            error = f"{exc.msg} at character {exc.pos}"
            return _boolean(False, {"json_valid": False, "error": error}, _error_span(field, text, exc.pos, exc.msg))
        except (ValueError, RecursionError) as exc:
            return _boolean(False, {"json_valid": False, "error": str(exc) or "nested too deeply"})
        return _boolean(True, {"json_valid": True, "json_type": _JSON_TYPES.get(type(document), "number")})


def _xml_offset(text: str, line: int, column: int) -> int:
    """expat reports (1-based line, 0-based character column); turn it into an offset into the text."""
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return len(text)
    return start + column


@builtin
class ValidXML(OutputScorer):
    display_name = "Valid XML"
    description = (
        "Whether the whole output is one well-formed XML document, as Weave's ValidXMLScorer: 1 (true) "
        "or 0 (false). Parsed with defusedxml, so documents that declare entities (entity expansion, "
        "external entities) are false without being expanded. The first syntax error is highlighted."
    )

    @staticmethod
    def name() -> str:
        return "valid_xml"

    def check(self, text: str, field: str) -> Score:
        after_bom = 1 if text.startswith("\ufeff") else 0
        offset = _LEADING_SPACE.match(text, after_bom).end()  # type: ignore[union-attr]  # always matches
        if not text.startswith("<", offset):
            # Every XML document starts with "<" after whitespace; prose need not meet the parser.
            return _boolean(False, {"xml_valid": False, "error": "not XML: the text does not start with '<'"})
        try:
            parse_xml(text)
        except ParseError as exc:
            error = str(exc)
            spans = _error_span(field, text, _xml_offset(text, *exc.position), error)
            return _boolean(False, {"xml_valid": False, "error": error}, spans)
        except DefusedXmlException as exc:
            return _boolean(False, {"xml_valid": False, "error": f"refused for safety: {exc!r}"})
        return _boolean(True, {"xml_valid": True})
