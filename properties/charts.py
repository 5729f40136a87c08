"""Plotly figure dicts, built as plain data; the template emits them with json_script."""

from __future__ import annotations

from properties.comparison import RunSummary

PALETTE = ["#2a5bd7", "#e4572e", "#17a398", "#f3a712", "#7d5ba6", "#6b7280"]


def distribution_figure(address: str, edges: list[float], counts: dict[str, list[int]]) -> dict:
    """Overlaid histograms of one property, one trace per run, on shared bins."""
    centers = [(low + high) / 2 for low, high in zip(edges, edges[1:], strict=False)]
    width = (edges[1] - edges[0]) if len(edges) > 1 else 1
    traces = [
        {
            "type": "bar",
            "name": name,
            "x": centers,
            "y": values,
            "width": width,
            "opacity": 0.55,
            "marker": {"color": PALETTE[i % len(PALETTE)]},
        }
        for i, (name, values) in enumerate(counts.items())
    ]
    return {
        "data": traces,
        "layout": {
            "title": {"text": address},
            "barmode": "overlay",
            "height": 260,
            "margin": {"l": 40, "r": 10, "t": 40, "b": 30},
            "legend": {"orientation": "h"},
            "xaxis": {"title": {"text": "value"}},
            "yaxis": {"title": {"text": "interactions"}},
        },
    }


def means_figure(address: str, summaries: list[RunSummary]) -> dict:
    """Means with their 95% intervals, one bar per run."""
    with_stat = [(s.run.name, s.stats[address]) for s in summaries if address in s.stats]
    return {
        "data": [
            {
                "type": "bar",
                "x": [name for name, _ in with_stat],
                "y": [stat.mean for _, stat in with_stat],
                "error_y": {"type": "data", "array": [stat.ci95 for _, stat in with_stat], "visible": True},
                "marker": {"color": [PALETTE[i % len(PALETTE)] for i in range(len(with_stat))]},
            }
        ],
        "layout": {
            "title": {"text": f"{address}: mean and 95% interval"},
            "height": 260,
            "margin": {"l": 40, "r": 10, "t": 40, "b": 30},
        },
    }


def score_figure(summaries: list[RunSummary]) -> dict:
    names = [s.run.name for s in summaries]
    return {
        "data": [
            {"type": "bar", "name": "with estimates", "x": names, "y": [s.score.score for s in summaries]},
            {"type": "bar", "name": "person labels only", "x": names, "y": [s.score.person_score for s in summaries]},
        ],
        "layout": {
            "title": {"text": "Annotation score (share of good)"},
            "barmode": "group",
            "height": 260,
            "yaxis": {"range": [0, 1]},
            "margin": {"l": 40, "r": 10, "t": 40, "b": 30},
        },
    }
