"""Comparing runs: per-property statistics, distributions, and row-by-row matching of two runs.

Each run's statistics of a property (count, sum, sum of squares, how many pass, the histogram on
the comparison's shared edges) come from properties.quality.value_summaries: kept in the database
when a scoring job ends, computed by one grouped query over the runs' index entries for any run
whose kept ones are missing or stale, never as Python objects per value. From them come the
distributions, the means with their intervals and the pass rates. A property whose values are
labels with no number (Content Type) is compared by the share of each label per run.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db.models import Avg, Count, OuterRef, Subquery, Sum

from properties.annotations.annotation import RunScore, run_score
from properties.compare.matching import DiffRows, Pair, changed_pairs
from properties.models import Interaction, PropertyValue, Run
from properties.projects import property_names
from properties.quality import criteria, pass_rates, value_summaries
from properties.quality.criteria import Criterion
from properties.quality.value_summaries import SQUARED_VALUE
from properties.screen import datascreen

HISTOGRAM_BINS = 20
# A histogram's round steps, times a power of ten (see _edges). Close enough together that the
# bins hold the values with at most a third of the chart empty (1, 2, 2.5, 5 alone left up to half
# of it empty: word counts up to 146 got bins to 200).
ROUND_STEPS = (1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)
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
        .annotate(mean=Avg("value"), n=Count("value"), squares=Sum(SQUARED_VALUE))
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


@dataclass(frozen=True)
class RunStat:
    """One property on one run: its values' count, mean and spread, how many pass, its histogram."""

    count: int
    mean: float | None
    stddev: float
    passing: int | None
    counts: list[int]

    @property
    def ci95(self) -> float:
        return Stat(self.mean or 0.0, self.count, self.stddev).ci95

    @property
    def pass_rate(self) -> float | None:
        return None if self.passing is None or not self.count else self.passing / self.count


@dataclass
class PropertyComparison:
    address: str
    criterion: Criterion
    edges: list[float]
    # By run id; a run without values for the property is missing.
    stats: dict[int, RunStat] = field(default_factory=dict)
    # For a property of labels only: its labels, most frequent first, and their counts by run id.
    labels: list[str] = field(default_factory=list)
    label_counts: dict[int, dict[str, int]] = field(default_factory=dict)
    # What the page and the charts call it: the property's display name (property_names), else the address.
    name: str = ""

    def __post_init__(self) -> None:
        self.name = self.name or self.address

    @property
    def categorical(self) -> bool:
        return bool(self.labels)

    def label_shares(self, run_id: int) -> list[tuple[str, float]]:
        """Each label's share of the run's values, in the comparison's label order."""
        counts = self.label_counts.get(run_id, {})
        total = sum(counts.values())
        return [(label, counts.get(label, 0) / total) for label in self.labels] if total else []

    def interval(self, run_id: int) -> tuple[float, float] | None:
        """The mean's 95% interval, clipped to the property's range (a 0-1 property never shows -0.1)."""
        stat = self.stats.get(run_id)
        if stat is None or stat.mean is None:
            return None
        return self.criterion.clip(stat.mean - stat.ci95), self.criterion.clip(stat.mean + stat.ci95)

    @property
    def empty(self) -> bool:
        return not any(stat.count for stat in self.stats.values())


def compare_property(
    runs: list[Run], address: str, criterion: Criterion, bins: int = HISTOGRAM_BINS
) -> PropertyComparison:
    """One property of the runs: each run's statistics as value_summaries keeps them (computed
    now only for the runs whose kept ones are missing or stale)."""
    prop, _, field_name = address.partition(".")
    field_name = field_name or "interaction"
    values = PropertyValue.objects.filter(run__in=runs, property_name=prop, field=field_name, value__isnull=False)
    edges = _edges(values, runs, criterion, bins)
    comparison = PropertyComparison(address, criterion, edges)
    summaries = value_summaries.run_values(runs, prop, field_name, criterion, edges)
    if not edges:
        _count_labels(comparison, summaries)
        return comparison
    for run_id, summary in summaries.items():
        comparison.stats[run_id] = _run_stat(summary)
    return comparison


