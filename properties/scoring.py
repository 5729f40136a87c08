"""Planning and running scoring jobs: which values are missing or stale, and computing a chunk."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from billiard.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from properties import project_config
from properties.models import Interaction, Project, PropertyValue, Run, RunBudget, ScoringChunk, ScoringJob
from properties.scorers import registry
from properties.scorers.base import Score, Scorer, ScorerUnavailable, as_score, full_context
from properties.scorers.llm.prompt_property import PromptJudge

logger = logging.getLogger(__name__)

# Properties a new project scores when the settings name none.
DEFAULT_PROPERTIES = [
    "invalid_links",
    "reading_ease",
    "sentiment",
    "content_type",
    "compression_ratio",
    "valid_json",
    "valid_xml",
    "word_count",
    "toxicity",
    "fluency",
    "formality",
    "avoided_answer",
    "pii_risk",
    "relevance",
    "grounded_in_context",
    "information_density",
]
# Interaction ids read per query while planning: keeps memory flat on runs of any size.
PLAN_PAGE = 10_000
UNAVAILABLE_VERSION = "unavailable"


@dataclass(frozen=True)
class ScorerSetup:
    """A scorer built from a project's configuration, or the reason it cannot be built."""

    name: str
    scorer: Scorer | None
    fields: tuple[str, ...]
    queue: str
    version_key: str
    model: str
    error: str = ""


def default_properties() -> list[str]:
    return list(settings.EVALSITE_DEFAULT_PROPERTIES or DEFAULT_PROPERTIES)


def build_scorer(project: Project, prop: str) -> ScorerSetup:
    prompt = None
    try:
        cls = registry.get(prop)
    except registry.RegistryError as exc:
        # Not a registered scorer: one of the project's prompt properties, or unknown.
        prompt = project.prompt_properties.filter(property_name=prop).first()
        if prompt is None:
            return ScorerSetup(prop, None, ("interaction",), "cpu", UNAVAILABLE_VERSION, "", str(exc))
        cls = PromptJudge
    try:
        scorer = prompt.scorer() if prompt else cls.from_dict(project_config.scorer_options(project, prop))
        # The scorer's own class: a Weave name given a model_id builds an LLM judge (weave_routing).
        built = type(scorer)
        return ScorerSetup(prop, scorer, built.fields, built.queue, scorer.version_key(), scorer.model_id())
    except (ScorerUnavailable, TypeError, ValueError) as exc:
        reason = f"property {prop!r} cannot be set up: {exc}"
        return ScorerSetup(prop, None, cls.fields, cls.queue, UNAVAILABLE_VERSION, "", reason)


def stale_interaction_ids(run: Run, setup: ScorerSetup) -> Iterator[int]:
    """Ids of the run's interactions lacking a current ok value for some field, in pk order."""
    current = (
        PropertyValue.objects.current(setup.name, setup.version_key, setup.model)
        .filter(run=run)
        .values("interaction_id")
        .annotate(n=Count("id"))
        .filter(n__gte=len(setup.fields))
        .values("interaction_id")
    )
    pending = run.interactions.exclude(pk__in=current).order_by("pk")
    last = 0
    while True:
        page = list(pending.filter(pk__gt=last).values_list("pk", flat=True)[:PLAN_PAGE])
        if not page:
            return
        yield from page
        last = page[-1]


def plan_job(run: Run, properties: list[str] | None = None) -> ScoringJob:
    """Plan a job for what is missing or stale; its chunks are enqueued once the transaction commits."""
    from properties.tasks import score_chunk_task

    props = list(properties if properties is not None else run.project.enabled_properties)
    chunk_size = settings.EVALSITE_CHUNK_SIZE
    with transaction.atomic():
        job = ScoringJob.objects.create(run=run, properties=props)
        total = 0
        for prop in props:
            setup = build_scorer(run.project, prop)
            batch: list[int] = []
            for pk in stale_interaction_ids(run, setup):
                batch.append(pk)
                if len(batch) == chunk_size:
                    total += _add_chunk(job, setup, batch, score_chunk_task)
                    batch = []
            if batch:
                total += _add_chunk(job, setup, batch, score_chunk_task)
        job.total = total
        if total == 0:
            job.status, job.finished_at = ScoringJob.Status.DONE, timezone.now()
        job.save(update_fields=["total", "status", "finished_at"])
    return job


def _add_chunk(job: ScoringJob, setup: ScorerSetup, ids: list[int], task) -> int:
    chunk = ScoringChunk.objects.create(job=job, property_name=setup.name, interaction_ids=ids)
    task.apply_async_on_commit(args=(chunk.pk,), queue=setup.queue)
    return len(ids)


