"""Two runs' interactions matched, and the matched pairs whose value of one property changed, read by
the database.

Interactions are matched on user_interaction_id (unique in a run), then the ones left on the hash of
their input: the n-th left in one run with a hash to the n-th left in the other, in id order, so an
interaction is matched at most once. Pairs matched on the id come first, then those matched on the
input, each in the first run's id order (the comparison export writes them in that order).

Reading both runs' ids, hashes and values into Python to match them there cost the row-by-row
changes 5.3 s for two runs of 100,000 on busy cores (docs/scaling.md); here the database joins them,
and Python reads the counts and one page of changed pairs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from django.db import connection

from properties.models import Interaction, PropertyValue, Run
from properties.screen.rows import planner_settings

# A pair: (first run's interaction id, second run's, first run's value, second run's). A value is a
# number, a label for a property of labels (Content Type), or None: no value on that side.
Pair = tuple[int, int, float | str | None, float | str | None]

# The id join reads the interaction table twice, joined on (run, user_interaction_id), which its
# unique index serves and the planner can estimate. The two runs read into CTEs first (referenced
# several times, so materialised) were sorted and merge-joined instead: 2 to 3 s at 100,000 each
# under load against 0.5 to 0.7 s this way (docs/scaling.md).
# A run's interactions left after the id join are looked for only when some are left: when as many
# pairs matched on the id as the run has interactions (each id is unique in a run, so a pair is one
# interaction of each side), none is. Two runs of the same test set usually match whole, and the
# search for the rest read the run again and probed the other's ids, 83 of 525 ms at 100,000 each.
_PAIRS = """
by_uid AS (
    SELECT a.id AS a_id, b.id AS b_id FROM {interaction} a
    JOIN {interaction} b ON b.run_id = %(b)s AND b.user_interaction_id = a.user_interaction_id
    WHERE a.run_id = %(a)s
),
rest_a AS (
    SELECT a.id, a.input_hash AS digest, ROW_NUMBER() OVER (PARTITION BY a.input_hash ORDER BY a.id) AS nth
    FROM {interaction} a WHERE a.run_id = %(a)s
        AND (SELECT COUNT(*) FROM by_uid) < (SELECT COUNT(*) FROM {interaction} WHERE run_id = %(a)s)
        AND NOT EXISTS (
        SELECT 1 FROM {interaction} b WHERE b.run_id = %(b)s AND b.user_interaction_id = a.user_interaction_id
    )
),
rest_b AS (
    SELECT b.id, b.input_hash AS digest, ROW_NUMBER() OVER (PARTITION BY b.input_hash ORDER BY b.id) AS nth
    FROM {interaction} b WHERE b.run_id = %(b)s
        AND (SELECT COUNT(*) FROM by_uid) < (SELECT COUNT(*) FROM {interaction} WHERE run_id = %(b)s)
        AND NOT EXISTS (
        SELECT 1 FROM {interaction} a WHERE a.run_id = %(a)s AND a.user_interaction_id = b.user_interaction_id
    )
),
pairs AS (
    SELECT a_id, b_id, 0 AS on_input FROM by_uid
    UNION ALL
    SELECT rest_a.id, rest_b.id, 1 FROM rest_a JOIN rest_b ON rest_a.digest = rest_b.digest AND rest_a.nth = rest_b.nth
)"""

# Each pair with its two sides' values of one property (status ok; a label only where there is no
# number) and what it is: both sides without a value, unchanged (numbers closer than the
# tolerance, or the same label), or changed.
_SIDES = """,
va AS (
    SELECT interaction_id, value, label FROM {value}
    WHERE run_id = %(a)s AND property_name = %(property)s AND field = %(field)s AND status = 'ok'
),
vb AS (
    SELECT interaction_id, value, label FROM {value}
    WHERE run_id = %(b)s AND property_name = %(property)s AND field = %(field)s AND status = 'ok'
),
sides AS (
    SELECT pairs.a_id, pairs.b_id, va.value AS num_a, vb.value AS num_b,
        CASE WHEN va.value IS NULL AND va.label <> '' THEN va.label END AS label_a,
        CASE WHEN vb.value IS NULL AND vb.label <> '' THEN vb.label END AS label_b
    FROM pairs
    LEFT JOIN va ON va.interaction_id = pairs.a_id
    LEFT JOIN vb ON vb.interaction_id = pairs.b_id
),
kinds AS (
    SELECT sides.*, CASE
        WHEN num_a IS NULL AND label_a IS NULL AND num_b IS NULL AND label_b IS NULL THEN 'empty'
        WHEN num_a IS NOT NULL AND num_b IS NOT NULL AND ABS(num_b - num_a) < %(tolerance)s THEN 'unchanged'
        WHEN label_a IS NOT NULL AND label_b IS NOT NULL AND label_a = label_b THEN 'unchanged'
        ELSE 'changed' END AS kind
    FROM sides
)"""

# Largest change first; pairs without a numeric change (a value on one side only, or labels) after,
# each group in the first run's id order.
_CHANGED_PAGE = """SELECT a_id, b_id, num_a, label_a, num_b, label_b,
    CASE WHEN num_a IS NULL OR num_b IS NULL THEN 1 ELSE 0 END AS one_sided, ABS(num_b - num_a) AS change
FROM kinds WHERE kind = 'changed'
ORDER BY one_sided, change DESC, a_id
LIMIT %(limit)s OFFSET %(offset)s"""

# The counts and the first changed pairs in one statement: matching two runs of 100,000 costs 0.4 to
# 0.6 s a statement on PostgreSQL, so the request that opens the fragment runs it once, not twice.
# Every row carries the counts; with no changed pair, one row carries them alone.
_COUNTS_AND_FIRST = (
    """,
