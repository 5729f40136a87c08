"""Annotations: a person's labels, the auto-annotation job, and the run's score."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from properties.annotations import project_rules, rules
from properties.models import Annotation, AnnotationSource, Interaction, PropertyValue, Run, ScoringChunk, ScoringJob
from properties.pipeline import dispatch, limits
from properties.quality import pass_rates
from properties.screen import datascreen

# Interactions evaluated per query page: values for a page of this size are a few thousand rows.
RULES_PAGE = 2000
# A preview answers in the web request: past this many interactions it stops and says how many it
# read (10 pages of values).
PREVIEW_LIMIT = 20_000


def rules_for(run: Run) -> list[rules.Block]:
    """The project's rules (or its defaults), checked against the properties it scores now."""
    return project_rules.parse_for(run.project, project_rules.rules_text(run.project))


def plan_annotation(run: Run) -> ScoringJob:
    """A job on the pipeline that applies the project's rules to every interaction of the run.
    Raises limits.JobLimitReached when the project has as many open jobs as the operator allows."""
    limits.check_open_jobs(run.project)
    with transaction.atomic():
        job = ScoringJob.objects.create(
            run=run, kind=ScoringJob.Kind.ANNOTATION, total=run.interactions.count(), properties=[]
        )
        dispatch.send_on_commit([job.chunks.create(kind=ScoringChunk.Kind.ANNOTATE, queue="cpu")])
    return job


def run_annotation_job(job_id: int, after: int = 0) -> None:
    """Apply the rules to the run's interactions past `after`, page by page. A task holds its worker
    process for EVALSITE_RULES_TASK_BUDGET_S at most: past it, the rest continues in a new task at
    the back of the queue, so a large rule set on a large run never stalls other projects' work."""
    job = ScoringJob.objects.select_related("run__project").filter(pk=job_id).first()
    if job is None:
        return
    if job.is_finished:
        _close_chunk(job)  # a task sent again after the job ended: nothing left to do
        return
    try:
        blocks = rules_for(job.run)
    except rules.RulesError as exc:
        job.record_chunk(done=0, failed=job.total - job.processed, error=f"the annotation rules are invalid: {exc}")
        return
    if not after:
        # Re-applying every page is idempotent, so a redelivered job simply starts over.
        ScoringJob.objects.filter(pk=job.pk).update(done=0, failed=0)
    started = time.monotonic()
    last = after
    interactions = Interaction.objects.of_run(job.run_id)
    while True:
        page = list(interactions.filter(pk__gt=last).order_by("pk")[:RULES_PAGE])
        if not page:
            break
        apply_rules(blocks, page)
        job.record_chunk(done=len(page), failed=0)
        last = page[-1].pk
        if len(page) < RULES_PAGE:
            break
        if time.monotonic() - started > settings.EVALSITE_RULES_TASK_BUDGET_S:
            dispatch.continue_annotation(job.pk, last)
            return
    # Interactions deleted while the job ran still count, so the job always ends.
    with transaction.atomic():
        ScoringJob.objects.filter(pk=job.pk).exclude(status__in=ScoringJob.FINISHED).update(
            status=ScoringJob.Status.DONE, finished_at=timezone.now(), total=job.processed
        )
        _close_chunk(job)


def _close_chunk(job: ScoringJob) -> None:
    job.chunks.filter(kind=ScoringChunk.Kind.ANNOTATE, state=ScoringChunk.State.OPEN).update(
        state=ScoringChunk.State.DONE, finished_at=timezone.now()
    )


def apply_rules(blocks: list[rules.Block], interactions: list[Interaction]) -> None:
    wanted = rules.addresses(blocks)
    ids = [i.pk for i in interactions]
    values = values_for(ids, wanted)
    matches = _where_matches(interactions[0].run, blocks, ids) if interactions else {}
    for interaction in interactions:
        label, reason = rules.decide(blocks, values.get(interaction.pk, {}), _matched(matches, interaction.pk))
        interaction.estimated_annotation = label
        # A person's label, or one uploaded with the data, stays; the rule's is kept beside it.
        if not interaction.labelled_by_people:
            interaction.annotation = label
            interaction.annotation_reason = reason
            interaction.annotation_source = AnnotationSource.ESTIMATED if label != "unknown" else AnnotationSource.NONE
    Interaction.objects.bulk_update(
        interactions, ["estimated_annotation", "annotation", "annotation_reason", "annotation_source"]
    )


def _where_matches(run: Run, blocks: list[rules.Block], ids: list[int]) -> dict[int, set[int]]:
    """`where:` blocks are filters: the Data Screen's query says which of these ids match each block."""
    return {
        number: datascreen.matching_ids(run, block.where, ids)
        for number, block in enumerate(blocks)
        if block.where is not None
    }


def _matched(matches: dict[int, set[int]], pk: int) -> frozenset[int]:
    return frozenset(number for number, found in matches.items() if pk in found)


def values_for(ids: list[int], wanted: set[tuple[str, str]]) -> dict[int, dict[str, float | str]]:
    if not wanted:
        return {}
    which = Q()
    for prop, field_name in wanted:
        which |= Q(property_name=prop, field=field_name)
    result: dict[int, dict[str, float | str]] = {}
    rows = PropertyValue.objects.filter(which, interaction_id__in=ids, status=PropertyValue.Status.OK)
    for value in rows.only("interaction_id", "property_name", "field", "value", "label"):
        result.setdefault(value.interaction_id, {})[value.address] = value.label or value.value
    return result


