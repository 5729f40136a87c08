"""The Data Screen's query: filters, sorting and one page of interactions with their values.

Filters come from the URL so that a filtered view can be shared and survives a reload:
  where=toxicity.output>0.5     a numeric range (operators > >= < <= = !=); repeat for AND
  where=content_type=sql        a category (a non-numeric right-hand side compares labels)
  where=failing:grounded_in_context   values on the wrong side of the property's threshold
  where=passing:toxicity.output       ... on the right side; where=na:coverage: not applicable
  where=disagrees:grounded_in_context verdict and a person's label differ (disagreement.py),
                                      furthest from the threshold first unless sorted otherwise
  annotation=good|bad|unknown   and source=person|estimated
  q=refund&in=input|output|both text search
  errors=1                      interactions with at least one property error
  sort=-toxicity.output         a property or a column, `-` for descending
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.core.exceptions import EmptyResultSet
from django.core.paginator import Page, Paginator
from django.db import connection
from django.db.models import Q, QuerySet
from django.http import QueryDict

from properties.models import Interaction, PropertyValue, Run
from properties.quality import criteria
from properties.scorers import registry
from properties.screen import disagreement

PAGE_SIZE = 50
TEXT_COLUMNS = ("input", "output", "annotation")
SORTABLE_COLUMNS = {"id": "pk", "annotation": "annotation", "user_interaction_id": "user_interaction_id"}
STATUS_CONDITION = re.compile(r"^\s*(?P<status>failing|passing|na|disagrees):\s*(?P<address>[\w.\[\]]+)\s*$")
CONDITION = re.compile(r"^\s*(?P<address>[\w.\[\]]+)\s*(?P<op>>=|<=|!=|=|>|<)\s*(?P<value>.*?)\s*$")
NUMERIC_LOOKUPS = {">": "gt", ">=": "gte", "<": "lt", "<=": "lte", "=": "exact"}


class FilterError(ValueError):
    pass


@dataclass(frozen=True)
class Condition:
    prop: str
    field: str
    op: str
    value: float | str

    @property
    def address(self) -> str:
        return self.prop if self.field == "interaction" else f"{self.prop}.{self.field}"

    def __str__(self) -> str:
        value = self.value if isinstance(self.value, str) else f"{self.value:g}"
        return f"{self.address}{self.op}{value}"


def split_address(address: str) -> tuple[str, str]:
    """`toxicity.output` -> ("toxicity", "output"); `grounded_in_context` -> (..., "interaction").

    A property scored on one field needs no field name (`content_type` is `content_type.output`);
    one scored on several must name it, and the error shows how.
    """
    prop, _, field_name = address.partition(".")
    if field_name and field_name not in PropertyValue.Field.values:
        raise FilterError(f"{address!r}: the field must be input, output or interaction")
    if field_name:
        return prop, field_name
    try:
        fields = registry.get(prop).fields
    except registry.RegistryError:
        return prop, "interaction"  # a prompt property, or a name no scorer has: interaction-wide
    if len(fields) > 1:
        choices = " or ".join(f"{prop}.{name}" for name in fields)
        raise FilterError(f"{prop!r} has a value per field: write {choices}")
    return prop, fields[0]


@dataclass(frozen=True)
class StatusCondition:
    """Interactions whose value of a property fails, passes, does not apply (criteria.py), or
    contradicts a person's label (disagreement.py)."""

    prop: str
    field: str
    status: str

    @property
    def address(self) -> str:
        return self.prop if self.field == "interaction" else f"{self.prop}.{self.field}"

    def __str__(self) -> str:
        return f"{self.status}:{self.address}"


