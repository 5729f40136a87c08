"""Throughput and peak memory of a run's export, streamed as the browser downloads it.

    .venv/bin/python -m bench.export [--interactions 20000]

Loads INTERACTIONS interactions with 15 property values each (bench/data_screen.py's run; one
property's values carry two evidence spans) into a fresh SQLite database. Then, each case in a
fresh process: logs in, notes the process's memory at rest, downloads the export through Django's
test client chunk by chunk (as a server streams it), and prints rows per second and the peak
resident memory above that rest. Bounded memory shows as a peak that does not grow with the run.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

from bench.data_screen import load, setup_django

CASES = {
    "whole run, CSV": ("csv", ""),
    "whole run, JSON": ("json", ""),
    "filtered and sorted, CSV": (
        "csv",
        "where=failing:metric_00.output OR metric_01.output > 0.9&sort=-metric_02.output",
    ),
}
SPANS = [
    {"field": "output", "start": 0, "end": 6, "label": "statement", "score": 0.2, "note": "not in the documents"},
    {"field": "input", "start": 0, "end": 8, "label": "topic", "score": 0.7, "note": "weight 2"},
]


def prepare(database_url: str, interactions: int) -> int:
    setup_django(database_url)
    from properties.models import PropertyValue

    (run_id,) = load(interactions)
    PropertyValue.objects.filter(run_id=run_id, property_name="metric_00").update(spans=SPANS)
    return run_id


def peak_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux


def resident_kib() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def measure(database_url: str, run_id: int, file_format: str, query: str) -> dict:
    setup_django(database_url)
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.get(username="bench"))
    client.get(f"/runs/{run_id}/export.{file_format}?where=annotation = good AND annotation = bad")  # warm, no rows
    idle = resident_kib()
    started = time.perf_counter()
    response = client.get(f"/runs/{run_id}/export.{file_format}?{query}")
    assert response.status_code == 200, response.status_code
    size = lines = 0
    for chunk in response.streaming_content:
        size += len(chunk)
        lines += chunk.count(b"\n")
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "bytes": size, "lines": lines, "peak_above_idle_kib": max(0, peak_kib() - idle)}


def in_child(function, *args):
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(function, *args).result()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--interactions", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/bench.sqlite3"
        run_id = in_child(prepare, url, args.interactions)
        print(f"\nsqlite: export of {args.interactions:,} interactions x 15 values")
        print(f"  {'case':<26} {'rows':>8} {'rows/s':>8} {'MB':>7} {'peak RSS above idle':>20}")
        for case, (file_format, query) in CASES.items():
            result = in_child(measure, url, run_id, file_format, query)
            # A JSON record is one line, between the "[" and "]" lines; CSV has its header.
            rows = result["lines"] - (2 if file_format == "json" else 1)
            print(
                f"  {case:<26} {rows:>8,} {rows / result['seconds']:>8,.0f} {result['bytes'] / 1e6:>7.1f}"
                f" {result['peak_above_idle_kib'] / 1024:>17.1f} MB"
            )


if __name__ == "__main__":
    main()
