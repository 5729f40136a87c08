"""`disagrees:<property>`: the interactions where the property's verdict and the team's label differ.

A value that passes on an interaction people labelled bad, or fails on one labelled good. The rules'
labels are left out (they are derived from property values; annotations.agreement says why). The
Data Screen lists them furthest from the threshold first: the surest verdicts that contradict a
label, where either the label or the property is most plainly wrong.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, Q, QuerySet

from properties.models import Annotation, AnnotationSource, PropertyValue, Run
from properties.quality import criteria
from properties.quality.criteria import Criterion
from properties.screen.rows import Ranking


def disagreeing_q(values: QuerySet, criterion: Criterion) -> Q:
    """A condition on interactions: a person's label that the property's verdict contradicts.
    `values`: the property's values of the interaction (a PropertyValue queryset of one property and
    field, correlated on `interaction_id=OuterRef("pk")`); the criterion must judge (a direction and
    a threshold). The labels are read on the interaction itself, the values by an EXISTS each: a
    join from the values to the interactions was a second pass over them at a million."""
    by_people = ~Q(annotation_source=AnnotationSource.ESTIMATED)
    passing, failing = Exists(values.filter(criterion.passing_q())), Exists(values.filter(criterion.failing_q()))
    return by_people & ((Q(annotation=Annotation.BAD) & Q(passing)) | (Q(annotation=Annotation.GOOD) & Q(failing)))


def order_of(run: Run, conditions: list[Any]) -> Ranking | None:
    """The order of a view filtered by `disagrees:` (its first such condition): the furthest from the
    threshold first, ties by id. None without one, or when the property does not judge.

    Two reads of the value index, each from one end (the values above the threshold from the top,
    those below from the bottom), merged: the first page reads a page's worth of values of each, where
    ordering by the distance sorted every disagreeing value first. The view's filter (which holds the
    `disagrees:` condition) keeps the disagreeing ones.
    """
    condition = next((c for c in conditions if getattr(c, "status", "") == "disagrees"), None)
    if condition is None:
        return None
    criterion = criteria.criterion_for(run.project, condition.prop)
    if not criterion.judges:
        return None
    threshold = criterion.threshold
    values = PropertyValue.objects.filter(run=run, property_name=condition.prop, field=condition.field)
    above = values.filter(value__gte=threshold).order_by("-value", "interaction_id")
    below = values.filter(value__lt=threshold).order_by("value", "interaction_id")
    streams = [stream.values_list("interaction_id", "value") for stream in (above, below)]
    return Ranking(streams, key=lambda row: (-abs(row[1] - threshold), row[0]))
