"""Server time of the Data Screen on a large run, on SQLite and on PostgreSQL.

    .venv/bin/python -m bench.data_screen [--interactions 100000] [--repeat 20] [--no-postgres]

Loads INTERACTIONS interactions with 15 property values each (13 numeric, 2 categorical) into a
fresh database, then times the first page, a filtered page (two property ranges and an
annotation filter) and a page sorted by a property, through Django's test client: the time the
server spends on the request, without a network. Each database runs in its own process.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NUMERIC = [f"metric_{i:02d}" for i in range(13)]
CATEGORIES = {"content_type": ["json", "sql", "other"], "language": ["en", "fr", "de", "es"]}
TARGET_MS = 300
CASES = {
    "first page": "",
    "filtered page": "where=metric_00.output>0.5&where=metric_01.output<0.3&annotation=bad",
    "sorted page": "sort=-metric_02.output",
    "sorted + filtered": "where=content_type.output=sql&sort=metric_03.output",
}


def load(interactions: int) -> int:
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from properties.models import Interaction, Project, PropertyValue, Run, input_hash

    rng = random.Random(7)
    user = get_user_model().objects.create_user("bench", password="bench-password-123")
    project = Project.objects.create(name="bench", enabled_properties=[])
    project.add_member(user, "owner")
    run = Run.objects.create(project=project, name="large")
    batch = 5000
    for start in range(0, interactions, batch):
        with transaction.atomic():
            rows = []
            for i in range(start, min(start + batch, interactions)):
                text = f"Question {i} about the refund policy of order {rng.randrange(10**6)}?"
                rows.append(
                    Interaction(
                        run=run,
                        user_interaction_id=f"row-{i}",
                        input=text,
                        input_hash=input_hash(text),
                        output=f"Answer {i}: " + "lorem ipsum dolor sit amet " * rng.randrange(2, 30),
                        annotation=rng.choice(["good", "bad", "unknown"]),
                    )
                )
            created = Interaction.objects.bulk_create(rows)
            values = []
            for interaction in created:
                for name in NUMERIC:
                    values.append(_value(run, interaction, name, value=rng.random()))
                for name, labels in CATEGORIES.items():
                    values.append(_value(run, interaction, name, label=rng.choice(labels)))
            PropertyValue.objects.bulk_create(values, batch_size=5000)
    return run.pk


def _value(run, interaction, name, value=None, label=""):
    from properties.models import PropertyValue

    return PropertyValue(
        interaction=interaction,
        run=run,
        property_name=name,
        field="output",
        value=value,
        label=label,
        scorer_version="1:bench",
    )


def measure(database_url: str, interactions: int, repeat: int) -> dict:
    os.environ["DATABASE_URL"] = database_url
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

    setup_test_environment()
    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    run_id = load(interactions)
    load_seconds = time.perf_counter() - started
    with connection.cursor() as cursor:
        # What a live PostgreSQL's autovacuum does by itself; SQLite gets it from PRAGMA optimize.
        cursor.execute("ANALYZE" if connection.vendor == "postgresql" else "PRAGMA optimize")
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench"))
    results = {"database": connection.vendor, "load_s": load_seconds, "cases": {}}
    for case, query in CASES.items():
        url = f"/runs/{run_id}/?{query}"
        timings = []
        for attempt in range(repeat + 2):
            started = time.perf_counter()
            response = client.get(url)
            elapsed = (time.perf_counter() - started) * 1000
            assert response.status_code == 200, response.status_code
            if attempt >= 2:  # the first two warm the caches
                timings.append(elapsed)
        timings.sort()
        results["cases"][case] = {
            "p50": statistics.median(timings),
            "p95": timings[max(0, int(round(0.95 * len(timings))) - 1)],
            "matches": response.context["page"].paginator.count,
        }
    return results


def in_child(database_url: str, interactions: int, repeat: int) -> dict:
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(measure, database_url, interactions, repeat).result()


def report(result: dict, interactions: int) -> None:
    print(f"\n{result['database']}: {interactions:,} interactions x 15 values loaded in {result['load_s']:.0f} s")
    print(f"  {'case':<20} {'p50 ms':>8} {'p95 ms':>8} {'matches':>9}  target p95 < {TARGET_MS} ms")
    for case, figures in result["cases"].items():
        verdict = "ok" if figures["p95"] < TARGET_MS else "MISS"
        print(f"  {case:<20} {figures['p50']:>8.1f} {figures['p95']:>8.1f} {figures['matches']:>9,}  {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--interactions", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        report(in_child(f"sqlite:///{folder}/bench.sqlite3", args.interactions, args.repeat), args.interactions)
    if args.no_postgres:
        return
    sys.path.insert(0, str(ROOT))
    from tests import servers

    if servers.binary_missing("initdb"):
        print("\nPostgreSQL: initdb not found, skipped")
        return
    with servers.postgres_server() as url:
        report(in_child(url, args.interactions, args.repeat), args.interactions)


if __name__ == "__main__":
    main()
