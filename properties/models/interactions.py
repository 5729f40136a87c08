"""A run's interactions, their annotations and the property values computed on them."""

from __future__ import annotations

import hashlib
import uuid

from django.db import models
from django.utils import timezone

from properties.models.projects import Run


class Annotation(models.TextChoices):
    GOOD = "good"
    BAD = "bad"
    UNKNOWN = "unknown"


class AnnotationSource(models.TextChoices):
    NONE = ""
    PERSON = "person"
    ESTIMATED = "estimated"


def input_hash(text: str) -> str:
    """Runs are matched on user_interaction_id, falling back to this hash of the input."""
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def new_interaction_id() -> str:
    return uuid.uuid4().hex


class InteractionQuerySet(models.QuerySet):
    def labelled_by_people(self) -> InteractionQuerySet:
        """Good or bad from people: set in the Data Screen, or uploaded with the data; never a label
        the auto-annotation rules wrote (they are derived from property values)."""
        return self.filter(annotation__in=PEOPLE_LABELS).exclude(annotation_source=AnnotationSource.ESTIMATED)

    def labelled_by_rules(self) -> InteractionQuerySet:
        return self.filter(annotation__in=PEOPLE_LABELS, annotation_source=AnnotationSource.ESTIMATED)

    def of_run(self, run_id: int) -> InteractionQuerySet:
        """A run's interactions, bounded by its first and last id (two probes of the (run, id) index).

        PostgreSQL reads `run = X ORDER BY id LIMIT 50` by walking the primary key from the table's
        first row, as if the run's rows were spread evenly through it; a run loaded after a million
        other rows made it skip all of them for its first page (350 ms). Bounded, the walk starts at
        the run's first row (0.2 ms)."""
        return self.of_run_between(run_id, self.id_bounds(run_id))

    def id_bounds(self, run_id: int) -> tuple[int, int] | None:
        """A run's first and last interaction ids, None when it has none."""
        ends = self.filter(run_id=run_id).aggregate(first=models.Min("pk"), last=models.Max("pk"))
        return None if ends["first"] is None else (ends["first"], ends["last"])

    def of_run_between(self, run_id: int, bounds: tuple[int, int] | None) -> InteractionQuerySet:
        """A run's interactions within its `id_bounds`."""
        return self.filter(run_id=run_id) if bounds is None else self.filter(run_id=run_id, pk__range=bounds)


PEOPLE_LABELS = (Annotation.GOOD, Annotation.BAD)


class Interaction(models.Model):
    # Indexed by (run, id) below, which also serves every lookup by run alone.
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="interactions", db_index=False)
    user_interaction_id = models.CharField(max_length=255, default=new_interaction_id)
    input = models.TextField(blank=True)
    information_retrieval = models.JSONField(default=list, blank=True)
    full_prompt = models.TextField(blank=True)
    history = models.TextField(blank=True)
    output = models.TextField()
    expected_output = models.TextField(blank=True)
    annotation = models.CharField(max_length=10, choices=Annotation.choices, default=Annotation.UNKNOWN)
    annotation_reason = models.TextField(blank=True)
    annotation_source = models.CharField(max_length=10, choices=AnnotationSource.choices, blank=True)
    # What the auto-annotation rules said, kept when a person overrides it, to measure agreement.
    estimated_annotation = models.CharField(max_length=10, choices=Annotation.choices, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    # Not indexed: runs are matched by reading both runs' hashes (compare.comparison), never by
    # looking one up, and an index on random hashes cost every upload a scattered write per row.
    input_hash = models.CharField(max_length=32, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    objects = InteractionQuerySet.as_manager()

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["run", "user_interaction_id"], name="unique_interaction_id_in_run")
        ]
        indexes = [
            # The run's score reads this index alone (annotation.run_scores): 57 -> 30 ms at 100k on SQLite.
            # Its prefix serves the annotation filter: a (run, annotation) index of its own was one
            # more write per uploaded row for nothing.
            models.Index(
                fields=["run", "annotation", "annotation_source", "estimated_annotation"],
                name="interaction_run_score",
            ),
            # A run's first and last id in one probe each (InteractionQuerySet.of_run), and its rows
            # in id order.
            models.Index(fields=["run", "id"], name="interaction_run_order"),
        ]

    def __str__(self) -> str:
        return f"{self.run_id}/{self.user_interaction_id}"

    def save(self, *args, **kwargs) -> None:
        self.input_hash = input_hash(self.input)
        super().save(*args, **kwargs)

    @property
    def labelled_by_people(self) -> bool:
        """A label the rules must keep: a person's, or one uploaded with the data."""
        return self.annotation in PEOPLE_LABELS and self.annotation_source != AnnotationSource.ESTIMATED

    def annotate(self, annotation: str, reason: str = "", *, by_person: bool = True) -> None:
        self.annotation = annotation
        self.annotation_reason = reason
        self.annotation_source = AnnotationSource.PERSON if by_person else AnnotationSource.ESTIMATED
        self.save(update_fields=["annotation", "annotation_reason", "annotation_source"])

    def field_text(self, field: str) -> str:
        """The text a per-field scorer reads: the named field, or the output for the interaction."""
        return self.input if field == "input" else self.output


