from __future__ import annotations

import time

import pytest

from properties.scorers.base import Score
from properties.scorers.valid_json import ValidJSON
from properties.scorers.valid_xml import ValidXML

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<lolz>&lol9;</lolz>"""
EXTERNAL_ENTITY = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>'


def one(scorer: ValidJSON | ValidXML, text: str) -> Score:
    result = scorer.run_batch([text])[0]
    assert isinstance(result, Score) and result.ok
    return result


@pytest.mark.parametrize(
    "text", ['{"a": 1}', "[1, 2]", '"text"', "3.5", "true", "null", ' {"ü": "日本"} \n', "[" * 500 + "]" * 500]
)
def test_valid_json(text: str) -> None:
    result = one(ValidJSON(), text)
    assert (result.value, result.label, result.details["json_valid"]) == (1.0, "true", True)


@pytest.mark.parametrize(
    "text",
    ["", "   ", '{"a": 1', "{'a': 1}", '{"a": 1,}', "NaN", '{"a": Infinity}', '```json\n{"a": 1}\n```', "[" * 100_000],
)
def test_invalid_json(text: str) -> None:
    result = one(ValidJSON(), text)
    assert (result.value, result.label, result.details["json_valid"]) == (0.0, "false", False)


def test_json_error_is_highlighted() -> None:
    scorer = ValidJSON()
    text = '{"a": 1, "b": tru}'
    span = one(scorer, text).spans[0]
    assert (span.field, span.start) == ("output", text.index("tru"))


@pytest.mark.parametrize("text", ["<a/>", "<a><b x='1'>t</b></a>", "<?xml version='1.0'?><r>&amp;ü</r>", "<r>日本</r>"])
def test_valid_xml(text: str) -> None:
    result = one(ValidXML(), text)
    assert (result.value, result.label, result.details["xml_valid"]) == (1.0, "true", True)


@pytest.mark.parametrize("text", ["", "plain text", "<a><b></a>", "<a/><b/>", "<a>&nbsp;</a>", '{"a": 1}'])
def test_invalid_xml(text: str) -> None:
    result = one(ValidXML(), text)
    assert (result.value, result.label, result.details["xml_valid"]) == (0.0, "false", False)


def test_xml_error_is_highlighted_at_its_character() -> None:
    text = "<r>\n  <éé日本></r>"
    span = one(ValidXML(), text).spans[0]
    assert span.start == text.index("</r>") + 2  # expat points at the mismatched name


def test_billion_laughs_is_false_in_well_under_a_second() -> None:
    started = time.perf_counter()
    result = one(ValidXML(), BILLION_LAUGHS)
    assert time.perf_counter() - started < 0.1
    assert result.details["xml_valid"] is False
    assert "refused" in result.details["error"]


def test_external_entities_are_not_resolved() -> None:
    result = one(ValidXML(), EXTERNAL_ENTITY)
    assert result.details["xml_valid"] is False
    assert "root:" not in str(result.to_dict())


@pytest.mark.parametrize(
    ("text", "marked", "says"),
    [
        ("Sure! The answer is 42.", "Sure!", "not JSON"),
        ('```json\n{"a": 1}\n```', "```json", "code fence"),
        ('{"a": "NaN", "b": -Infinity}', "-Infinity", "-Infinity is not a JSON value"),
        ("[" * 100_000, "[", "nested deeper"),
    ],
)
def test_what_makes_json_false_is_marked(text: str, marked: str, says: str) -> None:
    # A false value explains itself on the Data Screen: prose, a fence, a NaN outside a string.
    (span,) = one(ValidJSON(), text).spans
    assert text[span.start : span.end] == marked and says in span.note


@pytest.mark.parametrize(
    ("text", "marked", "says"),
    [
        ("The XML you asked for is below.", "The", "starts with '<'"),
        ('<!DOCTYPE a [<!ENTITY x "yyyy">]><a>&x;</a>', '<!ENTITY x "yyyy">', "refused for safety"),
        (EXTERNAL_ENTITY, '<!ENTITY x SYSTEM "file:///etc/passwd">', "refused for safety"),
    ],
)
def test_what_makes_xml_false_is_marked(text: str, marked: str, says: str) -> None:
    (span,) = one(ValidXML(), text).spans
    assert text[span.start : span.end] == marked and says in span.note
