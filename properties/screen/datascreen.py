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
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import reduce
from urllib.parse import urlencode

from django.core.paginator import Page, Paginator
from django.db.models import Exists, OuterRef, Q, QuerySet
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
from properties.screen.rows import Ranking, ScreenRows

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


def filtered_interactions(run: Run, query: ScreenQuery, run_size: int | None = None) -> ScreenRows:
    """The view's interactions in its order. A filter that does not parse shows none: a table of
    every row under a filter the user believes applied would mislead. `run_size`: the run's
    interactions when known, the count of a view of them all.

    The whole filter is one condition the database evaluates, each property condition an EXISTS on
    the interaction's value (rows.py says why nothing is read into Python)."""
    bounds = Interaction.objects.id_bounds(run.pk)
    everything = Interaction.objects.of_run_between(run.pk, bounds)
    if query.error:
        return ScreenRows(everything.none(), filtered=True)
    interactions = everything
    if query.expression is not None:
        interactions = interactions.filter(_q(run, query.expression, query))
    if query.annotation:
        interactions = interactions.filter(annotation=query.annotation)
    if query.source:
        interactions = interactions.filter(annotation_source=query.source)
    if query.search:
        interactions = interactions.filter(_text_q(query.search_in, query.search))
    if query.errors_only:
        errors = PropertyValue.objects.filter(status=PropertyValue.Status.ERROR, interaction_id=OuterRef("pk"))
        interactions = interactions.filter(Exists(errors))
    filtered = interactions is not everything
    total = None if filtered else run_size
    # `disagrees:` lists the furthest from the threshold first, unless the view is sorted otherwise.
    ranking = None if query.sort else disagreement.order_of(run, filters.conjuncts(query.expression))
    if ranking is not None:
        return ScreenRows(interactions.order_by("pk"), ranking, filtered, id_bounds=bounds)
    return _sorted(run, interactions, query.sort, filtered, total, bounds)


def matching_ids(run: Run, expression: Node, among: list[int]) -> set[int]:
    """Which of these interactions of the run match a filter (annotation rules' `where:` blocks)."""
    condition = _q(run, expression, ScreenQuery(expression=expression))
    return set(run.interactions.filter(condition, pk__in=among).values_list("pk", flat=True))


def _q(run: Run, node: Node, query: ScreenQuery, negated: bool = False) -> Q:
    """A part of the filter as a condition on the run's interactions.

    A property condition is an EXISTS on the interaction's value (the unique (interaction, property,
    field) index), never `id IN (subquery)`: under an OR or a NOT, PostgreSQL hashes such a subquery
    only while its ids fit in `work_mem`, and past that searched it once per interaction (minutes at
    a million); an EXISTS is one index probe per interaction, or a semi-join where the planner
    prefers one. `negated`: the part is under a NOT."""
    if isinstance(node, filters.And):
        return reduce(operator.and_, (_q(run, item, query, negated) for item in node.items))
    if isinstance(node, filters.Or):
        return reduce(operator.or_, (_q(run, item, query, negated) for item in node.items))
    if isinstance(node, filters.Not):
        return ~_q(run, node.item, query, negated=True)
    if isinstance(node, AnnotationCondition):
        matches = Q(annotation=node.value)
        return matches if node.op == "=" else ~matches
    if isinstance(node, TextCondition):
        return _text_q({"text": "both"}.get(node.field, node.field), node.words)
    if isinstance(node, MetadataCondition):
        return _metadata_q(node, negated)
    return _value_q(run, node, query)


def _text_q(search_in: str, words: str) -> Q:
    text = Q()
    if search_in in ("input", "both"):
        text |= Q(input__icontains=words)
    if search_in in ("output", "both"):
        text |= Q(output__icontains=words)
    return text


