"""A property measured against the team's own labels, over a project's runs: what the property's
page and the API show, read from the database in two queries. The statistics are
quality/agreement_stats.py; the chart is agreement_chart.py.

Only people's labels count (set in the Data Screen, or uploaded with the data): the rules' labels
are derived from property values, and measuring a property against them would measure it against
itself. They are counted apart, so the page can say what was used and what was left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from django.db.models import Count

from properties.models import Annotation, AnnotationSource, Interaction, Project, PropertyValue, Run
from properties.quality import agreement_stats, criteria
from properties.quality.criteria import HIGHER, LOWER, Criterion
from properties.screen import datascreen, page

SOURCES = {AnnotationSource.PERSON: "person", AnnotationSource.NONE: "uploaded", AnnotationSource.ESTIMATED: "rules"}


@dataclass
class PropertyAgreement:
    prop: str
    address: str
    criterion: Criterion
    runs: list[Run]
    # {"person" | "uploaded" | "rules": {"good": n, "bad": n}}: every label of the runs, by its source.
    sources: dict[str, dict[str, int]]
    # People's labels on interactions with a value of the property, and those without one (not
    # scored yet, not applicable, an error): left out of the figures.
    good: int = 0
    bad: int = 0
    without_value: int = 0
    # The direction the figures use: the property's own, else the one the labels point to.
    direction: str = ""
    direction_inferred: bool = False
    target_precision: float | None = None
    figures: agreement_stats.Figures | None = None
    labels: list[agreement_stats.LabelRow] | None = None
    good_values: list[float] = field(default_factory=list)
    bad_values: list[float] = field(default_factory=list)
    # Interactions where the current verdict and the label differ, by run id (the Data Screen's
    # `disagrees:` filter lists them run by run).
    disagreements: dict[int, int] = field(default_factory=dict)

    @property
    def categorical(self) -> bool:
        return self.labels is not None

    @property
    def needed(self) -> dict[str, int]:
        return agreement_stats.needed(self.good, self.bad)

    @property
    def enough(self) -> bool:
        return not any(self.needed.values())

    @property
    def people(self) -> dict[str, int]:
        return {label: self.sources["person"][label] + self.sources["uploaded"][label] for label in ("good", "bad")}


def runs_of(project: Project, run_ids: list[int] | None = None) -> list[Run]:
    """The project's live runs, or those of them chosen; oldest first."""
    runs = project.runs.live().order_by("created_at", "pk")
    return list(runs.filter(pk__in=run_ids) if run_ids else runs)


def measure(project: Project, prop: str, runs: list[Run], target_precision: float | None = None) -> PropertyAgreement:
    address = page.address_of(prop)
    field_name = datascreen.split_address(address)[1]
    criterion = criteria.criterion_for(project, prop)
    result = PropertyAgreement(prop, address, criterion, runs, _sources(runs), target_precision=target_precision)
    labelled = Interaction.objects.filter(run__in=runs).labelled_by_people()
    rows = list(
        PropertyValue.objects.filter(
            run__in=runs,
            property_name=prop,
            field=field_name,
            status=PropertyValue.Status.OK,
            interaction__in=labelled,
        ).values_list("run_id", "value", "label", "interaction__annotation")
    )
    people = result.people
    result.without_value = people["good"] + people["bad"] - len(rows)
    if any(value is None and label for _, value, label, _ in rows):
        return _by_label(result, rows)
    rows = [row for row in rows if row[1] is not None]
    values = np.array([value for _, value, _, _ in rows], dtype=float)
    good = np.array([annotation == Annotation.GOOD for _, _, _, annotation in rows], dtype=bool)
    result.good, result.bad = int(good.sum()), int((~good).sum())
    result.good_values, result.bad_values = values[good].tolist(), values[~good].tolist()
    if not result.enough:
        return result
    if criterion.direction in (HIGHER, LOWER):
        result.direction = criterion.direction
        threshold = criterion.threshold
    else:
        result.direction, result.direction_inferred = agreement_stats.inferred_direction(values, good), True
        threshold = None
    result.figures = agreement_stats.figures(values, good, result.direction, threshold, target_precision)
    if threshold is not None:
        passed = agreement_stats.passes(values, result.direction, threshold)
        for (run_id, *_), disagrees in zip(rows, passed != good, strict=True):
            if disagrees:
                result.disagreements[run_id] = result.disagreements.get(run_id, 0) + 1
    return result


def _by_label(result: PropertyAgreement, rows: list[tuple]) -> PropertyAgreement:
    rows = [row for row in rows if row[2]]
    good = np.array([annotation == Annotation.GOOD for *_, annotation in rows], dtype=bool)
    result.good, result.bad = int(good.sum()), int((~good).sum())
    result.labels = agreement_stats.label_agreement([label for _, _, label, _ in rows], good)
    return result


def _sources(runs: list[Run]) -> dict[str, dict[str, int]]:
    counts = {name: {"good": 0, "bad": 0} for name in SOURCES.values()}
    rows = (
        Interaction.objects.filter(run__in=runs, annotation__in=("good", "bad"))
        .values_list("annotation", "annotation_source")
        .annotate(n=Count("*"))
        .order_by()
    )
    for label, source, n in rows:
        counts[SOURCES.get(source, "uploaded")][label] += n
    return counts


def describe_suggestion(agreement: PropertyAgreement) -> str:
    """What a suggestion was measured on, kept with the threshold when a person applies it."""
    suggestion = agreement.figures.suggestion if agreement.figures else None
    if suggestion is None:
        return ""
    runs = ", ".join(run.name for run in agreement.runs)
    goal = (
        f"the most bad caught at precision {suggestion.target_precision:g} or more"
        if suggestion.goal == "precision"
        else "the best balanced accuracy"
    )
    return (
        f"{goal}: balanced accuracy {suggestion.confusion.balanced_accuracy:.3f} on {agreement.good} good and "
        f"{agreement.bad} bad labels by people (runs: {runs})"
    )