def parse_condition(text: str) -> Condition | StatusCondition:
    status = STATUS_CONDITION.match(text)
    if status:
        return StatusCondition(*split_address(status["address"]), status["status"])
    match = CONDITION.match(text)
    if not match:
        raise FilterError(
            f"{text!r} is not a condition like toxicity.output>0.5, content_type=sql or failing:grounded_in_context"
        )
    prop, field_name = split_address(match["address"])
    raw = match["value"].strip("'\"")
    try:
        value: float | str = float(raw)
    except ValueError:
        if match["op"] not in ("=", "!="):
            raise FilterError(f"{text!r}: {match['op']} needs a number") from None
        value = raw
    return Condition(prop, field_name, match["op"], value)


# Conditions one view may hold: each is a subquery, and SQLite refuses an expression tree past
# about a thousand ("Expression tree is too large"); no person writes more than a few.
MAX_CONDITIONS = 50


@dataclass
class ScreenQuery:
    conditions: list[Condition | StatusCondition] = field(default_factory=list)
    annotation: str = ""
    source: str = ""
    search: str = ""
    search_in: str = "both"
    errors_only: bool = False
    sort: str = ""
    columns: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @classmethod
    def from_params(cls, params: QueryDict) -> ScreenQuery:
        query = cls(
            annotation=params.get("annotation", "") if params.get("annotation") in ("good", "bad", "unknown") else "",
            source=params.get("source", "") if params.get("source") in ("person", "estimated") else "",
            search=params.get("q", "").strip(),
            search_in=params.get("in", "both") if params.get("in") in ("input", "output", "both") else "both",
            errors_only=params.get("errors") == "1",
            sort=params.get("sort", ""),
            columns=[c for c in params.getlist("col") if c],
        )
        wheres = [text for text in params.getlist("where") if text.strip()]
        if len(wheres) > MAX_CONDITIONS:
            query.problems.append(
                f"{len(wheres)} conditions: at most {MAX_CONDITIONS} are applied; the others were dropped"
            )
            wheres = wheres[:MAX_CONDITIONS]
        for text in wheres:
            try:
                query.conditions.append(parse_condition(text))
            except FilterError as exc:
                query.problems.append(str(exc))
        return query

    def params(self, **changes) -> str:
        """The query string of this view with some parameters changed (for links)."""
        values = {
            "where": [str(c) for c in self.conditions],
            "annotation": self.annotation,
            "source": self.source,
            "q": self.search,
            "in": self.search_in if self.search else "",
            "errors": "1" if self.errors_only else "",
            "sort": self.sort,
            "col": self.columns,
        }
        values.update(changes)
        pairs = [(k, v) for k, vs in values.items() for v in (vs if isinstance(vs, list) else [vs]) if v]
        return urlencode(pairs)


def filtered_interactions(run: Run, query: ScreenQuery) -> QuerySet[Interaction] | SortedByValue | MatchedIds:
    everything = run.interactions.all()
    interactions = everything
    matching = None
    if connection.vendor == "sqlite" or len(query.conditions) < 2:
        matching = _condition_matches(run, query)
    else:
        for condition in query.conditions:
            interactions = interactions.filter(pk__in=_matching_ids(run, condition, query))
    if query.annotation:
        interactions = interactions.filter(annotation=query.annotation)
    if query.source:
        interactions = interactions.filter(annotation_source=query.source)
    if query.search:
        text = Q()
        if query.search_in in ("input", "both"):
            text |= Q(input__icontains=query.search)
        if query.search_in in ("output", "both"):
            text |= Q(output__icontains=query.search)
        interactions = interactions.filter(text)
    if query.errors_only:
        errors = PropertyValue.objects.filter(run=run, status=PropertyValue.Status.ERROR).values("interaction_id")
        interactions = interactions.filter(pk__in=errors)
    narrowed = interactions is not everything
    ordered = None if query.sort else disagreement.order_of(run, query.conditions)
    if ordered is not None:
        return SortedMatches(interactions.order_by("pk"), ordered, matching, narrowed)
    return _sorted(run, interactions, query.sort, narrowed, matching)


