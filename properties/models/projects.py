"""Projects, their members and runs, and the test suites stored as projects."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import F
from django.utils import timezone

if TYPE_CHECKING:
    from properties.models.jobs import ScoringJob


class ProjectQuerySet(models.QuerySet):
    def visible_to(self, user) -> ProjectQuerySet:
        # A project being deleted (in batches, by a worker) is gone for its users at once.
        return self.filter(memberships__user=user, deleting=False).distinct()


class Project(models.Model):
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    # Names of the properties scored on upload; per-property configuration beside them.
    enabled_properties = models.JSONField(default=list, blank=True)
    property_config = models.JSONField(default=dict, blank=True)
    # The template the project started from (project_templates), and its key properties: the Data
    # Screen's default columns and the comparison's default properties.
    template = models.CharField(max_length=20, blank=True)
    key_properties = models.JSONField(default=list, blank=True)
    # Per property {"direction", "threshold", "tolerance"} over the documented defaults (criteria.py).
    pass_criteria = models.JSONField(default=dict, blank=True)
    # Auto-annotation rules as YAML; empty means the shipped default rules.
    annotation_rules = models.TextField(blank=True)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, through="Membership", related_name="projects")
    created_at = models.DateTimeField(default=timezone.now)
    # Set when a user deletes the project: hidden at once, its rows deleted in batches by a worker.
    deleting = models.BooleanField(default=False)

    objects = ProjectQuerySet.as_manager()

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name

    def add_member(self, user, role: str = "member") -> Membership:
        membership, _ = Membership.objects.get_or_create(project=self, user=user, defaults={"role": role})
        return membership

    def is_owner(self, user) -> bool:
        return self.memberships.filter(user=user, role=Membership.Role.OWNER).exists()

    def config_for(self, prop: str) -> dict:
        return dict(self.property_config.get(prop, {}))


class Membership(models.Model):
    class Role(models.TextChoices):
        OWNER = "owner"
        MEMBER = "member"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "user"], name="unique_membership")]

    def __str__(self) -> str:
        return f"{self.user} in {self.project} ({self.role})"


class RunQuerySet(models.QuerySet):
    def visible_to(self, user) -> RunQuerySet:
        return self.filter(project__in=Project.objects.visible_to(user), deleting=False)

    def live(self) -> RunQuerySet:
        return self.filter(deleting=False)


class Run(models.Model):
    class Environment(models.TextChoices):
        EVALUATION = "evaluation"
        PRODUCTION = "production"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="runs")
    name = models.CharField(max_length=200)
    environment = models.CharField(max_length=20, choices=Environment.choices, default=Environment.EVALUATION)
    description = models.TextField(blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    pinned = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)
    # Set when a user deletes the run: hidden at once, its rows deleted in batches by a worker.
    deleting = models.BooleanField(default=False)
    # Batches logged through the REST API: rows without an id there are named b<batch>-r<row>.
    api_batches = models.PositiveIntegerField(default=0)

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-pinned", "-created_at", "-pk"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="unique_run_name")]

    def __str__(self) -> str:
        return f"{self.project} / {self.name}"

    def latest_job(self) -> ScoringJob | None:
        return self.jobs.order_by("-created_at", "-pk").first()

    def next_api_batch(self) -> int:
        """A number for a batch logged through the API, never given twice (a conditional UPDATE)."""
        Run.objects.filter(pk=self.pk).update(api_batches=F("api_batches") + 1)
        self.refresh_from_db(fields=["api_batches"])
        return self.api_batches


class TestSuite(models.Model):
    """A project used as an Arthur Bench test suite: fixed inputs and references, fixed scorers.

    `cases` is [{"id", "input", "reference"}] in suite order; `scoring_methods` is
    [{"name", "config"}] as they were when the suite was created, to warn when they change.
    """

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="test_suite")
    name = models.CharField(max_length=200, unique=True)
    cases = models.JSONField(default=list)
    scoring_methods = models.JSONField(default=list)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ThresholdChange(models.Model):
    """Who set a property's pass or fail in a project, when, and how: the newest row is the current
    setting's origin (Project.pass_criteria holds the setting itself)."""

    class How(models.TextChoices):
        FORM = "form", "on the property's page"
        SUGGESTED = "suggested", "from the suggestion of the team's labels"
        API = "api", "through the API"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="threshold_changes")
    property_name = models.CharField(max_length=100)
    direction = models.CharField(max_length=10, blank=True)
    threshold = models.FloatField(null=True, blank=True)
    previous_threshold = models.FloatField(null=True, blank=True)
    set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="threshold_changes"
    )
    set_at = models.DateTimeField(default=timezone.now)
    how = models.CharField(max_length=10, choices=How.choices, default=How.FORM)
    # For a suggestion: what it was measured on ("balanced accuracy 0.82 on 31 good and 24 bad labels").
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["-set_at", "-pk"]
        indexes = [models.Index(fields=["project", "property_name", "-set_at"], name="threshold_change_latest")]

    def __str__(self) -> str:
        return f"{self.project} / {self.property_name}: {self.threshold} by {self.set_by} at {self.set_at:%Y-%m-%d}"