def score_chunk(chunk_id: int) -> None:
    """Score one chunk and upsert its values. Running it twice changes nothing."""
    chunk = ScoringChunk.objects.select_related("job__run__project").filter(pk=chunk_id).first()
    if chunk is None or chunk.finished_at is not None:
        return
    job = chunk.job
    interactions = list(Interaction.objects.filter(pk__in=chunk.interaction_ids, run_id=job.run_id).order_by("pk"))
    setup = build_scorer(job.run.project, chunk.property_name)
    # LLM judges spend the run's budget, kept in the database, not a budget of this chunk alone.
    run_budget = RunBudget.attach(job.run_id, setup.name, setup.scorer)
    results = compute_scores(setup, interactions)
    if run_budget is not None:
        run_budget.flush()
    store_values(job.run_id, setup, results)
    failed_ids = {interaction_id for (interaction_id, _), score in results.items() if not score.ok}
    first_error = next((score.error for score in results.values() if not score.ok), "") or ""
    # Interactions deleted since planning have nothing left to score: they count as done.
    done = len(chunk.interaction_ids) - len(failed_ids)
    if chunk.claim_finish():
        job.record_chunk(done=done, failed=len(failed_ids), error=first_error)


def compute_scores(
    setup: ScorerSetup, interactions: list[Interaction], raise_errors: bool = False
) -> dict[tuple[int, str], Score]:
    """Scores keyed by (interaction id, field). One failing item never fails the others, unless
    `raise_errors`: then the scorer's exception propagates (a Bench test suite run by default)."""
    results: dict[tuple[int, str], Score] = {}
    for field in setup.fields:
        if setup.scorer is None:
            scores = [Score.failed(setup.error)] * len(interactions)
        elif raise_errors:
            setup.scorer.current_field = field
            scores = _run_batch(setup.scorer, field, interactions)
        else:
            scores = score_field(setup.scorer, field, interactions)
        for interaction, score in zip(interactions, scores, strict=True):
            results[(interaction.pk, field)] = score
    return results


def score_field(scorer: Scorer, field: str, interactions: list[Interaction]) -> list[Score]:
    scorer.current_field = field
    try:
        return _run_batch(scorer, field, interactions)
    except SoftTimeLimitExceeded:
        raise
    except ScorerUnavailable as exc:
        return [Score.failed(f"property {scorer.name()!r} is unavailable: {exc}")] * len(interactions)
    except Exception:
        # Scorers include users' plugins, which may raise anything: score item by item so that
        # the one bad item is stored as an error and the rest of the chunk is kept.
        logger.info("batch of %s failed; scoring its %d items one by one", scorer.name(), len(interactions))
    scores = []
    for interaction in interactions:
        try:
            scores.extend(_run_batch(scorer, field, [interaction]))
        except SoftTimeLimitExceeded:
            raise
        except Exception as exc:
            scores.append(Score.failed(f"{type(exc).__name__}: {exc}"))
    return scores


def _run_batch(scorer: Scorer, field: str, interactions: list[Interaction]) -> list[Score]:
    raw = scorer.run_batch(
        [interaction.field_text(field) for interaction in interactions],
        [interaction.expected_output for interaction in interactions],
        [interaction.input for interaction in interactions],
        [context_of(scorer, interaction) for interaction in interactions],
    )
    if len(raw) != len(interactions):
        raise ValueError(f"{scorer.name()} returned {len(raw)} results for {len(interactions)} items")
    return [as_score(result) for result in raw]


def context_of(scorer: Scorer, interaction: Interaction) -> Any:
    if scorer.uses_full_context:
        return full_context(interaction.information_retrieval, interaction.full_prompt, interaction.history)
    return interaction.information_retrieval


def store_values(run_id: int, setup: ScorerSetup, results: dict[tuple[int, str], Score]) -> None:
    now = timezone.now()
    rows = [
        PropertyValue(
            interaction_id=interaction_id,
            run_id=run_id,
            property_name=setup.name,
            field=field,
            value=score.value if score.ok else None,
            label=(score.label or "") if score.ok else "",
            spans=[span.to_dict() for span in score.spans] if score.ok else [],
            # Not applicable is stored as no value with its reason, never as an error or a zero.
            details=score.details if score.applicable else {"not_applicable": score.not_applicable_reason},
            scorer_version=setup.version_key,
            model=setup.model,
            status=PropertyValue.Status.OK if score.ok else PropertyValue.Status.ERROR,
            error=score.error or "",
            updated_at=now,
        )
        for (interaction_id, field), score in results.items()
    ]
    PropertyValue.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["interaction", "property_name", "field"],
        update_fields=[
            "value",
            "label",
            "spans",
            "details",
            "scorer_version",
            "model",
            "status",
            "error",
            "updated_at",
        ],
    )
