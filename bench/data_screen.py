"""Server time of the Data Screen on a large run, and of the comparison page, on SQLite and PostgreSQL.

    .venv/bin/python -m bench.data_screen [--interactions 100000] [--repeat 20] [--no-postgres]
    .venv/bin/python -m bench.data_screen --compare [--runs 10] [--interactions 10000]

Loads INTERACTIONS interactions with 15 property values each (13 numeric, 2 categorical) into a
fresh database; four numeric properties are the project's key properties, with a threshold. Then
times, through Django's test client (the time the server spends on the request, without a
network): the first page, a filtered page (two property ranges and an annotation filter), a page
sorted by a property, both, a page of the interactions failing a key property, the same sorted,
a page with an interaction open in the side panel, and the pass-rate fragment (computed once,
then read from the cache; its first computation is printed apart). `--compare` loads RUNS runs of
INTERACTIONS each and times the comparison page of all of them (the key properties' charts) and
the row-by-row fragment of two. Each database runs in its own process.
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
COMPARE_TARGET_MS = 500
KEY = NUMERIC[:4]
CASES = {
    "first page": "",
    "filtered page": "where=metric_00.output>0.5&where=metric_01.output<0.3&annotation=bad",
    "sorted page": "sort=-metric_02.output",
    "sorted + filtered": "where=content_type.output=sql&sort=metric_03.output",
    "failing filter": "where=failing:metric_00.output",
    "failing + sorted": "where=failing:metric_01.output&sort=-metric_02.output",
    "panel open": "where=failing:metric_00.output&i=first",
    "OR and NOT filter": "where=metric_00.output > 0.9 OR (failing:metric_01.output AND NOT annotation = good)",
    "pass rates (cached)": "pass-rates",
}


def load(interactions: int, runs: int = 1) -> list[int]:
    project = bench_project()
    return [load_run(project, f"run-{number}", interactions, number) for number in range(runs)]


def bench_project():
    """The benches' project: a user "bench" owns it, its key properties pass at 0.5 and above."""
    from django.contrib.auth import get_user_model

    from properties.models import Project

    user = get_user_model().objects.create_user("bench", password="bench-password-123")
    project = Project.objects.create(
        name="bench",
        enabled_properties=[],
        key_properties=KEY,
        pass_criteria={name: {"direction": "higher", "threshold": 0.5} for name in KEY},
    )
    project.add_member(user, "owner")
    return project


def load_run(project, name: str, interactions: int, seed: int) -> int:
    from django.db import transaction

    from properties.models import Interaction, PropertyValue, Run, input_hash

    rng = random.Random(7 + seed)
    run = Run.objects.create(project=project, name=name)
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
                    # Later runs drift upwards a little, as a better version would.
                    values.append(_value(run, interaction, name, value=min(1.0, rng.random() + 0.02 * seed)))
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


def timed(client, url: str, repeat: int, **headers) -> tuple[list[float], object]:
    """Milliseconds of `repeat` requests after two that warm the caches, and the last response."""
    timings = []
    for attempt in range(repeat + 2):
        started = time.perf_counter()
        response = client.get(url, **headers)
        elapsed = (time.perf_counter() - started) * 1000
        assert response.status_code == 200, response.status_code
        if attempt >= 2:
            timings.append(elapsed)
    return sorted(timings), response


def figures(timings: list[float], matches: int | None) -> dict:
    return {
        "p50": statistics.median(timings),
        "p95": timings[max(0, int(round(0.95 * len(timings))) - 1)],
        "matches": matches,
    }


