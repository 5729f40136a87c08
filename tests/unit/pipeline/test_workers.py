"""Worker heartbeats as the pages read them, and the pool watchdog's arithmetic."""

import os
import subprocess
import sys
import threading
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from properties.models import WorkerHeartbeat
from properties.pipeline import workers


def beat(worker: str, queues: list[str], seen_ago: float, stopped: bool = False) -> None:
    now = timezone.now()
    WorkerHeartbeat.objects.create(
        worker=worker,
        hostname=worker.split("/")[0],
        pid=1,
        queues=queues,
        last_seen=now - timedelta(seconds=seen_ago),
        stopped_at=now if stopped else None,
    )


@pytest.mark.django_db
def test_a_queue_no_live_worker_takes_is_named_with_when_one_was_last_seen():
    beat("celery@a/1-x", ["cpu", "models"], seen_ago=180)
    beat("celery@b/2-y", ["cpu"], seen_ago=2)
    problems = workers.queue_problems(["models", "cpu", "llm"])
    assert [str(problem) for problem in problems] == [
        "No worker is taking `llm` work: none has ever connected.",
        "No worker is taking `models` work: last seen 3\xa0minutes ago.",
    ]
    assert problems[0].hint == "celery -A evalsite worker -Q llm"


@pytest.mark.django_db
def test_a_worker_that_stopped_cleanly_takes_no_work():
    beat("celery@a/1-x", ["cpu"], seen_ago=1, stopped=True)
    assert [problem.queue for problem in workers.queue_problems(["cpu"])] == ["cpu"]


@pytest.mark.django_db
def test_no_queue_with_work_no_query_no_problem(django_assert_num_queries):
    with django_assert_num_queries(0):
        assert workers.queue_problems([]) == []


def test_the_pool_is_stalled_only_while_a_task_waits_with_a_process_free():
    watch = workers.Watch()
    # Working: every process busy, however long tasks wait.
    assert workers.stalled(watch, {"a", "b"}, active=2, concurrency=2, now=0.0) == 0.0
    assert workers.stalled(watch, {"a", "b"}, active=2, concurrency=2, now=100.0) == 0.0
    # A process is free from now on; "a" is begun, "b" never is (a hung pool, or a lost task).
    assert workers.stalled(watch, {"a", "b"}, active=1, concurrency=2, now=101.0) == 0.0
    assert workers.stalled(watch, {"b", "c"}, active=1, concurrency=2, now=111.0) == 10.0
    assert workers.stalled(watch, {"b"}, active=0, concurrency=2, now=131.0) == 30.0
    # Nothing waits: nothing is stalled, whatever happened before.
    assert workers.stalled(watch, set(), active=0, concurrency=2, now=200.0) == 0.0
    assert workers.stalled(watch, {"d"}, active=0, concurrency=2, now=201.0) == 0.0


