"""`disagrees:<property>`: the interactions where the property's verdict and the team's label differ.

A value that passes on an interaction people labelled bad, or fails on one labelled good. The rules'
labels are left out (they are derived from property values; annotations.agreement says why). The
Data Screen lists them furthest from the threshold first: the surest verdicts that contradict a
label, where either the label or the property is most plainly wrong.
"""

from __future__ import annotations

from typing import Any

from django.db.models import F, Q, QuerySet
from django.db.models.functions import Abs

from properties.models import Annotation, AnnotationSource, PropertyValue, Run
from properties.quality import criteria
from properties.quality.criteria import Criterion


def disagreeing(values: QuerySet, criterion: Criterion) -> QuerySet:
    """Of a property's values (a PropertyValue queryset of one property and field), those whose
    verdict contradicts a person's label. The criterion must judge (a direction and a threshold)."""
    # A person's label, read on the interaction the contradiction already joins: a subquery of the
    # people's labels (Interaction.objects.labelled_by_people) was a second pass over every run's
    # interactions (3.5 s of a page at a million interactions).
    by_people = ~Q(interaction__annotation_source=AnnotationSource.ESTIMATED)
    contradicts = (criterion.passing_q() & Q(interaction__annotation=Annotation.BAD)) | (
        criterion.failing_q() & Q(interaction__annotation=Annotation.GOOD)
    )
    return values.filter(value__isnull=False).filter(by_people & contradicts)


def furthest_first(values: QuerySet, criterion: Criterion) -> QuerySet:
    """Interaction ids of the disagreeing values, the furthest from the threshold first (ties by id)."""
    distance = Abs(F("value") - criterion.threshold)
    return (
        disagreeing(values, criterion)
        .order_by(distance.desc(), "interaction_id")
        .values_list("interaction_id", flat=True)
    )


def order_of(run: Run, conditions: list[Any]) -> QuerySet | None:
    """The order of a view filtered by `disagrees:` (its first such condition): interaction ids
    furthest from the threshold first. None without one, or when the property does not judge."""
    condition = next((c for c in conditions if getattr(c, "status", "") == "disagrees"), None)
    if condition is None:
        return None
    criterion = criteria.criterion_for(run.project, condition.prop)
    if not criterion.judges:
        return None
    values = PropertyValue.objects.filter(run=run, property_name=condition.prop, field=condition.field)
    return furthest_first(values, criterion)