def _condition_matches(run: Run, query: ScreenQuery) -> set[int] | None:
    """Ids matching every property condition, or None without conditions.

    Each condition is one index-only read of the (run, property, field, value, interaction) index.
    One condition's ids come straight from that index, with no join to the interactions (PostgreSQL,
    a failing filter on 100k: 109 -> ~50 ms). For several, SQLite is faster when the id sets are
    intersected here (filtered page of bench/data_screen.py: 115 -> 83 ms); PostgreSQL intersects
    them faster itself (hash joins over index-only scans: 155 ms against 385 ms for the sets here).
    """
    matching: set[int] | None = None
    for condition in query.conditions:
        ids = set(ids_of(_matching_ids(run, condition, query)))
        matching = ids if matching is None else matching & ids
        if not matching:
            break
    return matching


def _matching_ids(run: Run, condition: Condition | StatusCondition, query: ScreenQuery) -> QuerySet:
    """Ids of interactions whose value satisfies the condition, read from one covering index.

    Error values have no number and no label, so they never match (no status test needed,
    which would cost a table lookup per value).
    """
    values = PropertyValue.objects.filter(run=run, property_name=condition.prop, field=condition.field)
    if isinstance(condition, StatusCondition):
        return _status_matches(run, values, condition, query)
    if isinstance(condition.value, str):
        values = values.exclude(label="")
        lookup = Q(label=condition.value)
    else:
        values = values.filter(value__isnull=False)
        lookup = (
            Q(value=condition.value)
            if condition.op == "!="
            else Q(**{f"value__{NUMERIC_LOOKUPS[condition.op]}": condition.value})
        )
    matching = values.exclude(lookup) if condition.op == "!=" else values.filter(lookup)
    return matching.values("interaction_id")


def _status_matches(run: Run, values: QuerySet, condition: StatusCondition, query: ScreenQuery) -> QuerySet:
    if condition.status == "na":
        return values.filter(criteria.not_applicable_q()).values("interaction_id")
    criterion = criteria.criterion_for(run.project, condition.prop)
    if not criterion.judges:
        query.problems.append(
            f"{condition.address} neither passes nor fails: set its direction and threshold on its settings page"
        )
        return values.none().values("interaction_id")
    if condition.status == "disagrees":
        return disagreement.disagreeing(values, criterion).values("interaction_id")
    wanted = criterion.failing_q() if condition.status == "failing" else criterion.passing_q()
    return values.filter(wanted).values("interaction_id")


def _sorted(
    run: Run, interactions: QuerySet[Interaction], sort: str, narrowed: bool, matching: set[int] | None
) -> QuerySet[Interaction] | SortedByValue | MatchedIds:
    """`narrowed`: the queryset itself is filtered; `matching`: ids the property conditions allow."""
    descending = sort.startswith("-")
    key = sort.lstrip("-")
    filtered = narrowed or matching is not None
    try:
        prop, field_name = split_address(key) if key and key not in SORTABLE_COLUMNS else ("", "")
    except FilterError:
        key = ""
    if not key or key in SORTABLE_COLUMNS:
        column = SORTABLE_COLUMNS.get(key, "pk")
        ordered = interactions.order_by(f"-{column}" if descending else column, "pk")
        in_pk_order = column == "pk" and not descending
        return MatchedIds(ordered, matching, narrowed, in_pk_order) if filtered else ordered
    values = PropertyValue.objects.filter(run=run, property_name=prop, field=field_name, value__isnull=False)
    order = ("-value", "-interaction_id") if descending else ("value", "interaction_id")
    ordered_ids = values.order_by(*order).values_list("interaction_id", flat=True)
    if filtered:
        return SortedMatches(interactions.order_by("pk"), ordered_ids, matching, narrowed)
    return SortedByValue(interactions.order_by("pk"), values, ordered_ids)


