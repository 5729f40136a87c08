"""The scoring pipeline through real parts: a Redis broker and `celery worker` processes."""

import os
import signal
import time
from pathlib import Path

import pytest

from properties.models import PropertyValue, ScoringJob
from properties.pipeline import scoring
from tests import servers
from tests.factories import InteractionFactory, ProjectFactory, RunFactory

pytestmark = pytest.mark.integration


def wait_until_finished(job: ScoringJob, worker: servers.WorkerHandle, timeout: float = 90) -> ScoringJob:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.is_finished:
            return job
        time.sleep(0.2)
    raise AssertionError(
        f"job not finished after {timeout}s: {job.done}+{job.failed}/{job.total}\nworker log:\n{worker.log()[-4000:]}"
    )


def make_run(properties, config=None, rows=6):
    project = ProjectFactory(enabled_properties=properties, property_config=config or {})
    run = RunFactory(project=project)
    for i in range(rows):
        InteractionFactory(run=run, input=f"question {i}", output=" ".join(["word"] * (i + 1)))
    return run


def test_a_real_worker_scores_a_run(live_worker, settings):
    settings.EVALSITE_CHUNK_SIZE = 2
    run = make_run(["word_count", "fails_on_boom"])
    InteractionFactory(run=run, output="boom")
    job = wait_until_finished(scoring.plan_job(run), live_worker)
    assert (job.total, job.done, job.failed) == (14, 13, 1)
    assert PropertyValue.objects.filter(run=run, property_name="word_count", status="ok").count() == 14
    assert PropertyValue.objects.get(run=run, status="error").interaction.output == "boom"
    # A rescore finds nothing stale but the failed item.
    assert scoring.plan_job(run).total == 1


def test_a_models_worker_imports_the_model_libraries_and_still_scores(worker_env):
    # The libraries are imported in the worker's main process and the pool process forked from it
    # loads the project's models as it starts: the ONNX sessions and torch must still run there.
    run = make_run(["toxicity", "formality"], rows=2)
    env = {**worker_env, "EVALSITE_WORKER_IMPORT_MODELS": "1", "EVALSITE_WORKER_LOAD_MODELS": "1"}
    with servers.celery_worker(env, queues="cpu,models", concurrency=1) as worker:
        job = wait_until_finished(scoring.plan_job(run), worker)
    assert "model libraries imported before the pool starts" in worker.log()
    assert "models of 2 properties loaded" in worker.log()
    assert (job.total, job.done, job.failed) == (4, 4, 0)
    values = PropertyValue.objects.filter(run=run, property_name__in=["toxicity", "formality"])
    assert sorted(values.values_list("property_name", "field", "status")) == [
        (prop, field_name, "ok")
        for prop in ("formality", "toxicity")
        for field_name in ("input", "input", "output", "output")
    ]


def test_a_worker_killed_mid_task_loses_nothing(worker_env, tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    run = make_run(["slow_word_count"], {"slow_word_count": {"seconds": 2.0, "marker_dir": str(markers)}}, rows=3)
    with servers.celery_worker(worker_env, concurrency=1) as worker:
        job = scoring.plan_job(run)
        pid = wait_for_marker(markers)
        # Kill the pool process mid-task: acks_late + reject_on_worker_lost must redeliver the chunk.
        os.kill(pid, signal.SIGKILL)
        job = wait_until_finished(job, worker)
    assert (job.done, job.failed) == (3, 0)
    assert len(list(markers.iterdir())) >= 2, "the chunk was not run again after the kill"
    values = PropertyValue.objects.filter(run=run, property_name="slow_word_count", status="ok")
    assert sorted(values.values_list("value", flat=True)) == [1.0, 2.0, 3.0]


def wait_for_marker(markers: Path, timeout: float = 60) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for marker in markers.iterdir():
            return int(marker.read_text())
        time.sleep(0.05)
    raise AssertionError("the slow scorer never started")