def _count_labels(comparison: PropertyComparison, summaries: dict[int, value_summaries.RunValues]) -> None:
    """A property without numbers: each run's label counts, the labels most frequent first."""
    totals: dict[str, int] = {}
    for run_id, summary in summaries.items():
        comparison.label_counts[run_id] = dict(summary.labels)
        comparison.stats[run_id] = RunStat(summary.count, None, 0.0, None, [])
        for label, n in summary.labels.items():
            totals[label] = totals.get(label, 0) + n
    comparison.labels = sorted(totals, key=lambda label: (-totals[label], label))


def _edges(values, runs: list[Run], criterion: Criterion, bins: int) -> list[float]:
    """Shared bin edges: the property's range when it has one, else the values' own, widened to
    round steps (ROUND_STEPS times a power of ten). Round edges read better on the chart, and
    runs of about the same values get the same edges whichever of them are compared, so each run's
    kept statistics serve every comparison it is in (value_summaries keeps them per edges)."""
    low, high = criterion.low, criterion.high
    if low is not None and high is not None:
        return _even_edges(low, high, bins)
    found = _value_range(values, runs)
    if found is None:
        return []
    rounded = _round_range(found, low, high, bins)
    if rounded is not None:
        return _even_edges(*rounded, bins)
    return _even_edges(found[0] if low is None else low, found[1] if high is None else high, bins)


def _even_edges(low: float, high: float, bins: int) -> list[float]:
    if math.isclose(low, high):
        high = low + 1.0
    # Each edge from the range's share i / bins, not from i steps added: 0.85 is an edge of 0 to 1
    # (17 * 0.05 gives 0.8500000000000001), so a threshold of 0.85 falls on it (value_summaries).
    return [low + (high - low) * i / bins for i in range(bins)] + [high]


def _round_range(
    found: tuple[float, float], low: float | None, high: float | None, bins: int
) -> tuple[float, float] | None:
    """The narrowest range of `bins` round steps that holds the values and keeps a fixed end of the
    property's range; None when the values are all equal or too large for round steps."""
    least, most = found
    start, end = least if low is None else low, most if high is None else high
    raw = (end - start) / bins
    if not math.isfinite(raw) or raw <= 0:
        return None
    magnitude = 10.0 ** math.floor(math.log10(raw))
    for step in (factor * magnitude * scale for scale in (1, 10, 100) for factor in ROUND_STEPS):
        if step < raw:
            continue
        if low is not None:
            first = low
        elif high is not None:
            first = high - bins * step
        else:
            first = math.floor(least / step) * step
        last = high if high is not None else first + bins * step
        if first <= least and last >= most and math.isfinite(first) and math.isfinite(last):
            return first, last
    return None


def _value_range(values, runs: list[Run]) -> tuple[float, float] | None:
    """The lowest and highest value of the runs: each run's ends read from the index, two rows a run
    (a MIN and MAX over several runs read all their values: 0.7 to 1 s for 10 runs of 100,000), in
    one statement (two a run took 80 round trips for 10 runs and 4 properties, 50 to 70 ms)."""
    of_run = values.filter(run=OuterRef("pk")).values("value")
    ends = Run.objects.filter(pk__in=[run.pk for run in runs]).annotate(
        low=Subquery(of_run.order_by("value")[:1]), high=Subquery(of_run.order_by("-value")[:1])
    )
    found = [(low, high) for low, high in ends.values_list("low", "high") if low is not None]
    return (min(low for low, _ in found), max(high for _, high in found)) if found else None


def _run_stat(summary: value_summaries.RunValues) -> RunStat:
    n = summary.count
    mean = summary.total / n if n else None
    variance = (summary.squares - n * mean * mean) / (n - 1) if n > 1 and mean is not None else 0.0
    return RunStat(n, mean, math.sqrt(max(variance, 0.0)), summary.passing, list(summary.counts))


def compare_properties(runs: list[Run], addresses: list[str], project) -> list[PropertyComparison]:
    """The chosen properties compared across the runs, each cached under the runs' scoring state.

    Each run's statistics are kept in the database (value_summaries); the whole comparison is also
    cached, as the pass rates are, until a run's latest job moves on (and for at most
    pass_rates.CACHE_SECONDS), which saves the kept rows' reads and the value ranges' probes."""
    judged = criteria.criteria_for(project, addresses)
    names = property_names.names_for(project, addresses)
    states = _scoring_states(runs)
    comparisons = []
    for address in addresses:
        name = _cache_name("comparison", [states, address, judged[address].to_dict(), HISTOGRAM_BINS])
        compared = cache.get(name)
        if compared is None:
            compared = compare_property(runs, address, judged[address])
            cache.set(name, compared, pass_rates.CACHE_SECONDS)
        comparisons.append(compared)
    for compared in comparisons:
        compared.name = str(names[compared.address])
    return comparisons


