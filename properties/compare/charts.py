"""The comparison page's charts, built with plotly's graph objects (validated as they are built) and
handed to the template as plain JSON data, which app.js draws with the plotly.js the package ships.

Pure functions: numbers in, figures out. Runs keep one colour on every chart and in the tables:
the baseline (the oldest run) grey, the others Okabe-Ito's colour-blind-safe colours.
"""

from __future__ import annotations

import html
import json
from typing import Any

import plotly.graph_objects as go

from properties.compare.comparison import PropertyComparison, RunSummary
from properties.models import Run

BASELINE = "#8c8c8c"
OKABE_ITO = ["#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#000000", "#F0E442"]
HEIGHT = 280
MARGIN = {"l": 48, "r": 12, "t": 40, "b": 40}
# Past this many runs, side-by-side bars get too thin to read: the histograms become outlines.
GROUPED_BARS_UP_TO = 4


# The mean and pass-rate panels of the summary chart, in paper coordinates.
MEAN_PANEL, RATE_PANEL = (0.0, 0.4), (0.6, 1.0)
MEAN_PANEL_CENTRE, RATE_PANEL_CENTRE = sum(MEAN_PANEL) / 2, sum(RATE_PANEL) / 2


def plain(text: str) -> str:
    """Text as plotly.js shows it, never as markup: it renders a subset of HTML (links, bold, line
    breaks) in names, labels, titles and hovers, and a run named `<a href=...>` became live links.
    plotly.js turns the entities back into the characters when it draws the text."""
    return html.escape(str(text), quote=False)


def run_colours(runs: list[Run]) -> dict[int, str]:
    """The baseline grey, then the candidates in order."""
    return {run.pk: BASELINE if i == 0 else OKABE_ITO[(i - 1) % len(OKABE_ITO)] for i, run in enumerate(runs)}


def as_data(figure: go.Figure) -> dict[str, Any]:
    """The figure as plain data for json_script (which escapes it for the page)."""
    return json.loads(figure.to_json())


def _layout(title: str, **options: Any) -> go.Layout:
    return go.Layout(
        title={"text": plain(title), "font": {"size": 14}},
        height=HEIGHT,
        margin=MARGIN,
        plot_bgcolor="#fff",
        legend={"orientation": "h", "y": -0.25},
        **options,
    )


def _no_data(figure: go.Figure, centres: tuple[float, ...] = (0.5,)) -> go.Figure:
    """Keep the axes and say so in the plot area, never a blank box: once in the middle of each panel
    (`centres`, in paper coordinates), clear of the axis titles between panels."""
    for centre in centres:
        figure.add_annotation(
            text="No data",
            showarrow=False,
            xref="paper",
            yref="paper",
            x=centre,
            y=0.5,
            font={"size": 16, "color": "#6b7280"},
        )
    return figure


def distribution_figure(comparison: PropertyComparison, runs: list[Run], colours: dict[int, str]) -> dict[str, Any]:
    """The values' distribution per run on shared bins: bars side by side for a few runs, outlines
    for more; each run in its own colour, as the legend says (no overlapping, blended bars)."""
    if comparison.categorical:
        return label_figure(comparison, runs, colours)
    edges = comparison.edges
    centres = [(low + high) / 2 for low, high in zip(edges, edges[1:], strict=False)]
    grouped = len(runs) <= GROUPED_BARS_UP_TO
    traces = []
    for run in runs:
        stat = comparison.stats.get(run.pk)
        if stat is None:
            continue
        if grouped:
            traces.append(go.Bar(x=centres, y=stat.counts, name=plain(run.name), marker={"color": colours[run.pk]}))
        else:
            line = {"color": colours[run.pk], "shape": "hvh", "width": 2}
            traces.append(go.Scatter(x=centres, y=stat.counts, name=plain(run.name), mode="lines", line=line))
    layout = _layout(
        f"{comparison.name}: distribution",
        barmode="group",
        bargap=0.15,
        xaxis={"title": {"text": plain(comparison.name)}, "range": [edges[0], edges[-1]] if edges else None},
        yaxis={"title": {"text": "interactions"}, "rangemode": "tozero"},
    )
    figure = go.Figure(data=traces, layout=layout)
    return as_data(_no_data(figure) if comparison.empty else figure)


def label_figure(comparison: PropertyComparison, runs: list[Run], colours: dict[int, str]) -> dict[str, Any]:
    """A property of labels: each label's share of every run's values, bars side by side (shares,
    not counts, so that runs of different sizes compare), the count on hover."""
    traces = []
    for run in runs:
        counts = comparison.label_counts.get(run.pk)
        if not counts:
            continue
        shares = [share for _, share in comparison.label_shares(run.pk)]
        traces.append(
            go.Bar(
                x=[plain(label) for label in comparison.labels],
                y=shares,
                name=plain(run.name),
                marker={"color": colours[run.pk]},
                customdata=[counts.get(label, 0) for label in comparison.labels],
                hovertemplate="%{x}: %{y:.0%} (%{customdata} values)<extra>" + plain(run.name) + "</extra>",
            )
        )
    layout = _layout(
        f"{comparison.name}: share of each label",
        barmode="group",
        xaxis={"type": "category", "title": {"text": "label"}},
        yaxis={"title": {"text": "share of the run's values"}, "range": [0, 1], "tickformat": ".0%"},
    )
    return as_data(go.Figure(data=traces, layout=layout))