counted AS (
    SELECT COUNT(*) AS matched,
        COALESCE(SUM(CASE WHEN kind = 'unchanged' THEN 1 ELSE 0 END), 0) AS unchanged,
        COALESCE(SUM(CASE WHEN kind = 'empty' THEN 1 ELSE 0 END), 0) AS empty,
        COALESCE(SUM(CASE WHEN kind = 'changed' THEN 1 ELSE 0 END), 0) AS changed
    FROM kinds
),
first_changed AS ("""
    + _CHANGED_PAGE
    + """)
SELECT counted.matched, counted.unchanged, counted.empty, counted.changed,
    first_changed.a_id, first_changed.b_id, first_changed.num_a, first_changed.label_a,
    first_changed.num_b, first_changed.label_b
FROM counted LEFT JOIN first_changed ON 1 = 1
ORDER BY first_changed.one_sided, first_changed.change DESC, first_changed.a_id"""
)

# How many changed pairs the first statement reads: the fragment's first 20 pages of 50, which are
# then paged without another statement (and cached with the counts, see comparison.py).
FIRST_PAIRS = 1_000


def _with(*parts: str) -> str:
    tables = {"interaction": Interaction._meta.db_table, "value": PropertyValue._meta.db_table}
    return "WITH" + "".join(part.format(**tables) for part in parts)


# PostgreSQL's settings for the matching statements, for their transaction only. JIT: it compiled a
# statement this costly to machine code first, which took 70 to 220 ms of it and saved less (two runs
# of 100,000 matched in 0.68 to 0.97 s without, 0.90 to 1.21 s with, six times each, alternated).
# Parallel workers: to find a run's interactions without a match on the id, PostgreSQL read the
# whole interaction table in parallel, every run's rows, where the run's own index reads them (240
# against 83 ms in EXPLAIN ANALYZE, 10 runs of 100,000 in the table).
MATCH_SETTINGS = {"jit": "off", "max_parallel_workers_per_gather": "0"}


def _fetch(sql: str, params: dict[str, Any]) -> list[tuple]:
    with planner_settings(MATCH_SETTINGS), connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def match_interactions(run_a: Run, run_b: Run) -> list[tuple[int, int]]:
    """Pairs of interaction ids of the two runs, matched on user_interaction_id, then on the input."""
    sql = _with(_PAIRS) + "\nSELECT a_id, b_id FROM pairs ORDER BY on_input, a_id"
    return [(a, b) for a, b in _fetch(sql, {"a": run_a.pk, "b": run_b.pk})]


class ChangedPairs(Sequence[Pair]):
    """The changed pairs as the Paginator reads them: a length known up front, a page per query."""

    def __init__(self, sql: str, params: dict[str, Any], count: int, first: list[Pair]) -> None:
        self._sql, self._params, self._count = sql, params, count
        # The first pairs in order, read with the counts: pages within them need no statement.
        self._first = first

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Pair: ...

    @overload
    def __getitem__(self, index: slice) -> list[Pair]: ...

    def __getitem__(self, index: int | slice) -> Pair | list[Pair]:
        if isinstance(index, int):
            found = self[index : index + 1] if index >= 0 else self[self._count + index : self._count + index + 1]
            if not found:
                raise IndexError(index)
            return found[0]
        start, stop, step = index.indices(self._count)
        if step != 1:
            raise ValueError("changed pairs are read in pages, without a step")
        if stop <= start:
            return []
        if stop <= len(self._first):
            return self._first[start:stop]
        rows = _fetch(self._sql, {**self._params, "limit": stop - start, "offset": start})
        return [_pair(*row[:6]) for row in rows]

    def __iter__(self) -> Iterator[Pair]:
        return iter(self[0 : self._count])


def _pair(a: int, b: int, num_a: float | None, label_a: str | None, num_b: float | None, label_b: str | None) -> Pair:
    return (a, b, _side(num_a, label_a), _side(num_b, label_b))


def _side(number: float | None, label: str | None) -> float | str | None:
    return number if number is not None else label


@dataclass(frozen=True)
class DiffRows:
    """Matched pairs whose value changed by the tolerance or more (or that have a value on one side
    only), largest change first; what the tolerance hid is counted."""

    pairs: Sequence[Pair]
    matched: int
    within_tolerance: int
    # Matched pairs with no value in either run (not applicable, an error, not scored): no change.
    without_values: int = 0


def changed_pairs(
    run_a: Run, run_b: Run, address: str | None, tolerance: float = 0.0, first: int = FIRST_PAIRS
) -> DiffRows:
    """The pairs whose value of `address` (a property, or property.field) changed; none without one.
    The counts and the `first` pairs are read now, further pages when asked for."""
    if not address:
        [(matched,)] = _fetch(_with(_PAIRS) + "\nSELECT COUNT(*) FROM pairs", {"a": run_a.pk, "b": run_b.pk})
        return DiffRows([], matched, 0, matched)
    prop, _, field_name = address.partition(".")
    params = {
        "a": run_a.pk,
        "b": run_b.pk,
        "property": prop,
        "field": field_name or "interaction",
        "tolerance": tolerance,
    }
    rows = _fetch(_with(_PAIRS, _SIDES, _COUNTS_AND_FIRST), {**params, "limit": first, "offset": 0})
    matched, unchanged, empty, changed = rows[0][:4] if rows else (0, 0, 0, 0)
    read = [_pair(*row[4:]) for row in rows if row[4] is not None]
    pairs = ChangedPairs(_with(_PAIRS, _SIDES) + "\n" + _CHANGED_PAGE, params, changed, read)
    return DiffRows(pairs, matched, unchanged, empty)
