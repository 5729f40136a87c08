"""Planning and running scoring jobs: which values are missing or stale, and computing a chunk."""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from billiard.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.db.models import Count, F
from django.utils import timezone

from properties import provider_keys
from properties.models import Interaction, Project, PropertyValue, Run, RunBudget, ScoringChunk, ScoringJob
from properties.pipeline import dispatch, limits
from properties.pipeline.workers import MODEL_QUEUE
from properties.projects import project_config
from properties.quality import value_summaries
from properties.scorers import registry
from properties.scorers.base import Score, Scorer, ScorerUnavailable, as_score, full_context
from properties.scorers.llm.prompt_property import PromptJudge
from properties.scorers.runtime import models

logger = logging.getLogger(__name__)

# Interaction ids read per query while planning: keeps memory flat on runs of any size.
PLAN_PAGE = 10_000
# Chunk rows per INSERT while planning (each holds EVALSITE_CHUNK_SIZE ids as JSON).
CHUNK_INSERT_BATCH = 500
# Planning reads the database and sends chunks: cheap work, on the queue every deployment runs.
PLAN_QUEUE = "cpu"
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
    """Ids of the run's interactions lacking a current value for some field, in pk order.

    Walks the interactions PLAN_PAGE at a time and reads the current values of each page by
    interaction id range (the unique (interaction, property, field) index): linear in the run's
    size, where excluding a subquery of every current value costs a scan of them per page.
    """
    current = PropertyValue.objects.current(setup.name, setup.version_key, setup.model)
    last = 0
    interactions = Interaction.objects.of_run(run.pk)
    while True:
        page = list(interactions.filter(pk__gt=last).order_by("pk").values_list("pk", flat=True)[:PLAN_PAGE])
        if not page:
            return
        settled = set(
            current.filter(interaction_id__gte=page[0], interaction_id__lte=page[-1])
            .values("interaction_id")
            .annotate(n=Count("id"))
            .filter(n__gte=len(setup.fields))
            .values_list("interaction_id", flat=True)
            .order_by()
        )
        yield from (pk for pk in page if pk not in settled)
        last = page[-1]


def start_job(run: Run, properties: list[str] | None = None) -> ScoringJob:
    """Store a scoring job and hand its planning to a worker once the transaction commits.

    Answers at once whatever the run's size: the page shows "planning" until the chunks exist.
    Raises limits.JobLimitReached when the project has as many open jobs as the operator allows.
    """
    limits.check_open_jobs(run.project)
    with transaction.atomic():
        job, plan = _new_job(run, properties)
        dispatch.send_on_commit([plan])
    return job


def plan_job(run: Run, properties: list[str] | None = None) -> ScoringJob:
    """Store a scoring job and plan it in this process (scripts and tests); its chunks are sent on commit."""
    with transaction.atomic():
        job, plan = _new_job(run, properties)
    plan_chunks(plan.pk)
    job.refresh_from_db()
    return job


def _new_job(run: Run, properties: list[str] | None) -> tuple[ScoringJob, ScoringChunk]:
    props = list(properties if properties is not None else run.project.enabled_properties)
    job = ScoringJob.objects.create(run=run, properties=props, status=ScoringJob.Status.PLANNING)
    return job, job.chunks.create(kind=ScoringChunk.Kind.PLAN, queue=PLAN_QUEUE)


def plan_chunks(plan_chunk_id: int) -> None:
    """Create and send the job's score chunks: what is missing or stale, queue by queue.

    The properties of one queue are planned together, so that a chunk carries every one of them
    that is stale for its interactions (one worker reads each text once for all of them). Each
    queue's chunks are stored in one transaction and sent when it commits, so scoring starts while
    later queues are planned, and a plan sent again skips the queues whose chunks exist.
    """
    plan = ScoringChunk.objects.select_related("job__run__project").filter(pk=plan_chunk_id).first()
    if plan is None or plan.state != ScoringChunk.State.OPEN:
        return
    job = plan.job
    planned = {
        prop
        for props in job.chunks.filter(kind=ScoringChunk.Kind.SCORE).values_list("properties", flat=True)
        for prop in props
    }
    for setups in _by_queue([build_scorer(job.run.project, prop) for prop in job.properties]):
        if not ScoringChunk.objects.open().filter(pk=plan.pk).exists():
            return  # the job was cancelled (its run is being deleted)
        if not planned.intersection(setup.name for setup in setups):
            _plan_queue(job, setups)
    with transaction.atomic():
        if plan.claim_finish():
            job.finish_planning()