class PropertyValueQuerySet(models.QuerySet):
    def current(self, prop: str, version_key: str, model: str) -> PropertyValueQuerySet:
        """Values the current scorer computed: a number or category, or that the property does not apply."""
        settled = [PropertyValue.Status.OK, PropertyValue.Status.NOT_APPLICABLE]
        return self.filter(property_name=prop, scorer_version=version_key, model=model, status__in=settled)


class PropertyValue(models.Model):
    class Field(models.TextChoices):
        INPUT = "input"
        OUTPUT = "output"
        INTERACTION = "interaction"

    class Status(models.TextChoices):
        OK = "ok"
        ERROR = "error"
        # The property's required input is absent (no documents, no reference): neither an error
        # nor a zero, and left out of summaries.
        NOT_APPLICABLE = "not_applicable", "not applicable"

    # No index of their own for the two keys: the unique (interaction, property, field) constraint
    # and the (run, ...) indexes below begin with them and serve every lookup by either, and each
    # index more is one more write per value scored (bench/capacity.py: bytes per value).
    interaction = models.ForeignKey(
        Interaction, on_delete=models.CASCADE, related_name="property_values", db_index=False
    )
    # Denormalised from the interaction so that "run X, property P between a and b" is one index range.
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="property_values", db_index=False)
    property_name = models.CharField(max_length=100)
    field = models.CharField(max_length=12, choices=Field.choices)
    value = models.FloatField(null=True, blank=True)
    label = models.CharField(max_length=200, blank=True)
    spans = models.JSONField(default=list, blank=True)
    details = models.JSONField(default=dict, blank=True)
    scorer_version = models.CharField(max_length=64)
    model = models.CharField(max_length=500, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OK)
    error = models.TextField(blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    objects = PropertyValueQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["interaction", "property_name", "field"], name="unique_value_per_interaction_field"
            )
        ]
        indexes = [
            # The interaction id ends each index so that filtering and sorting a run by a property
            # read the index alone (bench/data_screen.py: a range filter on 100k values went from
            # 190 ms to 15 ms on SQLite).
            models.Index(fields=["run", "property_name", "field", "value", "interaction"], name="value_run_prop_range"),
            models.Index(fields=["run", "property_name", "field", "label", "interaction"], name="value_run_prop_label"),
            models.Index(fields=["run", "status"], name="value_run_status"),
        ]

    def __str__(self) -> str:
        return f"{self.property_name}.{self.field}={self.value if self.label == '' else self.label}"

    @property
    def address(self) -> str:
        """`toxicity.output` for per-field values, `grounded_in_context` for interaction-wide ones."""
        if self.field == self.Field.INTERACTION:
            return self.property_name
        return f"{self.property_name}.{self.field}"


class RunValueSummary(models.Model):
    """One run's statistics of one property's values on one field, kept once its values stop
    changing: what the comparison page shows of the run (properties.quality.value_summaries)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="value_summaries", db_index=False)
    property_name = models.CharField(max_length=100)
    field = models.CharField(max_length=12, choices=PropertyValue.Field.choices)
    # The run's latest scoring job when it was kept: a later job makes the row stale.
    state = models.CharField(max_length=64)
    # A hash of the state with what the statistics were computed for (criterion, histogram edges).
    signature = models.CharField(max_length=64)
    # {"count", "total", "squares", "passing", "counts"} for numbers, {"labels": {label: count}} for labels.
    statistics = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["run", "property_name", "field", "signature"], name="unique_value_summary_signature"
            )
        ]

    def __str__(self) -> str:
        return f"{self.property_name}.{self.field} of run {self.run_id}"
