from __future__ import annotations

import json

import pytest

from properties.scorers.base import Score
from properties.scorers.schema import Schema
from tests.unit.scorers.conftest import LinkServer

ORDER_SCHEMA = {
    "type": "object",
    "required": ["id", "items"],
    "properties": {
        "id": {"type": "integer"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["sku", "quantity"],
                "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer", "minimum": 1}},
            },
        },
    },
}
GOOD = '{"id": 1, "items": [{"sku": "a", "quantity": 2}, {"sku": "b", "quantity": 1}]}'
BAD = '{"id": 1, "items": [{"sku": "a", "quantity": 2}, {"sku": "b", "quantity": 0}]}'
SCHEMAS = [{"json_schema": ORDER_SCHEMA}, {"pydantic_model": "tests.unit.scorers.schema_models.Order"}]


def one(scorer: Schema, text: str) -> Score:
    result = scorer.run_batch([text])[0]
    assert isinstance(result, Score)
    return result


@pytest.mark.parametrize("config", SCHEMAS)
def test_valid_output(config: dict[str, object]) -> None:
    result = one(Schema(**config), GOOD)  # type: ignore[arg-type]
    assert (result.value, result.label, result.details["errors"]) == (1.0, "true", [])


def test_json_schema_error_names_and_highlights_the_path() -> None:
    result = one(Schema(json_schema=ORDER_SCHEMA), BAD)
    assert (result.value, result.label) == (0.0, "false")
    assert result.details["errors"] == [{"path": "$.items[1].quantity", "message": "0 is less than the minimum of 1"}]
    span = result.spans[0]
    assert (span.label, BAD[span.start : span.end]) == ("$.items[1].quantity", "0")


def test_pydantic_error_names_and_highlights_the_path() -> None:
    text = '{"id": 1, "items": [{"sku": "a", "quantity": 2}, {"sku": "b", "quantity": "many"}]}'
    result = one(Schema(pydantic_model="tests.unit.scorers.schema_models.Order"), text)
    assert result.value == 0.0
    assert [error["path"] for error in result.details["errors"]] == ["$.items[1].quantity"]
    assert text[result.spans[0].start : result.spans[0].end] == '"many"'


@pytest.mark.parametrize("config", SCHEMAS)
@pytest.mark.parametrize("text", ["", "not json", '{"id": 1, "items": [', '```json\n{"id": 1, "items": []}\n```'])
def test_output_that_is_not_json_is_false(config: dict[str, object], text: str) -> None:
    result = one(Schema(**config), text)  # type: ignore[arg-type]
    assert result.value == 0.0 and result.details["errors"][0]["path"] == "$"


def test_missing_property_names_the_object() -> None:
    result = one(Schema(json_schema=ORDER_SCHEMA), '{"items": []}')
    assert result.details["errors"] == [{"path": "$", "message": "'id' is a required property"}]


@pytest.mark.parametrize("config", SCHEMAS)
def test_a_missing_field_is_marked_where_its_object_ends(config: dict[str, object]) -> None:
    # Nothing is written where a missing field would be: its object's end is marked, not the whole
    # object, which would hide the other errors inside it.
    text = '{"id": "one", "items": [{"sku": "a"}]}'
    spans = one(Schema(**config), text).spans  # type: ignore[arg-type]
    marked = sorted((span.start, text[span.start : span.end], span.label + " " + span.note) for span in spans)
    assert [(start, mark) for start, mark, _ in marked] == [(7, '"one"'), (text.index('"a"}') + 3, "}")]
    assert "quantity" in marked[1][2]


def test_a_field_the_schema_does_not_allow_is_marked_where_it_is_written() -> None:
    closed = {**ORDER_SCHEMA, "additionalProperties": False}
    text = '{"id": 1, "note": "x", "items": [], "rush": true}'
    result = one(Schema(json_schema=closed), text)
    assert [(span.label, text[span.start : span.end]) for span in result.spans] == [
        ("$.note", '"x"'),
        ("$.rush", "true"),
    ]


@pytest.mark.parametrize("config", SCHEMAS)
@pytest.mark.parametrize(("text", "marked"), [("Order 1 has shipped.", "Order"), ('{"id": 1,', ",")])
def test_output_that_is_not_json_is_marked_as_valid_json_marks_it(
    config: dict[str, object], text: str, marked: str
) -> None:
    (span,) = one(Schema(**config), text).spans  # type: ignore[arg-type]
    assert text[span.start : span.end] == marked


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({}, "configure json_schema or pydantic_model"),
        ({"json_schema": ORDER_SCHEMA, "pydantic_model": "x.Y"}, "not both"),
        ({"json_schema": {"type": "no-such-type"}}, "not a valid JSON Schema"),
        ({"pydantic_model": "no.such.Model"}, "cannot import"),
        ({"pydantic_model": "json.dumps"}, "not a pydantic.BaseModel"),
    ],
)
def test_configuration_problems_fail_every_item(config: dict[str, object], message: str) -> None:
    results = Schema(**config).run_batch([GOOD, BAD])  # type: ignore[arg-type]
    assert all(isinstance(r, Score) and not r.ok and message in (r.error or "") for r in results)


def test_config_round_trips_as_json() -> None:
    scorer = Schema(json_schema=ORDER_SCHEMA)
    config = json.loads(json.dumps(scorer.to_dict()))
    assert config == {"json_schema": ORDER_SCHEMA, "pydantic_model": None}
    assert one(Schema.from_dict(config), BAD).value == 0.0


def test_remote_refs_are_never_fetched(link_server: LinkServer) -> None:
    scorer = Schema(json_schema={"$ref": link_server.url("/schema.json")})
    result = one(scorer, "{}")
    assert not result.ok and "cannot be resolved offline" in (result.error or "")
    assert link_server.seen() == []


def test_meta_schema_refs_resolve_offline_and_errors_are_not_repeated() -> None:
    meta = "https://json-schema.org/draft/2020-12/schema"
    scorer = Schema(json_schema={"$schema": meta, "allOf": [{"$ref": meta}], "type": "object"})
    assert one(scorer, "{}").value == 1.0
    errors = one(scorer, "[]").details["errors"]
    assert len(errors) == len({(error["path"], error["message"]) for error in errors})
