import threading

import pytest

from properties.models import PropertyValue, ScoringJob
from properties.pipeline import scoring
from properties.scorers.base import Score
from tests.factories import InteractionFactory, ProjectFactory, RunFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def run():
    project = ProjectFactory(enabled_properties=["word_count"])
    run = RunFactory(project=project)
    InteractionFactory.create_batch(5, run=run, input="two words", output="three words here")
    return run


def run_all_chunks(job: ScoringJob) -> None:
    for chunk in job.chunks.filter(kind="score"):
        scoring.score_chunk(chunk.pk)


def value_rows(run):
    return list(
        PropertyValue.objects.filter(run=run)
        .order_by("interaction_id", "property_name", "field")
        .values("interaction_id", "property_name", "field", "value", "status", "scorer_version", "updated_at")
    )


def test_plan_covers_every_field_of_every_interaction(run, settings):
    settings.EVALSITE_CHUNK_SIZE = 2
    job = scoring.plan_job(run)
    assert job.total == 5
    assert [len(chunk.interaction_ids) for chunk in job.chunks.filter(kind="score")] == [2, 2, 1]
    run_all_chunks(job)
    job.refresh_from_db()
    assert (job.status, job.done, job.failed, job.percent) == ("done", 5, 0, 100)
    values = PropertyValue.objects.filter(run=run, property_name="word_count")
    assert sorted(values.values_list("field", "value").distinct()) == [("input", 2.0), ("output", 3.0)]


def test_running_a_chunk_twice_changes_nothing(run):
    job = scoring.plan_job(run)
    chunk = job.chunks.get(kind="score")
    scoring.score_chunk(chunk.pk)
    before_values, before_job = value_rows(run), ScoringJob.objects.values().get(pk=job.pk)
    scoring.score_chunk(chunk.pk)
    assert value_rows(run) == before_values
    assert ScoringJob.objects.values().get(pk=job.pk) == before_job


def test_a_task_that_died_after_storing_counts_its_items_once_when_redelivered(run):
    job = scoring.plan_job(run)
    chunk = job.chunks.get(kind="score")
    # The first delivery stored its values, then its worker died before finishing the chunk.
    setup = scoring.build_scorer(run.project, "word_count")
    scoring.store_values(run.pk, setup, scoring.compute_scores(setup, list(run.interactions.all())))
    stored = [{**row, "updated_at": None} for row in value_rows(run)]
    scoring.score_chunk(chunk.pk)
    job.refresh_from_db()
    assert (job.done, job.failed, job.status) == (5, 0, "done")
    assert [{**row, "updated_at": None} for row in value_rows(run)] == stored
    assert PropertyValue.objects.filter(run=run).count() == 10


def test_second_plan_has_nothing_to_do(run):
    run_all_chunks(scoring.plan_job(run))
    again = scoring.plan_job(run)
    assert (again.total, again.status) == (0, "done")


def test_new_interactions_and_changed_config_are_planned(run):
    run_all_chunks(scoring.plan_job(run))
    InteractionFactory(run=run, output="one more")
    added = scoring.plan_job(run)
    assert added.total == 1
    run_all_chunks(added)
    run.project.property_config = {"word_count": {}}
    run.project.save()
    assert scoring.plan_job(run).total == 0
    # The slow test scorer has a configuration; changing it makes every value stale.
    run.project.enabled_properties = ["slow_word_count"]
    run.project.save()
    run_all_chunks(scoring.plan_job(run))
    run.project.property_config = {"slow_word_count": {"seconds": 0.001}}
    run.project.save()
    assert scoring.plan_job(run).total == 6


def test_a_failing_item_is_stored_as_error_and_the_rest_kept(run):
    InteractionFactory(run=run, output="this one goes boom")
    job = scoring.plan_job(run, ["fails_on_boom"])
    run_all_chunks(job)
    job.refresh_from_db()
    assert (job.done, job.failed, job.status) == (5, 1, "done")
    error = PropertyValue.objects.get(run=run, status="error")
    assert "boom is not a word" in error.error
    assert error.interaction.output == "this one goes boom"
    assert PropertyValue.objects.filter(run=run, status="ok", value=1.0).count() == 5
    assert "boom is not a word" in job.last_error


def test_unknown_property_becomes_visible_errors_without_blocking_others(run):
    job = scoring.plan_job(run, ["no_such_property", "word_count"])
    run_all_chunks(job)
    job.refresh_from_db()
    assert (job.total, job.done, job.failed) == (10, 5, 5)
    errors = PropertyValue.objects.filter(run=run, property_name="no_such_property")
    assert errors.count() == 5
    assert all("unknown property 'no_such_property'" in e.error for e in errors)
    assert PropertyValue.objects.filter(run=run, property_name="word_count", status="ok").count() == 10


