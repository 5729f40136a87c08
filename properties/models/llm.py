"""LLM-judged properties: a project's provider keys, its prompt properties, their previews, and each
run's LLM usage and budget."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.db import connections, models
from django.db.models import F, Q, Sum
from django.utils import timezone

from properties import provider_keys
from properties.models.interactions import Interaction
from properties.models.projects import Project, Run
from properties.scorers.base import Score, ScorerUnavailable, as_score
from properties.scorers.llm.client import MAX_MALFORMED_RETRIES, Budget, BudgetExhausted
from properties.scorers.llm.prompt_property import PromptJudge


class ProjectKey(models.Model):
    """A provider key a user entered for a project: encrypted at rest (provider_keys), never shown
    back, not even in part, and decrypted only where a call is made. Judges name it in their
    configuration (`api_key_name`), prompt properties pick it on their page."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="provider_keys")
    name = models.CharField(max_length=100)
    encrypted = models.TextField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="unique_project_key_name")]

    def __str__(self) -> str:
        return self.name

    def set_key(self, key: str) -> None:
        self.encrypted = provider_keys.encrypt(key)

    def key(self) -> str:
        return provider_keys.decrypt(self.encrypted)


class PromptProperty(models.Model):
    """A property a user wrote as a prompt; scored as `prompt_<slug>` on the `llm` queue like any other.

    The key is never shown back nor stored with values: it is a project key (`project_key`), or an
    environment variable of the workers from the operator's allow-list (`api_key_variable`), or, with
    neither and no base URL, the provider's usual variable (OPENAI_API_KEY, ...) if allowed.
    """

    PREFIX = "prompt_"
    PREVIEW_ITEMS = 5
    # A preview is judged by a worker on the llm queue while the page waits: short requests, and a
    # limit on the whole batch.
    PREVIEW_TIMEOUT_S = 20.0
    PREVIEW_DEADLINE_S = 30.0

    class OutputType(models.TextChoices):
        SCORE = "score", "Score from 0 to 1"
        CATEGORY = "category", "Category from a list"
        BOOLEAN = "boolean", "True or false"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="prompt_properties")
    name = models.CharField(max_length=100)
    # Fixed at creation: stored values are addressed by it.
    property_name = models.CharField(max_length=100)
    template = models.TextField()
    model_id = models.CharField(max_length=200)
    base_url = models.CharField(max_length=500, blank=True)
    api_key_variable = models.CharField(max_length=100, blank=True)
    project_key = models.ForeignKey(ProjectKey, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    output_type = models.CharField(max_length=10, choices=OutputType.choices, default=OutputType.SCORE)
    categories = models.JSONField(default=list, blank=True)
    # The run's budget for this property; null is no limit.
    max_calls = models.PositiveIntegerField(null=True, blank=True)
    max_tokens = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [models.UniqueConstraint(fields=["project", "property_name"], name="unique_prompt_property_name")]

    def __str__(self) -> str:
        return f"{self.name} ({self.property_name})"

    def key_hint(self) -> str:
        """Where the key comes from, in words; never any part of the key."""
        if self.project_key_id:
            return f"the project key \u201c{self.project_key}\u201d"
        if self.api_key_variable:
            return f"${self.api_key_variable} in the workers' environment"
        if self.base_url:
            return "no key (none is sent to a base URL unless one is chosen)"
        return "the provider's usual environment variable, if the operator allows it"

    def spec(self) -> dict[str, Any]:
        """The judge's definition as plain data: what a preview sends to the worker (no key)."""
        return {
            "property_name": self.property_name or PromptProperty.PREFIX + "preview",
            "template": self.template,
            "output_type": self.output_type,
            "categories": list(self.categories),
            "model_id": self.model_id,
            "base_url": self.base_url,
            "api_key_variable": self.api_key_variable,
            "project_key_id": self.project_key_id,
            "max_calls": self.max_calls,
            "max_tokens": self.max_tokens,
        }

    def scorer(self, api_key: str | None = None, **options: Any) -> PromptJudge:
        """The judge; the project key is decrypted here, in the process that makes the calls."""
        if api_key is None and self.project_key_id:
            stored = ProjectKey.objects.filter(pk=self.project_key_id).first()
            if stored is None:
                raise ScorerUnavailable(f"{self.name}: its project key was deleted; choose another key")
            api_key = stored.key()
        return PromptJudge(
            property_name=self.property_name,
            template=self.template,
            output_type=self.output_type,
            categories=list(self.categories),
            model_id=self.model_id,
            base_url=self.base_url or None,
            api_key=api_key,
            api_key_variable=self.api_key_variable or None,
            budget={"max_calls": self.max_calls, "max_tokens": self.max_tokens},
            **options,
        )

    def preview(self, interactions: list[Interaction], api_key: str | None = None) -> list[Score]:
        """Judge a few interactions now, as the edit page's Preview does, with a budget of its own."""
        scorer = self.scorer(
            api_key,
            timeout=self.PREVIEW_TIMEOUT_S,
            deadline_s=self.PREVIEW_DEADLINE_S,
            max_concurrency=max(1, len(interactions)),
        )
        # Each item may be asked again after a malformed reply; never more calls than that.
        scorer.budget = Budget(max_calls=len(interactions) * (MAX_MALFORMED_RETRIES + 1))
        results = scorer.run_batch(
            [interaction.output for interaction in interactions],
            [interaction.expected_output for interaction in interactions],
            [interaction.input for interaction in interactions],
            [interaction.information_retrieval for interaction in interactions],
        )
        return [as_score(result) for result in results]


class PromptPreview(models.Model):
    """The edit page's Preview: an unsaved prompt property judged on a few interactions by a worker
    on the `llm` queue (never in the web process), while the page polls for the result."""

    class Status(models.TextChoices):
        WAITING = "waiting"
        DONE = "done"
        FAILED = "failed"

    # Past this, the page stops waiting and says that no worker took the preview.
    WORKER_WAIT_S = 60

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    spec = models.JSONField()
    # A key typed into the form for this preview only, encrypted, and erased once the worker used it.
    encrypted_key = models.TextField(blank=True)
    run = models.ForeignKey(Run, null=True, on_delete=models.CASCADE, related_name="+")
    interaction_ids = models.JSONField(default=list)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    # One {"ok", "value", "label", "reasoning", "error"} per interaction, in order.
    results = models.JSONField(default=list)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"preview of {self.spec.get('property_name', '?')} ({self.status})"

    def prompt(self) -> PromptProperty:
        spec = dict(self.spec)
        return PromptProperty(project=self.project, **spec)

    def waited_too_long(self) -> bool:
        return (
            self.status == self.Status.WAITING
            and (timezone.now() - self.created_at).total_seconds() > self.WORKER_WAIT_S
        )

    def rows(self) -> list[tuple[Interaction, dict[str, Any]]]:
        interactions = Interaction.objects.in_bulk(self.interaction_ids)
        return [
            (interactions[pk], result)
            for pk, result in zip(self.interaction_ids, self.results, strict=False)
            if pk in interactions
        ]


class RunLLMUsage(models.Model):
    """What one LLM-judged property used on one run: calls (retries included), tokens and cost."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="llm_usage")
    property_name = models.CharField(max_length=100)
    calls = models.PositiveIntegerField(default=0)
    tokens = models.PositiveBigIntegerField(default=0)
    cost_usd = models.FloatField(default=0.0)
    # Calls litellm has no price for (local models): cost_usd leaves them out.
    unpriced_calls = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["property_name"]
        constraints = [models.UniqueConstraint(fields=["run", "property_name"], name="unique_llm_usage_per_run")]

    def __str__(self) -> str:
        return f"{self.property_name} on run {self.run_id}: {self.calls} calls, {self.tokens} tokens"

    @classmethod
    def totals(cls, run: Run) -> dict[str, Any]:
        """The run's summed usage over its LLM properties; calls 0 when none ran."""
        sums = cls.objects.filter(run=run).aggregate(
            calls=Sum("calls"), tokens=Sum("tokens"), cost_usd=Sum("cost_usd"), unpriced_calls=Sum("unpriced_calls")
        )
        return {key: value or 0 for key, value in sums.items()}

    def try_reserve_call(self, max_calls: int | None, max_tokens: int | None) -> bool:
        """Count one call if the budget allows it: a conditional UPDATE, so concurrent workers cannot overspend."""
        within = Q(pk=self.pk)
        if max_calls is not None:
            within &= Q(calls__lt=max_calls)
        if max_tokens is not None:
            within &= Q(tokens__lt=max_tokens)
        return RunLLMUsage.objects.filter(within).update(calls=F("calls") + 1) == 1

    def add(self, calls: int = 0, tokens: int = 0, cost_usd: float = 0.0, unpriced_calls: int = 0) -> None:
        RunLLMUsage.objects.filter(pk=self.pk).update(
            calls=F("calls") + calls,
            tokens=F("tokens") + tokens,
            cost_usd=F("cost_usd") + cost_usd,
            unpriced_calls=F("unpriced_calls") + unpriced_calls,
        )


class RunBudget(Budget):
    """A judge's budget for a whole run, shared by its chunks and workers through RunLLMUsage.

    With limits, every call is reserved in the database before it is made and its tokens added when it
    ends; without, nothing is written per call and flush() adds the chunk's usage once, at its end.
    """

    def __init__(self, usage: RunLLMUsage, limits: Budget) -> None:
        super().__init__(max_calls=limits.max_calls, max_tokens=limits.max_tokens)
        self.usage = usage
        self.owner = threading.current_thread()

    @classmethod
    def attach(cls, run_id: int, prop: str, scorer: Any) -> RunBudget | None:
        """Give an LLM judge the run's budget in place of its own; None for other scorers."""
        limits = getattr(scorer, "budget", None)
        if not isinstance(limits, Budget):
            return None
        usage, _ = RunLLMUsage.objects.get_or_create(run_id=run_id, property_name=prop)
        scorer.budget = budget = cls(usage, limits)
        return budget

    def reserve_call(self) -> None:
        if not self.limited:
            super().reserve_call()
            return
        with self.connection():
            if not self.usage.try_reserve_call(self.max_calls, self.max_tokens):
                self.usage.refresh_from_db(fields=["calls", "tokens"])
                raise BudgetExhausted(self.exhausted_message())
        with self._lock:
            self.calls += 1

    def exhausted_message(self) -> str:
        used = self.usage
        if self.max_calls is not None and used.calls >= self.max_calls:
            return f"budget exhausted: this run used {used.calls} of max_calls={self.max_calls} calls"
        return f"budget exhausted: this run used {used.tokens} of max_tokens={self.max_tokens} tokens"

    def record_usage(self, tokens: int, cost_usd: float | None) -> None:
        super().record_usage(tokens, cost_usd)
        if self.limited:
            with self.connection():
                self.usage.add(tokens=tokens, cost_usd=cost_usd or 0.0, unpriced_calls=int(cost_usd is None))

    def flush(self) -> None:
        if not self.limited and self.calls:
            self.usage.add(self.calls, self.tokens, self.cost_usd, self.unpriced_calls)

    @contextmanager
    def connection(self) -> Iterator[None]:
        """Judges call from a thread pool: a pool thread's own connection is closed after each use."""
        try:
            yield
        finally:
            if threading.current_thread() is not self.owner:
                connections.close_all()
