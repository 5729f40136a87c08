"""What the comparison page shows: the chosen properties of the chosen runs, as tables and charts, and
the row-by-row changes of two runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.paginator import Paginator
from django.db.models import Q
from django.http import QueryDict

from properties.annotations import annotation
from properties.compare import charts, comparison
from properties.compare.comparison import PropertyComparison, RunSummary
from properties.models import Project, Run
from properties.projects import property_names
from properties.quality import criteria
from properties.screen import datascreen
from properties.screen import page as screen

DIFF_PAGE_SIZE = 50


@dataclass(frozen=True)
class RunRow:
    """One run's line in a property's table."""

    run: Run
    colour: str
    stat: comparison.RunStat | None
    interval: tuple[float, float] | None
    # For a property of labels: each label's share of this run's values.
    shares: list[tuple[str, float]]


@dataclass(frozen=True)
class PropertyCard:
    comparison: PropertyComparison
    rows: list[RunRow]
    figures: list[tuple[str, dict[str, Any]]]


def available_addresses(project: Project, runs: list[Run]) -> list[str]:
    """The runs' properties, the project's key ones first (the Data Screen's order)."""
    found = sorted({address for run in runs for address in datascreen.property_addresses(run)})
    return property_names.key_first(project, found)


def chosen_addresses(project: Project, params: QueryDict, addresses: list[str]) -> list[str]:
    """The properties the user picked (`prop=`), else the project's key ones."""
    wanted = set(params.getlist("prop"))
    picked = [address for address in addresses if address in wanted]
    return picked or screen.key_addresses(project, addresses)


def page_context(project: Project, runs: list[Run], params: QueryDict) -> dict[str, Any]:
    """The whole page. The row-by-row changes come as a fragment, unless the URL names their
    property (a browser without JavaScript submitted the property form)."""
    addresses = available_addresses(project, runs)
    chosen = chosen_addresses(project, params, addresses)
    colours = charts.run_colours(runs)
    # Each run's count and score as the Data Screen keeps them, under the run's state: counting ten
    # runs of 100,000 in one grouped read took 250 to 770 ms of every request of the cached page.
    scores = {run.pk: annotation.kept_run_score(run) for run in runs}
    summaries = [RunSummary(run, *scores[run.pk]) for run in runs]
    cards = []
    for number, compared in enumerate(comparison.compare_properties(runs, chosen, project)):
        rows = []
        for run in runs:
            stat, shares = compared.stats.get(run.pk), compared.label_shares(run.pk)
            rows.append(RunRow(run, colours[run.pk], stat, compared.interval(run.pk), shares))
        cards.append(PropertyCard(compared, rows, _figures(compared, runs, colours, number)))
    context = {
        "project": project,
        "runs": runs,
        "colours": [(run, colours[run.pk]) for run in runs],
        "summaries": summaries,
        "addresses": addresses,
        "names": property_names.names_for(project, addresses),
        "chosen": chosen,
        "cards": cards,
        # No chart of nothing: before any label, one line says why there is no score.
        "score_figure": charts.score_figure(summaries, colours) if _any_score(summaries) else None,
        "run_ids": "&".join(f"runs={run.pk}" for run in runs),
    }
    if len(runs) == 2 and params.get("property"):
        context.update(row_diff_context(project, runs, params))
    return context


def _figures(
    compared: PropertyComparison, runs: list[Run], colours: dict[int, str], number: int
) -> list[tuple[str, dict[str, Any]]]:
    """The property's charts; none when no run has a value of it (the card says so in a line)."""
    if not any(stat.count for stat in compared.stats.values()):
        return []
    figures = [(f"chart-{number}-distribution", charts.distribution_figure(compared, runs, colours))]
    if not compared.categorical:  # labels have no mean, no pass rate and no trend of either
        figures.append((f"chart-{number}-summary", charts.summary_figure(compared, runs, colours)))
    if len(runs) > 2 and not compared.categorical:
        figures.append((f"chart-{number}-trend", charts.trend_figure(compared, runs, colours)))
    return figures


def _diff_property(
    project: Project, params: QueryDict, addresses: list[str]
) -> tuple[str | None, criteria.Criterion | None, float]:
    """The property whose changes the row-by-row fragment lists (the one asked for, else the first
    chosen one), its criterion and its tolerance."""
    chosen = chosen_addresses(project, params, addresses)
    address = params.get("property") if params.get("property") in addresses else (chosen or addresses or [None])[0]
    criterion = criteria.criterion_for(project, address.partition(".")[0]) if address else None
    return address, criterion, criterion.tolerance if criterion else 0.0


def warm_row_diff(run: Run) -> None:
    """Once a scoring job of `run` has ended: its row-by-row changes against the project's run before
    it, for the property the fragment opens on, computed into the cache the fragment reads. Comparing
    a new run with the one before is the visit a scoring most often leads to, and matching two runs
    of 100,000 takes 0.4 to 0.6 s (comparison.cached_changed_pairs), which that first visitor then
    does not wait for."""
    project = run.project
    before = (
        project.runs.live()
        .filter(Q(created_at__lt=run.created_at) | Q(created_at=run.created_at, pk__lt=run.pk))
        .order_by("-created_at", "-pk")
        .first()
    )
    if before is None:
        return
    runs = [before, run]  # in the page's order (compare_views._chosen_runs): the older first
    address, _, tolerance = _diff_property(project, QueryDict(), available_addresses(project, runs))
    comparison.cached_changed_pairs(runs[0], runs[1], address, tolerance)


def _any_score(summaries: list[RunSummary]) -> bool:
    return any(s.score.score is not None or s.score.person_score is not None for s in summaries)


def row_diff_context(project: Project, runs: list[Run], params: QueryDict) -> dict[str, Any]:
    """Two runs' matched rows whose value of one property changed by its tolerance or more."""
    addresses = available_addresses(project, runs)
    address, criterion, tolerance = _diff_property(project, params, addresses)
    changed = comparison.cached_changed_pairs(runs[0], runs[1], address, tolerance)
    page = Paginator(changed.pairs, DIFF_PAGE_SIZE).get_page(params.get("page"))
    return {
        "project": project,
        "runs": runs,
        "addresses": addresses,
        "names": property_names.names_for(project, addresses),
        "diff_property": address,
        "tolerance": tolerance,
        "changed": changed,
        "diff_page": page,
        "diff_rows": comparison.diff_rows(list(page), criterion),
        "diff_loaded": True,
        "run_ids": "&".join(f"runs={run.pk}" for run in runs),
    }
