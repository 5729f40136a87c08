from __future__ import annotations

import pytest

from properties.scorers.text.json_paths import format_path, locate

TEXT = '{"a": {"b": [10, {"c": "x"}], "b2": null}, "odd key": true, "a2": [ 1 , 2 ]}'


@pytest.mark.parametrize(
    ("parts", "path", "value"),
    [
        ([], "$", TEXT),
        (["a", "b", 0], "$.a.b[0]", "10"),
        (["a", "b", 1, "c"], "$.a.b[1].c", '"x"'),
        (["a", "b2"], "$.a.b2", "null"),
        (["odd key"], '$["odd key"]', "true"),
        (["a2", 1], "$.a2[1]", "2"),
    ],
)
def test_locate_and_format(parts: list[str | int], path: str, value: str) -> None:
    assert format_path(parts) == path
    where = locate(TEXT, parts)
    assert where is not None and TEXT[where[0] : where[1]] == value


@pytest.mark.parametrize("parts", [["missing"], ["a", "b", 5], ["a", 0], ["a", "b", "c"]])
def test_absent_paths(parts: list[str | int]) -> None:
    assert locate(TEXT, parts) is None


def test_truncated_or_broken_json() -> None:
    assert locate('{"a": [1, 2', ["a", 1]) == (10, 11)  # what precedes a value is enough to find it
    for text, parts in [('{"a": [1, 2', ["a", 5]), ('{"a" 1}', ["a"]), ("", []), ("[1,,2]", [2])]:
        assert locate(text, parts) is None
