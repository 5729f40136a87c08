"""The export's CSV lines are what csv.writer writes, byte for byte, for every kind of cell it writes."""

import csv
import io

from hypothesis import given, settings
from hypothesis import strategies as st

from properties.export import csv_line, csv_stream

# Text with the characters that change quoting drawn often: commas, quotes, both line breaks, spaces.
TEXT = st.text(alphabet=st.sampled_from(list(",\"\r\n \t'=x-é€\x00")) | st.characters(), max_size=30)
CELL = st.none() | TEXT | st.floats(allow_nan=True, allow_infinity=True) | st.integers() | st.booleans()


def written(rows: list[list]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    return buffer.getvalue()


@settings(max_examples=500, deadline=None)
@given(st.lists(CELL, min_size=1, max_size=12))
def test_a_line_is_what_csv_writer_writes(row: list) -> None:
    assert csv_line(row) == written([row])


class Marked(str):
    """Text of a str subclass (Django's SafeString is one) is quoted as text is."""


def test_the_lines_csv_writer_writes_apart() -> None:
    rows = [[None], [""], ["", ""], [None, None], ['say "hi", then\r\nleave'], [1.0, 1e16, float("nan")], ["a\rb"]]
    rows += [[Marked("a, b"), Marked('"')]]
    for row in rows:
        assert csv_line(row) == written([row])


def test_a_stream_is_the_writers_text_in_chunks() -> None:
    rows = [[f"row {i}", "x" * 700, i / 3, None, "=1+1"] for i in range(300)]
    chunks = list(csv_stream(rows))
    assert len(chunks) > 1
    assert "".join(chunks) == written([[*row[:4], "'=1+1"] for row in rows])
