"""Worker heartbeats, the pool watchdog, and what the pages say about workers.

Each Celery worker's main process runs a thread that writes a WorkerHeartbeat row every
EVALSITE_WORKER_HEARTBEAT_S seconds: which queues it takes, and since when it has sat idle. The
pages read these rows (never the broker, which could block them) to say when no worker takes a
queue's work; the sweeper reads them to find chunks lost with a worker.

The same thread is the pool's watchdog. With a broker that Celery cannot poll asynchronously (the
embedded SQLite broker), the prefork pool's children share one lock on the pipe they read tasks
from; a child killed while it holds that lock (SIGKILL, the OOM killer) leaves the others waiting
on it for good, and the worker takes no task again (a known billiard failure). When tasks wait
while a pool process is free and none has started for EVALSITE_WORKER_HANG_S seconds, the watchdog
kills the pool and exits, so that whatever supervises the worker (`manage.py start`, the compose
restart policy) starts a fresh one; the sweeper sends again what the old one held.

Celery's signals call the functions below from evalsite/celery.py; this module imports models
lazily because the Celery app is imported before Django is set up.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import signal
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

logger = logging.getLogger(__name__)

# Exit status of a worker that the watchdog stopped: its supervisor restarts it.
EXIT_POOL_HUNG = 75
# The queue of the model-backed properties (the scorers' `queue`).
MODEL_QUEUE = "models"

# The worker this process belongs to: set in the worker's main process before its pool forks,
# so that pool processes inherit it and record it on the chunks they begin.
_worker_id = ""
_received = 0

# Held by the heartbeat thread while it talks to the database, and taken by every fork of this
# process (billiard replacing a pool process): a process forked while the thread is inside the
# database driver inherits the driver's global mutexes locked, by a thread it does not have, and
# hangs at its first query (SQLite's did: a replacement pool process accepted a chunk and never
# began it). Forks wait for the beat to end instead.
_database_in_use = threading.Lock()
os.register_at_fork(
    before=_database_in_use.acquire,
    after_in_parent=_database_in_use.release,
    after_in_child=_database_in_use.release,
)


def return_freed_memory() -> None:
    """Hand the heap's free pages back to the system after a task. glibc keeps what a task freed
    mapped to the process: a batch of long texts through the causal LM and the encoders leaves
    hundreds of megabytes that no later task may need (80-350 MB over the default models). Where the
    C library is not glibc, nothing."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Any:
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    except OSError:
        return None


def current_worker() -> str:
    return _worker_id


def identify(hostname: str) -> str:
    """Name this worker for its heartbeats: the node name, its pid and a nonce (pids are reused)."""
    global _worker_id
    _worker_id = f"{hostname}/{os.getpid()}-{uuid.uuid4().hex[:6]}"
    return _worker_id


