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
    address: str,
    good: list[float],
    bad: list[float],
    criterion: Criterion,
    threshold: float | None,
    suggested: float | None,
) -> dict[str, Any]:
    edges = _edges(good + bad, criterion)
    centres = ((edges[:-1] + edges[1:]) / 2).tolist()
    traces = [
        go.Bar(x=centres, y=np.histogram(good, edges)[0].tolist(), name=f"good ({len(good)})", marker={"color": GOOD}),
        go.Bar(
            x=centres,
            y=np.histogram(bad, edges)[0].tolist(),
            name=f"bad ({len(bad)})",
            marker={"color": BAD, "pattern": {"shape": "/"}},
        ),
    ]
    layout = go.Layout(
        title={"text": html.escape(f"{address}: values of interactions labelled good and bad"), "font": {"size": 14}},
        height=HEIGHT,
        margin={"l": 48, "r": 12, "t": 40, "b": 40},
        plot_bgcolor="#fff",
        barmode="group",
        bargap=0.15,
        legend={"orientation": "h", "y": -0.2},
        xaxis={"title": {"text": "value"}, "range": [float(edges[0]), float(edges[-1])]},
        yaxis={"title": {"text": "interactions"}, "rangemode": "tozero"},
    )
    figure = go.Figure(data=traces, layout=layout)
    for value, name, dash in ((threshold, "threshold", "dash"), (suggested, "suggested", "dot")):
        if value is not None:
            figure.add_vline(
                x=value,
                line={"color": LINE, "dash": dash, "width": 2},
                annotation={"text": f"{name} {value:g}", "font": {"size": 11}},
                annotation_position="top left" if name == "threshold" else "top right",
            )
    if not good and not bad:
        figure.add_annotation(text="No data", showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5)
    return json.loads(figure.to_json())


def _edges(values: list[float], criterion: Criterion) -> np.ndarray:
    """The property's range when it has one, else the values' own."""
    low = criterion.low if criterion.low is not None else min(values, default=0.0)
    high = criterion.high if criterion.high is not None else max(values, default=1.0)
    if values:  # a value outside the documented range still shows
        low, high = min(low, min(values)), max(high, max(values))
    if high <= low:
        high = low + 1.0
    return np.linspace(low, high, BINS + 1)
