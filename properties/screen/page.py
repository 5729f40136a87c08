"""What the Data Screen shows: its columns, its rows with each value judged, and the neighbours of
the interaction open in the side panel. The query itself (filters, sorting) is datascreen.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.sessions.backends.base import SessionBase
from django.core.paginator import Page
from django.http import QueryDict

from properties.models import Interaction, Project, PropertyValue, Run
from properties.pipeline import progress
from properties.projects import property_names
from properties.quality import criteria, pass_rates
from properties.quality.criteria import Criterion
from properties.scorers import registry
from properties.screen import datascreen, interaction_panel, rows

# Columns when a project names no key properties and scores none of the templates' key ones: the
# first addresses in alphabetical order.
FALLBACK_COLUMNS = 4


def address_of(prop: str) -> str:
    """The address a column shows for a property: the whole interaction, else its output."""
    try:
        fields = registry.get(prop).fields
    except registry.RegistryError:
        fields = ("interaction",)
    if "interaction" in fields:
        return prop
    return f"{prop}.output" if "output" in fields else f"{prop}.{fields[0]}"


def key_addresses(project: Project, addresses: list[str]) -> list[str]:
    """The project's key properties as column addresses, in the project's order."""
    keys = [address_of(name) for name in property_names.key_names(project)]
    chosen = [address for address in keys if address in addresses]
    return chosen or addresses[:FALLBACK_COLUMNS]


def session_key(run: Run) -> str:
    return f"datascreen-columns:{run.pk}"


def chosen_columns(session: SessionBase, run: Run, params: QueryDict, addresses: list[str]) -> list[str]:
    """The columns the user chose for this run, remembered in their session; the key ones by default.

    The columns form sends `columns=1`: with no box ticked, that goes back to the key properties.
    `addresses` come in the picker's order (property_names.key_first): chosen columns keep it,
    whatever order the boxes or the URL sent them in.
    """
    if "columns" in params or params.getlist("col"):
        wanted = set(params.getlist("col"))
        picked = [column for column in addresses if column in wanted]
        if picked:
            session[session_key(run)] = picked
        else:
            session.pop(session_key(run), None)
    remembered = set(session.get(session_key(run), []))
    return [column for column in addresses if column in remembered] or key_addresses(run.project, addresses)


@dataclass(frozen=True)
class Cell:
    value: PropertyValue | None
    verdict: str  # pass, fail, n/a, error, or ""

    @property
    def reason(self) -> str:
        """What hovering the cell says for n/a and errors."""
        if self.verdict == "n/a":
            return criteria.not_applicable_reason(self.value)
        if self.verdict == "error":
            return self.value.error
        return ""


@dataclass(frozen=True)
class Row:
    interaction: Interaction
    cells: list[Cell]


def rows_for(
    page: Page, values: dict[int, dict[str, PropertyValue]], columns: list[str], judged: dict[str, Criterion]
) -> list[Row]:
    return [row_for(interaction, values[interaction.pk], columns, judged) for interaction in page]


def row_for(
    interaction: Interaction, values: dict[str, PropertyValue], columns: list[str], judged: dict[str, Criterion]
) -> Row:
    cells = []
    for column in columns:
        value = values.get(column)
        cells.append(Cell(value, criteria.verdict(value, judged[column])))
    return Row(interaction, cells)


@dataclass(frozen=True)
class Neighbours:
    previous: int | None
    next: int | None
    position: int
    # The adjacent page when the open interaction ends this page; `previous` or `next` is then the
    # id of the interaction on it, so that the link names the interaction, not a place on a page.
    previous_page: int | None = None
    next_page: int | None = None


def neighbours(page: Page, interaction_id: int) -> Neighbours | None:
    """Previous and next in the filtered, sorted order the table shows; across page ends too."""
    ids = [interaction.pk for interaction in page]
    if interaction_id not in ids:
        return None
    at = ids.index(interaction_id)
    previous = ids[at - 1] if at > 0 else None
    following = ids[at + 1] if at + 1 < len(ids) else None
    previous_page = next_page = None
    if previous is None and page.has_previous():
        previous_page, previous = page.previous_page_number(), _id_at(page, page.start_index() - 2)
    if following is None and page.has_next():
        next_page, following = page.next_page_number(), _id_at(page, page.end_index())
    return Neighbours(previous, following, page.start_index() + at, previous_page, next_page)


def _id_at(page: Page, index: int) -> int | None:
    """The id of the interaction at a 0-based place in the whole filtered, sorted order: one row read."""
    found = list(page.paginator.object_list[index : index + 1])
    return found[0].pk if found else None


def opened_id(params: QueryDict, page: Page) -> int | None:
    """The interaction open in the panel: `i=<id>`; `i=first` / `i=last` of this page, as links once
    said, still open."""
    wanted = params.get("i", "")
    ids = [interaction.pk for interaction in page]
    if wanted == "first" and ids:
        return ids[0]
    if wanted == "last" and ids:
        return ids[-1]
    return int(wanted) if wanted.isdigit() else None


def screen_context(run: Run, params: QueryDict, session: SessionBase, run_size: int | None = None) -> dict[str, Any]:
    """Everything the Data Screen's page and fragments show, from the URL's parameters. `run_size`:
    the run's interactions when known (kept with its score), else they are counted."""
    with rows.page_reads():
        return _screen_context(run, params, session, run_size)