def ids_of(queryset: QuerySet) -> list[int]:
    """The first column of a query, read with one fetchall: Django's iterator fetches 100 rows at a
    time and builds each value in Python, which took three times as long on 100k ids."""
    try:
        sql, params = queryset.query.sql_with_params()
    except EmptyResultSet:  # a filter that can match nothing (.none())
        return []
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]


class MatchedIds:
    """A filtered view for the Paginator that evaluates its filter once.

    The Paginator counts, then slices: on a filtered query each would intersect the property
    conditions again. Reading the matching ids once (an index-only query, 100k ints at most per
    run page view) halves the work.
    """

    def __init__(
        self,
        interactions: QuerySet[Interaction],
        matching: set[int] | None = None,
        narrowed: bool = True,
        in_pk_order: bool = True,
    ) -> None:
        self.interactions = interactions
        self.matching = matching
        self.narrowed = narrowed
        self.in_pk_order = in_pk_order
        self._ids: list[int] | None = None

    @property
    def ids(self) -> list[int]:
        """The matches in the queryset's order."""
        if self._ids is None:
            if self.in_pk_order:
                # Sorting a set here spares the database an ORDER BY over every row it reads.
                self._ids = sorted(self.matching_set())
            elif self.matching is not None:
                ordered = ids_of(self.interactions.values_list("pk", flat=True))
                self._ids = [pk for pk in ordered if pk in self.matching]
            else:
                self._ids = ids_of(self.interactions.values_list("pk", flat=True))
        return self._ids

    def matching_set(self) -> set[int]:
        if self.matching is not None and not self.narrowed:
            return self.matching
        unordered = ids_of(self.interactions.order_by().values_list("pk", flat=True))
        return set(unordered) if self.matching is None else self.matching.intersection(unordered)

    def count(self) -> int:
        return len(self.ids)

    def __len__(self) -> int:
        return self.count()

    def __iter__(self):
        return iter(self[0 : self.count()])

    def __getitem__(self, window: slice) -> list[Interaction]:
        ids = self.ids[window]
        found = self.interactions.model.objects.in_bulk(ids)
        return [found[pk] for pk in ids if pk in found]


class SortedMatches(MatchedIds):
    """A filtered view in the order of one property's value.

    Walks the run's (property, value) index in order and keeps the filter's matches: two
    index-only reads, where letting the database join the filter to the sort went through tens
    of thousands of nested-loop lookups on PostgreSQL. Matches without a value come last.

    The count is the number of matches, known from the filter alone; a page reads the sorted index
    only as far as it needs, in slices that grow tenfold (`FIRST_SLICE` first): the first page of
    half the run failing reads about a hundred ids, not the whole run.
    """

    FIRST_SLICE = 1_000

    def __init__(
        self,
        interactions: QuerySet[Interaction],
        ordered_ids: QuerySet,
        matching: set[int] | None = None,
        narrowed: bool = True,
    ) -> None:
        super().__init__(interactions, matching, narrowed)
        self.ordered_ids = ordered_ids
        self._ordered: list[int] = []  # matches in value order, read so far
        self._read = 0  # ids of the sorted index read so far
        self._exhausted = False
        self._slice = self.FIRST_SLICE

    def count(self) -> int:
        return len(self.matching_set())

    @property
    def ids(self) -> list[int]:
        if self._ids is None:
            self._read_until(None)
            self._ids = self._ordered + sorted(self.matching_set().difference(self._ordered))
        return self._ids

    def __getitem__(self, window: slice) -> list[Interaction]:
        stop = window.stop if window.stop is not None else self.count()
        self._read_until(stop)
        if len(self._ordered) < stop:  # the page reaches the matches without a value
            return super().__getitem__(window)
        ids = self._ordered[window]
        found = self.interactions.model.objects.in_bulk(ids)
        return [found[pk] for pk in ids if pk in found]

    def _read_until(self, wanted: int | None) -> None:
        """Read the sorted index on until `wanted` matches are known in order (None: all of them)."""
        matching = self.matching_set()
        while not self._exhausted and (wanted is None or len(self._ordered) < wanted):
            if wanted is None:
                chunk = ids_of(self.ordered_ids[self._read :])
                self._exhausted = True
            else:
                chunk = ids_of(self.ordered_ids[self._read : self._read + self._slice])
                self._exhausted = len(chunk) < self._slice
                self._slice *= 10
            self._read += len(chunk)
            self._ordered.extend(pk for pk in chunk if pk in matching)


