"""The Data Screen's query: filters, sorting and one page of interactions with their values.

Filters come from the URL so that a filtered view can be shared and survives a reload:
  where=<filter>                one expression of the filter language (filters.py), e.g.
                                toxicity.output > 0.5 AND (content_type = sql OR failing:grounded_in_context);
                                repeated `where=` parameters (older links) must all hold
  annotation=good|bad|unknown   and source=person|estimated
  q=refund&in=input|output|both text search
  errors=1                      interactions with at least one property error
  sort=-toxicity.output         a property or a column, `-` for descending
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from functools import reduce
from urllib.parse import urlencode

from django.core.exceptions import EmptyResultSet
from django.core.paginator import Page, Paginator
from django.db import connection
from django.db.models import Q, QuerySet
from django.http import QueryDict

from properties.models import Interaction, Project, PropertyValue, Run, ScoringJob
from properties.quality import criteria
from properties.scorers import registry
from properties.screen import disagreement, filters
from properties.screen.filters import (
    AnnotationCondition,
    Condition,
    FilterError,
    MetadataCondition,
    Node,
    StatusCondition,
    TextCondition,
    split_address,
)

PAGE_SIZE = 50
TEXT_COLUMNS = ("input", "output", "annotation")
SORTABLE_COLUMNS = {"id": "pk", "annotation": "annotation", "user_interaction_id": "user_interaction_id"}
NUMERIC_LOOKUPS = {">": "gt", ">=": "gte", "<": "lt", "<=": "lte", "=": "exact"}


@dataclass
class ScreenQuery:
    # The filter as the box shows it: as typed, or the repeated `where=` parameters joined with AND.
    where: str = ""
    expression: Node | None = None
    # A filter that does not parse: its message and column; the screen then shows no rows.
    error: str = ""
    error_column: int = 0
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
        query.set_filter([text for text in params.getlist("where") if text.strip()])
        return query

    def set_filter(self, texts: list[str]) -> None:
        """Parse the filter. Repeated ones (older links) must all hold: the box shows them joined with
        AND, and an error's column counts in that joined text."""
        if not texts:
            return
        joined = texts[0] if len(texts) == 1 else " AND ".join(f"({text})" for text in texts)
        self.where = joined
        try:
            self.expression = filters.parse(joined)
        except FilterError as exc:
            self.error, self.error_column = str(exc), exc.column
            self.problems.append(str(exc))
            return
        if len(texts) > 1:
            self.where = str(self.expression)

    def params(self, **changes) -> str:
        """The query string of this view with some parameters changed (for links)."""
        values = {
            "where": self.where,
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
    """The view's interactions in its order. A filter that does not parse shows none: a table of
    every row under a filter the user believes applied would mislead."""
    everything = run.interactions.all()
    if query.error:
        return everything.none()
    interactions = everything
    parts = filters.conjuncts(query.expression)
    # Parts on property values: their ids as sets here, or, on PostgreSQL, two or more single
    # conditions intersected by the database; an OR or NOT with a value under it is always sets.
    by_sets = [part for part in parts if _on_values_only(part) or _mixed(part)]
    in_database = [part for part in by_sets if isinstance(part, filters.PROPERTY_LEAVES)]
    if connection.vendor == "sqlite" or len(in_database) < 2:
        in_database = []
    matching = _value_matches(run, [part for part in by_sets if part not in in_database], query)
    for part in parts:
        if part in in_database or part not in by_sets:
            interactions = interactions.filter(_q(run, part, query))
    if query.annotation:
        interactions = interactions.filter(annotation=query.annotation)
    if query.source:
        interactions = interactions.filter(annotation_source=query.source)
    if query.search:
        interactions = interactions.filter(_text_q(query.search_in, query.search))
    if query.errors_only:
        errors = PropertyValue.objects.filter(run=run, status=PropertyValue.Status.ERROR).values("interaction_id")
        interactions = interactions.filter(pk__in=errors)
    narrowed = interactions is not everything
    # `disagrees:` lists the furthest from the threshold first, unless the view is sorted otherwise.
    ordered = None if query.sort else disagreement.order_of(run, parts)
    if ordered is not None:
        return SortedMatches(interactions.order_by("pk"), ordered, matching, narrowed)
    return _sorted(run, interactions, query.sort, narrowed, matching)


def matching_ids(run: Run, expression: Node, among: list[int]) -> set[int]:
    """Which of these interactions of the run match a filter (annotation rules' `where:` blocks)."""
    condition = _q(run, expression, ScreenQuery(expression=expression))
    return set(run.interactions.filter(condition, pk__in=among).values_list("pk", flat=True))


def _on_values_only(node: Node) -> bool:
    """Whether a part of the filter reads property values alone (then its ids come from the index)."""
    return all(isinstance(leaf, filters.PROPERTY_LEAVES) for leaf in filters.leaves(node))


def _has_values(node: Node) -> bool:
    return any(isinstance(leaf, filters.PROPERTY_LEAVES) for leaf in filters.leaves(node))


def _mixed(node: Node) -> bool:
    """Whether a part of the filter joins property values and other conditions with OR or NOT.

    Such a part is evaluated as sets of ids here. In one query, each value condition under an OR is
    an `id IN (subquery)` that PostgreSQL runs as a hash only while the ids fit in `work_mem` (4 MB
    by default): past that, at a million interactions, it searched the subquery's rows once per
    interaction (`metric.output > 0.9 OR (failing:... AND NOT annotation = good)`: minutes).
    """
    found = filters.leaves(node)
    on_values = sum(isinstance(leaf, filters.PROPERTY_LEAVES) for leaf in found)
    return 0 < on_values < len(found)


def _value_matches(run: Run, parts: list[Node], query: ScreenQuery) -> set[int] | None:
    """Ids matching every part on property values (and the `_mixed` parts), or None without such parts.

    Each condition is one index-only read of the (run, property, field, value, interaction) index.
    One condition's ids come straight from that index, with no join to the interactions (PostgreSQL,
    a failing filter on 100k: 109 -> ~50 ms). For several, SQLite is faster when the id sets are
    intersected here (filtered page of bench/data_screen.py: 115 -> 83 ms); PostgreSQL intersects
    them faster itself (hash joins over index-only scans: 155 ms against 385 ms for the sets here).
    OR and NOT within a part are unions and differences of the same sets.
    """
    matching: set[int] | None = None
    run_ids: list[set[int]] = []  # every interaction of the run, read once if a NOT needs it
    for part in parts:
        ids = _ids(run, part, query, run_ids)
        matching = ids if matching is None else matching & ids
        if not matching:
            break
    return matching


def _ids(run: Run, node: Node, query: ScreenQuery, run_ids: list[set[int]]) -> set[int]:
    if isinstance(node, filters.And):
        found = _ids(run, node.items[0], query, run_ids)
        for item in node.items[1:]:
            if not found:
                break
            found &= _ids(run, item, query, run_ids)
        return found
    if isinstance(node, filters.Or):
        return set().union(*(_ids(run, item, query, run_ids) for item in node.items))
    if isinstance(node, filters.Not) and not _has_values(node):
        # NOT over annotation, text or metadata alone: the database reads the rows that do not match,
        # not every interaction of the run and then the ones that do (1,000,000 + 333,333 ids).
        return set(ids_of(run.interactions.exclude(_q(run, node.item, query)).order_by().values_list("pk", flat=True)))
    if isinstance(node, filters.Not):
        if not run_ids:
            run_ids.append(set(ids_of(run.interactions.order_by().values_list("pk", flat=True))))
        return run_ids[0] - _ids(run, node.item, query, run_ids)
    if isinstance(node, filters.PROPERTY_LEAVES):
        return set(ids_of(_matching_ids(run, node, query)))
    return set(ids_of(run.interactions.filter(_q(run, node, query)).order_by().values_list("pk", flat=True)))


def _q(run: Run, node: Node, query: ScreenQuery) -> Q:
    """A part of the filter as a condition on the run's interactions."""
    if isinstance(node, filters.And):
        return reduce(operator.and_, (_q(run, item, query) for item in node.items))
    if isinstance(node, filters.Or):
        return reduce(operator.or_, (_q(run, item, query) for item in node.items))
    if isinstance(node, filters.Not):
        return ~_q(run, node.item, query)
    if isinstance(node, AnnotationCondition):
        matches = Q(annotation=node.value)
        return matches if node.op == "=" else ~matches
    if isinstance(node, TextCondition):
        return _text_q({"text": "both"}.get(node.field, node.field), node.words)
    if isinstance(node, MetadataCondition):
        return _metadata_q(run, node)
    return Q(pk__in=_matching_ids(run, node, query))


def _text_q(search_in: str, words: str) -> Q:
    text = Q()
    if search_in in ("input", "both"):
        text |= Q(input__icontains=words)
    if search_in in ("output", "both"):
        text |= Q(output__icontains=words)
    return text


def _metadata_q(run: Run, condition: MetadataCondition) -> Q:
    """A metadata key compared with a value; `!=` holds only where the key is present, as `!=` on a
    property holds only where it has a value. As a subquery: a missing key makes the comparison
    NULL in SQL, and NOT NULL is not true, so NOT would lose the interactions without the key."""
    key = f"metadata__{condition.key}"
    if condition.op == "!=":
        matches = Q(metadata__has_key=condition.key) & ~Q(**{f"{key}__exact": condition.value})
    else:
        matches = Q(**{f"{key}__{NUMERIC_LOOKUPS[condition.op]}": condition.value})
    return Q(pk__in=run.interactions.filter(matches).values("pk"))


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

    @property
    def ids(self) -> list[int]:
        """Every id in this order (exports): those with a value by value, then the others by id."""
        missing = self.interactions.exclude(pk__in=self.values.values("interaction_id")).values_list("pk", flat=True)
        return ids_of(self.ordered_ids) + ids_of(missing)

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
    addresses = _addresses_of(names)
    if exhaustive:
        pairs = PropertyValue.objects.filter(run=run).values_list("property_name", "field").distinct().order_by()
        addresses.update(prop if f == "interaction" else f"{prop}.{f}" for prop, f in pairs)
    return sorted(addresses)


def project_addresses(project: Project) -> list[str]:
    """Addresses of the properties the project scores or has scored on any of its runs: what a saved
    view, applied to any run of the project, may show as a column or sort by."""
    names = set(project.enabled_properties)
    for properties in ScoringJob.objects.filter(run__project=project).values_list("properties", flat=True):
        names.update(properties)
    return sorted(_addresses_of(names))


def _addresses_of(names: set[str]) -> set[str]:
    addresses = set()
    for name in names:
        try:
            fields = registry.get(name).fields
        except registry.RegistryError:
            fields = ("interaction",)
        addresses.update(name if f == "interaction" else f"{name}.{f}" for f in fields)
    return addresses