def _screen_context(run: Run, params: QueryDict, session: SessionBase, run_size: int | None) -> dict[str, Any]:
    query = datascreen.ScreenQuery.from_params(params)
    page = datascreen.page_of(datascreen.filtered_interactions(run, query, run_size), params.get("page"))
    addresses = property_names.key_first(run.project, datascreen.property_addresses(run))
    columns = chosen_columns(session, run, params, addresses)
    key_columns = key_addresses(run.project, addresses)
    judged = criteria.criteria_for(run.project, addresses)
    values = datascreen.values_by_interaction([interaction.pk for interaction in page], columns)
    opened = opened_id(params, page)
    context = {
        "run": run,
        "progress": progress.run_progress(run),
        "query": query,
        "params": params,
        "page": page,
        "rows": rows_for(page, values, columns, judged),
        "columns": columns,
        "key_columns": key_columns,
        "addresses": addresses,
        "names": property_names.names_for(run.project, addresses),
        "criteria": judged,
        "opened_id": opened,
        "panel": False,
        "rates": pass_rates.cached(run, judged, key_columns),
    }
    interaction = Interaction.objects.select_related("run__project").filter(run=run, pk=opened).first()
    if interaction is not None:
        context.update(interaction_panel.panel_context(interaction, params.get("highlight")))
        context.update(panel=True, neighbours=neighbours(page, interaction.pk))
    return context


def annotated_context(interaction: Interaction, params: QueryDict, session: SessionBase) -> dict[str, Any]:
    """The Data Screen after a person annotated from its panel: the panel, and the interaction's row
    wherever the filters put it now (it stays in the table the user sees until the next reload)."""
    context = screen_context(interaction.run, params, session)
    values = datascreen.values_by_interaction([interaction.pk], context["columns"])[interaction.pk]
    context["row"] = row_for(interaction, values, context["columns"], context["criteria"])
    if not context["panel"]:
        context.update(interaction_panel.panel_context(interaction, params.get("highlight")))
        context.update(panel=True, neighbours=None, opened_id=interaction.pk)
    return context


def rates_context(run: Run, params: QueryDict) -> dict[str, Any]:
    """The pass-rate strip alone (its fragment): no page of interactions to read."""
    addresses = property_names.key_first(run.project, datascreen.property_addresses(run))
    judged = criteria.criteria_for(run.project, addresses)
    key_columns = key_addresses(run.project, addresses)
    return {
        "run": run,
        "names": property_names.names_for(run.project, addresses),
        "query": datascreen.ScreenQuery.from_params(params),
        "rates": pass_rates.computed(run, judged, key_columns),
    }