class SortedByValue:
    """All the run's interactions in the order of one property's value, for the Paginator.

    Reads a page straight from the (run, property, field, value, interaction) index rather than
    joining every interaction to its value and sorting them all; interactions without a value
    for the property come last, in id order.
    """

    def __init__(self, interactions: QuerySet[Interaction], values: QuerySet, ordered_ids: QuerySet) -> None:
        self.interactions = interactions
        self.values = values
        self.ordered_ids = ordered_ids
        self._count: int | None = None
        self._with_value: int | None = None

    def count(self) -> int:
        if self._count is None:
            self._count = self.interactions.count()
        return self._count

    def with_value(self) -> int:
        if self._with_value is None:
            self._with_value = self.values.count()
        return self._with_value

    def __len__(self) -> int:
        return self.count()

    def __iter__(self):
        return iter(self[0 : self.count()])

    def __getitem__(self, window: slice) -> list[Interaction]:
        start, stop = window.start or 0, window.stop if window.stop is not None else self.count()
        ids = list(self.ordered_ids[start:stop])
        if len(ids) < stop - start:
            # Past the interactions that have a value: fill with those that have none.
            split = start + len(ids) if ids else self.with_value()
            missing = self.interactions.exclude(pk__in=self.values.values("interaction_id"))
            ids += list(missing.values_list("pk", flat=True)[max(0, start - split) : stop - split])
        found = self.interactions.model.objects.in_bulk(ids)
        return [found[pk] for pk in ids if pk in found]


def page_of(interactions: QuerySet[Interaction] | SortedByValue | MatchedIds, number: str | int | None) -> Page:
    return Paginator(interactions, PAGE_SIZE).get_page(number)


def values_by_interaction(
    interaction_ids: list[int], addresses: list[str] | None = None
) -> dict[int, dict[str, PropertyValue]]:
    """{interaction id: {address: value}} for a page, in one query; with `addresses`, only those
    properties' values and without their spans (the table shows no evidence)."""
    rows: dict[int, dict[str, PropertyValue]] = {pk: {} for pk in interaction_ids}
    values = PropertyValue.objects.filter(interaction_id__in=interaction_ids)
    if addresses is not None:
        values = values.filter(property_name__in={address.partition(".")[0] for address in addresses}).defer(
            "spans", "scorer_version", "model", "updated_at"
        )
    for value in values:
        rows[value.interaction_id][value.address] = value
    return rows


def property_addresses(run: Run, exhaustive: bool = False) -> list[str]:
    """Addresses of the properties scored on the run, for column pickers and exports.

    By default read from the jobs and the registry, not from the values: a DISTINCT over
    millions of values would cost more than a page of the Data Screen. `exhaustive` adds every
    address that has a value (exports, which read every value anyway).
    """
    names = set(run.project.enabled_properties)
    for properties in run.jobs.values_list("properties", flat=True):
        names.update(properties)
    addresses = set()
    for name in names:
        try:
            fields = registry.get(name).fields
        except registry.RegistryError:
            fields = ("interaction",)
        addresses.update(name if f == "interaction" else f"{name}.{f}" for f in fields)
    if exhaustive:
        pairs = PropertyValue.objects.filter(run=run).values_list("property_name", "field").distinct().order_by()
        addresses.update(prop if f == "interaction" else f"{prop}.{f}" for prop, f in pairs)
    return sorted(addresses)
