"""How fast the workers' upsert stores property values, and the bytes each value takes, with and
without the single-column indexes of PropertyValue's two keys (dropped by migration 0018).

    .venv/bin/python -m bench.value_writes [--interactions 20000] [--properties 15] [--repeat 2]

On a throwaway PostgreSQL cluster (tests/servers.py) or `--postgres-url`, and on SQLite, in a
process of its own for each layout: a run of INTERACTIONS interactions is loaded as bench/data_screen.py
loads it, then each property's values are written through `scoring.store_values`, the upsert a
worker runs for each chunk, in chunks of `--chunk` interactions, first as new rows and then again
over the same keys (a rescore: every row conflicts and is updated). "with key indexes" recreates
the two indexes the migration drops; the layouts alternate `--repeat` times, so both see the same
load. Prints values per second of each pass and, on PostgreSQL, bytes per value (table, indexes and
TOAST, after VACUUM).
"""

from __future__ import annotations

import argparse
import importlib
import tempfile
import time
from contextlib import nullcontext

from bench.child import in_child
from bench.data_screen import bench_project, load_interactions, setup_django

LAYOUTS = ("with key indexes", "without (as migrated)")


def measure(database_url: str, layout: str, interactions: int, properties: int, chunk: int) -> dict:
    setup_django(database_url)
    from django.db import connection, transaction

    from properties.models import Interaction, PropertyValue, Run
    from properties.pipeline import scoring
    from properties.scorers.base import Score

    if layout == LAYOUTS[0]:
        migration = importlib.import_module("properties.migrations.0018_lean_value_indexes")
        with connection.schema_editor() as editor:
            migration.create_key_indexes(_Apps(PropertyValue), editor)
    run = Run.objects.create(project=bench_project(), name=f"writes {layout}")
    load_interactions(run, interactions)
    ids = list(Interaction.objects.filter(run=run).order_by("pk").values_list("pk", flat=True))
    result = {}
    for name in ("insert", "update"):
        started = time.perf_counter()
        for number in range(properties):
            setup = scoring.ScorerSetup(f"metric_{number:02d}", None, ("output",), "cpu", "1:bench", "")
            for start in range(0, len(ids), chunk):
                page = ids[start : start + chunk]
                scores = {(pk, "output"): Score(value=(pk * 7919 + number) % 1000 / 1000) for pk in page}
                with transaction.atomic():
                    scoring.store_values(run.pk, setup, scores)
        result[name] = len(ids) * properties / (time.perf_counter() - started)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE properties_propertyvalue")
            cursor.execute("SELECT pg_total_relation_size('properties_propertyvalue')")
            result["bytes_per_value"] = cursor.fetchone()[0] / PropertyValue.objects.count()
    return result


class _Apps:
    """The one model the migration's functions ask the app registry for."""

    def __init__(self, model) -> None:
        self.model = model

    def get_model(self, app: str, name: str):
        return self.model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--interactions", type=int, default=20_000)
    parser.add_argument("--properties", type=int, default=15)
    parser.add_argument("--chunk", type=int, default=200, help="interactions a chunk (EVALSITE_CHUNK_SIZE's order)")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--postgres-url", help="a server whose databases the bench may create and drop")
    parser.add_argument("--no-sqlite", action="store_true")
    args = parser.parse_args()
    from tests import servers

    with tempfile.TemporaryDirectory() as folder:
        postgres = nullcontext(args.postgres_url) if args.postgres_url else servers.postgres_server()
        with postgres as url:
            print(f"{args.interactions:,} interactions x {args.properties} properties, chunks of {args.chunk}")
            columns = f"{'insert values/s':>16} {'update values/s':>16} {'bytes/value':>12}"
            print(f"  {'database':<10} {'layout':<22} {columns}")
            for database in ("postgres",) if args.no_sqlite else ("postgres", "sqlite"):
                for attempt in range(args.repeat):
                    for number, layout in enumerate(LAYOUTS):
                        name = f"writes_{attempt}_{number}"
                        if database == "postgres":
                            _create_database(url, name)
                            database_url = f"{url.rsplit('/', 1)[0]}/{name}"
                        else:
                            database_url = f"sqlite:///{folder}/{name}.sqlite3"
                        result = in_child(measure, database_url, layout, args.interactions, args.properties, args.chunk)
                        size = f"{result['bytes_per_value']:>12.0f}" if "bytes_per_value" in result else ""
                        speeds = f"{result['insert']:>16,.0f} {result['update']:>16,.0f}"
                        print(f"  {database:<10} {layout:<22} {speeds} {size}", flush=True)


def _create_database(url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        connection.execute(f'CREATE DATABASE "{name}"')


if __name__ == "__main__":
    main()
