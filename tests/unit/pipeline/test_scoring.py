import threading

import pytest

from properties.models import Interaction, PropertyValue, ScoringJob
from properties.pipeline import scoring
from properties.scorers.base import Score
from tests.factories import InteractionFactory, ProjectFactory, RunFactory
from tests.plugins import WordCountOnModels

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
    """A models worker's pool process scores a chunk in `model_streams()` threads, each on its share
    of the interactions; the values stored are the same as one stream's, upserted in (interaction,
    field) order."""
    monkeypatch.setenv("EVALSITE_MODEL_STREAMS", streams)
    monkeypatch.setattr(WordCountOnModels, "scored_in_streams", lambda self: True)
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
    assert sorted(pk for _, part in calls for pk in part) == ids  # every interaction, in one share
    assert len(calls) == count
    assert {name.split("_")[0] for name, _ in calls} == ({"MainThread"} if count == 1 else {"chunk-stream"})
    assert stored == [[(pk, "output") for pk in ids]]


def test_a_chunk_is_dealt_in_shares_of_about_equal_text():
    """The longest first, each to the share with the least text so far: 100 + 10 and 60 + 50."""
    interactions = [Interaction(pk=pk, input="", output="x" * size) for pk, size in enumerate([60, 10, 100, 50])]
    shares = scoring.dealt(interactions, 2)
    assert [[interaction.pk for interaction in share] for share in shares] == [[2, 1], [0, 3]]
    documents = Interaction(pk=9, input="ab", output="c", expected_output="de", information_retrieval=["fgh", {"i": 1}])
    assert scoring.text_length(documents) == 2 + 1 + 2 + 3 + len(str({"i": 1}))
    assert len(scoring.dealt(interactions[:1], 3)) == 1  # no empty share


def test_a_property_not_scored_in_streams_is_scored_whole_in_the_task_s_thread(run, monkeypatch):
    """A user's plugin or a model in torch (`scored_in_streams` False) gets the whole chunk, in one call."""
    monkeypatch.setenv("EVALSITE_MODEL_STREAMS", "2")
    calls = []
    compute = scoring.compute_scores

    def spy(setup, interactions, raise_errors=False):
        calls.append((setup.name, threading.current_thread().name, len(interactions)))
        return compute(setup, interactions, raise_errors)

    monkeypatch.setattr(scoring, "compute_scores", spy)
    run_all_chunks(scoring.plan_job(run, ["word_count_on_models"]))
    assert calls == [("word_count_on_models", "MainThread", 5)]
    assert PropertyValue.objects.filter(run=run, value=3.0).count() == 5


def test_the_packaged_models_are_scored_in_streams_and_a_named_model_is_not():
    from properties.scorers import registry

    streamed = {"relevance", "retrieval_relevance", "grounded_in_context", "pii_risk", "toxicity", "avoided_answer"}
    assert all(registry.get(name)().scored_in_streams() for name in streamed)
    assert not registry.get("fluency")().scored_in_streams()  # a causal LM in torch
    assert not registry.get("toxicity")(model="someone/toxicity-classifier").scored_in_streams()
    assert not registry.get("grounded_in_context")(nli_model="someone/nli").scored_in_streams()
    assert not registry.get("word_count")().scored_in_streams()  # the base class: no


def test_a_time_limit_in_a_stream_ends_the_task_and_stores_nothing(run, monkeypatch):
    from billiard.exceptions import SoftTimeLimitExceeded

    monkeypatch.setenv("EVALSITE_MODEL_STREAMS", "2")
    monkeypatch.setattr(WordCountOnModels, "scored_in_streams", lambda self: True)

    def out_of_time(self, candidate_batch, *args):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(WordCountOnModels, "run_batch", out_of_time)
    job = scoring.plan_job(run, ["word_count_on_models"])
    with pytest.raises(SoftTimeLimitExceeded):
        run_all_chunks(job)
    assert not PropertyValue.objects.filter(run=run).exists()
    assert job.chunks.get(kind="score").state == "open"  # sent again by the sweeper, as any timed-out chunk


class WaitsForTheFirstPropertysValues(WordCountOnModels):
    """A second streamed property, which waits (a few seconds at most) for the first's values to be stored."""

    first_stored = threading.Event()
    saw_them: list[bool] = []

    @staticmethod
    def name() -> str:
        return "waits_for_the_first"

    def scored_in_streams(self) -> bool:
        return True

    def run_batch(self, candidate_batch, *args):
        self.saw_them.append(self.first_stored.wait(timeout=3))
        return super().run_batch(candidate_batch, *args)