def test_errored_values_are_replanned_on_rescore(run):
    InteractionFactory(run=run, output="boom")
    run_all_chunks(scoring.plan_job(run, ["fails_on_boom"]))
    assert scoring.plan_job(run, ["fails_on_boom"]).total == 1


def test_chunk_of_a_deleted_run_returns_quietly(run):
    job = scoring.plan_job(run)
    chunk_id = job.chunks.get(kind="score").pk
    run.delete()
    scoring.score_chunk(chunk_id)
    assert not PropertyValue.objects.exists()


def test_chunks_are_enqueued_after_commit_on_the_scorer_queue(run, django_capture_on_commit_callbacks):
    from unittest import mock

    from properties.tasks import score_chunk_task

    with (
        mock.patch.object(score_chunk_task, "apply_async", autospec=True) as apply_async,
        django_capture_on_commit_callbacks(execute=True) as callbacks,
    ):
        job = scoring.plan_job(run)
        assert apply_async.call_count == 0
    assert len(callbacks) == 1
    chunk = job.chunks.get(kind="score")
    apply_async.assert_called_once_with(args=(chunk.pk,), queue="cpu")


def test_task_function_scores_the_chunk(run):
    from properties.tasks import score_chunk_task

    job = scoring.plan_job(run)
    score_chunk_task(job.chunks.get(kind="score").pk)
    job.refresh_from_db()
    assert job.status == "done"


def test_values_computed_in_process_are_recorded_as_a_job_of_their_run(run):
    ids = list(run.interactions.values_list("pk", flat=True))
    ok, broken = Score(value=1.0), Score.failed("timed out")
    with scoring.in_process_job(run.pk, ["word_count", "custom"]) as tally:
        tally.add({(pk, field): ok for pk in ids for field in ("input", "output")})
        # An interaction fails once, however many of its fields failed.
        tally.add({(ids[0], "output"): broken, (ids[0], "input"): broken, (ids[1], "output"): ok})
    job = ScoringJob.objects.get(run=run)
    assert (job.status, job.properties, job.total, job.done, job.failed) == ("done", ["word_count", "custom"], 7, 6, 1)


def test_an_exception_ends_the_in_process_job_as_failed_with_its_reason(run):
    with pytest.raises(RuntimeError), scoring.in_process_job(run.pk, ["custom"]) as tally:
        tally.add({(run.interactions.first().pk, "output"): Score(value=1.0)})
        raise RuntimeError("the provider is down")
    job = ScoringJob.objects.get(run=run)
    assert (job.status, job.done, job.failure) == ("failed", 1, "RuntimeError: the provider is down")
    assert job.finished_at is not None


@pytest.mark.parametrize("streams", ["1", "2", "3"])
def test_a_models_chunk_is_scored_in_streams_and_every_value_stored(run, monkeypatch, streams):
    """A models worker's pool process scores a chunk in `model_streams()` threads, each on every
    other interaction; the values stored are the same as one stream's, upserted in (interaction,
    field) order."""
    monkeypatch.setenv("EVALSITE_MODEL_STREAMS", streams)
    for words in range(1, 5):
        InteractionFactory(run=run, output=" ".join(["word"] * words))
    calls = []
    compute = scoring.compute_scores

    def spy(setup, interactions, raise_errors=False):
        calls.append((threading.current_thread().name, [interaction.pk for interaction in interactions]))
        return compute(setup, interactions, raise_errors)

    monkeypatch.setattr(scoring, "compute_scores", spy)
    stored = []
    store = scoring.store_values

    def store_spy(run_id, setup, results):
        stored.append(list(results))
        store(run_id, setup, results)

    monkeypatch.setattr(scoring, "store_values", store_spy)
    job = scoring.plan_job(run, ["word_count_on_models"])
    run_all_chunks(job)

    job.refresh_from_db()
    assert (job.done, job.failed, job.status) == (9, 0, "done")
    values = {value.interaction.output: value.value for value in PropertyValue.objects.filter(run=run)}
    assert values == {"three words here": 3.0, **{" ".join(["word"] * n): float(n) for n in range(1, 5)}}
    ids = sorted(run.interactions.values_list("pk", flat=True))
    count = int(streams)
    assert sorted(part for _, part in calls) == sorted(ids[first::count] for first in range(count))
    assert {name.split("_")[0] for name, _ in calls} == ({"MainThread"} if count == 1 else {"chunk-stream"})
    assert stored == [[(pk, "output") for pk in ids]]