def share_model_threads(consumed: Iterable[str], concurrency: int) -> None:
    """In a models worker's main process, before its pool forks: unless EVALSITE_MODEL_THREADS is
    set, give each pool process its share of the cores as streams of one thread each.

    Each pool process scores a chunk in as many threads (streams, `models.model_streams`) as its
    share of the cores, and every model session computes with one thread. A session given every core
    instead keeps the second busy less than half the time on a chunk's small batches (the RAG
    template's short rows: 12.4 rows/s on 2 cores against 16.7 with two streams, see
    `scoring._score_properties`); and with concurrency 2 on 2 cores, sessions of two threads each
    had four threads take turns on two cores, doubling the CPU time of each model call. An
    operator's EVALSITE_MODEL_STREAMS sets the streams, the share then split among them."""
    if MODEL_QUEUE not in consumed or os.environ.get("EVALSITE_MODEL_THREADS", "").strip():
        return
    from properties.scorers.runtime import models

    share = max(1, models.model_threads() // max(1, concurrency))
    streams = models.model_streams() if os.environ.get("EVALSITE_MODEL_STREAMS", "").strip() else share
    os.environ["EVALSITE_MODEL_STREAMS"] = str(streams)
    os.environ["EVALSITE_MODEL_THREADS"] = str(max(1, share // streams))
    logger.info(
        "each of the %d pool processes scores a chunk in %d streams, model sessions of %s threads",
        concurrency,
        streams,
        os.environ["EVALSITE_MODEL_THREADS"],
    )


def import_model_libraries(consumed: Iterable[str]) -> None:
    """In a worker's main process, before its pool forks: import the packaged models' libraries
    when the worker takes the models queue (EVALSITE_WORKER_IMPORT_MODELS, on by default).

    The first chunk a pool process scores then finds them imported, which was 3-4 s of its loading,
    and the pool processes share the modules' pages with the main process."""
    from django.conf import settings

    from properties.scorers.runtime import models

    if not settings.EVALSITE_WORKER_IMPORT_MODELS or MODEL_QUEUE not in consumed:
        return
    started = time.monotonic()
    failed = models.import_model_libraries()
    logger.info("model libraries imported before the pool starts, in %.1f s", time.monotonic() - started)
    for name, why in failed.items():
        logger.warning("could not import %s (the properties that need it will say so when used): %s", name, why)


def count_received() -> None:
    global _received
    _received += 1


@dataclass
class Watch:
    """What the heartbeat thread remembers between beats."""

    idle_since: datetime | None = None
    received_when_idle: int = -1
    # Tasks the worker holds that no pool process has begun: since when, while a process was free.
    waiting_since: dict[str, float] = field(default_factory=dict)


class Heartbeat(threading.Thread):
    """The main process's heartbeat and pool watchdog (see the module's docstring)."""

    def __init__(self, controller: Any) -> None:
        super().__init__(name="evalsite-heartbeat", daemon=True)
        self.controller = controller
        self.stopping = threading.Event()
        self.watch = Watch()

    def run(self) -> None:
        from django.conf import settings
        from django.db import DatabaseError, close_old_connections

        while not self.stopping.is_set():
            with _database_in_use:
                try:
                    self.beat()
                except DatabaseError as exc:  # a locked or unreachable database: beat again next time
                    logger.warning("heartbeat not written: %s", exc)
                finally:
                    close_old_connections()
            if self.pool_hung(time.monotonic(), settings.EVALSITE_WORKER_HANG_S):
                self.restart_hung_pool()
            self.stopping.wait(settings.EVALSITE_WORKER_HEARTBEAT_S)

    def beat(self) -> None:
        from django.utils import timezone

        from properties.models import WorkerHeartbeat

        now = timezone.now()
        state = {
            "hostname": self.controller.hostname,
            "pid": os.getpid(),
            "queues": sorted(queue.name for queue in self.controller.app.amqp.queues.consume_from.values()),
            "concurrency": self.controller.concurrency or 1,
            "last_seen": now,
            "idle_since": self.idle_since(now),
            "stopped_at": None,
        }
        WorkerHeartbeat.objects.update_or_create(
            worker=_worker_id, defaults=state, create_defaults={**state, "started_at": now}
        )

    def idle_since(self, now: datetime) -> datetime | None:
        """When this worker last began holding nothing and receiving nothing, or None while it works."""
        from celery.worker import state

        watch = self.watch
        if len(state.reserved_requests):
            watch.idle_since = None
        elif watch.idle_since is None or watch.received_when_idle != _received:
            watch.idle_since, watch.received_when_idle = now, _received
        return watch.idle_since

    def pool_hung(self, now: float, hang_seconds: float) -> bool:
        from celery.worker import state

        running = list(state.active_requests)
        # A task handed to a pool process that was killed before it ran counts as waiting, not running.
        active = {request.id for request in running} - orphaned(running, set(pool_pids(self.controller)))
        waiting = {request.id for request in list(state.reserved_requests)} - active
        return stalled(self.watch, waiting, len(active), self.controller.concurrency or 1, now) >= hang_seconds

    def restart_hung_pool(self) -> None:
        logger.critical(
            "the pool begins no task (%d waiting, the oldest for %s s, with a pool process free): a pool process "
            "was probably killed; stopping this worker so that its supervisor starts a fresh one",
            len(self.watch.waiting_since),
            int(time.monotonic() - min(self.watch.waiting_since.values(), default=time.monotonic())),
        )
        stopped(reason="pool hung")
        for pid in pool_pids(self.controller):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        # A warm shutdown would wait on the same lock: leave at once.
        os._exit(EXIT_POOL_HUNG)


def pool_pids(controller: Any) -> list[int]:
    try:
        return list(controller.pool.info.get("processes", []))
    except AttributeError:  # a pool without processes (solo, threads)
        return []


def orphaned(running: list[Any], live_pids: set[int]) -> set[str]:
    """The ids of the tasks the worker counts as running whose pool process is gone: the process was
    killed after it accepted the task, and the pool never reported it lost (seen with Redis under
    load). Without the pool's process ids (a solo pool) none is."""
    if not live_pids:
        return set()
    return {request.id for request in running if request.worker_pid and request.worker_pid not in live_pids}


def stalled(watch: Watch, waiting: set[str], active: int, concurrency: int, now: float) -> float:
    """Seconds the longest-waiting task has waited for the pool while a pool process was free.

    `waiting` holds the ids of the tasks the worker holds that no pool process has begun. While
    every process is busy, waiting is expected and the count starts again. A task that waits with a
    process free is one the pool will never begin: a pool hung on its lock, or a task the pool lost
    track of when the process it was handed to was killed (the Redis pool does that).
    """
    if active >= concurrency:
        watch.waiting_since = {}
        return 0.0
    watch.waiting_since = {task_id: watch.waiting_since.get(task_id, now) for task_id in waiting}
    return now - min(watch.waiting_since.values(), default=now)


_heartbeat: Heartbeat | None = None


def start_heartbeat(controller: Any) -> None:
    global _heartbeat
    if not _worker_id:
        identify(controller.hostname)
    _heartbeat = Heartbeat(controller)
    _heartbeat.start()


def stopped(reason: str = "") -> None:
    """Mark this worker stopped (a warm shutdown, or the watchdog), so pages stop counting on it."""
    from django.db import DatabaseError
    from django.utils import timezone

    from properties.models import WorkerHeartbeat

    if _heartbeat is not None:
        _heartbeat.stopping.set()
    try:
        WorkerHeartbeat.objects.filter(worker=_worker_id).update(stopped_at=timezone.now())
    except DatabaseError as exc:
        logger.warning("could not record that worker %s stopped (%s): %s", _worker_id, reason, exc)


# --- what the pages and the sweeper read -------------------------------------------------------


def alive_workers(now: datetime | None = None) -> list[Any]:
    from django.conf import settings
    from django.utils import timezone

    from properties.models import WorkerHeartbeat

    now = now or timezone.now()
    recent = now - timedelta(seconds=settings.EVALSITE_WORKER_STALE_S)
    return list(WorkerHeartbeat.objects.filter(last_seen__gte=recent, stopped_at__isnull=True))


@dataclass(frozen=True)
class QueueProblem:
    """No live worker takes a queue that has work waiting."""

    queue: str
    last_seen: datetime | None

    def __str__(self) -> str:
        from django.utils.timesince import timesince

        if self.last_seen is None:
            return f"No worker is taking `{self.queue}` work: none has ever connected."
        return f"No worker is taking `{self.queue}` work: last seen {timesince(self.last_seen)} ago."

    @property
    def hint(self) -> str:
        return f"celery -A evalsite worker -Q {self.queue}"


def queue_problems(queues: Iterable[str]) -> list[QueueProblem]:
    """For the queues given (those with work waiting), the ones no live worker takes."""
    from properties.models import WorkerHeartbeat

    wanted = sorted(set(queues))
    if not wanted:
        return []
    alive = alive_workers()
    served = {queue for worker in alive for queue in worker.queues}
    problems = []
    for queue in wanted:
        if queue in served:
            continue
        seen = [worker.last_seen for worker in WorkerHeartbeat.objects.all() if queue in worker.queues]
        problems.append(QueueProblem(queue, max(seen, default=None)))
    return problems