def keep_run_summaries(run: Run) -> list[str]:
    """Keep the run's statistics of each of its properties, as a comparison that holds the run reads
    them (value_summaries): sent when a scoring job of the run ends. A property without a range of
    its own gets edges from this run's values; a comparison whose runs span more of them computes
    its own. Returns the properties' addresses."""
    addresses = datascreen.property_addresses(run)
    judged = criteria.criteria_for(run.project, addresses)
    for address in addresses:
        compare_property([run], address, judged[address])
    return addresses


def cached_changed_pairs(run_a: Run, run_b: Run, address: str | None, tolerance: float) -> DiffRows:
    """The row-by-row changes of two runs, cached under their scoring state as the comparisons are.

    Matching two runs of 100,000 and counting their changes is one statement of 0.4 to 0.6 s on
    PostgreSQL; it is cached with the first pairs it reads (matching.FIRST_PAIRS, the first 20
    pages), so paging through them, or coming back to the fragment, runs no statement."""
    name = _cache_name("row-diff", [_scoring_states([run_a, run_b]), address, tolerance])
    changed = cache.get(name)
    if changed is None:
        changed = changed_pairs(run_a, run_b, address, tolerance)
        cache.set(name, changed, pass_rates.CACHE_SECONDS)
    return changed


def _scoring_states(runs: list[Run]) -> list:
    """What a cached comparison depends on: each run (a deleted and recreated id is another run) and
    its latest job's progress."""
    return [(run.pk, run.created_at.isoformat(), pass_rates.scoring_state(run)) for run in runs]


def _cache_name(kind: str, signature: list) -> str:
    text = json.dumps(signature, sort_keys=True)
    return f"{kind}:{hashlib.sha256(text.encode()).hexdigest()[:24]}"


@dataclass
class RowDiff:
    a: Interaction
    b: Interaction
    # A number, or a label for a property of labels (content_type); None: no value on that side.
    value_a: float | str | None
    value_b: float | str | None
    criterion: Criterion | None = None

    @property
    def labels(self) -> bool:
        return isinstance(self.value_a, str) or isinstance(self.value_b, str)

    @property
    def delta(self) -> float | None:
        if not isinstance(self.value_a, float | int) or not isinstance(self.value_b, float | int):
            return None
        return self.value_b - self.value_a

    @property
    def change(self) -> str:
        """improved, regressed, changed (no direction, or another label) or "" (one side has no value)."""
        if self.labels and None not in (self.value_a, self.value_b):
            return "changed" if self.value_a != self.value_b else ""
        if self.delta is None:
            return ""
        if self.criterion is None or not self.criterion.judges:
            return "changed"
        better = self.delta > 0 if self.criterion.direction == criteria.HIGHER else self.delta < 0
        return "improved" if better else "regressed"

    def output_diff(self) -> list[tuple[str, str]]:
        return word_diff(self.a.output, self.b.output)


def diff_rows(pairs: Sequence[Pair], criterion: Criterion | None = None) -> list[RowDiff]:
    """One page of pairs with their interactions, read only now."""
    interactions = Interaction.objects.in_bulk([pk for a, b, _, _ in pairs for pk in (a, b)])
    return [RowDiff(interactions[a], interactions[b], va, vb, criterion) for a, b, va, vb in pairs]


def row_diffs(run_a: Run, run_b: Run, address: str | None, tolerance: float = 0.0) -> list[RowDiff]:
    """Matched rows with the chosen property's values, largest absolute change first."""
    return diff_rows(list(changed_pairs(run_a, run_b, address, tolerance).pairs))


def word_diff(before: str, after: str) -> list[tuple[str, str]]:
    """(text, tag) pieces: tag is "equal", "delete" (only in before) or "insert" (only in after).

    The same text is one equal piece without a search: SequenceMatcher's is slow on repetitive
    text (a page of 50 unchanged outputs of up to 300 words took 100 ms), and two runs' outputs are
    often the same where a scorer's value changed. Trimming the words both texts start and end with
    before the search was tried too, and not kept: SequenceMatcher, which finds the longest common
    block first, then marked more words as changed in about 1% of short random texts."""
    if before == after:
        return [(before, "equal")] if before else []
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
