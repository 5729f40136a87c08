"""Each run's statistics of one property, kept in the database once its values stop changing.

The comparison page shows, per run and property, the values' count, sum, sum of squares, how many
pass and a histogram on shared edges (or, for a property of labels, each label's count). Computing
them reads every value of the runs: ten runs of 100,000 are a million index entries, about 235 ms a
property on PostgreSQL and over a second for a page of four properties. A run's values change only
while a scoring job writes them, so each run's statistics are kept in a row of their own
(RunValueSummary) under a signature of what they were computed for: the run's latest scoring job
and the histogram's edges. A comparison then reads one small row per run and property, and computes
(and keeps) only what is missing or stale.

What passes is not kept: a project's threshold changes more often than its runs, and a kept count
of passing values would be stale at each change. It is read from the kept histogram instead
(`passing_from_histogram`): every bin above the threshold passes whole, and only the values of the
one bin the threshold falls inside are counted, a range of the value index about a twentieth of
the run's (none when the threshold is one of the edges, as the defaults of 0-1 properties are).

Kept when a scoring job ends (comparison.keep_run_summaries, sent by the pipeline), or by the first
comparison that needs them. Never kept while a job of the run is still scoring: its values are moving.
A value written after its job ended (a chunk that finished late) forgets the run's rows of that
property (scoring.store_values calls `forget`), and that chunk's end has them kept again. The job
notes when they were kept (`mark_kept`); the sweeper has them kept for a run whose latest job ended
without them: a keeping task the broker refused, a run scored before statistics were kept.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from django.db import DatabaseError, transaction
from django.db.models import Case, Count, F, FloatField, IntegerField, Q, Sum, Value, When
from django.utils import timezone

from properties.models import PropertyValue, Run, RunValueSummary, ScoringJob
from properties.quality.criteria import HIGHER, Criterion

logger = logging.getLogger(__name__)

# The state of a run that no scoring job ever wrote (values stored by other means, or none).
NO_JOB = "no job"

# A value's square for the sums that give a deviation. PostgreSQL raises on a float product that
# underflows (a value under 1e-154 squared), where the square is as good as 0.
SQUARED_VALUE = Case(
    When(value__gt=-1e-150, value__lt=1e-150, then=Value(0.0)),
    default=F("value") * F("value"),
    output_field=FloatField(),
)


@dataclass(frozen=True)
class RunValues:
    """One run's values of one property and field: for numbers, their count, sum, sum of squares,
    how many pass (None when the property does not judge, and in the kept rows, which hold what
    does not depend on the threshold) and their count in each histogram bin; for labels, each
    label's count."""

    count: int
    total: float = 0.0
    squares: float = 0.0
    passing: int | None = None
    counts: list[int] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "count": self.count,
            "total": self.total,
            "squares": self.squares,
            "passing": self.passing,
            "counts": self.counts,
            "labels": self.labels,
        }

    @classmethod
    def from_dict(cls, data: dict) -> RunValues:
        return cls(**data)


def scoring_states(runs: Sequence[Run]) -> dict[int, str | None]:
    """Per run, what its values are as of: its latest scoring job, when that job has ended (NO_JOB
    for a run no job scored); None while a job is planning or scoring (nothing may be kept then)."""
    return {run.pk: job_state(latest_scoring_job(run)) for run in runs}


def latest_scoring_job(run: Run) -> ScoringJob | None:
    jobs = run.jobs.filter(kind=ScoringJob.Kind.SCORING).order_by("-created_at", "-pk")
    return jobs.only("pk", "run_id", "status").first()


def job_state(job: ScoringJob | None) -> str | None:
    """The state a run's statistics are kept under, as of its latest scoring job (scoring_states)."""
    if job is None:
        return NO_JOB
    return f"job {job.pk} {job.status}" if job.is_finished else None


def mark_kept(job: ScoringJob | None, properties_kept: bool) -> bool:
    """Note on the run's latest scoring job, read before its statistics were kept, that they are
    kept as of its values, so that the sweeper does not have them kept again. Not noted when the job
    was still scoring, or when none of its run's rows of that state were written (the write was
    refused: the sweeper tries again). `properties_kept`: whether the run had properties to keep.
    Returns whether it was noted."""
    state = job_state(job)
    if job is None or state is None:
        return False
    if properties_kept and not RunValueSummary.objects.filter(run_id=job.run_id, state=state).exists():
        return False
    return bool(ScoringJob.objects.filter(pk=job.pk, status=job.status).update(statistics_kept_at=timezone.now()))


