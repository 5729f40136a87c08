"""Setting a property's pass or fail in a project, with who set it, when and how.

`Project.pass_criteria` holds the setting that every page reads (criteria.criterion_for); each
change of direction or threshold also leaves a ThresholdChange row, so the property's page can say
"set by rita on 3 December, from the suggestion of the team's labels".
"""

from __future__ import annotations

from django.db import transaction

from properties.models import Project, ThresholdChange
from properties.quality import criteria


def save_criterion(
    project: Project,
    prop: str,
    *,
    direction: str,
    threshold: float | None,
    tolerance: float | None,
    user,
    how: str = ThresholdChange.How.FORM,
    note: str = "",
    key: bool | None = None,
) -> ThresholdChange | None:
    """Store a property's criterion, and whether it is a key property when `key` is given (the
    settings page and the API, which have checked the threshold with criteria.threshold_problem);
    returns the change recorded (None when direction and threshold stayed as they were)."""
    before = criteria.criterion_for(project, prop)
    settings = dict(project.pass_criteria or {})
    settings[prop] = {
        "direction": direction,
        "threshold": threshold,
        "tolerance": tolerance if tolerance is not None else before.tolerance,
    }
    with transaction.atomic():
        project.pass_criteria = settings
        if key is not None:
            keys = [name for name in project.key_properties if name != prop]
            project.key_properties = [*keys, prop] if key else keys
        project.save(update_fields=["pass_criteria", "key_properties"])
        if (direction, threshold) == (before.direction, before.threshold):
            return None
        return ThresholdChange.objects.create(
            project=project,
            property_name=prop,
            direction=direction,
            threshold=threshold,
            previous_threshold=before.threshold,
            set_by=user,
            how=how,
            note=note,
        )


def latest_change(project: Project, prop: str) -> ThresholdChange | None:
    """The change that made the current setting, if one was recorded."""
    return project.threshold_changes.filter(property_name=prop).select_related("set_by").first()
