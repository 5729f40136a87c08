"""Capacity figures an operator can plan with: workers on the cheap queue, database bytes, broker bytes.

    .venv/bin/python -m bench.capacity [--rows 3000] [--workers 1,2] [--repeat 1]

Everything runs on a throwaway PostgreSQL cluster and a throwaway Redis server, as the scaled-out
install (docker-compose.yml) runs, in a process of its own:

1. **Workers on the cheap queue.** For each count N in `--workers`, N separate
   `celery -A evalsite worker -Q cpu --concurrency=1` processes, which is what
   `docker compose up --scale worker-cpu=N` runs with WORKER_CPU_CONCURRENCY=1, score a fresh
   upload of `--rows` interactions with the cheap properties (CHEAP: all on the cpu queue). The
   time runs from the upload's start to the job's `finished_at`; the upload itself (parsing and
   storing the rows) takes well under a second of it. The speed-up is one worker's time over N
   workers' time, measured in the same run; `--repeat` alternates the counts (1, 2, 1, 2, ...).
2. **Database bytes.** After the scoring, `pg_total_relation_size` (rows, indexes and TOAST) of the
   interaction and property value tables over their row counts, after VACUUM ANALYZE.
3. **Broker bytes per queued chunk.** With no worker running, an upload is planned in the bench's
   process with the dispatch window opened wider than the job, so every chunk is sent to Redis at
   once: Redis's `used_memory` after minus before, over the messages waiting in the queue. A
   message names its chunk; the chunk's interactions wait in the database, not in the broker.

Rows are distinct short support answers (about 60 words), so that no memo skips a repeat.
Figures on a shared machine are noisy: run it when the cores are otherwise idle, and read the load
average it prints.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from bench.child import in_child
from bench.fairness import write_jsonl

ROOT = Path(__file__).resolve().parents[1]
CHEAP = ["word_count", "reading_ease", "sentiment", "content_type", "compression_ratio"]
JOB_TIMEOUT_S = 1800.0
SUBJECTS = ["order", "invoice", "refund", "password", "subscription", "delivery", "warranty", "account"]
VERBS = ["shipped", "was updated", "is on its way", "was refunded", "needs a review", "was cancelled"]


def rows(count: int, prefix: str) -> list[dict[str, str]]:
    made = []
    for n in range(count):
        subject, verb = SUBJECTS[n % len(SUBJECTS)], VERBS[(n // len(SUBJECTS)) % len(VERBS)]
        output = (
            f"Thanks for writing in about {subject} {prefix}-{n}. I checked it just now and it {verb} on day "
            f"{n % 28 + 1}. You will get an email with the details within {n % 5 + 1} hours, and the page of "
            f"your {subject} shows every step as it happens. If anything still looks wrong after that, reply "
            f"to this message with the reference {prefix.upper()}{n:06d} and we will look at it again today."
        )
        made.append(
            {
                "user_interaction_id": f"{prefix}-{n}",
                "input": f"What happened to my {subject} {prefix}-{n}?",
                "output": output,
            }
        )
    return made


def setup(database_url: str, broker_url: str, data_dir: Path) -> None:
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "evalsite.settings",
            "DATABASE_URL": database_url,
            "CELERY_BROKER_URL": broker_url,
            "EVALSITE_DATA_DIR": str(data_dir),
            "SECRET_KEY": os.environ.get("SECRET_KEY") or "bench-only-secret-key",
            "CELERY_TASK_ALWAYS_EAGER": "false",
        }
    )
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def score_with_workers(count: int, path: Path, rows_expected: int, data_dir: Path) -> dict[str, Any]:
    from properties.models import Project
    from properties.uploads import ingest
    from tests import servers

    project = Project.objects.create(name=f"{count} cpu workers, {path.stem}", enabled_properties=CHEAP)
    with ExitStack() as stack:
        for _ in range(count):
            stack.enter_context(servers.celery_worker({}, queues="cpu", concurrency=1))
        started = time.time()
        upload = ingest.ingest_path(project, path.stem, path, start_scoring=True)
        uploaded = time.time()
        assert upload.accepted == rows_expected, upload.row_errors[:3]
        job = upload.run.latest_job()
        deadline = time.monotonic() + JOB_TIMEOUT_S
        while not job.is_finished:
            if time.monotonic() > deadline:
                raise TimeoutError(f"job {job.pk} not finished with {count} worker(s): {job.done}/{job.total}")
            time.sleep(0.25)
            job.refresh_from_db()
    assert job.status == "done", (job.status, job.failure)
    seconds = job.finished_at.timestamp() - started
    return {
        "workers": count,
        "rows": rows_expected,
        "items": job.total,
        "chunks": job.chunks.count(),
        "upload_s": round(uploaded - started, 2),
        "seconds": round(seconds, 2),
        "interactions_per_s": round(rows_expected / seconds, 1),
        "values_per_s": round(job.total / seconds, 1),
    }


def database_bytes() -> dict[str, dict[str, float]]:
    from django.db import connection

    from properties.models import Interaction, PropertyValue

    with connection.cursor() as cursor:
        for model in (Interaction, PropertyValue):
            cursor.execute(f'VACUUM ANALYZE "{model._meta.db_table}"')
        sizes = {}
        for name, model in (("interaction", Interaction), ("property value", PropertyValue)):
            cursor.execute("SELECT pg_total_relation_size(%s), pg_relation_size(%s)", [model._meta.db_table] * 2)
            total, heap = cursor.fetchone()
            count = model.objects.count()
            sizes[name] = {"rows": count, "bytes_per_row": total / count, "heap_bytes_per_row": heap / count}
    return sizes


def broker_bytes_per_chunk(broker_url: str, path: Path, rows_expected: int) -> dict[str, float]:
    import redis
    from django.test import override_settings

    from properties.models import Project
    from properties.pipeline import scoring
    from properties.uploads import ingest

    client = redis.Redis.from_url(broker_url)
    client.delete("cpu")
    before = client.info("memory")["used_memory"]
    project = Project.objects.create(name="queued, no worker", enabled_properties=CHEAP)
    upload = ingest.ingest_path(project, path.stem, path)
    assert upload.accepted == rows_expected, upload.row_errors[:3]
    with override_settings(EVALSITE_DISPATCH_WINDOW=10_000_000):
        scoring.plan_job(upload.run)  # planned here: no worker runs to take the planning task
    queued = client.llen("cpu")
    after = client.info("memory")["used_memory"]
    message = client.lindex("cpu", 0) or b""
    return {
        "chunks_queued": queued,
        "items_per_chunk": upload.run.latest_job().total / max(queued, 1),
        "bytes_per_chunk": (after - before) / max(queued, 1),
        "message_bytes": len(message),
    }


def measure(counts: list[int], repeat: int, row_count: int) -> dict[str, Any]:
    from tests import servers

    data_dir = Path(tempfile.mkdtemp(prefix="evalsite-bench-capacity-"))
    try:
        with servers.postgres_server() as database_url, servers.redis_server() as broker_url:
            setup(database_url, broker_url, data_dir)
            scoring = []
            for round_number in range(repeat):
                for count in counts:
                    prefix = f"w{count}r{round_number}"
                    path = write_jsonl(rows(row_count, prefix), data_dir / f"{prefix}.jsonl")
                    scoring.append(score_with_workers(count, path, row_count, data_dir))
                    print(json.dumps(scoring[-1]), flush=True)
            sizes = database_bytes()
            path = write_jsonl(rows(row_count, "queued"), data_dir / "queued.jsonl")
            broker = broker_bytes_per_chunk(broker_url, path, row_count)
            return {"scoring": scoring, "database": sizes, "broker": broker}
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def report(found: dict[str, Any], counts: list[int]) -> None:
    print(f"\nCheap properties ({', '.join(CHEAP)}) on the cpu queue, each worker process with one pool process:")
    header = ("workers", 8), ("rows", 7), ("values", 7), ("chunks", 7), ("seconds", 8), ("interactions/s", 15)
    print(" ".join(f"{name:>{width}}" for name, width in header), f"{'values/s':>9}")
    for row in found["scoring"]:
        print(
            f"{row['workers']:>8} {row['rows']:>7} {row['items']:>7} {row['chunks']:>7} {row['seconds']:>8.1f}"
            f" {row['interactions_per_s']:>15.1f} {row['values_per_s']:>9.1f}"
        )
    by_count = {count: [r["seconds"] for r in found["scoring"] if r["workers"] == count] for count in counts}
    baseline = min(by_count[counts[0]])
    for count in counts[1:]:
        print(f"speed-up of {count} workers over {counts[0]} (best times): {baseline / min(by_count[count]):.2f}")
    print("\nDatabase (PostgreSQL, rows + indexes + TOAST, after VACUUM ANALYZE):")
    for name, size in found["database"].items():
        print(
            f"  {name:15} {size['rows']:>8} rows  {size['bytes_per_row']:>7.0f} bytes per row"
            f" ({size['heap_bytes_per_row']:.0f} in the table itself)"
        )
    broker = found["broker"]
    print(
        f"\nBroker (Redis): {broker['chunks_queued']} chunks queued of {broker['items_per_chunk']:.0f} items each;"
        f" {broker['bytes_per_chunk']:.0f} bytes of Redis memory per queued chunk"
        f" (the message itself: {broker['message_bytes']} bytes)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--workers", default="1,2", help="worker process counts to compare, the first the baseline")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    counts = [int(part) for part in args.workers.split(",")]
    sys.path.insert(0, str(ROOT))
    from tests import servers

    for binary in ("redis-server", "initdb"):
        if servers.binary_missing(binary):
            sys.exit(servers.binary_missing(binary))
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    found = in_child(measure, counts, args.repeat, args.rows)
    report(found, counts)
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