def _by_queue(setups: list[ScorerSetup]) -> list[list[ScorerSetup]]:
    """The setups grouped by queue, each group in the job's order of properties."""
    groups: dict[str, list[ScorerSetup]] = {}
    for setup in setups:
        groups.setdefault(setup.queue, []).append(setup)
    return list(groups.values())


def _plan_queue(job: ScoringJob, setups: list[ScorerSetup]) -> None:
    """Chunks for one queue: interactions grouped by the properties stale for them (after a new
    upload, all of them), cut so that a chunk holds about EVALSITE_CHUNK_SIZE items."""
    stale_for: dict[int, list[str]] = {}
    for setup in setups:
        for pk in stale_interaction_ids(job.run, setup):
            stale_for.setdefault(pk, []).append(setup.name)
    groups: dict[tuple[str, ...], list[int]] = {}
    for pk in sorted(stale_for):
        groups.setdefault(tuple(stale_for[pk]), []).append(pk)
    queue = setups[0].queue
    chunks = [
        ScoringChunk(job=job, properties=list(props), queue=queue, interaction_ids=batch)
        for props, ids in groups.items()
        for batch in _batched(iter(ids), max(1, settings.EVALSITE_CHUNK_SIZE // len(props)))
    ]
    if not chunks:
        return
    with transaction.atomic():
        ScoringChunk.objects.bulk_create(chunks, batch_size=CHUNK_INSERT_BATCH)
        items = sum(chunk.items for chunk in chunks)
        ScoringJob.objects.filter(pk=job.pk).update(total=F("total") + items)
        dispatch.release_on_commit(queue)


def _batched(items: Iterator[int], size: int) -> Iterator[list[int]]:
    while batch := list(itertools.islice(items, size)):
        yield batch


def score_chunk(chunk_id: int) -> None:
    """Score one chunk's properties and upsert their values. Running it twice changes nothing."""
    chunk = ScoringChunk.objects.select_related("job__run__project").filter(pk=chunk_id).first()
    if chunk is None or chunk.state != ScoringChunk.State.OPEN or chunk.kind != ScoringChunk.Kind.SCORE:
        return
    job = chunk.job
    interactions = list(Interaction.objects.filter(pk__in=chunk.interaction_ids, run_id=job.run_id).order_by("pk"))
    failed = not_applicable = 0
    first_error = ""
    for outcome in _score_properties(job, chunk, interactions):
        failed += outcome.failed
        not_applicable += outcome.not_applicable
        first_error = first_error or outcome.first_error
    # Interactions deleted since planning have nothing left to score: they count as done.
    done = chunk.items - failed
    # One transaction: a worker dying between the two would leave the job short of this chunk's items.
    with transaction.atomic():
        if chunk.claim_finish():
            job.record_chunk(done=done, failed=failed, error=first_error, not_applicable=not_applicable)
        else:
            # Another delivery of the chunk, or the sweeper, closed it while these values were
            # written: they forgot the run's kept statistics (store_values), and once the job has
            # ended no chunk's end keeps them again. Kept here too, so that the comparison after
            # such a late chunk does not read every value of the run.
            job.refresh_from_db(fields=["status"])
        if job.is_finished:
            dispatch.keep_summaries_on_commit(job.run_id)
    # Its place in the queue's window is free: the next chunk in turn goes to the broker.
    dispatch.release(chunk.queue)


@dataclass(frozen=True)
class PropertyOutcome:
    """One property over a chunk's interactions, counted in interactions."""

    failed: int
    not_applicable: int
    first_error: str


def _score_properties(job: ScoringJob, chunk: ScoringChunk, interactions: list[Interaction]) -> list[PropertyOutcome]:
    """Each of the chunk's properties scored and stored, in the chunk's order.

    On the models queue a pool process scores the properties that allow it (`scored_in_streams`:
    the packaged ONNX models) in `models.model_streams()` threads, each with every such property on
    its share of the interactions (`dealt`: shares of about equal text, since the chunk is done when
    its slowest stream is), its model sessions computing with one thread
    (`workers.share_model_threads`). A model call on a chunk's small batches keeps a second thread
    of its own session busy less than half the time; two calls side by side keep both cores busy.
    The RAG template's 100 short rows in one process on 2 cores: 12.4 rows/s with one stream of
    two-thread sessions, 16.7 with two streams of one-thread sessions, 8.9 with one stream of one
    thread. The streams touch no database (scorers are built here, values stored here after them).
    The other properties (models in torch, users' plugins) are then scored on the whole chunk here,
    torch with the threads of every stream (`models.torch_device`)."""
    project = job.run.project
    setups = [build_scorer(project, prop) for prop in chunk.properties]
    streams = min(models.model_streams(), len(interactions)) if chunk.queue == MODEL_QUEUE else 1
    streamed = [number for number, setup in enumerate(setups) if setup.scorer and setup.scorer.scored_in_streams()]
    if streams <= 1 or not streamed:
        return [_score_property(job, setup, interactions) for setup in setups]
    # A scorer per stream: scorers keep per-call state (the field being scored). The first stream
    # takes the scorers built above; the others get their own.
    parts = [
        (
            share,
            [setups[number] if stream == 0 else build_scorer(project, chunk.properties[number]) for number in streamed],
        )
        for stream, share in enumerate(dealt(interactions, streams))
    ]
    # One slot per stream and property, filled as the stream finishes that property: each property's
    # values are stored as soon as every stream has it, while the streams score the next ones (the
    # store's writes then cost the chunk nothing but the moments they hold the interpreter).
    slots = [[Future() for _ in streamed] for _ in parts]
    stop = threading.Event()
    pool = ThreadPoolExecutor(len(parts), thread_name_prefix="chunk-stream")
    outcomes: dict[int, PropertyOutcome] = {}
    try:
        for stream, (share, scorers) in enumerate(parts):
            pool.submit(_score_stream, share, scorers, slots[stream], stop)
        for position, number in enumerate(streamed):
            parts_scored = [stream_slots[position].result() for stream_slots in slots]
            # In (interaction, field) order, as every chunk stores its rows: two upserts of one chunk
            # (a chunk sent again) then take the rows' locks in the same order.
            merged = {key: score for scored in parts_scored for key, score in scored.items()}
            outcomes[number] = _store_property(job, setups[number], {key: merged[key] for key in sorted(merged)})
    finally:
        # Not waiting: a soft time limit raised here ends the task now, not when the streams' model
        # calls end (a stream finishes its call alone, starts no other, and its results are dropped).
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
    for number, setup in enumerate(setups):
        if number not in outcomes:
            outcomes[number] = _score_property(job, setup, interactions)
    return [outcomes[number] for number in range(len(setups))]


def _score_stream(
    share: list[Interaction], setups: list[ScorerSetup], slots: list[Future], stop: threading.Event
) -> None:
    """One stream's properties on its share, in order, each result into its slot. After a failure,
    or once the chunk has stopped waiting, the remaining slots say so instead of staying empty."""
    for position, setup in enumerate(setups):
        if stop.is_set():
            for slot in slots[position:]:
                slot.cancel()
            return
        try:
            slots[position].set_result(compute_scores(setup, share))
        except BaseException as exc:  # noqa: BLE001 - handed to the chunk's thread, which raises it
            for slot in slots[position:]:
                slot.set_exception(exc)
            return


def dealt(interactions: list[Interaction], streams: int) -> list[list[Interaction]]:
    """The interactions in `streams` shares of about equal text: the longest first, each to the share
    with the least text so far. A model's time grows with the text it reads, and texts of one
    chunk differ tenfold (a one-line answer, a page of retrieved documents)."""
    shares: list[list[Interaction]] = [[] for _ in range(streams)]
    loads = [(0, number) for number in range(streams)]  # a heap of (characters so far, share)
    for interaction in sorted(interactions, key=text_length, reverse=True):
        load, number = heapq.heappop(loads)
        shares[number].append(interaction)
        heapq.heappush(loads, (load + text_length(interaction), number))
    return [share for share in shares if share]


def text_length(interaction: Interaction) -> int:
    """Characters of what the properties read: input, output, reference and retrieved documents."""
    documents = interaction.information_retrieval if isinstance(interaction.information_retrieval, list) else []
    return (
        len(interaction.input or "")
        + len(interaction.output or "")
        + len(interaction.expected_output or "")
        + sum(len(str(document)) for document in documents)  # str() of a str is the str itself
    )


def _score_property(job: ScoringJob, setup: ScorerSetup, interactions: list[Interaction]) -> PropertyOutcome:
    # LLM judges spend the run's budget, kept in the database, not a budget of this chunk alone.
    run_budget = RunBudget.attach(job.run_id, setup.name, setup.scorer)
    results = compute_scores(setup, interactions)
    if run_budget is not None:
        run_budget.flush()
    return _store_property(job, setup, results)


def _store_property(job: ScoringJob, setup: ScorerSetup, results: dict[tuple[int, str], Score]) -> PropertyOutcome:
    store_values(job.run_id, setup, results)
    failed_ids = {interaction_id for (interaction_id, _), score in results.items() if not score.ok}
    # An item the property applies to on no field (no documents, no reference) is counted apart.
    applicable_ids = {interaction_id for (interaction_id, _), score in results.items() if score.applicable}
    not_applicable = len({interaction_id for interaction_id, _ in results} - applicable_ids - failed_ids)
    first_error = next((score.error for score in results.values() if not score.ok), "") or ""
    return PropertyOutcome(len(failed_ids), not_applicable, first_error)


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


def _status(score: Score) -> str:
    if not score.ok:
        return PropertyValue.Status.ERROR
    return PropertyValue.Status.OK if score.applicable else PropertyValue.Status.NOT_APPLICABLE


def store_values(run_id: int, setup: ScorerSetup, results: dict[tuple[int, str], Score]) -> None:
    now = timezone.now()
    rows = [
        PropertyValue(
            interaction_id=interaction_id,
            run_id=run_id,
            property_name=setup.name,
            field=field,
            # Not applicable is stored as no value with its reason, never as an error or a zero, even
            # when a team's scorer returns a value beside its reason: pages and comparisons read a
            # stored number as a scored one.
            value=score.value if score.ok and score.applicable else None,
            label=(score.label or "") if score.ok and score.applicable else "",
            spans=[span.to_dict() for span in score.spans] if score.ok else [],
            details=score.details if score.applicable else {"not_applicable": score.not_applicable_reason},
            scorer_version=setup.version_key,
            model=setup.model,
            status=_status(score),
            # A provider's error may quote what it was sent: no server secret is stored.
            error=provider_keys.scrub(score.error or ""),
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
    # Rows kept for comparisons are of the run's latest job; these values may come after it ended.
    value_summaries.forget(run_id, setup.name)


@dataclass
class InProcessTally:
    """Interactions scored and interactions that failed, per property, as an in-process job counts them."""

    done: int = 0
    failed: int = 0

    def add(self, results: dict[tuple[int, str], Score]) -> None:
        """One property's results: an interaction fails when any of its fields failed."""
        bad = {interaction_id for (interaction_id, _), score in results.items() if not score.ok}
        self.failed += len(bad)
        self.done += len({interaction_id for interaction_id, _ in results}) - len(bad)

    def counts(self) -> dict[str, int]:
        return {"total": self.done + self.failed, "done": self.done, "failed": self.failed}


@contextmanager
def in_process_job(run_id: int, properties: list[str]) -> Iterator[InProcessTally]:
    """Values computed in the caller's own process (a Python test suite, an evaluation) are recorded as
    a job of their run, as the workers' are: the run's page lists it, and what is cached under the
    run's scoring state (pass rates, comparisons, the Data Screen's counts) is read again once the
    values are stored, rather than up to `pass_rates.CACHE_SECONDS` later. An exception ends the job
    as failed, with its reason."""
    job = ScoringJob.objects.create(
        run_id=run_id, properties=properties, status=ScoringJob.Status.RUNNING, started_at=timezone.now()
    )
    tally = InProcessTally()
    try:
        yield tally
    except BaseException as exc:
        ScoringJob.objects.filter(pk=job.pk).update(**tally.counts())
        job.fail(f"{type(exc).__name__}: {exc}")
        raise
    ScoringJob.objects.filter(pk=job.pk).update(
        **tally.counts(), status=ScoringJob.Status.DONE, finished_at=timezone.now()
    )
