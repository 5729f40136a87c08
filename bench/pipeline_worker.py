"""The Celery app of bench.pipeline's workers: Evalsite's own app, with timings written per task.

    celery -A bench.pipeline_worker worker -Q cpu,models,llm ...   (bench.pipeline starts it)

Nothing here changes what a worker does. In each pool process it wraps, by assignment:

- `scoring.compute_scores`: the seconds a chunk's property spends scoring (models included, the
  database reads and writes of the task around it not);
- the shared stages, each timed exclusively (a stage called inside another one counts only in the
  inner one, so the stages of a chunk add up to at most its scoring time):
  parse (spaCy), split (Punkt sentences), embed (the MiniLM encoder, windowing and memo included),
  cross-encode (the cross-encoder's logits), LM (the causal LM's read and its adapter), other
  models (the PII NER model, the toxicity BiLSTM) and load (a model loaded into the process cache).

After each task it appends to BENCH_TIMINGS_DIR/<pid>.jsonl one JSON line per property the chunk
carried: the task, the property and run, its items, its share of the task's seconds (its scoring
plus an even share of the task's own time), the scoring seconds and the seconds of each stage. Punkt is
imported when a pool process starts (36 ms) so that its splitter can be wrapped; spaCy is wrapped
when its first pipeline is loaded, never imported here.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from celery import signals

from evalsite.celery import app

__all__ = ["app"]

STAGES = ("load", "parse", "split", "embed", "cross-encode", "LM", "other models")


class StageClock(threading.local):
    """Exclusive seconds per stage: time spent in a nested stage is taken off the outer one. One
    clock per thread: a models worker's streams score a chunk's parts side by side."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self._open: list[list[float]] = []  # per open stage: seconds of the stages nested in it

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        self._open.append([0.0])
        try:
            yield
        finally:
            elapsed = time.perf_counter() - started
            nested = self._open.pop()[0]
            self.seconds[name] += elapsed - nested
            if self._open:
                self._open[-1][0] += elapsed

    def take(self) -> dict[str, float]:
        taken = {name: round(seconds, 4) for name, seconds in self.seconds.items()}
        self.seconds.clear()
        return taken


clock = StageClock()
_task: dict[str, Any] = {}


def timed(stage: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with clock.stage(stage):
            return function(*args, **kwargs)

    wrapper.bench_timed = True  # type: ignore[attr-defined]
    return wrapper


def timed_generator(stage: str, function: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
    """For spaCy's `pipe`, which parses lazily: each item is timed as it is taken."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Iterator[Any]:
        items = function(*args, **kwargs)
        while True:
            with clock.stage(stage):
                try:
                    item = next(items)
                except StopIteration:
                    return
            yield item

    wrapper.bench_timed = True  # type: ignore[attr-defined]
    return wrapper


def wrap(owner: Any, name: str, stage: str, generator: bool = False) -> None:
    function = getattr(owner, name)
    if not getattr(function, "bench_timed", False):
        setattr(owner, name, (timed_generator if generator else timed)(stage, function))


def wrap_spacy() -> None:
    if "spacy" in sys.modules:
        from spacy.language import Language

        wrap(Language, "__call__", "parse")
        wrap(Language, "pipe", "parse", generator=True)


def install() -> None:
    import punkt

    from properties.pipeline import scoring
    from properties.scorers.runtime import causal_lm, cross_encoder, lm_adapter, models, pii_model, toxic_bilstm

    wrap(punkt, "sent_tokenize", "split")
    wrap(models.OnnxEncoder, "encode", "embed")
    wrap(cross_encoder.OnnxCrossEncoder, "logits", "cross-encode")
    wrap(causal_lm.CausalLM, "read", "LM")
    wrap(lm_adapter.Adapter, "predict", "LM")
    wrap(pii_model.RampartModel, "entities", "other models")
    wrap(toxic_bilstm.ToxicBiLSTM, "read", "other models")

    cached = models.cached

    def cached_and_timed(key: tuple[str, ...], load: Callable[[], Any]) -> Any:
        found = cached(key, timed("load", load))
        wrap_spacy()  # spaCy is imported by the first pipeline's load
        return found

    models.cached = cached_and_timed

    compute_scores = scoring.compute_scores

    @functools.wraps(compute_scores)
    def compute_and_time(setup: Any, interactions: list[Any], *args: Any, **kwargs: Any) -> Any:
        clock.take()  # nothing from before this chunk
        started = time.perf_counter()
        try:
            return compute_scores(setup, interactions, *args, **kwargs)
        finally:
            # A chunk carries several properties: one part per property, in the order they ran.
            _task.setdefault("parts", []).append(
                {
                    "property": setup.name,
                    "run": interactions[0].run_id if interactions else None,
                    "items": len(interactions),
                    "scoring_s": round(time.perf_counter() - started, 4),
                    "span": (started, time.perf_counter()),
                    "stages": clock.take(),
                }
            )

    scoring.compute_scores = compute_and_time


@signals.worker_process_init.connect
def _install(**kwargs: Any) -> None:
    if os.environ.get("BENCH_TIMINGS_DIR"):
        install()


@signals.task_prerun.connect
def _task_started(task: Any = None, **kwargs: Any) -> None:
    _task.clear()
    _task.update(task=getattr(task, "name", ""), started=time.time(), clock=time.perf_counter())


@signals.task_postrun.connect
def _task_finished(**kwargs: Any) -> None:
    folder = os.environ.get("BENCH_TIMINGS_DIR")
    if not folder or "clock" not in _task:
        return
    started = _task.pop("clock")
    task_s = time.perf_counter() - started
    parts = _task.pop("parts", [])
    base = {**_task, "pid": os.getpid()}
    if not parts:
        records = [{**base, "task_s": round(task_s, 4)}]
    else:
        # The task's own time (reading the chunk, storing values) is shared out evenly: what the task
        # took beyond the time some part was scoring (the streams' parts overlap).
        overhead = (task_s - covered([part.pop("span") for part in parts])) / len(parts)
        records = [{**base, **part, "task_s": round(part["scoring_s"] + overhead, 4)} for part in parts]
    with (Path(folder) / f"{os.getpid()}.jsonl").open("a") as out:
        out.writelines(json.dumps(record) + "\n" for record in records)


def covered(spans: list[tuple[float, float]]) -> float:
    """Seconds inside at least one of the (start, end) spans."""
    total, reached = 0.0, float("-inf")
    for start, end in sorted(spans):
        if end > reached:
            total += end - max(start, reached)
            reached = end
    return total