def setup_django(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("SECRET_KEY", "bench-only")
    os.environ.setdefault("EVALSITE_DATA_DIR", tempfile.mkdtemp(prefix="evalsite-bench-"))
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    setup_test_environment()
    call_command("migrate", verbosity=0)


def loaded(interactions: int, runs: int = 1) -> tuple[list[int], float, object]:
    """Run ids, load seconds and a logged-in client."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    started = time.perf_counter()
    run_ids = load(interactions, runs)
    load_seconds = time.perf_counter() - started
    with connection.cursor() as cursor:
        # What a live PostgreSQL's autovacuum does by itself after a bulk load (VACUUM sets the
        # visibility map that index-only scans need; ANALYZE the planner's statistics); SQLite gets
        # its statistics from PRAGMA optimize.
        cursor.execute("VACUUM ANALYZE" if connection.vendor == "postgresql" else "PRAGMA optimize")
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench"))
    return run_ids, load_seconds, client


def measure(database_url: str, interactions: int, repeat: int) -> dict:
    setup_django(database_url)
    from django.db import connection

    (run_id,), load_seconds, client = loaded(interactions)
    results = {"database": connection.vendor, "load_s": load_seconds, "cases": {}}
    url = f"/runs/{run_id}/"
    started = time.perf_counter()
    client.get(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="pass-rates")
    results["pass_rates_first_ms"] = (time.perf_counter() - started) * 1000
    for case, query in CASES.items():
        if query == "pass-rates":
            timings, _ = timed(client, url, repeat, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="pass-rates")
            results["cases"][case] = figures(timings, None)
            continue
        timings, response = timed(client, f"{url}?{query}", repeat)
        results["cases"][case] = figures(timings, response.context["page"].paginator.count)
    return results


def measure_compare(database_url: str, interactions: int, runs: int, repeat: int) -> dict:
    setup_django(database_url)
    from django.db import connection

    run_ids, load_seconds, client = loaded(interactions, runs)
    project_id = client.get(f"/runs/{run_ids[0]}/").context["run"].project_id
    chosen = "&".join(f"runs={pk}" for pk in run_ids)
    results = {"database": connection.vendor, "load_s": load_seconds, "cases": {}}
    timings, _ = timed(client, f"/projects/{project_id}/compare/?{chosen}", repeat)
    results["cases"][f"compare {runs} runs"] = figures(timings, None)
    pair = f"runs={run_ids[0]}&runs={run_ids[1]}"
    timings, _ = timed(client, f"/projects/{project_id}/compare/?{pair}", repeat)
    results["cases"]["compare 2 runs"] = figures(timings, None)
    diff = f"/projects/{project_id}/compare/?{pair}&property=metric_00.output"
    timings, _ = timed(client, diff, repeat, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="row-diff")
    results["cases"]["row-by-row fragment"] = figures(timings, None)
    return results


def in_child(function, *args) -> dict:
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(function, *args).result()


def report(result: dict, what: str, target_ms: int) -> None:
    print(f"\n{result['database']}: {what} x 15 values loaded in {result['load_s']:.0f} s")
    if "pass_rates_first_ms" in result:
        print(f"  pass rates, first computation (then cached): {result['pass_rates_first_ms']:.0f} ms")
    print(f"  {'case':<22} {'p50 ms':>8} {'p95 ms':>8} {'matches':>9}  target p95 < {target_ms} ms")
    for case, numbers in result["cases"].items():
        verdict = "ok" if numbers["p95"] < target_ms else "MISS"
        matches = "" if numbers["matches"] is None else f"{numbers['matches']:,}"
        print(f"  {case:<22} {numbers['p50']:>8.1f} {numbers['p95']:>8.1f} {matches:>9}  {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--interactions", type=int, help="per run (default 100,000; 10,000 with --compare)")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--compare", action="store_true", help="time the comparison page instead")
    parser.add_argument("--runs", type=int, default=10, help="runs compared (with --compare)")
    args = parser.parse_args()
    interactions = args.interactions or (10_000 if args.compare else 100_000)

    def run_on(url: str) -> None:
        if args.compare:
            result = in_child(measure_compare, url, interactions, args.runs, args.repeat)
            report(result, f"{args.runs} runs of {interactions:,} interactions", COMPARE_TARGET_MS)
        else:
            report(in_child(measure, url, interactions, args.repeat), f"{interactions:,} interactions", TARGET_MS)

    with tempfile.TemporaryDirectory() as folder:
        run_on(f"sqlite:///{folder}/bench.sqlite3")
    if args.no_postgres:
        return
    sys.path.insert(0, str(ROOT))
    from tests import servers

    if servers.binary_missing("initdb"):
        print("\nPostgreSQL: initdb not found, skipped")
        return
    with servers.postgres_server() as url:
        run_on(url)


if __name__ == "__main__":
    main()
