"""A Data Screen view as the Paginator reads it: a page at a time from the database, and a count
that stops early.

At a million interactions, reading every match's id into Python to intersect, sort and count them
cost about a second per 100,000 matches (docs/scaling.md). Here a page is one query with LIMIT and
OFFSET: in id (or a column's) order over the filtered interactions, or in a property's order read
straight from the (run, property, field, value, interaction) index, each value's interaction tested
against the filter by the database, which stops once the page is full. The count stops too: past
COUNT_CAP matches (or the page asked for) the screen says "more than 1,000", which costs reading
1,000 matches rather than all of them. The whole run, unfiltered, is counted exactly.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from itertools import islice
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q, QuerySet

from properties.models import Interaction

# Matches counted before the screen says "more than": the count of a filter matching half a million
# interactions reads this many, not all of them. A filter matching one interaction in twenty reads
# twenty times as many interactions to count them: at 10,000, 200,000 of them (1.2 s at a million
# on busy cores), at 1,000 a tenth of that.
COUNT_CAP = 1_000

# On PostgreSQL a filtered view is counted first among the run's first COUNT_WINDOW ids (that many
# interactions, fewer where another run's rows lie between), with no hash join and no parallel
# workers (PROBE_SETTINGS), and past them only as the planner likes. The planner guesses how many
# interactions an EXISTS keeps from the distinct interaction ids of the whole values table, not of
# the run: with ten runs loaded it expected a tenth of the matches there are and, to count 1,000 of
# them, hashed every value of each condition (188 ms on a run of a million loaded after a million
# others, quiet cores) where probing the interactions in id order, or merging them with a value
# index in that order, stops after about 20,000 of them (26 ms). Starting the parallel workers cost
# more than the probes they shared. The window bounds the probes where the guess is right and the
# filter is rare: a filter with fewer than COUNT_CAP matches in it is counted in the whole run.
COUNT_WINDOW = 50_000
PROBE_SETTINGS = {"enable_hashjoin": "off", "max_parallel_workers_per_gather": "0"}

# A filtered view in a property's order reads the first values in that order, at least HEAD_MIN
# and HEAD_PER_MATCH per row wanted, and keeps those whose interaction matches; only when they hold
# too few (a filter rarer than 1 in HEAD_PER_MATCH) does the database walk or sort the matches
# itself. Its own plan was the wrong one for common filters: PostgreSQL guesses the matches of an
# EXISTS from the whole values table (312 of the 31,999 failing interactions of a run of 100,000),
# so it read all of them and sorted (140 ms) where the walk stops after about 150 values (13 ms).
HEAD_MIN = 1_000
HEAD_PER_MATCH = 20
# Past this many values (deep pages), the database's own plan.
HEAD_MAX = 5_000


# PostgreSQL's settings while a page is read, for its transaction only.
# work_mem, the memory for a hash or a sort: a condition under an OR or a NOT is an EXISTS that
# PostgreSQL either probes per interaction or hashes whole before the first row, and it hashes
# whenever the ids fit, whatever the LIMIT: with the default 4 MB, `a OR b` read all 300,000 ids of
# `b` for a page of 50 (613 ms); with 256 kB it hashes a condition only while it matches a few
# thousand values and probes the others (0.5 ms).
# random_page_cost: the default 4 prices an index probe as a disk seek, so to count a page's matches
# it read and hashed whole conditions (filtered page: 335 ms; a metadata key whose share it cannot
# estimate: 1.7 s) where probing the interactions in order stops after 1,000 matches (143 and 133
# ms). 1.1 is the usual value for SSDs and cached data; a server may well set it for everything.
# enable_mergejoin: to price a merge join on the interaction id, the planner reads the live ends of
# the indexes that begin with it, stepping over every dead entry at their end. Deleting a run leaves
# its rows' entries there, the highest ids, until VACUUM: after a million-row run was deleted, each
# page's query read 193,000 buffers to be planned (420 to 530 ms) for as long as autovacuum took on
# the values table (minutes), and another project's filtered page reached 859 ms p95 during the
# deletion. Without merge joins the planner never looks (1.7 ms to plan), and no page plan needs one:
# the pages walk an index in order (nested loops), or hash.
PAGE_SETTINGS = {"work_mem": "256kB", "random_page_cost": "1.1", "enable_mergejoin": "off"}


def page_reads() -> AbstractContextManager[None]:
    """Reads of Data Screen pages: on PostgreSQL with PAGE_SETTINGS."""
    return planner_settings(PAGE_SETTINGS)


@contextmanager
def planner_settings(settings: dict[str, str]) -> Iterator[None]:
    """On PostgreSQL, these settings for the transaction only (one query, as a query costs some 10 ms
    on busy cores); inside an outer transaction, which the settings would outlive, the previous
    values are put back after. Nothing elsewhere."""
    if connection.vendor != "postgresql":
        yield
        return
    nested = connection.in_atomic_block
    with transaction.atomic(), connection.cursor() as cursor:
        previous = None
        if nested:
            cursor.execute("SELECT " + ", ".join("current_setting(%s)" for _ in settings), list(settings))
            previous = dict(zip(settings, cursor.fetchone(), strict=True))
        _set_locally(cursor, settings)
        yield
        if previous is not None:
            _set_locally(cursor, previous)


def _set_locally(cursor, settings: dict[str, str]) -> None:
    calls = ", ".join("set_config(%s, %s, true)" for _ in settings)
    cursor.execute(f"SELECT {calls}", [part for pair in settings.items() for part in pair])


def rows_of(queryset: QuerySet) -> list[tuple]:
    """A query's rows, read with one fetchall: Django's iterator fetches 100 rows at a time and
    builds each value in Python, which took three times as long on 100k ids."""
    try:
        sql, params = queryset.query.sql_with_params()
    except EmptyResultSet:  # a filter that can match nothing (.none())
        return []
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def ids_of(queryset: QuerySet) -> list[int]:
    """The first column of a query (ids), read with one fetchall."""
    return [row[0] for row in rows_of(queryset)]


class Ranking:
    """Interactions in the order of their value of one property: one or more PropertyValue querysets
    of (interaction_id, value) rows, each in order, merged by `key` when there are several
    (`disagrees:` reads the values above and below the threshold, each from the index's end), of
    the `among` interactions only when the view has a filter."""

    def __init__(
        self,
        streams: list[QuerySet],
        key: Callable[[tuple], Any] | None = None,
        among: QuerySet[Interaction] | None = None,
    ) -> None:
        self.streams = streams
        self.key = key
        self.interactions = among

    def among(self, interactions: QuerySet[Interaction]) -> Ranking:
        """The values of these interactions only."""
        return Ranking(self.streams, self.key, interactions)

    def ids(self, stop: int | None = None) -> list[int]:
        """The first `stop` interaction ids in this order (all of them with None)."""
        if self.interactions is not None and stop is not None and stop * HEAD_PER_MATCH <= HEAD_MAX:
            found = self._matches_in_head(max(HEAD_MIN, stop * HEAD_PER_MATCH), stop)
            if found is not None:
                return found
        streams = self.streams
        if self.interactions is not None:
            # The database tests each value's interaction as it walks the index, or, as it plans,
            # reads every match and sorts them.
            matching = Exists(self.interactions.filter(pk=OuterRef("interaction_id")))
            streams = [stream.filter(matching) for stream in streams]
        return [row[0] for row in self._merged(streams, stop)]

    def _merged(self, streams: list[QuerySet], stop: int | None) -> list[tuple]:
        read = [rows_of(stream if stop is None else stream[:stop]) for stream in streams]
        merged: Iterator[tuple] = iter(read[0]) if len(read) == 1 else heapq.merge(*read, key=self.key)
        return list(islice(merged, stop))

    def _matches_in_head(self, head: int, stop: int) -> list[int] | None:
        """The first `stop` matches when the first `head` values in this order hold them (or are all
        there are): those values read from the index's end, then which of their interactions match,
        in one query by id. None when the head holds too few (a rare filter)."""
        ranked = [row[0] for row in self._merged(self.streams, head)]
        matching = set(ids_of(self.interactions.filter(pk__in=ranked).order_by().values_list("pk", flat=True)))
        found = [pk for pk in ranked if pk in matching]
        if len(found) >= stop or len(ranked) < head:
            return found[:stop]
        return None

    def unranked(self, interactions: QuerySet[Interaction]) -> QuerySet[Interaction]:
        """Those of the interactions with no value in this order, in id order (they come last)."""
        ranked = Q()
        for stream in self.streams:
            ranked |= Q(Exists(stream.filter(interaction_id=OuterRef("pk"))))
        return interactions.exclude(ranked).order_by("pk")


class ScreenRows:
    """The interactions of a view for the Paginator: `interactions` filtered and in a column's order,
    or, with a `ranking`, in that order and then those without a value by id.

    `filtered`: the view has a filter (else it is the whole run, counted exactly, or `total` when
    the caller knows it). `id_bounds`: the run's first and last interaction ids, where the count's
    first window starts (COUNT_WINDOW).
    """

    def __init__(
        self,
        interactions: QuerySet[Interaction],
        ranking: Ranking | None = None,
        filtered: bool = True,
        total: int | None = None,
        id_bounds: tuple[int, int] | None = None,
    ) -> None:
        self.interactions = interactions
        self.id_bounds = id_bounds
        self.ranking = ranking.among(interactions) if ranking is not None and filtered else ranking
        self.filtered = filtered
        self.cap = COUNT_CAP
        self._count = None if filtered else total
        # Where the count found more than `cap` matches among the run's first ids: the end of that
        # window and how many it found (see __getitem__).
        self._window: tuple[int, int] | None = None

    @property
    def in_pk_order(self) -> bool:
        order = self.interactions.query.order_by
        return self.ranking is None and (not order or tuple(order) == ("pk",))

    def count_for_page(self, number: int, page_size: int) -> None:
        """Count at least one page past the one asked for, so that it has a next page when there are
        more matches."""
        self.cap = max(COUNT_CAP, (number + 1) * page_size)

    @property
    def capped(self) -> bool:
        """Whether there are more matches than the count says (then it is `cap + 1`)."""
        return self.filtered and self.count() > self.cap

    def count(self) -> int:
        if self._count is None:
            if self.filtered:
                self._count = self._capped_count()
            else:
                self._count = self.interactions.count()
        return self._count

    def _capped_count(self) -> int:
        """The matches up to `cap + 1`: first among the ids of the run's first COUNT_WINDOW, probed in
        order, then, when they hold fewer, in the whole run."""
        if connection.vendor == "postgresql" and self.id_bounds is not None:
            first, last = self.id_bounds
            window_end = first + COUNT_WINDOW
            if last >= window_end:
                with planner_settings(PROBE_SETTINGS):
                    found = self.interactions.filter(pk__lt=window_end).order_by()[: self.cap + 1].count()
                if found > self.cap:
                    self._window = (window_end, found)
                    return found
        return self.interactions.order_by()[: self.cap + 1].count()

    def count_all(self) -> int:
        """The exact count, however many (the REST API's)."""
        return self.interactions.count()

    def __len__(self) -> int:
        return self.count()

    def __iter__(self) -> Iterator[Interaction]:
        return iter(self.rows(self.ids))

    @property
    def ids(self) -> list[int]:
        """Every id of the view in its order (exports)."""
        if self.ranking is None:
            return ids_of(self.interactions.values_list("pk", flat=True))
        return self.ranking.ids() + ids_of(self.ranking.unranked(self.interactions).values_list("pk", flat=True))

    def __getitem__(self, window: slice) -> list[Interaction]:
        start, stop = window.start or 0, window.stop
        if self.ranking is None and self._in_count_window(stop):
            # The first `stop` matches in id order are all among the window's, which the count
            # probed: read them the same way. The planner's own plan for the whole run guesses the
            # EXISTS conditions as rare and hashes each of them whole before the first row (80,000
            # index entries and 15,000 row lookups for a page of 50 on a run of 100,000, 90 ms on
            # quiet cores, 300 ms to 1.5 s while a deletion churns the cache) where probing the
            # interactions in order stops after a few hundred (11 ms).
            with planner_settings(PROBE_SETTINGS):
                return list(self.interactions.filter(pk__lt=self._window[0])[start:stop])
        if self.ranking is None:
            return list(self.interactions[start:stop])
        ranked = self.ranking.ids(stop)
        ids = ranked[start:stop]
        if stop is None or len(ranked) < stop:
            # Past the ranked matches: every one of them is read, and those without a value follow.
            split = len(ranked)
            unranked = self.ranking.unranked(self.interactions).values_list("pk", flat=True)
            ids += ids_of(unranked[max(0, start - split) : None if stop is None else stop - split])
        return self.rows(ids)

    def _in_count_window(self, stop: int | None) -> bool:
        """Whether the first `stop` matches lie among the ids the count probed in order."""
        return self._window is not None and stop is not None and stop <= self._window[1] and self.in_pk_order

    @staticmethod
    def rows(ids: list[int]) -> list[Interaction]:
        found = Interaction.objects.in_bulk(ids)
        return [found[pk] for pk in ids if pk in found]
