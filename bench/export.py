"""Throughput and peak memory of a run's export, streamed as the browser downloads it, on SQLite and PostgreSQL.

    .venv/bin/python -m bench.export [--interactions 100000] [--no-postgres]
    nice -n 10 .venv/bin/python -m bench.export --interactions 1000000 --cases "filtered, CSV"

Loads INTERACTIONS interactions with 15 property values each (bench/data_screen.py's project: 13
numeric properties, four of them key properties with a threshold, 2 categorical; one property's
values carry two evidence spans) into a fresh database, at the database's speed: the interactions
through the upload's insert (properties.uploads.inserts), the values with one INSERT ... SELECT.
Then, each case in a fresh process: logs in, notes the process's memory at rest, downloads the
export through Django's test client chunk by chunk (as a server streams it), and prints rows per
second, the process's CPU time and its peak resident memory above that rest (the kernel's
high-water mark, reset at rest). Bounded memory shows as a peak that does not grow with the run.
Without --postgres-url a throwaway PostgreSQL server is started as the tests do (tests/servers.py);
with it the database is yours and is kept, and a run an earlier bench loaded there is reused.

Targets (issue 31): 20,000 rows/s or more at 1,000,000 rows with a filter applied, under 200 MB
above idle.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from contextlib import nullcontext

from bench.child import in_child
from bench.data_screen import bench_project, load_run, setup_django

CASES = {
    "whole run, CSV": ("csv", ""),
    "whole run, JSON": ("json", ""),
    "filtered, CSV": ("csv", "where=failing:metric_00.output OR metric_01.output > 0.9"),
    "filtered and sorted, CSV": (
        "csv",
        "where=failing:metric_00.output OR metric_01.output > 0.9&sort=-metric_02.output",
    ),
}
SPANS = [
    {"field": "output", "start": 0, "end": 6, "label": "statement", "score": 0.2, "note": "not in the documents"},
    {"field": "input", "start": 0, "end": 8, "label": "topic", "score": 0.7, "note": "weight 2"},
]
TARGET_ROWS_PER_S = 20_000
TARGET_ABOVE_IDLE_MB = 200


def prepare(database_url: str, interactions: int) -> int:
    """The run's id: loaded now, or the one an earlier bench loaded into a database given with
    --postgres-url (a million interactions load once, not at every measurement)."""
    setup_django(database_url)
    from django.db import connection

    from properties.models import Run

    name = f"export-{interactions}"
    if run := Run.objects.filter(name=name, project__name="bench").first():
        return run.pk
    run = load_run(bench_project(), name, interactions, spans=SPANS)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return run.pk


def memory_kib(key: str) -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(key))


def reset_peak_memory() -> None:
    # Linux: writing 5 resets this process's VmHWM (peak resident size) to its current size.
    with open("/proc/self/clear_refs", "w") as clear_refs:
        clear_refs.write("5")


def measure(database_url: str, run_id: int, file_format: str, query: str) -> dict:
    setup_django(database_url)
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.get(username="bench"))
    client.get(f"/runs/{run_id}/export.{file_format}?where=annotation = good AND annotation = bad")  # warm, no rows
    idle = memory_kib("VmRSS:")
    reset_peak_memory()
    started, cpu_started = time.perf_counter(), time.process_time()
    response = client.get(f"/runs/{run_id}/export.{file_format}?{query}")
    assert response.status_code == 200, response.status_code
    size = lines = 0
    for chunk in response.streaming_content:
        size += len(chunk)
        lines += chunk.count(b"\n")
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    above = max(0, memory_kib("VmHWM:") - idle)
    return {"seconds": seconds, "cpu_seconds": cpu_seconds, "bytes": size, "lines": lines, "above_idle_kib": above}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--interactions", type=int, default=100_000)
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    parser.add_argument(
        "--postgres-url", help="a database of your own, kept: a run an earlier bench loaded there is reused"
    )
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-sqlite", action="store_true")
    args = parser.parse_args()
    from tests import servers

    with tempfile.TemporaryDirectory() as folder:
        databases = {} if args.no_sqlite else {"sqlite": f"sqlite:///{folder}/bench.sqlite3"}
        if args.no_postgres or (not args.postgres_url and servers.binary_missing("initdb")):
            postgres = nullcontext(None)
        else:
            postgres = nullcontext(args.postgres_url) if args.postgres_url else servers.postgres_server()
        with postgres as url:
            databases |= {"postgres": url} if url else {}
            for database, database_url in databases.items():
                started = time.perf_counter()
                run_id = in_child(prepare, database_url, args.interactions)
                loaded = f"loaded in {time.perf_counter() - started:.0f} s"
                print(f"\n{database}: export of {args.interactions:,} interactions x 15 values ({loaded})")
                print(
                    f"  {'case':<26} {'rows':>9} {'seconds':>8} {'cpu s':>7} {'rows/s':>8} {'MB':>7} {'above idle':>11}"
                )
                for case in args.cases:
                    file_format, query = CASES[case]
                    result = in_child(measure, database_url, run_id, file_format, query)
                    # A JSON record is one line, between the "[" and "]" lines; CSV has its header.
                    rows = result["lines"] - (2 if file_format == "json" else 1)
                    rate = rows / result["seconds"]
                    above = result["above_idle_kib"] / 1024
                    verdict = "ok" if rate >= TARGET_ROWS_PER_S else "UNDER SPEED TARGET"
                    verdict = verdict if above < TARGET_ABOVE_IDLE_MB else "OVER MEMORY TARGET"
                    print(
                        f"  {case:<26} {rows:>9,} {result['seconds']:>8.1f} {result['cpu_seconds']:>7.1f} {rate:>8,.0f}"
                        f" {result['bytes'] / 1e6:>7.1f} {above:>8.1f} MB  {verdict}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
