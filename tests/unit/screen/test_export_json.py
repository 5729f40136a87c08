"""The JSON exports write (records, evidence cells): what the json module reads back is the value,
with NaN and infinities as null, and a value orjson refuses is still written."""

import datetime
import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from properties.export import compact_json, json_stream

LEAF = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats() | st.text(max_size=20)
RECORD = st.dictionaries(
    st.text(max_size=8),
    st.recursive(
        LEAF,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=10,
    ),
    max_size=6,
)


def finite(value):
    """The value as a strict JSON reader gets it: NaN and infinities are null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [finite(item) for item in value]
    return value


@settings(max_examples=300, deadline=None)
@given(RECORD)
def test_a_record_reads_back_as_itself(record: dict) -> None:
    assert json.loads(compact_json(record)) == finite(record)


def test_nan_and_infinities_are_null_and_other_values_their_text() -> None:
    written = compact_json({"value": float("nan"), "high": float("inf"), "at": datetime.date(2026, 12, 7)})
    assert written == '{"value":null,"high":null,"at":"2026-12-07"}'
    assert json.loads(written)  # strict readers (JSON.parse) refuse NaN


def test_a_record_orjson_refuses_is_written_by_the_json_module() -> None:
    record = {"metadata": {"order": 2**70}, "output": "é"}
    assert json.loads(compact_json(record)) == record


def test_a_stream_is_a_json_array_of_the_records() -> None:
    records = [{"row": i, "text": "x" * 700} for i in range(300)]
    chunks = list(json_stream(records))
    assert len(chunks) > 1
    assert json.loads("".join(chunks)) == records