def test_a_property_s_values_are_stored_while_the_streams_score_the_next(run, monkeypatch):
    """Each property of a streamed chunk is stored once every stream has scored it, not after the
    chunk's last property: the database writes overlap the model calls."""
    from properties.scorers import registry

    monkeypatch.setenv("EVALSITE_MODEL_STREAMS", "2")
    monkeypatch.setattr(WordCountOnModels, "scored_in_streams", lambda self: True)
    WaitsForTheFirstPropertysValues.first_stored.clear()
    WaitsForTheFirstPropertysValues.saw_them.clear()
    store = scoring.store_values

    def store_spy(run_id, setup, results):
        store(run_id, setup, results)
        if setup.name == "word_count_on_models":
            WaitsForTheFirstPropertysValues.first_stored.set()

    monkeypatch.setattr(scoring, "store_values", store_spy)
    with registry.temporarily(WaitsForTheFirstPropertysValues):
        job = scoring.plan_job(run, ["word_count_on_models", "waits_for_the_first"])
        run_all_chunks(job)
    job.refresh_from_db()
    assert (job.done, job.failed, job.status) == (10, 0, "done")
    assert WaitsForTheFirstPropertysValues.saw_them == [True, True]  # in both streams
    assert PropertyValue.objects.filter(run=run, property_name="waits_for_the_first", value=3.0).count() == 5


def test_a_time_limit_in_a_later_property_keeps_the_values_stored_before(run, monkeypatch):
    """A stream that raises hands its error to the chunk's thread, for this property and the ones after
    it; the properties every stream finished before are stored, and the chunk stays open."""
    from billiard.exceptions import SoftTimeLimitExceeded

    from properties.scorers import registry

    monkeypatch.setenv("EVALSITE_MODEL_STREAMS", "2")
    monkeypatch.setattr(WordCountOnModels, "scored_in_streams", lambda self: True)

    def out_of_time(self, candidate_batch, *args):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(WaitsForTheFirstPropertysValues, "run_batch", out_of_time)
    with registry.temporarily(WaitsForTheFirstPropertysValues):
        job = scoring.plan_job(run, ["word_count_on_models", "waits_for_the_first"])
        with pytest.raises(SoftTimeLimitExceeded):
            run_all_chunks(job)
    stored = set(PropertyValue.objects.filter(run=run).values_list("property_name", flat=True))
    assert stored == {"word_count_on_models"}
    assert job.chunks.get(kind="score").state == "open"


def test_a_stream_starts_no_property_once_the_chunk_has_stopped_waiting(monkeypatch):
    """The chunk's thread stops waiting (a time limit, a refused write): each stream finishes the
    property it is scoring and starts no other, for a task that has ended."""
    from concurrent.futures import Future

    stop = threading.Event()
    scored = []

    def compute(setup, share):
        scored.append(setup)
        stop.set()  # the chunk gives up while the stream scores its first property
        return {}

    monkeypatch.setattr(scoring, "compute_scores", compute)
    slots = [Future(), Future(), Future()]
    scoring._score_stream([], ["first", "second", "third"], slots, stop)
    assert scored == ["first"]
    assert slots[0].result() == {}
    assert [slot.cancelled() for slot in slots] == [False, True, True]


def test_planning_names_every_builtin_property_s_model_without_loading_one(monkeypatch):
    """The planner asks each property's model id (stored with each value), in a cpu worker's pool
    process that scores no model: loading one there costs its load time and its memory for a name."""
    from properties.projects import project_templates
    from properties.scorers import registry
    from properties.scorers.runtime import models

    def no_load(key, load):
        raise AssertionError(f"a model was loaded to name it: {key}")

    monkeypatch.setattr(models, "cached", no_load)
    names = [name for name in registry.all_scorers() if registry.is_builtin(name)]
    project = ProjectFactory(enabled_properties=names)
    setups = [scoring.build_scorer(project, name) for name in names]
    assert {setup.name for setup in setups if setup.error} == set()
    packaged = set(project_templates.default_properties())
    assert all(setup.model for setup in setups if setup.name in packaged and setup.queue == "models")