@dataclass(frozen=True)
class RulesPreview:
    """What a rule set would label on a run, nothing saved: good, bad, and unchanged (no block holds,
    so no estimate). `by_person` interactions carry a person's label, which stays shown either way."""

    run: Run
    good: int
    bad: int
    unchanged: int
    by_person: int
    read: int
    total: int

    @property
    def partial(self) -> bool:
        return self.read < self.total


def preview_rules(blocks: list[rules.Block], run: Run) -> RulesPreview:
    """Apply the rules in memory to the run's interactions (the first PREVIEW_LIMIT), a page at a time."""
    wanted = rules.addresses(blocks)
    counts: Counter[str] = Counter()
    by_person = read = last = 0
    interactions = Interaction.objects.of_run(run.pk).order_by("pk").values_list("pk", "annotation_source")
    while read < PREVIEW_LIMIT:
        page = list(interactions.filter(pk__gt=last)[: min(RULES_PAGE, PREVIEW_LIMIT - read)])
        if not page:
            break
        ids = [pk for pk, _ in page]
        values = values_for(ids, wanted)
        matches = _where_matches(run, blocks, ids)
        for pk, source in page:
            counts[rules.decide(blocks, values.get(pk, {}), _matched(matches, pk))[0]] += 1
            by_person += source == AnnotationSource.PERSON
        read += len(page)
        last = page[-1][0]
    total = run.interactions.count() if read >= PREVIEW_LIMIT else read
    return RulesPreview(run, counts["good"], counts["bad"], counts["unknown"], by_person, read, total)


def annotate_by_person(interaction: Interaction, annotation: str, reason: str) -> None:
    """A person's label overrides any estimate; "unknown" clears it back to the estimate."""
    transaction.on_commit(lambda: cache.delete(_kept_key(interaction.run_id)))
    if annotation == Annotation.UNKNOWN and interaction.estimated_annotation:
        interaction.annotation = interaction.estimated_annotation
        interaction.annotation_source = (
            AnnotationSource.ESTIMATED if interaction.estimated_annotation != "unknown" else AnnotationSource.NONE
        )
        interaction.annotation_reason = ""
        interaction.save(update_fields=["annotation", "annotation_reason", "annotation_source"])
        return
    interaction.annotate(annotation, reason, by_person=annotation != Annotation.UNKNOWN)


@dataclass(frozen=True)
class RunScore:
    good: int
    bad: int
    person_good: int
    person_bad: int
    agreement_count: int
    agreement_total: int

    @property
    def score(self) -> float | None:
        """Share of good among annotated interactions, estimates included."""
        annotated = self.good + self.bad
        return self.good / annotated if annotated else None

    @property
    def person_score(self) -> float | None:
        """The same, counting a person's labels only."""
        annotated = self.person_good + self.person_bad
        return self.person_good / annotated if annotated else None

    @property
    def agreement(self) -> float | None:
        """How often the estimate matches the person's label, where both exist."""
        return self.agreement_count / self.agreement_total if self.agreement_total else None


def run_score(run: Run) -> RunScore:
    return run_scores([run])[run.pk][1]


# How long a kept count and score may be read without the state they were counted in changing: as
# the pass rates, a bound on what nothing here notices (a label changed in the database by hand).
KEPT_SECONDS = pass_rates.CACHE_SECONDS


def kept_run_score(run: Run) -> tuple[int, RunScore]:
    """The run's interactions and score, counted once per state of the run rather than at every page
    of the Data Screen (a read of every interaction's index entry: 270 ms at a million on busy
    cores). They change when scoring or the rules write (the run's scoring state), when rows are
    stored (an API batch, an upload's progress) and when a person labels one (annotate_by_person
    forgets them)."""
    upload = run.uploads.order_by("-pk").values_list("pk", "lines_done", "status").first()
    # The creation time tells a new run from a deleted one that had the same id.
    state = [run.created_at.isoformat(), run.api_batches, pass_rates.scoring_state(run), upload]
    kept = cache.get(_kept_key(run.pk))
    if kept is not None and kept[0] == state:
        return kept[1]
    counted = run_scores([run])[run.pk]
    cache.set(_kept_key(run.pk), (state, counted), KEPT_SECONDS)
    return counted


def _kept_key(run_id: int) -> str:
    return f"run-score:{run_id}"


def run_scores(runs: list[Run]) -> dict[int, tuple[int, RunScore]]:
    """{run id: (interactions, score)} for several runs, in one query that the covering index
    (run, annotation, source, estimate) answers: a few groups, tallied here."""
    rows = (
        Interaction.objects.filter(run__in=runs)
        .values_list("run_id", "annotation", "annotation_source", "estimated_annotation")
        .annotate(n=Count("*"))
        .order_by()
    )
    tallies = {run.pk: dict.fromkeys(("interactions", *RunScore.__dataclass_fields__), 0) for run in runs}
    for run_id, label, source, estimate, n in rows:
        tally = tallies[run_id]
        tally["interactions"] += n
        if label not in ("good", "bad"):
            continue
        tally[label] += n
        if source == AnnotationSource.PERSON:
            tally[f"person_{label}"] += n
            if estimate in ("good", "bad"):
                tally["agreement_total"] += n
                tally["agreement_count"] += n if estimate == label else 0
    return {pk: (tally.pop("interactions"), RunScore(**tally)) for pk, tally in tallies.items()}