FREED_HEAP = """
import ctypes, ctypes.util
from properties.pipeline import workers

libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]

def rss_mb():
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS")) // 1024

# 200 MB in small blocks (below glibc's mmap threshold), written so that they are resident, then freed.
blocks = [libc.malloc(2048) for _ in range(100_000)]
for block in blocks:
    ctypes.memset(block, 1, 2048)
guard = libc.malloc(100_000)  # keeps the heap's top in place, as a worker's live objects do
ctypes.memset(guard, 1, 100)
for block in blocks:
    libc.free(block)
before = rss_mb()
workers.return_freed_memory()
print(before, rss_mb())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="malloc_trim is glibc's")
def test_a_task_hands_the_heap_it_freed_back_to_the_system():
    # The worker calls this after every task (evalsite/celery.py): what a batch of long texts
    # allocated and freed would otherwise stay mapped to the model worker for its whole life.
    done = subprocess.run([sys.executable, "-c", FREED_HEAP], capture_output=True, text=True, check=True)
    before, after = map(int, done.stdout.split())
    assert before - after > 150, (before, after)


@pytest.mark.parametrize(
    ("consumed", "setting", "imported"),
    [
        ({"models": None}, True, True),
        ({"cpu": None, "models": None, "llm": None}, True, True),
        ({"cpu": None, "llm": None}, True, False),
        ({"models": None}, False, False),
    ],
)
def test_a_models_worker_imports_the_model_libraries_before_its_pool_forks(
    consumed, setting, imported, settings, monkeypatch
):
    from properties.scorers.runtime import models

    calls = []
    monkeypatch.setattr(models, "import_model_libraries", lambda: calls.append("imported") or {})
    settings.EVALSITE_WORKER_IMPORT_MODELS = setting
    workers.import_model_libraries(consumed)
    assert calls == (["imported"] if imported else [])


@pytest.mark.parametrize(
    ("consumed", "concurrency", "configured", "streams", "threads"),
    [
        ({"models": None}, 1, (None, None), "4", "1"),  # one pool process on 4 cores: 4 streams of one thread
        ({"models": None}, 2, (None, None), "2", "1"),  # 2 pool processes: 2 streams each
        ({"models": None}, 8, (None, None), "1", "1"),
        ({"cpu": None}, 2, (None, None), None, None),
        ({"models": None}, 2, ("3", None), None, "3"),  # the operator's threads stand, one stream
        ({"models": None}, 1, (None, "2"), "2", "2"),  # the operator's streams split the share
    ],
)
def test_a_models_worker_shares_the_cores_among_its_pool_processes_as_streams(
    consumed, concurrency, configured, streams, threads, monkeypatch
):
    from properties.scorers.runtime import models

    configured_threads, configured_streams = configured
    monkeypatch.setenv("EVALSITE_MODEL_THREADS", configured_threads or "")  # restored after the test
    monkeypatch.setenv("EVALSITE_MODEL_STREAMS", configured_streams or "")
    monkeypatch.setattr(models.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    workers.share_model_threads(consumed, concurrency)
    assert (os.environ["EVALSITE_MODEL_STREAMS"] or None) == streams
    assert (os.environ["EVALSITE_MODEL_THREADS"] or None) == threads
    assert models.model_streams() == int(streams or 1)


def test_the_model_libraries_import_and_a_missing_one_is_named(monkeypatch):
    from properties.scorers.runtime import models

    monkeypatch.setattr(models, "MODEL_LIBRARIES", ("json", "no_such_library_here"))
    failed = models.import_model_libraries()
    assert list(failed) == ["no_such_library_here"]
    assert "ModuleNotFoundError" in failed["no_such_library_here"]


def test_a_task_whose_pool_process_is_gone_is_not_running():
    from types import SimpleNamespace

    running = [SimpleNamespace(id="a", worker_pid=11), SimpleNamespace(id="b", worker_pid=12)]
    assert workers.orphaned(running, {11, 13}) == {"b"}
    assert workers.orphaned(running, {11, 12}) == set()
    assert workers.orphaned(running, set()) == set(), "a pool without process ids (solo)"
    assert workers.orphaned([SimpleNamespace(id="c", worker_pid=None)], {11}) == set(), "not yet accepted"


def test_a_fork_waits_until_the_heartbeat_is_out_of_the_database(monkeypatch):
    """A pool process forked mid-beat would inherit the database driver's mutexes locked and hang."""
    inside, leave = threading.Event(), threading.Event()

    def beat_until_told(heartbeat):
        inside.set()
        leave.wait(10)
        heartbeat.stopping.set()

    monkeypatch.setattr(workers.Heartbeat, "beat", beat_until_told)
    monkeypatch.setattr(workers.Heartbeat, "pool_hung", lambda *args: False)
    heartbeat = workers.Heartbeat(controller=None)
    heartbeat.start()
    assert inside.wait(10)
    threading.Timer(0.3, leave.set).start()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    waited = time.monotonic() - started
    os.waitpid(pid, 0)
    heartbeat.join(10)
    assert waited >= 0.25, "the fork went ahead while the heartbeat was inside the database"
