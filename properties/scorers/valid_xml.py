"""Valid XML: is the whole output one well-formed XML document (Weave's ValidXMLScorer)."""

from __future__ import annotations

import re
from xml.etree.ElementTree import ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring as parse_xml

from properties.scorers.base import OutputScorer, Score, Span
from properties.scorers.registry import builtin
from properties.scorers.valid_json import LEADING_SPACE, SPACE, boolean_score, error_span, first_word_span

# What defusedxml refuses: an entity's declaration, else the document type that could bring some.
_DECLARATIONS = (re.compile(r"<!ENTITY[^>]*>?"), re.compile(r"<!DOCTYPE[^>\[]*"))


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
        "external entities) are false without being expanded. What makes it false is highlighted: the first "
        "syntax error, the declaration refused, or the first word of prose."
    )

    @staticmethod
    def name() -> str:
        return "valid_xml"

    def check(self, text: str, field: str) -> Score:
        after_bom = 1 if text.startswith("\ufeff") else 0
        offset = after_bom
        if text[after_bom : after_bom + 1] in SPACE:
            offset = LEADING_SPACE.match(text, after_bom).end()  # type: ignore[union-attr]  # always matches
        if not text.startswith("<", offset):
            # Every XML document starts with "<" after whitespace; prose need not meet the parser.
            error = "not XML: the text does not start with '<'"
            spans = first_word_span(field, text, offset, "not XML: an XML document starts with '<'")
            return boolean_score(False, {"xml_valid": False, "error": error}, spans)
        try:
            parse_xml(text)
        except ParseError as exc:
            error = str(exc)
            spans = error_span(field, text, _xml_offset(text, *exc.position), error)
            return boolean_score(False, {"xml_valid": False, "error": error}, spans)
        except DefusedXmlException as exc:
            error = f"refused for safety: {exc!r}"
            found = next((m for pattern in _DECLARATIONS if (m := pattern.search(text))), None)
            note = "refused for safety: declared entities are not expanded"
            spans = [Span(field, found.start(), found.end(), "error", None, note)] if found else []
            return boolean_score(
                False, {"xml_valid": False, "error": error}, spans or error_span(field, text, offset, note)
            )
        return boolean_score(True, {"xml_valid": True})