def _metadata_q(condition: MetadataCondition, negated: bool) -> Q:
    """A metadata key compared with a value; `!=` holds only where the key is present, as `!=` on a
    property holds only where it has a value. Under a NOT, as an EXISTS on the interaction itself: a
    missing key makes the comparison NULL in SQL, and NOT NULL is not true, so NOT would lose the
    interactions without the key. Elsewhere NULL excludes the row as false would, and the comparison
    is read on the row (the EXISTS was a second lookup of every interaction: 1.2 s at a million)."""
    key = f"metadata__{condition.key}"
    if condition.op == "!=":
        matches = Q(metadata__has_key=condition.key) & ~Q(**{f"{key}__exact": condition.value})
    else:
        matches = Q(**{f"{key}__{NUMERIC_LOOKUPS[condition.op]}": condition.value})
    return Q(Exists(Interaction.objects.filter(matches, pk=OuterRef("pk")))) if negated else matches


def _value_q(run: Run, condition: Condition | StatusCondition, query: ScreenQuery) -> Q:
    """Interactions whose value satisfies the condition.

    Error values have no number and no label, so they never match (no status test needed).
    """
    values = PropertyValue.objects.filter(
        run=run, property_name=condition.prop, field=condition.field, interaction_id=OuterRef("pk")
    )
    if isinstance(condition, StatusCondition):
        return _status_q(run, values, condition, query)
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
    return Q(Exists(matching))


def _status_q(run: Run, values: QuerySet, condition: StatusCondition, query: ScreenQuery) -> Q:
    if condition.status == "na":
        return Q(Exists(values.filter(criteria.not_applicable_q())))
    criterion = criteria.criterion_for(run.project, condition.prop)
    if not criterion.judges:
        query.problems.append(
            f"{condition.address} neither passes nor fails: set its direction and threshold on its settings page"
        )
        return Q(pk__in=[])
    if condition.status == "disagrees":
        return disagreement.disagreeing_q(values, criterion)
    wanted = criterion.failing_q() if condition.status == "failing" else criterion.passing_q()
    return Q(Exists(values.filter(wanted)))


def _sorted(
    run: Run,
    interactions: QuerySet[Interaction],
    sort: str,
    filtered: bool,
    total: int | None,
    bounds: tuple[int, int] | None,
) -> ScreenRows:
    descending = sort.startswith("-")
    key = sort.lstrip("-")
    try:
        prop, field_name = split_address(key) if key and key not in SORTABLE_COLUMNS else ("", "")
    except FilterError:
        key = ""
    if not key or key in SORTABLE_COLUMNS:
        column = SORTABLE_COLUMNS.get(key, "pk")
        # Ties by id; the id alone when it is the column (ScreenRows.in_pk_order).
        ordered = interactions.order_by(*dict.fromkeys([f"-{column}" if descending else column, "pk"]))
        return ScreenRows(ordered, None, filtered, total, bounds)
    values = PropertyValue.objects.filter(run=run, property_name=prop, field=field_name, value__isnull=False)
    # Descending, ties by descending id too: the index read backwards, no sort.
    order = ("-value", "-interaction_id") if descending else ("value", "interaction_id")
    ranking = Ranking([values.order_by(*order).values_list("interaction_id", "value")])
    return ScreenRows(interactions.order_by("pk"), ranking, filtered, total, bounds)


def page_of(interactions: ScreenRows, number: str | int | None) -> Page:
    """The page asked for (the last one past the end, the first for anything else, as get_page)."""
    asked = int(number) if str(number).isdigit() else 1
    interactions.count_for_page(asked, PAGE_SIZE)
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
        addresses.update(prop if f == "interaction" else f"{prop}.{f}" for prop, f in _valued_pairs(run))
    return sorted(addresses)


def _valued_pairs(run: Run) -> Iterator[tuple[str, str]]:
    """Each (property, field) that has a value in the run, skipping through the (run, property,
    field, ...) index: one probe for the next pair each, where a DISTINCT read every value of the
    run (1.3 s for 15 million values on PostgreSQL, 10 ms skipping, one ORM query a pair)."""
    values = PropertyValue.objects.filter(run=run).order_by("property_name", "field")
    pair = values.values_list("property_name", "field").first()
    while pair is not None:
        yield pair
        prop, field_name = pair
        pair = (
            values.filter(property_name=prop, field__gt=field_name).values_list("property_name", "field").first()
            or values.filter(property_name__gt=prop).values_list("property_name", "field").first()
        )


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