def summary_figure(comparison: PropertyComparison, runs: list[Run], colours: dict[int, str]) -> dict[str, Any]:
    """Left: each run's mean with its 95% interval, clipped to the property's range. Right: each
    run's pass rate (when the property has a direction and threshold)."""
    names, means, above, below, rates, colour = [], [], [], [], [], []
    for run in runs:
        stat = comparison.stats.get(run.pk)
        interval = comparison.interval(run.pk)
        if stat is None or interval is None:
            continue
        names.append(plain(run.name))
        means.append(stat.mean)
        above.append(interval[1] - stat.mean)
        below.append(stat.mean - interval[0])
        rates.append(stat.pass_rate)
        colour.append(colours[run.pk])
    judged = comparison.criterion.judges
    error = {"type": "data", "array": above, "arrayminus": below, "visible": True, "color": "#334155"}
    traces = [go.Bar(x=names, y=means, marker={"color": colour}, error_y=error, name="mean", showlegend=False)]
    layout = _layout(
        f"{comparison.name}: mean (95% interval)" + (" and pass rate" if judged else ""),
        xaxis={"domain": list(MEAN_PANEL) if judged else [0, 1], "type": "category"},
        yaxis={"title": {"text": f"mean {plain(comparison.name)}"}, "range": _value_range(comparison)},
    )
    if judged:
        rate_bars = go.Bar(x=names, y=rates, marker={"color": colour}, xaxis="x2", yaxis="y2", showlegend=False)
        traces.append(rate_bars.update(name="pass rate"))
        layout.update(
            xaxis2={"domain": list(RATE_PANEL), "type": "category", "anchor": "y2"},
            yaxis2={"title": {"text": "pass rate"}, "range": [0, 1], "tickformat": ".0%", "anchor": "x2"},
        )
    figure = go.Figure(data=traces, layout=layout)
    if comparison.empty:
        figure = _no_data(figure, (MEAN_PANEL_CENTRE, RATE_PANEL_CENTRE) if judged else (0.5,))
    return as_data(figure)


def _value_range(comparison: PropertyComparison) -> list[float] | None:
    low, high = comparison.criterion.low, comparison.criterion.high
    return [low, high] if low is not None and high is not None else None


def trend_figure(comparison: PropertyComparison, runs: list[Run], colours: dict[int, str]) -> dict[str, Any]:
    """The pass rate (or the mean, for a property without a direction) run after run, in time order."""
    judged = comparison.criterion.judges
    points = [
        (run, stat.pass_rate if judged else stat.mean)
        for run in runs
        if (stat := comparison.stats.get(run.pk)) is not None and stat.count
    ]
    trace = go.Scatter(
        x=[plain(run.name) for run, _ in points],
        y=[value for _, value in points],
        mode="lines+markers",
        line={"color": "#334155"},
        marker={"color": [colours[run.pk] for run, _ in points], "size": 10},
        name="pass rate" if judged else "mean",
        showlegend=False,
    )
    yaxis = {"range": [0, 1], "tickformat": ".0%", "title": {"text": "pass rate"}} if judged else {"title": "mean"}
    layout = _layout(
        f"{comparison.name}: {'pass rate' if judged else 'mean'} over runs",
        xaxis={"type": "category", "title": {"text": "runs, oldest first"}},
        yaxis=yaxis,
    )
    figure = go.Figure(data=[trace], layout=layout)
    return as_data(_no_data(figure) if not points else figure)


def score_figure(summaries: list[RunSummary], colours: dict[int, str]) -> dict[str, Any]:
    """The annotation score per run: with the rules' estimates, and from people's labels only."""
    names = [plain(summary.run.name) for summary in summaries]
    colour = [colours[summary.run.pk] for summary in summaries]
    traces = [
        go.Bar(x=names, y=[s.score.score for s in summaries], name="with estimates", marker={"color": colour}),
        go.Bar(
            x=names,
            y=[s.score.person_score for s in summaries],
            name="person labels only",
            marker={"color": colour, "pattern": {"shape": "/"}},
        ),
    ]
    layout = _layout(
        "Annotation score (share of good)",
        barmode="group",
        yaxis={"range": [0, 1], "tickformat": ".0%"},
        xaxis={"type": "category"},
    )
    figure = go.Figure(data=traces, layout=layout)
    empty = all(s.score.score is None and s.score.person_score is None for s in summaries)
    return as_data(_no_data(figure) if empty else figure)
