"""Comparing runs: per-property statistics, distributions, and row-by-row matching of two runs."""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field

from django.db.models import Avg, Count, F, Sum

from properties.annotation import RunScore, run_score
from properties.models import Interaction, PropertyValue, Run

HISTOGRAM_BINS = 20
WORDS = re.compile(r"\s+|[^\s]+")


@dataclass(frozen=True)
class Stat:
    mean: float
    count: int
    stddev: float

    @property
    def ci95(self) -> float:
        """Half-width of the 95% confidence interval of the mean (normal approximation)."""
        if self.count < 2:
            return 0.0
        return 1.96 * self.stddev / math.sqrt(self.count)


@dataclass
class RunSummary:
    run: Run
    interactions: int
    score: RunScore
    stats: dict[str, Stat] = field(default_factory=dict)


def summarize_runs(runs: list[Run]) -> list[RunSummary]:
    """Per run, the mean, count and sample standard deviation of each property's numeric values.

    Errors, categories and values the property does not apply to are left out. The deviation is
    computed from sums, not with StdDev: SQLite's sample StdDev raises on a single value (a server
    error for a project whose property has one value), where PostgreSQL returns null.
    """
    summaries = {run.pk: RunSummary(run, run.interactions.count(), run_score(run)) for run in runs}
    rows = (
        PropertyValue.objects.filter(run__in=runs, status=PropertyValue.Status.OK, value__isnull=False)
        .values("run_id", "property_name", "field")
        .annotate(mean=Avg("value"), n=Count("id"), squares=Sum(F("value") * F("value")))
        .order_by()
    )
    for row in rows:
        address = row["property_name"] if row["field"] == "interaction" else f"{row['property_name']}.{row['field']}"
        sd = sample_stddev(row["n"], row["mean"], row["squares"])
        summaries[row["run_id"]].stats[address] = Stat(row["mean"], row["n"], sd)
    return [summaries[run.pk] for run in runs]


def sample_stddev(count: int, mean: float, sum_of_squares: float) -> float:
    """The sample standard deviation from a count, mean and sum of squares; 0 below two values.

    Rounding can make the variance of equal values a hair below zero: it is clamped, and a spread
    under a millionth of the mean's size counts as none.
    """
    if count < 2:
        return 0.0
    variance = max(0.0, (sum_of_squares - count * mean * mean) / (count - 1))
    deviation = math.sqrt(variance)
    return 0.0 if deviation <= 1e-6 * max(1.0, abs(mean)) else deviation


def numeric_values(run: Run, prop: str, field_name: str) -> list[float]:
    return list(
        PropertyValue.objects.filter(
            run=run, property_name=prop, field=field_name, status=PropertyValue.Status.OK, value__isnull=False
        ).values_list("value", flat=True)
    )


def histogram(series: dict[str, list[float]], bins: int = HISTOGRAM_BINS) -> tuple[list[float], dict[str, list[int]]]:
    """Shared bin edges over all series and each series' counts, so overlaid bars line up."""
    everything = [v for values in series.values() for v in values]
    if not everything:
        return [], {name: [] for name in series}
    low, high = min(everything), max(everything)
    if math.isclose(low, high):
        high = low + 1.0
    width = (high - low) / bins
    edges = [low + i * width for i in range(bins + 1)]
    counts = {}
    for name, values in series.items():
        bucket = [0] * bins
        for value in values:
            bucket[min(int((value - low) / width), bins - 1)] += 1
        counts[name] = bucket
    return edges, counts


def match_interactions(run_a: Run, run_b: Run) -> list[tuple[int, int]]:
    """Pairs of interaction ids, matched on user_interaction_id, then on a hash of the input."""
    a_rows = list(run_a.interactions.values_list("pk", "user_interaction_id", "input_hash"))
    b_rows = list(run_b.interactions.values_list("pk", "user_interaction_id", "input_hash"))
    return match_rows(a_rows, b_rows)


def match_rows(a_rows: list[tuple[int, str, str]], b_rows: list[tuple[int, str, str]]) -> list[tuple[int, int]]:
    by_id = {uid: pk for pk, uid, _ in b_rows}
    by_hash: dict[str, list[int]] = {}
    for pk, _, digest in b_rows:
        by_hash.setdefault(digest, []).append(pk)
    used: set[int] = set()
    pairs: list[tuple[int, int]] = []
    unmatched = []
    for pk, uid, digest in a_rows:
        other = by_id.get(uid)
        if other is not None and other not in used:
            pairs.append((pk, other))
            used.add(other)
        else:
            unmatched.append((pk, digest))
    for pk, digest in unmatched:
        candidates = [other for other in by_hash.get(digest, []) if other not in used]
        if candidates:
            pairs.append((pk, candidates[0]))
            used.add(candidates[0])
    return pairs


@dataclass
class RowDiff:
    a: Interaction
    b: Interaction
    value_a: float | None
    value_b: float | None

    @property
    def delta(self) -> float | None:
        if self.value_a is None or self.value_b is None:
            return None
        return self.value_b - self.value_a

    def output_diff(self) -> list[tuple[str, str]]:
        return word_diff(self.a.output, self.b.output)


def row_diffs(run_a: Run, run_b: Run, address: str | None) -> list[RowDiff]:
    """Matched rows with the chosen property's values, largest absolute change first."""
    pairs = match_interactions(run_a, run_b)
    values: dict[int, float] = {}
    if address:
        prop, _, field_name = address.partition(".")
        ids = [pk for pair in pairs for pk in pair]
        values = dict(
            PropertyValue.objects.filter(
                interaction_id__in=ids, property_name=prop, field=field_name or "interaction", status="ok"
            ).values_list("interaction_id", "value")
        )
    interactions = Interaction.objects.in_bulk([pk for pair in pairs for pk in pair])
    rows = [RowDiff(interactions[a], interactions[b], values.get(a), values.get(b)) for a, b in pairs]
    rows.sort(key=lambda row: (row.delta is None, -abs(row.delta or 0.0), row.a.pk))
    return rows


def word_diff(before: str, after: str) -> list[tuple[str, str]]:
    """(text, tag) pieces: tag is "equal", "delete" (only in before) or "insert" (only in after)."""
    a, b = WORDS.findall(before), WORDS.findall(after)
    pieces: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            pieces.append(("".join(a[i1:i2]), "equal"))
            continue
        if i2 > i1:
            pieces.append(("".join(a[i1:i2]), "delete"))
        if j2 > j1:
            pieces.append(("".join(b[j1:j2]), "insert"))
    return pieces
