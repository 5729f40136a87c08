"""Loading the projects' models when a models worker's pool process starts, not in its first chunk.

Models load lazily, once per process (`runtime.models.cached`). Left to the first chunk, the
loading (the encoders' and cross-encoder's ONNX sessions, spaCy, the PII model, heads) was part of
the first job's time: on 2 cores, about a fifth of a 100-row RAG job scored right after the worker
started (bench/pipeline.py's per-property table, "load" column). A pool process of a worker that
takes the models queue instead scores one made-up interaction with each model-backed property that
a project enables, as that project configures it, in a thread started with the process
(EVALSITE_WORKER_LOAD_MODELS, on by default); the process's tasks wait until it is done, so a chunk
never runs beside a model being loaded. A property that fails to load is left to report itself
when a chunk needs it; a property enabled later loads on first use, as before.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable

from properties.pipeline.workers import MODEL_QUEUE

logger = logging.getLogger(__name__)

# Longest a task waits for its process's loading before it runs anyway (loading then goes on
# beside it, through the same per-process cache and its lock).
LOADING_WAIT_S = 300.0
# The interaction each property scores once: a question, a document, an answer and a reference, so
# that every model a property reads runs once.
MADE_UP = {
    "input": "What is the capital of France?",
    "information_retrieval": ["Paris is the capital and largest city of France, on the Seine."],
    "output": "The capital of France is Paris.",
    "expected_output": "Paris is the capital of France.",
}

# Set in a worker's main process before its pool forks, so that its pool processes inherit it.
_load_in_pool = False
_loaded = threading.Event()
_loaded.set()  # nothing to wait for until a pool process starts loading


def plan_loading(consumed: Iterable[str]) -> None:
    """In a worker's main process: whether its pool processes load the projects' models at start."""
    from django.conf import settings

    global _load_in_pool
    _load_in_pool = settings.EVALSITE_WORKER_LOAD_MODELS and MODEL_QUEUE in consumed


def start_loading() -> None:
    """In a pool process as it starts: load the models in a thread, if this worker takes models."""
    if not _load_in_pool:
        return
    _loaded.clear()
    threading.Thread(target=_load_and_signal, name="load-models", daemon=True).start()


def wait_until_loaded() -> None:
    """Before a task: wait for this process's loading, if it is still going."""
    if not _loaded.is_set() and not _loaded.wait(LOADING_WAIT_S):
        logger.warning("models still loading after %.0f s: the task runs beside the loading", LOADING_WAIT_S)


def _load_and_signal() -> None:
    from django.db import connections

    started = time.monotonic()
    try:
        names = load_enabled_models()
        logger.info("models of %d properties loaded in %.1f s: %s", len(names), time.monotonic() - started, names)
    except Exception:  # noqa: BLE001 - a chunk that needs the model loads it again and reports the error
        logger.exception("loading the projects' models failed; they load on first use instead")
    finally:
        connections.close_all()
        _loaded.set()


def load_enabled_models() -> list[str]:
    """Score the made-up interaction once with each model-backed property that a project enables, as
    the project configures it (one of each configuration); returns the properties scored."""
    from properties.models import Interaction, Project
    from properties.pipeline import scoring

    interaction = Interaction(**MADE_UP)
    seen: set[tuple[str, str, str]] = set()
    names: list[str] = []
    for project in Project.objects.all():
        for prop in project.enabled_properties:
            setup = scoring.build_scorer(project, prop)
            key = (setup.name, setup.version_key, setup.model)
            if setup.scorer is None or setup.queue != MODEL_QUEUE or key in seen:
                continue
            seen.add(key)
            for field in setup.fields:  # an error is an error Score, stored nowhere
                scoring.score_field(setup.scorer, field, [interaction])
            names.append(prop)
    return names
