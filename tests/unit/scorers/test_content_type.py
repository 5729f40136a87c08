from __future__ import annotations

import json

import pytest

from properties.scorers.base import Score
from properties.scorers.content_type import ContentType


def category(text: str) -> str | None:
    result = ContentType().run_batch([text])[0]
    assert isinstance(result, Score) and result.ok and result.value is None
    return result.label


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "b": [true, null]}',
        "  [1, 2, 3]\n",
        '{"名前": "日本語"}',
        '```json\n{"a": 1}\n```',
        '```\n[{"a": 1}]\n```',
        json.dumps({"items": list(range(50_000))}),
    ],
)
def test_json(text: str) -> None:
    assert category(text) == "json"


@pytest.mark.parametrize(
    "text",
    [
        "SELECT * FROM users",
        "select id, name from users where age > 30 order by name;",
        "WITH recent AS (SELECT * FROM orders WHERE day > '2024-01-01') SELECT count(*) FROM recent",
        "INSERT INTO t (a, b) VALUES (1, 'x')",
        "UPDATE accounts SET balance = balance - 10 WHERE id = 7",
        "DELETE FROM sessions WHERE expires < now()",
        "CREATE TABLE t (id INT PRIMARY KEY, name TEXT)",
        "DROP TABLE IF EXISTS t",
        "SELECT 1; SELECT 2;",
        "-- top customers\nSELECT name FROM customers LIMIT 10",
        "```sql\nSELECT a FROM b\n```",
        "SELECT 'Please select the best option.' AS prompt",
    ],
)
def test_sql(text: str) -> None:
    assert category(text) == "sql"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "Please select the best option.",
        "Select all that apply: red, green.",
        "Select all that apply",
        "Select it from the menu",
        "Select the best answer from the options below and explain why.",
        "Update the docs",
        "Delete the file from disk",
        "Create a table",
        "Drop me a line",
        "With love from Paris",
        "select",
        "SELECT * FROM t; and then some prose.",
        '{"a": 1',  # almost JSON
        "{'a': 1}",  # Python, not JSON
        '"just a string"',
        "42",
        'Here is the data: {"a": 1}',
        '```json\n{"a": 1}\n```\n```json\n{"b": 2}\n```',
        "SELEC * FROM t",  # almost SQL
        "日本語のテキスト",
    ],
)
def test_other(text: str) -> None:
    assert category(text) == "other"


def test_categorical_contract_and_fence_details() -> None:
    assert ContentType.is_categorical() and ContentType.categories() == ["json", "sql", "other"]
    result = ContentType().run_batch(["```json\n[1]\n```"])[0]
    assert isinstance(result, Score) and result.details == {"code_fence": True, "fence_language": "json"}
