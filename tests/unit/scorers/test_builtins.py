"""Every built-in property of this family keeps the scorer contract."""

from __future__ import annotations

import json

import pytest

from properties.scorers import registry
from properties.scorers.base import Score, as_score

NAMES = [
    "invalid_links",
    "reading_ease",
    "sentiment",
    "content_type",
    "compression_ratio",
    "valid_json",
    "valid_xml",
    "schema",
]


@pytest.mark.parametrize("name", NAMES)
def test_registered_with_metadata(name: str) -> None:
    cls = registry.get(name)
    assert registry.is_builtin(name)
    assert cls.display_name and len(cls.description) > 60
    assert cls.queue == "cpu" and cls.version == "1"
    assert not cls.requires_reference()


@pytest.mark.parametrize("name", NAMES)
def test_config_is_json_and_round_trips(name: str) -> None:
    scorer = registry.get(name)()
    config = json.loads(json.dumps(scorer.to_dict()))
    assert registry.get(name).from_dict(config).to_dict() == config
    scorer.current_field = "input"  # type: ignore[attr-defined]
    assert scorer.to_dict() == config  # the field being scored is not configuration


@pytest.mark.parametrize("name", NAMES)
def test_one_result_per_item_and_no_exception_on_odd_items(name: str) -> None:
    cls = registry.get(name)
    scorer = cls(enabled=False) if name == "invalid_links" else cls()
    batch = ["", "   ", "plain text", "ünïcödé 日本語 🙂", "x" * 200_000, "{", "<", "SELECT"]
    results = scorer.run_batch(batch, input_text_batch=list(batch))
    assert len(results) == len(batch)
    assert all(isinstance(as_score(r), Score) for r in results)
