"""The property's values for the interactions labelled good and for those labelled bad, on shared
bins, with the current threshold and the suggested one drawn: a pure function, numbers in, a plotly
figure (as plain data for json_script) out, like the comparison's charts."""

from __future__ import annotations

import html
import json
from typing import Any

import numpy as np
import plotly.graph_objects as go

from properties.quality.criteria import Criterion

# Okabe-Ito blue and vermillion; bad bars are also hatched, so the two never differ by colour alone.
GOOD, BAD, LINE = "#0072B2", "#D55E00", "#334155"
BINS = 20
HEIGHT = 300


def distribution_figure(
    name: str,
    good: list[float],
    bad: list[float],
    criterion: Criterion,
    threshold: float | None,
    suggested: float | None,
) -> dict[str, Any]:
    edges = _edges(good + bad, criterion)
    centres = ((edges[:-1] + edges[1:]) / 2).tolist()
    good_counts, bad_counts = np.histogram(good, edges)[0].tolist(), np.histogram(bad, edges)[0].tolist()
    traces = [
        go.Bar(x=centres, y=good_counts, name=f"good ({len(good)})", marker={"color": GOOD}),
        go.Bar(
            x=centres,
            y=bad_counts,
            name=f"bad ({len(bad)})",
            marker={"color": BAD, "pattern": {"shape": "/"}},
        ),
    ]
    layout = go.Layout(
        title={"text": html.escape(f"{name}: values of interactions labelled good and bad"), "font": {"size": 14}},
        height=HEIGHT,
        margin={"l": 48, "r": 12, "t": 40, "b": 40},
        plot_bgcolor="#fff",
        barmode="group",
        bargap=0.15,
        legend={"orientation": "h", "y": -0.2},
        xaxis={"title": {"text": "value"}, "range": [float(edges[0]), float(edges[-1])]},
        # Headroom above the tallest bar for the thresholds' labels.
        yaxis={"title": {"text": "interactions"}, "range": [0, max([1, *good_counts, *bad_counts]) * 1.2]},
    )
    figure = go.Figure(data=traces, layout=layout)
    for value, text, dash, side in _lines(threshold, suggested):
        figure.add_vline(
            x=value,
            line={"color": LINE, "dash": dash, "width": 2},
            annotation={"text": text, "font": {"size": 11}},
            annotation_position=f"top {side}",
        )
    if not good and not bad:
        figure.add_annotation(text="No data", showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5)
    return json.loads(figure.to_json())


def _lines(threshold: float | None, suggested: float | None) -> list[tuple[float, str, str, str]]:
    """(value, label, dash, side) of each line: the current threshold dashed, the suggestion dotted;
    the lower one labelled on its left and the higher on its right, so that the labels never meet."""
    if threshold is not None and threshold == suggested:
        return [(threshold, f"threshold {threshold:g} (suggested)", "dash", "right")]
    lines = [
        (v, f"{name} {v:g}", dash)
        for v, name, dash in ((threshold, "threshold", "dash"), (suggested, "suggested", "dot"))
        if v is not None
    ]
    lines.sort(key=lambda line: line[0])
    sides = ["left", "right"] if len(lines) == 2 else ["right"] * len(lines)
    return [(*line, side) for line, side in zip(lines, sides, strict=True)]


def _edges(values: list[float], criterion: Criterion) -> np.ndarray:
    """The property's range when it has one, else the values' own."""
    low = criterion.low if criterion.low is not None else min(values, default=0.0)
    high = criterion.high if criterion.high is not None else max(values, default=1.0)
    if values:  # a value outside the documented range still shows
        low, high = min(low, min(values)), max(high, max(values))
    if high <= low:
        high = low + 1.0
    return np.linspace(low, high, BINS + 1)
