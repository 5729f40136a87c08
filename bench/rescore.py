"""The rescore request on a large run, and the planning it hands to a worker, on SQLite and PostgreSQL.

    .venv/bin/python -m bench.rescore [--interactions 1000000] [--repeat 5] [--no-postgres]

Loads INTERACTIONS interactions into a fresh database (none scored: everything is stale), then
times the POST of "Rescore stale values" through Django's test client (the server's time, without a
network; issue 15 asks for under 1 s on a million rows), and the planning a worker then does for
one property (word_count): reading what is stale and storing its chunks, sent to an in-memory
broker. Each database runs in its own process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.child import in_child

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 1.0
LOAD_BATCH = 10_000


def load(interactions: int) -> int:
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from properties.models import Interaction, Project, Run, input_hash

    user = get_user_model().objects.create_user("bench", password="bench-password-123")
    project = Project.objects.create(name="bench", enabled_properties=["word_count"])
    project.add_member(user, "owner")
    run = Run.objects.create(project=project, name="large")
    for start in range(0, interactions, LOAD_BATCH):
        rows = [
            Interaction(
                run=run,
                user_interaction_id=f"row-{i}",
                input=f"Question {i}?",
                input_hash=input_hash(f"Question {i}?"),
                output=f"Answer number {i}.",
            )
            for i in range(start, min(start + LOAD_BATCH, interactions))
        ]
        with transaction.atomic():
            Interaction.objects.bulk_create(rows)
    return run.pk


def measure(database_url: str, interactions: int, repeat: int) -> dict:
    os.environ["DATABASE_URL"] = database_url
    os.environ["CELERY_BROKER_URL"] = "memory://"
    os.environ.setdefault("SECRET_KEY", "bench-only")
    os.environ.setdefault("EVALSITE_DATA_DIR", tempfile.mkdtemp(prefix="evalsite-bench-"))
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment

    from properties.models import Run, ScoringChunk
    from properties.pipeline import scoring
    from properties.scorers import registry

    setup_test_environment()
    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    run_id = load(interactions)
    load_seconds = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE" if connection.vendor == "postgresql" else "PRAGMA optimize")
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench"))
    # A running server has its modules imported and its scorers registered: so does this process.
    assert client.get(f"/runs/{run_id}/").status_code == 200
    registry.all_scorers()
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.post(f"/runs/{run_id}/rescore/")
        timings.append(time.perf_counter() - started)
        assert response.status_code == 302, response.status_code
    job = Run.objects.get(pk=run_id).latest_job()
    started = time.perf_counter()
    scoring.plan_chunks(job.chunks.get(kind=ScoringChunk.Kind.PLAN).pk)
    planning = time.perf_counter() - started
    job.refresh_from_db()
    return {
        "database": connection.vendor,
        "load_s": load_seconds,
        "request_s": sorted(timings),
        "planning_s": planning,
        "chunks": job.chunks.filter(kind=ScoringChunk.Kind.SCORE).count(),
        "total": job.total,
    }


def report(result: dict, interactions: int) -> None:
    timings = result["request_s"]
    verdict = "ok" if max(timings) < TARGET_S else "MISS"
    print(f"\n{result['database']}: {interactions:,} interactions loaded in {result['load_s']:.0f} s")
    print(
        f"  rescore request: median {statistics.median(timings) * 1000:.0f} ms, "
        f"max {max(timings) * 1000:.0f} ms over {len(timings)}  (target < {TARGET_S:g} s: {verdict})"
    )
    print(
        f"  planning on the worker (word_count): {result['planning_s']:.1f} s, "
        f"{result['chunks']:,} chunks, {result['total']:,} values"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--interactions", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        report(
            in_child(measure, f"sqlite:///{folder}/bench.sqlite3", args.interactions, args.repeat), args.interactions
        )
    if args.no_postgres:
        return
    sys.path.insert(0, str(ROOT))
    from tests import servers

    if servers.binary_missing("initdb"):
        print("\nPostgreSQL: initdb not found, skipped")
        return
    with servers.postgres_server() as url:
        report(in_child(measure, url, args.interactions, args.repeat), args.interactions)


if __name__ == "__main__":
    main()
