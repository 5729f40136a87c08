"""Rescoring and deleting a large run in the background, and another project's pages meanwhile.

    .venv/bin/python -m bench.background [--interactions 1000000] [--other 100000] [--workers 2]
        [--phases rescore delete]

On a throwaway PostgreSQL cluster and Redis server (the scaled-out install), loads a LARGE run of
`--interactions` interactions with 15 values each, and a run of `--other` interactions in another
project, at the database's speed (bench/data_screen.py's loader). Then, with a Celery worker on the cpu
queue (a pool of `--workers` processes, as `make run` and compose's worker-cpu run it):

1. *quiet*: the other project's Data Screen pages are timed with nothing running (the baseline);
2. *rescore*: one property (word_count, not yet scored: every interaction is stale) is scored on
   the large run, as "Rescore" does; the other project's pages are timed again and again until the
   job ends;
3. *delete*: the large run is deleted, as its page does (hidden at once, its rows deleted in
   batches by a worker); the pages are timed the same way until the deletion job ends.

It prints each job's time to finish, and p50 / p95 of the other project's pages during each phase
against their targets (p95 under 300 ms: bench/data_screen.py's target). Server time is measured
through Django's test client in the bench's process, which shares the cores with the worker, as a
web process shares a small server with its workers.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from bench.child import in_child
from bench.data_screen import figures

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 300
JOB_TIMEOUT_S = 4 * 3600.0
PAGES = {
    "first page": "",
    "filtered page": "where=metric_00.output > 0.5 AND metric_01.output < 0.3",
    "failing + sorted": "where=failing:metric_01.output&sort=-metric_02.output",
    "panel open": "where=failing:metric_00.output&i=first",
}


def load(interactions: int, other: int) -> tuple[int, int]:
    from django.contrib.auth import get_user_model

    from bench.data_screen import bench_project, load_run
    from properties.models import Project

    large_project = bench_project()
    other_project = Project.objects.create(
        name="another team",
        enabled_properties=large_project.enabled_properties,
        key_properties=large_project.key_properties,
        pass_criteria=large_project.pass_criteria,
    )
    other_project.add_member(get_user_model().objects.get(username="bench"), "owner")
    large = load_run(large_project, f"{interactions} interactions", interactions)
    return large.pk, load_run(other_project, f"{other} interactions", other).pk


def time_pages(client: Any, run_id: int) -> dict[str, float]:
    """Milliseconds of one request to each page of the other project's run."""
    timings = {}
    for name, query in PAGES.items():
        started = time.perf_counter()
        response = client.get(f"/runs/{run_id}/?{query}")
        assert response.status_code == 200, response.status_code
        timings[name] = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    client.get(f"/runs/{run_id}/", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="pass-rates")
    timings["pass rates"] = (time.perf_counter() - started) * 1000
    return timings


def pages_until(client: Any, run_id: int, finished: Any, minimum: int) -> dict[str, list[float]]:
    """Time the pages again and again until `finished()` and at least `minimum` rounds."""
    samples: dict[str, list[float]] = {}
    rounds = 0
    deadline = time.monotonic() + JOB_TIMEOUT_S
    while rounds < minimum or not finished():
        if time.monotonic() > deadline:
            raise TimeoutError("the background job did not finish")
        for name, ms in time_pages(client, run_id).items():
            samples.setdefault(name, []).append(ms)
        rounds += 1
        time.sleep(0.2)
    return samples


def job_finished(job: Any) -> bool:
    job.refresh_from_db()
    return job.is_finished


def measure(interactions: int, other: int, workers: int, quiet_rounds: int, phases: list[str]) -> dict[str, Any]:
    from tests import servers

    with servers.postgres_server() as database_url, servers.redis_server() as broker_url:
        os.environ.update({"CELERY_BROKER_URL": broker_url, "CELERY_TASK_ALWAYS_EAGER": "false"})
        from bench.data_screen import setup_django

        setup_django(database_url)
        from django.contrib.auth import get_user_model
        from django.db import connection
        from django.test import Client

        from properties.models import Run
        from properties.pipeline import deletion, scoring

        started = time.perf_counter()
        large_id, other_id = load(interactions, other)
        result: dict[str, Any] = {"load_s": time.perf_counter() - started, "phases": {}}
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
        client = Client()
        client.force_login(get_user_model().objects.get(username="bench"))
        time_pages(client, other_id)  # warm the caches, as a page in use has them
        result["phases"]["quiet"] = {"samples": pages_until(client, other_id, lambda: True, quiet_rounds)}
        env = {"DATABASE_URL": database_url, "CELERY_BROKER_URL": broker_url}
        with servers.celery_worker(env, queues="cpu", concurrency=workers):
            large = Run.objects.get(pk=large_id)
            if "rescore" in phases:
                started = time.perf_counter()
                job = scoring.start_job(large, ["word_count"])
                samples = pages_until(client, other_id, lambda: job_finished(job), 3)
                assert job.status == "done", (job.status, job.failure)
                phase = {"seconds": time.perf_counter() - started, "samples": samples}
                result["phases"]["rescore word_count"] = phase
            if "delete" in phases:
                started = time.perf_counter()
                deletion.delete_run_later(large)
                # The deletion job goes with its run: the run gone is the job done.
                samples = pages_until(client, other_id, lambda: not Run.objects.filter(pk=large_id).exists(), 3)
                result["phases"]["delete the run"] = {"seconds": time.perf_counter() - started, "samples": samples}
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--interactions", type=int, default=1_000_000, help="interactions of the large run")
    parser.add_argument("--other", type=int, default=100_000, help="interactions of the other project's run")
    parser.add_argument("--workers", type=int, default=2, help="pool processes of the cpu worker")
    parser.add_argument("--quiet-rounds", type=int, default=20)
    parser.add_argument(
        "--phases", nargs="+", choices=["rescore", "delete"], default=["rescore", "delete"], help="after the quiet one"
    )
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    found = in_child(measure, args.interactions, args.other, args.workers, args.quiet_rounds, args.phases)
    print(
        f"\nPostgreSQL: a run of {args.interactions:,} interactions x 15 values and another project's run of"
        f" {args.other:,}, loaded in {found['load_s']:.0f} s; a cpu worker with {args.workers} pool processes"
    )
    for phase, phase_figures in found["phases"].items():
        took = f", finished in {phase_figures['seconds']:.0f} s" if "seconds" in phase_figures else ""
        rounds = len(next(iter(phase_figures["samples"].values())))
        print(f"\n{phase}{took} ({rounds} rounds of the other project's pages)")
        print(f"  {'page':<18} {'p50 ms':>8} {'p95 ms':>8}  target p95 < {TARGET_MS} ms")
        for page, samples in phase_figures["samples"].items():
            timing = figures(sorted(samples), None)
            verdict = "ok" if timing["p95"] < TARGET_MS else "MISS"
            print(f"  {page:<18} {timing['p50']:>8.1f} {timing['p95']:>8.1f}  {verdict}")
    print(f"\nload average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
