"""Comparing runs: per-property statistics, distributions, and row-by-row matching of two runs.

The comparison page reads each chosen property once for all runs: one grouped query returns, per
run and histogram bin, the count, the sum and the sum of squares of the values and how many pass,
from which come the distributions, the means with their intervals and the pass rates. Ten runs of
10,000 interactions are 100,000 index entries per property, never 100,000 Python objects. A property
whose values are labels with no number (Content Type) is compared by the share of each label per run,
from one grouped count.
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
from django.db.models import Avg, Case, Count, F, FloatField, IntegerField, Sum, Value, When

from properties.annotations.annotation import RunScore, run_score
from properties.compare.matching import DiffRows, Pair, changed_pairs
from properties.models import Interaction, PropertyValue, Run
from properties.projects import property_names
from properties.quality import criteria, pass_rates
from properties.quality.criteria import Criterion

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


# A value's square for the sums that give a deviation. PostgreSQL raises on a float product that
# underflows (a value under 1e-154 squared), where the square is as good as 0.
SQUARED_VALUE = Case(
    When(value__gt=-1e-150, value__lt=1e-150, then=Value(0.0)),
    default=F("value") * F("value"),
    output_field=FloatField(),
)


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
    prop, _, field_name = address.partition(".")
    values = PropertyValue.objects.filter(
        run__in=runs, property_name=prop, field=field_name or "interaction", value__isnull=False
    )
    edges = _edges(values, runs, criterion, bins)
    comparison = PropertyComparison(address, criterion, edges)
    if not edges:
        _count_labels(comparison, runs, prop, field_name or "interaction")
        return comparison
    bucket = Case(
        *(When(value__lt=edge, then=Value(i)) for i, edge in enumerate(edges[1:-1])),
        default=Value(bins - 1),
        output_field=IntegerField(),
    )
    # Counted on `value`, not the id: every column then is in the (run, property, field, value,
    # interaction) index, which PostgreSQL reads alone. Counting ids sent it through the run's
    # values in the table, all properties of them: 13 s a property for 10 runs of 100,000.
    sums = {
        "n": Count("value"),
        "total": Sum("value"),
        "squares": Sum(SQUARED_VALUE, output_field=FloatField()),
    }
    if criterion.judges:
        sums["passing"] = Count("value", filter=criterion.passing_q())
    rows = values.values("run_id", bin=bucket).annotate(**sums).order_by()
    grouped: dict[int, list[dict]] = {}
    for row in rows:
        grouped.setdefault(row["run_id"], []).append(row)
    for run_id, parts in grouped.items():
        comparison.stats[run_id] = _run_stat(parts, bins, criterion.judges)
    return comparison


def _count_labels(comparison: PropertyComparison, runs: list[Run], prop: str, field_name: str) -> None:
    """A property without numbers: count its labels per run (errors and "not applicable" have none)."""
    labelled = PropertyValue.objects.filter(run__in=runs, property_name=prop, field=field_name, value__isnull=True)
    rows = labelled.exclude(label="").values("run_id", "label").annotate(n=Count("id")).order_by()
    totals: dict[str, int] = {}
    for row in rows:
        comparison.label_counts.setdefault(row["run_id"], {})[row["label"]] = row["n"]
        totals[row["label"]] = totals.get(row["label"], 0) + row["n"]
    comparison.labels = sorted(totals, key=lambda label: (-totals[label], label))
    for run_id, counts in comparison.label_counts.items():
        comparison.stats[run_id] = RunStat(sum(counts.values()), None, 0.0, None, [])


def _edges(values, runs: list[Run], criterion: Criterion, bins: int) -> list[float]:
    """Shared bin edges: the property's range when it has one, else the values' own."""
    low, high = criterion.low, criterion.high
    if low is None or high is None:
        found = _value_range(values, runs)
        if found is None:
            return []
        low = found[0] if low is None else low
        high = found[1] if high is None else high
    if math.isclose(low, high):
        high = low + 1.0
    width = (high - low) / bins
    return [low + i * width for i in range(bins)] + [high]


def _value_range(values, runs: list[Run]) -> tuple[float, float] | None:
    """The lowest and highest value of the runs: each run's ends read from the index, two rows a run
    (a MIN and MAX over several runs read all their values: 0.7 to 1 s for 10 runs of 100,000)."""
    ends = []
    for run in runs:
        ordered = values.filter(run=run).order_by("value").values_list("value", flat=True)
        low = ordered.first()
        if low is not None:
            ends += [low, ordered.last()]
    return (min(ends), max(ends)) if ends else None


def _run_stat(parts: list[dict], bins: int, judged: bool) -> RunStat:
    counts = [0] * bins
    n = total = squares = 0.0
    passing = 0
    for part in parts:
        counts[part["bin"]] += part["n"]
        n += part["n"]
        total += part["total"] or 0.0
        squares += part["squares"] or 0.0
        passing += part.get("passing") or 0
    mean = total / n if n else None
    variance = (squares - n * mean * mean) / (n - 1) if n > 1 and mean is not None else 0.0
    return RunStat(int(n), mean, math.sqrt(max(variance, 0.0)), passing if judged else None, counts)


def compare_properties(runs: list[Run], addresses: list[str], project) -> list[PropertyComparison]:
    """The chosen properties compared across the runs, each cached under the runs' scoring state.

    A property's comparison reads all its values in the runs: 10 runs of 100,000 are a million index
    entries, 1.3 to 1.7 s a property on two busy cores. Values change only when scoring writes them,
    so, as the pass rates are, each is kept until a run's latest job moves on (and for at most
    pass_rates.CACHE_SECONDS, for values written without a job)."""
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