def signature(state: str, edges: list[float]) -> str:
    """What a run's kept statistics depend on besides its values: the histogram's edges (a property
    of labels has none). Not the criterion: what passes is read at each comparison."""
    text = json.dumps(["histogram without passing", state, edges], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def run_values(
    runs: Sequence[Run], prop: str, field_name: str, criterion: Criterion, edges: list[float]
) -> dict[int, RunValues]:
    """{run id: RunValues} for the runs with values of the property on that field: the kept ones
    whose signature still holds, the rest computed in one grouped read and kept where their run is
    not being scored. `edges`: the histogram's shared edges; empty for a property of labels."""
    states = scoring_states(runs)
    wanted = {run.pk: signature(state, edges) for run in runs if (state := states[run.pk]) is not None}
    kept = RunValueSummary.objects.filter(
        run__in=runs, property_name=prop, field=field_name, signature__in=list(wanted.values())
    ).values_list("run_id", "signature", "statistics")
    found = {run_id: RunValues.from_dict(data) for run_id, sign, data in kept if wanted.get(run_id) == sign}
    missing = [run for run in runs if run.pk not in found]
    if missing:
        computed = _computed(missing, prop, field_name, edges)
        _keep(missing, prop, field_name, computed, states, wanted)
        found.update(computed)
    found = {run_id: values for run_id, values in found.items() if values.count}
    if edges and criterion.judges:
        found = _with_passing(found, prop, field_name, criterion, edges)
    return found


def _computed(runs: list[Run], prop: str, field_name: str, edges: list[float]) -> dict[int, RunValues]:
    """Every run's statistics, a run without values included (count 0: kept, so it is not read again)."""
    computed = _histograms(runs, prop, field_name, edges) if edges else _label_counts(runs, prop, field_name)
    return {run.pk: computed.get(run.pk, RunValues(0)) for run in runs}


def threshold_bin(criterion: Criterion, edges: list[float]) -> tuple[int, bool]:
    """(the histogram bin the threshold falls in, whether the threshold is that bin's lower edge).

    Bin i holds the values from edges[i] up to edges[i + 1], that edge left out; the first bin also
    holds every value under the edges and the last every value over them (`_histograms`)."""
    inner = edges[1:-1]
    index = bisect.bisect_right(inner, criterion.threshold)
    return index, index > 0 and inner[index - 1] == criterion.threshold


def passing_from_histogram(criterion: Criterion, edges: list[float], values: RunValues, in_bin: int) -> int:
    """How many of the run's values pass, from its histogram and `in_bin`, the count of its values
    in the threshold's bin that are at or above the threshold."""
    index, _ = threshold_bin(criterion, edges)
    at_or_above = sum(values.counts[index + 1 :]) + in_bin
    return at_or_above if criterion.direction == HIGHER else values.count - at_or_above


def _with_passing(
    found: dict[int, RunValues], prop: str, field_name: str, criterion: Criterion, edges: list[float]
) -> dict[int, RunValues]:
    """The statistics with each run's passing count, read from its histogram and, when the threshold
    falls inside a bin, one grouped count of that bin's values at or above it."""
    index, on_edge = threshold_bin(criterion, edges)
    if on_edge:
        in_bin = {run_id: values.counts[index] for run_id, values in found.items()}
    else:
        in_bin = dict.fromkeys(found, 0)
        above = Q(value__gte=criterion.threshold)
        if index < len(edges) - 2:  # the last bin holds every value over the edges
            above &= Q(value__lt=edges[index + 1])
        rows = PropertyValue.objects.filter(above, run__in=list(found), property_name=prop, field=field_name)
        for run_id, n in rows.values("run_id").annotate(n=Count("value")).values_list("run_id", "n").order_by():
            in_bin[run_id] = n
    return {
        run_id: replace(values, passing=passing_from_histogram(criterion, edges, values, in_bin[run_id]))
        for run_id, values in found.items()
    }


def _histograms(runs: list[Run], prop: str, field_name: str, edges: list[float]) -> dict[int, RunValues]:
    bins = len(edges) - 1
    bucket = Case(
        *(When(value__lt=edge, then=Value(i)) for i, edge in enumerate(edges[1:-1])),
        default=Value(bins - 1),
        output_field=IntegerField(),
    )
    # Counted on `value`, not the id: every column then is in the (run, property, field, value,
    # interaction) index, which PostgreSQL reads alone. Counting ids sent it through the run's
    # values in the table, all properties of them: 13 s a property for 10 runs of 100,000.
    sums = {"n": Count("value"), "total": Sum("value"), "squares": Sum(SQUARED_VALUE, output_field=FloatField())}
    values = PropertyValue.objects.filter(run__in=runs, property_name=prop, field=field_name, value__isnull=False)
    parts: dict[int, dict] = {}
    for row in values.values("run_id", bin=bucket).annotate(**sums).order_by():
        empty = {"counts": [0] * bins, "n": 0, "total": 0.0, "squares": 0.0}
        part = parts.setdefault(row["run_id"], empty)
        part["counts"][row["bin"]] += row["n"]
        part["n"] += row["n"]
        part["total"] += row["total"] or 0.0
        part["squares"] += row["squares"] or 0.0
    return {
        run_id: RunValues(part["n"], part["total"], part["squares"], None, part["counts"])
        for run_id, part in parts.items()
    }


def _label_counts(runs: list[Run], prop: str, field_name: str) -> dict[int, RunValues]:
    """A property without numbers: its labels counted per run (errors and "not applicable" have none)."""
    labelled = PropertyValue.objects.filter(run__in=runs, property_name=prop, field=field_name, value__isnull=True)
    counts: dict[int, dict[str, int]] = {}
    rows = labelled.exclude(label="").values_list("run_id", "label").annotate(n=Count("id")).order_by()
    for run_id, label, n in rows:
        counts.setdefault(run_id, {})[label] = n
    return {run_id: RunValues(sum(labels.values()), labels=labels) for run_id, labels in counts.items()}


def _keep(
    runs: list[Run],
    prop: str,
    field_name: str,
    computed: dict[int, RunValues],
    states: dict[int, str | None],
    wanted: dict[int, str],
) -> None:
    """Store the statistics of the runs not being scored. A run's rows of an older state go first;
    those of the same state under another signature (other edges) stay, so that two comparisons of
    different runs do not undo each other's rows."""
    keepable = [run for run in runs if run.pk in wanted]
    if not keepable:
        return
    rows = [
        RunValueSummary(
            run=run,
            property_name=prop,
            field=field_name,
            state=states[run.pk],
            signature=wanted[run.pk],
            statistics=computed[run.pk].to_dict(),
        )
        for run in keepable
    ]
    # Keeping is a saving, never a reason for a page to fail: a write that waits too long for
    # SQLite's lock (a worker storing values) or fails otherwise leaves the rows to the next visit.
    try:
        with transaction.atomic():
            for run in keepable:
                stale = RunValueSummary.objects.filter(run=run, property_name=prop, field=field_name)
                stale.exclude(state=states[run.pk]).delete()
            # ignore_conflicts: another request kept the same statistics meanwhile.
            RunValueSummary.objects.bulk_create(rows, ignore_conflicts=True)
    except DatabaseError as exc:
        logger.warning("statistics of %s.%s not kept (%s); they are computed again next time", prop, field_name, exc)


def forget(run_id: int, prop: str) -> None:
    """The run's values of the property changed outside a job's course: its kept statistics go, and
    its jobs no longer count as kept (the sweeper has them kept again if nothing else does)."""
    RunValueSummary.objects.filter(run_id=run_id, property_name=prop).delete()
    ScoringJob.objects.filter(run_id=run_id, statistics_kept_at__isnull=False).update(statistics_kept_at=None)


def forget_everywhere(runs, prop: str) -> None:
    """As `forget`, for the values of several runs deleted at once (a prompt property removed)."""
    RunValueSummary.objects.filter(run__in=runs, property_name=prop).delete()
