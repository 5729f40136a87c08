"""Valid XML: is the whole output one well-formed XML document (Weave's ValidXMLScorer)."""

from __future__ import annotations

from xml.etree.ElementTree import ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring as parse_xml

from properties.scorers.base import OutputScorer, Score
from properties.scorers.registry import builtin
from properties.scorers.valid_json import LEADING_SPACE, boolean_score, error_span


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
        offset = LEADING_SPACE.match(text, after_bom).end()  # type: ignore[union-attr]  # always matches
        if not text.startswith("<", offset):
            # Every XML document starts with "<" after whitespace; prose need not meet the parser.
            return boolean_score(False, {"xml_valid": False, "error": "not XML: the text does not start with '<'"})
        try:
            parse_xml(text)
        except ParseError as exc:
            error = str(exc)
            spans = error_span(field, text, _xml_offset(text, *exc.position), error)
            return boolean_score(False, {"xml_valid": False, "error": error}, spans)
        except DefusedXmlException as exc:
            return boolean_score(False, {"xml_valid": False, "error": f"refused for safety: {exc!r}"})
        return boolean_score(True, {"xml_valid": True})
