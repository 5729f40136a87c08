"""Fair scheduling: how long a small job of one project takes while another project's large job runs.

    .venv/bin/python -m bench.fairness [--large 10000] [--small 50] [--broker sqlite|redis|both]

For each broker (the embedded SQLite broker, and Redis from a throwaway redis-server when one is
installed) and each dispatch, in a process of its own with a fresh embedded install:

1. the workers of `manage.py start` start (a pool of 2 for the cpu and llm queues, one process for
   the models queue) with Celery beat;
2. the small job (`--small` interactions of project B) is uploaded and scored alone: its time to
   finish, from the upload's start to the job's `finished_at`, is the baseline;
3. the large job (`--large` interactions of project A) is uploaded; once its values are being
   stored (after LARGE_HEAD_START_S), a second small job of project B is uploaded and timed the
   same way, while the large one runs.

The properties are three cheap ones (cpu queue) and Toxicity (models queue), so both queues are
contended. Two dispatches are measured in the same run: *fair*, the default (score chunks released
a window at a time, in turn between projects: properties.pipeline.dispatch), and *first in, first
out*, what Evalsite did before (every chunk sent to the broker when planned), by setting the window
larger than any job. A small job still waiting after SMALL_TIMEOUT_S is reported as such.

Target (issue 26, 2 cores): the small job finishes within 60 s while the large one runs, on both
brokers.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.child import in_child

ROOT = Path(__file__).resolve().parents[1]
PROPERTIES = ["word_count", "reading_ease", "sentiment", "toxicity"]
# The large job has been scoring this long (on both queues) when the small one is uploaded.
LARGE_HEAD_START_S = 15.0
SMALL_TIMEOUT_S = 240.0
WORKER_READY_TIMEOUT_S = 180.0
TARGET_S = 60.0
DISPATCHES = {"fair": None, "first in, first out": 10_000_000}
WORDS = [
    "the",
    "order",
    "shipped",
    "on",
    "time",
    "and",
    "the",
    "support",
    "team",
    "answered",
    "every",
    "question",
    "about",
    "billing",
]


def rows(count: int, prefix: str) -> list[dict[str, str]]:
    """Distinct short support answers, so that no model memo skips a repeat."""
    made = []
    for n in range(count):
        words = [WORDS[(n * 7 + k * 3) % len(WORDS)] for k in range(12)]
        made.append(
            {
                "user_interaction_id": f"{prefix}-{n}",
                "input": f"Question {n} from {prefix}: where is my order?",
                "output": f"Answer {n}: " + " ".join(words) + f". Reference {prefix}{n}.",
            }
        )
    return made


def write_jsonl(records: list[dict[str, str]], path: Path) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def measure(broker_url: str | None, window: int | None, large: int, small: int, cache: str) -> dict[str, Any]:
    data = Path(tempfile.mkdtemp(prefix="evalsite-bench-fairness-"))
    try:
        return _measure(data, broker_url, window, large, small, cache)
    finally:
        shutil.rmtree(data, ignore_errors=True)


def _measure(
    data: Path, broker_url: str | None, window: int | None, large: int, small: int, cache: str
) -> dict[str, Any]:
    from bench.pipeline import configure

    configure(data, broker_url, cache)
    if window is not None:
        os.environ["EVALSITE_DISPATCH_WINDOW"] = str(window)
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    from bench.pipeline import supervised_workers
    from properties.models import Project
    from tests import servers

    call_command("migrate", verbosity=0)
    project_a = Project.objects.create(name="A: large", enabled_properties=PROPERTIES)
    project_b = Project.objects.create(name="B: small", enabled_properties=PROPERTIES)
    files = {
        "alone": write_jsonl(rows(small, "alone"), data / "small-alone.jsonl"),
        "large": write_jsonl(rows(large, "large"), data / "large.jsonl"),
        "beside": write_jsonl(rows(small, "beside"), data / "small-beside.jsonl"),
    }
    os.environ["BENCH_TIMINGS_DIR"] = str(data)
    result: dict[str, Any] = {}
    with supervised_workers(data, 2) as fleet:
        servers.wait_until(
            lambda: fleet.log().count("ready.") >= len(fleet.workers),
            fleet.worker.process,
            fleet.log_path,
            WORKER_READY_TIMEOUT_S,
        )
        result["alone_s"] = _time_small(project_b, files["alone"], small)
        large_job = _upload(project_a, files["large"], large).run.latest_job()
        _wait_for_values(large_job)
        time.sleep(LARGE_HEAD_START_S)
        large_job.refresh_from_db()
        result["large_at_start"] = (large_job.processed, large_job.total)
        result["beside_s"] = _time_small(project_b, files["beside"], small)
        large_job.refresh_from_db()
        result["large_at_end"] = (large_job.processed, large_job.total)
    return result


def _upload(project: Any, path: Path, expected: int) -> Any:
    from properties.uploads import ingest

    upload = ingest.ingest_path(project, path.stem, path, start_scoring=True)
    assert upload.accepted == expected, upload.row_errors[:3]
    return upload


def _wait_for_values(job: Any) -> None:
    from properties.models import PropertyValue

    deadline = time.monotonic() + SMALL_TIMEOUT_S
    while not PropertyValue.objects.filter(run_id=job.run_id).exists():
        if time.monotonic() > deadline:
            raise TimeoutError("the large job stored no value")
        time.sleep(0.5)


def _time_small(project: Any, path: Path, expected: int) -> float | None:
    started = time.time()
    job = _upload(project, path, expected).run.latest_job()
    deadline = time.monotonic() + SMALL_TIMEOUT_S
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.is_finished:
            assert job.status == "done", (job.status, job.failure)
            return job.finished_at.timestamp() - started
        time.sleep(0.25)
    return None


def seconds(value: float | None) -> str:
    return f"> {SMALL_TIMEOUT_S:.0f} s" if value is None else f"{value:.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--large", type=int, default=10_000)
    parser.add_argument("--small", type=int, default=50)
    parser.add_argument("--broker", choices=("sqlite", "redis", "both"), default=None)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from properties.scorers.runtime import models
    from tests import servers

    cache = os.environ.get("EVALSITE_MODEL_CACHE") or str(models.conversion_cache())
    brokers = ["sqlite", "redis"] if args.broker in (None, "both") else [args.broker]
    if args.broker is None and servers.binary_missing("redis-server"):
        brokers = ["sqlite"]
    print(f"small job: {args.small} interactions; large job: {args.large} interactions of another project")
    print(f"properties: {', '.join(PROPERTIES)}\n")
    print(
        f"{'broker':8} {'dispatch':22} {'small alone':>12} {'small beside large':>19} {'large done then':>18}  target"
    )
    for broker in brokers:
        for name, window in DISPATCHES.items():
            if broker == "redis":
                with servers.redis_server() as url:
                    found = in_child(measure, url, window, args.large, args.small, cache)
            else:
                found = in_child(measure, None, window, args.large, args.small, cache)
            beside = found["beside_s"]
            done, total = found["large_at_end"]
            met = "met" if beside is not None and beside <= TARGET_S else "missed"
            print(
                f"{broker:8} {name:22} {seconds(found['alone_s']):>12} {seconds(beside):>19}"
                f" {f'{done}/{total}':>18}  {met if name == 'fair' else ''}"
            )
            sys.stdout.flush()
    print(f"\nTarget: the small job within {TARGET_S:.0f} s while the large one runs (items: interaction x property).")


if __name__ == "__main__":
    main()
